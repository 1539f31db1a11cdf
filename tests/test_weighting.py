"""AWNB and WANBIA: gradients, weights, and exact inference with weighted tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import check_grad
from scipy.special import logsumexp
from sklearn.metrics import log_loss
from sklearn.tree import DecisionTreeClassifier

from pybnc import TAN, NaiveBayes
from pybnc.parameters.c45_tree import c45_testing_depths
from pybnc.inference.forest import complete_rows_jll, joint_log_likelihood
from pybnc.structure import Structure
from pybnc.parameters.weighting import (
    awnb_tables,
    awnb_weights,
    family_log_entries,
    min_testing_depths,
    wanbia_objective,
)


def noisy_copy(rng, y, flip):
    return np.where(rng.random(y.size) < flip, rng.integers(0, 3, y.size), y)


def frame(cols):
    return pd.DataFrame({f"x{i}": pd.Series(c).astype(str) for i, c in enumerate(cols)})


# -- WANBIA ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_wanbia_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    n, k, d = 300, 3, 6
    entries = np.log(rng.uniform(0.01, 1.0, size=(n, k, d)))
    entries[rng.random((n, 1, d)).repeat(k, axis=1) < 0.2] = 0.0  # dropped families
    y = rng.integers(0, k, n)
    prior = np.log(rng.dirichlet(np.ones(k)))
    for w in (np.ones(d), rng.uniform(0, 1, d), np.zeros(d)):
        err = check_grad(lambda v: wanbia_objective(v, entries, y, prior)[0],
                         lambda v: wanbia_objective(v, entries, y, prior)[1], w)
        scale = np.linalg.norm(wanbia_objective(w, entries, y, prior)[1]) + 1e-3
        assert err / scale < 1e-5


def test_wanbia_objective_is_the_mean_log_loss():
    rng = np.random.default_rng(1)
    entries = np.log(rng.uniform(0.05, 1.0, size=(50, 2, 4)))
    y = rng.integers(0, 2, 50)
    prior = np.log([0.3, 0.7])
    w = rng.uniform(0, 1, 4)
    jll = prior + np.einsum("nkd,d->nk", entries, w)
    proba = np.exp(jll - logsumexp(jll, axis=1, keepdims=True))
    assert wanbia_objective(w, entries, y, prior)[0] == pytest.approx(log_loss(y, proba), rel=1e-12)


def duplicated_feature_data(rng, n):
    y = rng.integers(0, 3, n)
    strong, weak = noisy_copy(rng, y, 0.4), noisy_copy(rng, y, 0.7)
    return y, strong, weak


def test_wanbia_splits_one_weight_over_two_copies_and_beats_nb():
    rng = np.random.default_rng(0)
    y, strong, weak = duplicated_feature_data(rng, 4000)
    yt, strong_t, weak_t = duplicated_feature_data(rng, 4000)
    single = NaiveBayes(weighting="wanbia").fit(frame([strong, weak]), y)
    double = NaiveBayes(weighting="wanbia").fit(frame([strong, strong, weak]), y)
    w1, w2 = single.feature_weights_, double.feature_weights_
    assert abs(w2[0] + w2[1] - w1[0]) < 0.05
    assert abs(w2[2] - w1[1]) < 0.05
    nb = NaiveBayes().fit(frame([strong, strong, weak]), y)
    test = frame([strong_t, strong_t, weak_t])
    assert log_loss(yt, double.predict_proba(test)) < log_loss(yt, nb.predict_proba(test)) - 0.02


def test_wanbia_missing_leaf_is_dropped_for_naive_bayes():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 400)
    cols = [noisy_copy(rng, y, 0.5).astype(float) for _ in range(4)]
    X = pd.DataFrame({f"x{i}": c for i, c in enumerate(cols)})
    X = X.mask(rng.random(X.shape) < 0.2)
    model = NaiveBayes(weighting="wanbia", smoothing="mle").fit(X, y)
    codes = model.encoder_.transform(X)
    entries = family_log_entries(codes, model.structure_, model.log_cpts_, model.encoder_.cardinalities_)
    # log_cpts_ are already weighted: dropped leaves are exactly the zero entries.
    want = model.class_log_prior_ + entries.sum(axis=2)
    np.testing.assert_allclose(model._jll_encoded(codes), want, atol=1e-12)
    assert not np.allclose(model.feature_weights_, 1.0)


def brute_dropped(codes, structure, prior, tables, cards):
    """Enumerate completions, with each missing feature's own table renormalised."""
    out = np.empty((codes.shape[0], prior.shape[0]))
    for r, row in enumerate(codes):
        miss = np.flatnonzero(row < 0)
        own = [t - logsumexp(t, axis=-1, keepdims=True) if i in miss else t for i, t in enumerate(tables)]
        values = list(itertools.product(*[range(cards[j]) for j in miss])) or [()]
        full = np.repeat(row[None, :], len(values), axis=0)
        if miss.size:
            full[:, miss] = np.array(values)
        out[r] = logsumexp(complete_rows_jll(full, structure, prior, own, cards), axis=0)
    return out


@pytest.mark.parametrize("structure", [
    Structure(((), (0,), (0,), (2,))),          # a tree: forest message passing
    Structure(((), (0,), (0, 1), (1, 2))),      # two parents: variable elimination
])
def test_wanbia_prediction_sums_out_missing_parents_exactly(structure):
    rng = np.random.default_rng(4)
    cards = np.array([3, 2, 3, 2])
    tables = []
    for i, ps in enumerate(structure.parents):
        q = int(np.prod(cards[list(ps)])) if ps else 1
        tables.append(rng.uniform(0.2, 1.0) * np.log(rng.dirichlet(np.ones(cards[i]), size=(2, q))))
    prior = np.log([0.4, 0.6])
    codes = np.column_stack([rng.integers(0, c, 80) for c in cards]).astype(np.int32)
    codes[rng.random(codes.shape) < 0.35] = -1
    got = joint_log_likelihood(codes, structure, prior, tables, cards, normalise_missing=True)
    np.testing.assert_allclose(got, brute_dropped(codes, structure, prior, tables, cards), atol=1e-10)


def test_wanbia_with_ml_zeros_stays_finite():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    x0 = np.where(y == 0, rng.integers(0, 2, 200), rng.integers(2, 4, 200))  # zeros in ML tables
    x1 = noisy_copy(rng, y, 0.5)
    X = frame([x0, x1])
    model = TAN(weighting="wanbia", smoothing="mle").fit(X, y)
    test = pd.DataFrame({"x0": ["0", "3", None], "x1": ["9", None, "1"]})
    proba = model.predict_proba(test)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    assert ((model.feature_weights_ >= 0) & (model.feature_weights_ <= 1)).all()


# -- AWNB -----------------------------------------------------------------------------
def test_min_testing_depths_by_walking_the_tree():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 4, size=(300, 5)).astype(float)
    y = (X[:, 0] + X[:, 2] * rng.integers(0, 2, 300)) % 3
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    t = tree.tree_
    want = np.full(5, np.inf)
    stack = [(0, 1)]
    while stack:
        node, depth = stack.pop()
        if t.children_left[node] >= 0:
            want[t.feature[node]] = min(want[t.feature[node]], depth)
            stack += [(t.children_left[node], depth + 1), (t.children_right[node], depth + 1)]
    np.testing.assert_array_equal(min_testing_depths(tree, 5), want)
    assert want[0] == 1


def test_c45_depths_by_hand_average_gain_rule():
    """Gain ratio among the splits of at least average gain, computed by hand:

    x0 (one error in 8): gain 1 - 5/8 H(1/5) = 0.5488, split info H(3/8) = 0.9544,
    ratio 0.5750. x1 (4 pure pairs): gain 1, split info 2, ratio 0.5. x2: gain 0.
    Average gain of the candidates 0.7744 > 0.5488, so x1 wins despite its lower ratio,
    and its branches are pure."""
    x = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 1], [1, 2, 0], [1, 2, 1], [1, 3, 0], [1, 3, 1]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(c45_testing_depths(x, y), [np.inf, 1.0, np.inf])
    # Without x1, x0 is the only candidate. Its branch x0 = 1 (rows 3-7, classes 0 1 1 1 1)
    # is split by x2 into 3 rows (0 1 1) and 2 rows (1 1): gain H(1/5) - 3/5 H(1/3)
    # = 0.7219 - 0.5510 > 0, so x2 is tested at depth 2.
    np.testing.assert_array_equal(c45_testing_depths(x[:, [0, 2]], y), [1.0, 2.0])
    # min_objects: a split needs two branches of at least that weight.
    np.testing.assert_array_equal(c45_testing_depths(x[:, [0, 2]], y, min_objects=3), [1.0, np.inf])


def test_c45_row_weights_are_repeated_rows_and_missing_goes_down_every_branch():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 120)
    x = np.column_stack([noisy_copy(rng, y, 0.3), rng.integers(0, 4, 120), noisy_copy(rng, y, 0.6)])
    weights = rng.integers(1, 4, 120)
    np.testing.assert_array_equal(c45_testing_depths(x, y, weights.astype(float)),
                                  c45_testing_depths(np.repeat(x, weights, axis=0), np.repeat(y, weights)))
    x[rng.random(x.shape) < 0.2] = -1
    depths = c45_testing_depths(x, y)
    assert depths[0] == 1.0 and np.all(depths >= 1)


def test_awnb_c45_splits_a_many_levelled_feature_once():
    """A class decided by one many-levelled feature: one multiway C4.5 split at the root
    makes every branch pure, so only that feature gets a weight."""
    rng = np.random.default_rng(12)
    n = 800
    level = rng.integers(0, 8, n)
    y = np.isin(level, [1, 4, 6]).astype(int)
    codes = np.column_stack([level, rng.integers(0, 3, (n, 4))])
    np.testing.assert_array_equal(awnb_weights(codes, y, random_state=0, tree="c45"), [1.0, 0, 0, 0, 0])


def test_awnb_weights_in_unit_interval_zero_when_unused():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 500)
    codes = np.column_stack([y, noisy_copy(rng, y, 0.6), np.zeros(500, int), rng.integers(0, 3, 500)])
    holes = rng.random(codes.shape) < 0.1
    holes[:, 2] = False  # a missing-value indicator would be a usable split
    codes[holes] = -1
    for tree in ("c45", "rpart", "cart"):
        w = awnb_weights(codes, y, n_trees=10, bootstrap=0.5, random_state=0, tree=tree)
        assert ((w >= 0) & (w <= 1)).all()
        assert w[2] == 0.0  # a constant feature is never tested
        assert w[0] == w.max() and w[0] > 0.5
        np.testing.assert_array_equal(w, awnb_weights(codes, y, random_state=0, tree=tree))  # reproducible


def test_awnb_tables_are_conditional_distributions():
    rng = np.random.default_rng(8)
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, 4))) for _ in range(3)]
    out = awnb_tables(tables, [0.0, 0.5, 1.0])
    for t in out:
        np.testing.assert_allclose(logsumexp(t, axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out[0], np.log(1 / 3))  # w = 0: uniform, the feature is omitted
    np.testing.assert_allclose(out[2], tables[2], atol=1e-12)


def test_awnb_tan_marginalises_missing_values_exactly():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 300)
    X = frame([noisy_copy(rng, y, 0.5) for _ in range(4)])
    model = TAN(weighting="awnb", random_state=0).fit(X, y)
    codes = model.encoder_.transform(X.head(30))
    codes[rng.random(codes.shape) < 0.4] = -1
    cards = model.encoder_.cardinalities_
    want = brute_dropped(codes, model.structure_, model.class_log_prior_, model.log_cpts_, cards)
    np.testing.assert_allclose(model._jll_encoded(codes), want, atol=1e-10)


def test_estimator_parameters():
    X, y = frame([[0, 1, 0, 1], [1, 1, 0, 0]]), [0, 1, 0, 1]
    with pytest.raises(ValueError, match="The 'weighting' parameter of NaiveBayes must be a str among"):
        NaiveBayes(weighting="bogus").fit(X, y)
    plain = NaiveBayes().fit(X, y)
    np.testing.assert_array_equal(plain.feature_weights_, [1.0, 1.0])
    assert NaiveBayes(weighting="awnb", random_state=3).get_params()["random_state"] == 3
