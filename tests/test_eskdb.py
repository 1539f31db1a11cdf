"""ESKDB: sampled orders, seeded, parallel = serial, prediction = mean of members' posteriors."""

import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pybnc import ESKDB, SKDB
from pybnc.averaging.eskdb import sampled_order
from pybnc.averaging import member_bins
from pybnc.averaging.member_bins import cmi_rows
from pybnc.counts.tables import count
from pybnc.datasets import load_dataset
from pybnc.encode.discretize import sampled_mdl_columns, sampled_mdl_cut_points
from pybnc.estimators.base import Encoding, log_posterior
from pybnc.scores.information import pairwise_cmi
from pybnc.search.kdb import ranked_parents
from pybnc.encode import Encoder


def test_sampled_order_is_a_permutation_with_zero_information_last():
    rng = np.random.RandomState(0)
    mi = np.array([0.0, 0.3, 0.1, 0.0, 0.6])
    orders = [sampled_order(mi, rng) for _ in range(200)]
    for order in orders:
        assert sorted(order.tolist()) == [0, 1, 2, 3, 4] and order[3:].tolist() == [0, 3]
    first = np.bincount([o[0] for o in orders], minlength=5) / 200
    assert first[4] > first[1] > first[2] > 0  # drawn in proportion to the information


@pytest.fixture(scope="module")
def votes():
    return load_dataset("house-votes-84")  # missing values


def test_seeded_parallel_and_the_mean_of_its_members(votes):
    X, y = votes
    kw = dict(n_estimators=3, k=2, hdp_iterations=30, random_state=4, verbose=0)
    model = ESKDB(**kw, n_jobs=1).fit(X, y)
    mi_order = SKDB(k=2, verbose=0).fit(X, y).order_
    assert model.orders_[0].tolist() == mi_order.tolist()
    assert len({tuple(o) for o in model.orders_}) > 1
    np.testing.assert_array_equal(ESKDB(**kw, n_jobs=2).fit(X, y).predict_proba(X), model.predict_proba(X))
    codes = [encoder.transform(X) for encoder in model.member_encoders()]
    mean = np.mean([np.exp(log_posterior(jll)) for jll in model.member_log_joint(codes)], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean / mean.sum(axis=1, keepdims=True), atol=1e-13)


def _entropy(counts):
    p = np.asarray(counts, float) / np.sum(counts)
    return -sum(q * np.log2(q) for q in p if q > 0)


def test_sampled_mdl_draws_in_proportion_to_the_margin_or_the_gain():
    rng = np.random.default_rng(0)
    # no split passes MDL: one cut, drawn in proportion to its information gain
    noisy = np.array([[4, 1], [2, 3], [1, 4]])
    gains = []
    for j in (1, 2):
        left, right = noisy[:j].sum(0), noisy[j:].sum(0)
        gains.append(_entropy(noisy.sum(0)) - (left.sum() * _entropy(left) + right.sum() * _entropy(right)) / 15)
    draws = [tuple(sampled_mdl_cut_points(noisy, [0.5, 1.5], rng)) for _ in range(3000)]
    assert set(draws) == {(0.5,), (1.5,)}
    share = np.mean([d == (0.5,) for d in draws])
    expected = gains[0] / sum(gains)
    assert abs(share - expected) < 3 * np.sqrt(expected * (1 - expected) / 3000)
    # a clean step: splits that pass MDL are drawn, increasing, among the boundaries
    step = np.array([[30, 0], [30, 0], [0, 30], [0, 30]])
    draws = [sampled_mdl_cut_points(step, [1.0, 2.0, 3.0], rng).tolist() for _ in range(200)]
    assert all(d and d == sorted(set(d)) and set(d) <= {1.0, 2.0, 3.0} for d in draws)
    assert np.mean([2.0 in d for d in draws]) > 0.5 and len({tuple(d) for d in draws}) > 1
    # columns drawn together: each as it would be alone, a column without two values uncut
    together = [sampled_mdl_columns([step, noisy, [[3, 0]]], [[1.0, 2.0, 3.0], [0.5, 1.5], []], rng)
                for _ in range(3000)]
    assert all(t[2].size == 0 and t[0].tolist() == sorted(set(t[0].tolist())) and t[0].size for t in together)
    share = np.mean([tuple(t[1]) == (0.5,) for t in together])
    assert abs(share - expected) < 3 * np.sqrt(expected * (1 - expected) / 3000)
    assert abs(np.mean([2.0 in t[0] for t in together]) - np.mean([2.0 in d for d in draws])) < 0.15


def test_members_draw_their_own_bins_and_code_new_rows_with_them():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.choice(["x", "y"], n)})
    y = np.where(X["a"] + 0.5 * X["b"] + rng.normal(scale=0.5, size=n) > 0, "p", "q")
    X.loc[::17, "a"] = np.nan  # missing values keep their meaning per member
    kw = dict(n_estimators=4, k=2, hdp_iterations=20, random_state=0, verbose=0, encoder=Encoder(missing="category"))
    model = ESKDB(**kw).fit(X, y)
    cuts = model.member_cut_points_
    assert cuts[0] == [None, None, None] and all(c[2] is None for c in cuts)
    assert len({tuple(c[0]) for c in cuts[1:]}) > 1  # drawn, not copied
    encoders = model.member_encoders()
    codes = [encoder.transform(X) for encoder in encoders]
    for encoder, member_codes, member_cuts in zip(encoders[1:], codes[1:], cuts[1:]):
        assert encoder.cardinalities_[0] == len(member_cuts[0]) + 2  # bins and the missing level
        assert (member_codes[::17, 0] == len(member_cuts[0]) + 1).all()
    mean = np.mean([np.exp(log_posterior(jll)) for jll in model.member_log_joint(codes)], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean / mean.sum(axis=1, keepdims=True), atol=1e-13)
    shared = ESKDB(**kw, member_bins="shared").fit(X, y)
    assert all(c == [None, None, None] for c in shared.member_cut_points_)
    with pytest.raises(ValueError, match="member_bins"):
        ESKDB(**kw, member_bins="own").fit(X, y)


def test_sampled_bins_give_the_recorded_members():
    """Orders, cut points and probabilities recorded (tests/data) when the members' bins
    came to be drawn for all columns at once: a change to the draws, the orders or the
    members' coding shows here (that each member equals one built from scratch from its
    bins is the next test's). With ``smoothing="hdp"`` the probabilities are compared up
    to the Gibbs sampler's noise (30 iterations)."""
    X, y = load_dataset("hepatitis")  # 6 numeric columns, missing values
    recorded = json.loads((Path(__file__).parent / "data" / "eskdb_sampled_bins_hepatitis.json").read_text())
    for name, kw in {"bayes": dict(smoothing="bayes"), "hdp": dict(hdp_iterations=30, encoder=Encoder(missing="category"))}.items():
        model = ESKDB(n_estimators=4, k=2, random_state=3, verbose=0, **kw).fit(X, y)
        assert model.orders_.tolist() == recorded[name]["orders"]
        assert [[None if c is None else c.tolist() for c in cuts] for cuts in model.member_cut_points_] \
            == recorded[name]["cut_points"]
        proba, want = model.predict_proba(X), np.array(recorded[name]["proba"])
        if name == "bayes":
            np.testing.assert_allclose(proba, want, rtol=0, atol=1e-12)
        else:
            assert np.abs(proba - want).max() < 0.1 and np.abs(proba - want).mean() < 0.01
            assert (proba.argmax(axis=1) == want.argmax(axis=1)).mean() > 0.97


def _member_from_scratch(model, m, X, y_codes):
    """Member ``m`` rebuilt the plain way from its own cut points and order: the whole
    table coded by its encoder, every pair counted, its kDB fitted on those counts."""
    encoder = model.member_encoders()[m]
    codes = encoder.transform(X)
    counts = count(codes, y_codes, encoder.cardinalities_, len(model.classes_))
    ranked = ranked_parents(model.orders_[m], pairwise_cmi(counts)[0], model.k)
    member = SKDB(k=model.k, smoothing="bayes", verbose=0)
    member._fit_ranked(Encoding.of_model(model, encoder), codes, y_codes, counts, model.orders_[m], ranked)
    return member, codes


@pytest.mark.parametrize("missing, recount_all_share", [("sum", 0.0), ("sum", np.inf), ("category", np.inf)])
def test_each_member_learns_and_predicts_from_its_own_bins_only(missing, recount_all_share, monkeypatch):
    """Every member equals one rebuilt from scratch from its own cut points, at fit and at
    predict: a member reading another's bins (or the shared codes changed by one) fails.
    Members count every pair again (share 0) or only those of the numeric columns (inf)."""
    monkeypatch.setattr(member_bins, "RECOUNT_ALL_SHARE", recount_all_share)
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n),
                      "c": rng.choice(["x", "y", "z"], n), "d": rng.normal(size=n),
                      "e": pd.Categorical(rng.choice(list("pqrs"), n))})
    y = np.where(X["a"] + X["b"] - X["d"] * (X["c"] == "x") + rng.normal(scale=0.7, size=n) > 1, "p", "q")
    X.loc[::11, "a"] = np.nan
    X.loc[::7, "c"] = None
    model = ESKDB(n_estimators=5, k=2, smoothing="bayes", random_state=2, verbose=0, encoder=Encoder(missing=missing)).fit(X, y)
    cuts = model.member_cut_points_
    assert len({tuple(c[0]) for c in cuts[1:]}) > 1 and len({tuple(c[3]) for c in cuts[1:]}) > 1
    y_codes = np.searchsorted(model.classes_, y)
    Z = X.sample(frac=1.0, random_state=0)  # predict other rows than were fitted, in another order
    shared_codes = model.member_codes(Z)
    for m in range(model.n_estimators):
        member, codes = _member_from_scratch(model, m, X, y_codes)
        assert member.n_selected_ == model.n_selected_[m] and member.k_selected_ == model.k_selected_[m]
        assert member.structure_.parents == model.structures_[m].parents
        for mine, theirs in zip(model.member_log_cpts_[m], member.log_cpts_):
            np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_array_equal(shared_codes[m], model.member_encoders()[m].transform(Z))
    members = [_member_from_scratch(model, m, X, y_codes)[0] for m in range(model.n_estimators)]
    mean = np.mean([member.predict_proba(Z) for member in members], axis=0)
    np.testing.assert_allclose(model.predict_proba(Z), mean, rtol=0, atol=1e-12)


def test_cmi_rows_equal_those_of_all_pairs():
    rng = np.random.default_rng(3)
    cards = np.array([3, 2, 5, 1, 4])
    codes = rng.integers(0, cards, size=(300, 5))
    codes[rng.random(codes.shape) < 0.1] = -1  # available cases per pair
    y = rng.integers(0, 3, 300)
    expected = pairwise_cmi(count(codes, y, cards, 3))[0]
    rows = cmi_rows(codes, y, cards, 3, [4, 0, 2], chunk_rows=37, chunk_cells=20)  # three groups
    off_diagonal = np.arange(5)[None, :] != np.array([4, 0, 2])[:, None]
    np.testing.assert_allclose(np.where(off_diagonal, rows, 0), expected[[4, 0, 2]], rtol=0, atol=1e-12)


def test_a_model_without_an_identifier_column_saves_and_loads(tmp_path):
    # The encoder leaves the identifier out: the members' orders run over the kept columns.
    import pybnc
    X = pd.DataFrame({"a": list("xy") * 20, "b": list("uvvu") * 10, "rid": [f"r{i}" for i in range(40)]})
    y = [0, 1] * 20
    with pytest.warns(UserWarning):
        model = ESKDB(n_estimators=2, hdp_iterations=10, random_state=0, verbose=0).fit(X, y)
    pybnc.save(model, tmp_path / "m.pbnc")
    loaded = pybnc.load(tmp_path / "m.pbnc")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_members_share_leave_one_out_lookups_and_chains_without_changing_the_model(votes, monkeypatch):
    """The members' shared caches (leave-one-out lookups of a family table, the HDP chain
    of a table) only save work: the model equals the one whose members build and
    sample everything themselves, and a shared family is looked up, not rebuilt."""
    from pybnc.averaging import eskdb
    from pybnc.search import leave_one_out

    X, y = votes
    kw = dict(n_estimators=4, k=2, hdp_iterations=30, random_state=2, verbose=0)
    monkeypatch.setattr(leave_one_out, "_native", None)  # the lookups are the numpy pass's; the kernel has none
    built = []
    real = leave_one_out._FactorLookup.__init__
    monkeypatch.setattr(leave_one_out._FactorLookup, "__init__", lambda self, *a: built.append(1) or real(self, *a))
    shared = ESKDB(**kw, n_jobs=2).fit(X, y)
    n_shared = len(built)
    monkeypatch.setattr(SKDB, "_loo_cache", lambda self: None)
    fresh = eskdb.SharedChains.estimates  # each call on an empty copy: nothing shared
    monkeypatch.setattr(eskdb.SharedChains, "estimates", lambda self, tables: fresh(pickle.loads(pickle.dumps(self)), tables))
    alone = ESKDB(**kw, n_jobs=1).fit(X, y)
    assert n_shared < len(built) - n_shared  # the first fit built fewer lookups
    assert shared.structures_ == alone.structures_
    np.testing.assert_array_equal(shared.predict_proba(X), alone.predict_proba(X))

