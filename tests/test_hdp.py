"""HDP smoothing: the paper's limits, seeding, and the kDB family with params="hdp"."""

import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from pybnc import KDB, SKDB
from pybnc.datasets import load_dataset
from pybnc.parameters import hdp
from pybnc.parameters.hdp import hdp_tables, log_stirling_first_kind


def test_stirling_numbers_by_their_sum():
    # sum_t S(n, t) = n!
    table = log_stirling_first_kind()
    for n in (1, 5, 30, 200):
        assert np.logaddexp.reduce(table[n, : n + 1]) == pytest.approx(gammaln(n + 1), rel=1e-12)


def _leaves(seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, (2, 3, 4)).astype(float)  # N(c, parent, x)
    counts[1, 2] = 0  # an empty leaf
    return counts


def test_vanishing_concentration_is_maximum_likelihood():
    counts = _leaves()
    (p,) = hdp_tables([counts], n_iterations=20, random_state=0, fixed_concentration=1e-9)
    seen = counts.sum(axis=-1) > 0
    np.testing.assert_allclose(p[seen], counts[seen] / counts[seen].sum(axis=-1, keepdims=True), atol=1e-7)


def test_infinite_concentration_backs_off_to_the_root():
    counts = _leaves()
    (p,) = hdp_tables([counts], n_iterations=30, random_state=0, fixed_concentration=1e7)
    np.testing.assert_allclose(p, np.broadcast_to(p[0, 0], p.shape), atol=1e-5)  # one distribution
    # class only: every customer opens a table, the root sees the raw counts
    (p,) = hdp_tables([counts[:, 0]], n_iterations=30, random_state=0, fixed_concentration=1e7)
    marginal = counts[:, 0].sum(axis=0)
    root = (marginal + 2 / 4) / (marginal.sum() + 2)
    np.testing.assert_allclose(p, np.broadcast_to(root, p.shape), atol=1e-5)


def test_seeded_and_normalised():
    tables = [_leaves(1), _leaves(2)[0], _leaves(3)]
    a = hdp_tables(tables, n_iterations=40, random_state=7)
    b = hdp_tables(tables, n_iterations=40, random_state=7)
    c = hdp_tables(tables, n_iterations=40, random_state=8)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, z) for x, z in zip(a, c))
    for x, t in zip(a, tables):
        assert x.shape == t.shape and np.allclose(x.sum(axis=-1), 1.0)


@pytest.mark.parametrize("Model", [KDB, SKDB])
def test_kdb_family_with_hdp_on_missing_values(Model):
    X, y = load_dataset("house-votes-84")
    model = Model(k=2, params="hdp", random_state=0, verbose=0).fit(X, y)
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0) and model.score(X, y) > 0.9
    again = Model(k=2, params="hdp", random_state=0, verbose=0).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), proba)


@pytest.fixture(params=["compiled", "numpy"])
def engine(request, monkeypatch):
    """Both samplers: numba's node-by-node sweep and the vectorised numpy one."""
    if request.param == "numpy":
        monkeypatch.setattr(hdp._KERNELS, "available", False)
    return request.param


def _brute_force_posterior_mean(leaves, c):
    """E[p_leaf] over the table counts of a class-and-one-parent tree with every
    concentration ``c`` (roots: 2 and t = [n > 0]), by enumerating every state of
    the joint  prod_nodes S(n, t) c^t / Gamma(c + N)  x  prod_k S(T_k, 1) / Gamma(2 + T)."""
    log_s = log_stirling_first_kind(64)
    n_classes, n_parent, r = leaves.shape
    cells = list(np.ndindex(leaves.shape))
    choices = [range(1, int(leaves[i]) + 1) if leaves[i] else [0] for i in cells]
    weight_sum, mean = 0.0, np.zeros(leaves.shape)
    for t_leaf in itertools.product(*choices):
        t_leaf = np.array(t_leaf).reshape(leaves.shape)
        n_mid = t_leaf.sum(axis=1)  # (K, r): customers of the class nodes
        mid_choices = [range(1, int(n_mid[i]) + 1) if n_mid[i] else [0] for i in np.ndindex(n_mid.shape)]
        for t_mid in itertools.product(*mid_choices):
            t_mid = np.array(t_mid).reshape(n_mid.shape)
            n_root = t_mid.sum(axis=0)
            log_w = (log_s[leaves.astype(int), t_leaf].sum() + np.log(c) * t_leaf.sum()
                     + log_s[n_mid, t_mid].sum() + np.log(c) * t_mid.sum() - gammaln(c + n_mid.sum(axis=1)).sum()
                     + log_s[n_root, (n_root > 0).astype(int)].sum() - gammaln(2 + n_root.sum()))
            w = np.exp(log_w)
            p_root = (n_root + 2 / r) / (n_root.sum() + 2)
            p_mid = (n_mid + c * p_root) / (n_mid.sum(axis=1, keepdims=True) + c)
            p_leaf = (leaves + c * p_mid[:, None, :]) / (leaves.sum(axis=2, keepdims=True) + c)
            weight_sum += w
            mean += w * p_leaf
    return mean / weight_sum


def test_gibbs_average_is_the_exact_posterior_mean(engine):
    leaves = np.array([[[4, 1], [0, 3]], [[1, 3], [0, 0]]], dtype=float)  # one empty configuration
    exact = _brute_force_posterior_mean(leaves, c=3.0)
    iterations = 20000 if engine == "compiled" else 6000
    (p,) = hdp_tables([leaves], n_iterations=iterations, burn_in=200, random_state=0, fixed_concentration=3.0)
    np.testing.assert_allclose(p, exact, atol=0.006 if engine == "compiled" else 0.012)
    assert np.abs(exact - leaves / np.maximum(leaves.sum(-1, keepdims=True), 1)).max() > 0.05  # smoothing shows


def test_unobserved_configurations_back_off_to_their_deepest_observed_ancestor(engine):
    # concentrations -> 0: every node seats one table per outcome it saw, so a class
    # node's estimate is the share of its observed parent values showing each outcome
    # and the root's is (classes showing it + 2/r) / (those counts + 2)
    leaves = np.zeros((3, 5, 3))
    leaves[0, 0] = [4, 0, 1]
    leaves[0, 3] = [0, 2, 1]
    leaves[1, 2] = [3, 0, 0]  # class 2 never observed
    (p,) = hdp_tables([leaves], n_iterations=20, random_state=0, fixed_concentration=1e-9)
    np.testing.assert_allclose(p[0, [1, 2, 4]], np.broadcast_to([1, 1, 2], (3, 3)) / 4, atol=1e-7)
    np.testing.assert_allclose(p[1, [0, 1, 3, 4]], np.broadcast_to([1, 0, 0], (4, 3)), atol=1e-7)
    root = (np.array([2, 1, 1]) + 2 / 3) / (4 + 2)
    np.testing.assert_allclose(p[2], np.broadcast_to(root, (5, 3)), atol=1e-7)


def test_only_the_reached_configurations_are_nodes():
    # three 30-level parents: 54000 configurations per class, 200 rows reach at most 200
    rng = np.random.default_rng(0)
    rows = 200
    leaves = np.zeros((2, 30, 30, 30, 3))
    np.add.at(leaves, (rng.integers(0, 2, rows), *(rng.integers(0, 30, (3, rows))), rng.integers(0, 3, rows)), 1)
    trees = hdp._Trees([leaves])
    assert np.diff(trees.level_start).tolist()[:2] == [1, 2] and np.diff(trees.level_start).max() <= rows
    (p,) = hdp_tables([leaves], n_iterations=50, random_state=0)
    assert p.shape == leaves.shape and np.allclose(p.sum(axis=-1), 1.0)
