"""Variable elimination against brute-force enumeration of the missing values."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from pybnc.inference.forest import _forest_rows_jll, complete_rows_jll, joint_log_likelihood
from pybnc.inference.elimination import _min_fill_order, eliminate_rows_jll
from pybnc.structure import Structure


def random_kdb(rng, d, k):
    """Random DAG over features with at most ``k`` feature parents each (unsorted tuples)."""
    order = rng.permutation(d)
    parents = [()] * d
    for pos, v in enumerate(order):
        n_par = int(rng.integers(0, min(k, pos) + 1))
        chosen = rng.choice(order[:pos], size=n_par, replace=False) if n_par else []
        parents[v] = tuple(int(p) for p in chosen)
    return Structure(tuple(parents))


def random_tables(rng, structure, cards, k, normalised=True):
    tables = []
    for i, ps in enumerate(structure.parents):
        q = int(np.prod([cards[p] for p in ps])) if ps else 1
        t = rng.dirichlet(np.full(cards[i], 0.7), size=(k, q))
        if not normalised:
            t = t ** rng.uniform(0.2, 1.0)  # exponent-weighted: no longer sums to one
        tables.append(np.log(t))
    prior = np.log(rng.dirichlet(np.ones(k)))
    return prior, tables


def random_rows(rng, cards, m, max_missing):
    d = len(cards)
    codes = np.column_stack([rng.integers(0, c, size=m) for c in cards]).astype(np.int32)
    for r in range(m):
        n_mis = int(rng.integers(0, max_missing + 1))
        codes[r, rng.choice(d, size=n_mis, replace=False)] = -1
    return codes


def brute_force(codes, structure, prior, tables, cards):
    out = np.empty((codes.shape[0], prior.shape[0]))
    for r, row in enumerate(codes):
        miss = np.flatnonzero(row < 0)
        completions = np.array(list(itertools.product(*[range(cards[j]) for j in miss])), dtype=np.int32)
        full = np.repeat(row[None, :], max(len(completions), 1), axis=0)
        if miss.size:
            full[:, miss] = completions
        out[r] = logsumexp(complete_rows_jll(full, structure, prior, tables, cards), axis=0)
    return out


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("normalised", [True, False])
def test_matches_brute_force_on_random_kdb(k, seed, normalised):
    rng = np.random.default_rng(100 * k + seed)
    d = 7
    cards = rng.integers(2, 5, size=d)
    structure = random_kdb(rng, d, k)
    n_classes = int(rng.integers(2, 4))
    prior, tables = random_tables(rng, structure, cards, n_classes, normalised)
    codes = random_rows(rng, cards, 60, max_missing=4)
    got = eliminate_rows_jll(codes, structure, prior, tables, cards)
    want = brute_force(codes, structure, prior, tables, cards)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_dispatch_from_joint_log_likelihood_uses_elimination():
    rng = np.random.default_rng(7)
    cards = np.array([3, 2, 4, 2, 3])
    structure = Structure(((), (0,), (1, 0), (2, 1), (0, 3)))
    prior, tables = random_tables(rng, structure, cards, 3)
    codes = random_rows(rng, cards, 40, max_missing=3)
    got = joint_log_likelihood(codes, structure, prior, tables, cards)
    np.testing.assert_allclose(got, brute_force(codes, structure, prior, tables, cards), atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_forest_message_passing(seed):
    rng = np.random.default_rng(seed)
    d = 8
    cards = rng.integers(2, 6, size=d)
    arcs = [(int(rng.integers(0, v)), v) for v in range(1, d) if rng.random() < 0.8]
    structure = Structure.from_arcs(d, arcs)
    prior, tables = random_tables(rng, structure, cards, 2)
    codes = random_rows(rng, cards, 200, max_missing=5)
    got = eliminate_rows_jll(codes, structure, prior, tables, cards)
    np.testing.assert_allclose(got, _forest_rows_jll(codes, structure, prior, tables), atol=1e-10)


def test_zero_probabilities_and_all_missing_rows():
    rng = np.random.default_rng(3)
    cards = np.array([2, 3, 2, 2])
    structure = Structure(((), (0,), (0, 1), (1, 2)))
    prior, tables = random_tables(rng, structure, cards, 2)
    tables[2][0, 0, :] = [0.0, -np.inf]  # an exact zero in a normalised table
    codes = np.array([[-1, -1, -1, -1], [0, 0, -1, 1], [-1, 0, 1, -1], [0, 0, 1, 0]], dtype=np.int32)
    got = eliminate_rows_jll(codes, structure, prior, tables, cards)
    want = brute_force(codes, structure, prior, tables, cards)
    np.testing.assert_allclose(got[0], prior, atol=1e-12)
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_row_blocks_give_the_same_answer(monkeypatch):
    import pybnc.inference.elimination as ve

    rng = np.random.default_rng(11)
    cards = np.array([4, 3, 4, 3, 2, 4])
    structure = random_kdb(rng, 6, 3)
    prior, tables = random_tables(rng, structure, cards, 2, normalised=False)
    codes = random_rows(rng, cards, 300, max_missing=4)
    whole = eliminate_rows_jll(codes, structure, prior, tables, cards)
    monkeypatch.setattr(ve, "_MAX_CELLS", 1)  # one row per block
    np.testing.assert_allclose(eliminate_rows_jll(codes, structure, prior, tables, cards), whole, atol=1e-12)


def test_empty_input():
    s = Structure(((), (0,)))
    out = eliminate_rows_jll(np.empty((0, 2), dtype=np.int32), s, np.log([0.5, 0.5]),
                             [np.zeros((2, 1, 2)), np.zeros((2, 2, 2))], [2, 2])
    assert out.shape == (0, 2)


def test_min_fill_prefers_simplicial_variables():
    # A chain a - b - c: eliminating b first would add the fill edge a-c.
    order, largest = _min_fill_order(((0, 1), (1, 2)), (0, 1, 2), (2, 2, 2))
    assert order[0] in (0, 2) and largest == 4


def _registry_networks_on_a_table_with_gaps():
    """Every registered classifier holding one network's tables (and each of its Dirichlet
    learners), fitted where parent configurations go unseen and values are missing."""
    import warnings

    import pandas as pd

    from pybnc.parameters.weighting import WEIGHTINGS
    from pybnc.parameters.learn import METHODS
    from pybnc.registry import MODELS

    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"c{j}": rng.choice(list("abcdefgh"[: 2 + j]), 80) for j in range(6)})
    # the class follows two columns, so that feature weights move off 1
    y = np.where(rng.random(80) < 0.8, np.where(X["c0"] == "a", "p", np.where(X["c1"] == "a", "q", "r")), "p")
    X = X.mask(rng.random(X.shape) < 0.1)
    variants = [{"smoothing": p} for p in (*METHODS, "hdp")] + [{"weighting": w} for w in WEIGHTINGS if w]
    for entry in MODELS:
        for variant in ({}, *variants):
            model = entry.cls()
            if not set(variant) <= set(model.get_params()):
                continue
            quiet = {k: v for k, v in {"random_state": 0, "verbose": 0}.items() if k in model.get_params()}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.set_params(**variant, **quiet).fit(X, y)
            except ValueError:  # a learner this class does not offer
                continue
            if hasattr(model, "log_cpts_") and hasattr(model, "structure_"):
                yield f"{entry.short_name} {variant}", model, X


def test_declared_probability_tables_sum_to_one():
    # joint_log_likelihood(tables_are_probabilities=True) prunes barren missing features
    # without checking: a model's capabilities must not claim it wrongly
    from pybnc.estimators.capabilities import capabilities
    from pybnc.inference.elimination import _is_normalised

    checked = 0
    for name, model, X in _registry_networks_on_a_table_with_gaps():
        if capabilities(model).tables_are_probabilities:
            assert all(_is_normalised(np.asarray(t)) for t in model.log_cpts_), name
            checked += 1
        proba = model.predict_proba(X)
        assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1), name
    assert checked >= 20


def test_trusting_declared_tables_gives_the_checked_answer():
    rng = np.random.default_rng(3)
    s = Structure(((), (0,), (0, 1), (1, 2), (0, 3)))
    cards = [3, 2, 4, 2, 3]
    cpts = [np.log(rng.dirichlet(np.ones(r), size=(2, q))) for r, q in
            zip(cards, [1, 3, 6, 8, 6])]
    codes = np.array([[rng.integers(-1, r) for r in cards] for _ in range(200)])
    prior = np.log([0.4, 0.6])
    checked = joint_log_likelihood(codes, s, prior, cpts, cards)
    trusted = joint_log_likelihood(codes, s, prior, cpts, cards, tables_are_probabilities=True)
    assert np.allclose(trusted, checked, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_products_too_large_are_summed_a_slice_at_a_time(monkeypatch, seed):
    """Several many-levelled features missing together made one product of 2.3e9 cells a
    row (a MemoryError at predict); past the bound it is taken a value of another variable
    at a time, and the sums stay exact."""
    import pybnc.inference.elimination as ve

    rng = np.random.default_rng(500 + seed)
    cards = rng.integers(2, 6, size=7)
    structure = random_kdb(rng, 7, 3)
    prior, tables = random_tables(rng, structure, cards, 3, normalised=bool(seed % 2))
    codes = random_rows(rng, cards, 40, max_missing=5)
    monkeypatch.setattr(ve, "_MAX_CELLS", 3 * int(cards.max()) ** 2)  # three-variable products are split
    got = eliminate_rows_jll(codes, structure, prior, tables, cards)
    np.testing.assert_allclose(got, brute_force(codes, structure, prior, tables, cards), rtol=0, atol=1e-10)
