"""Hierarchical gradient smoothing (pybnc.parameters.hierarchical): the leave-one-out loss
against enumeration, its gradient against finite differences, the optimum against a grid
and scipy, the tables' limits, and the classifiers that learn with it (streamed = in memory)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

from pybnc import ESKDB, KDB, SKDB, TAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.parameters import hierarchical as H
from pybnc.streaming import fit_blocks


def _tree_estimate(n, strengths):
    """``p(x | leaf)`` by walking the tree node by node (no broadcasting): the recursion of
    the module docstring written out, for every leaf cell; ``strengths[d]`` holds depth
    ``d``'s strengths on the grid ``n.shape[:d]``."""
    r = n.shape[-1]
    out = np.empty(n.shape)
    for leaf in itertools.product(*[range(s) for s in n.shape[:-1]]):
        p = np.full(r, 1.0 / r)
        for depth, a in enumerate(strengths):  # depth d conditions on the first d variables
            node = n[leaf[:depth]] if depth else n
            counts = node.reshape(-1, r).sum(axis=0)
            a = np.asarray(a)[leaf[:depth]] if np.ndim(a) else a
            p = (counts + a * p) / (counts.sum() + a)
        out[leaf] = p
    return out


def _loo_by_enumeration(n, strengths):
    """Every training row held out in turn: the tree re-estimated without it scores it."""
    loss = 0.0
    for cell in zip(*np.nonzero(n)):
        for _ in range(int(n[cell])):  # each of the cell's rows (all alike)
            held_out = n.copy()
            held_out[cell] -= 1
            loss -= np.log(_tree_estimate(held_out, strengths)[cell])
    return loss


def _random_tables(rng):
    shapes = [(2, 3), (3, 2, 4), (2, 3, 2, 3), (2, 2, 2, 2, 2), (1, 4, 2)]
    return [rng.integers(0, 4, size=s).astype(float) * (rng.random(s) < 0.7) for s in shapes]


def _random_strengths(rng, tables):
    return [[rng.uniform(0.05, 20, t.shape[:d]) for d in range(t.ndim)] for t in tables]


def test_smoothed_table_is_the_tree_walked_node_by_node():
    rng = np.random.default_rng(1)
    tables = _random_tables(rng)
    for n, a in zip(tables, _random_strengths(rng, tables)):
        assert_allclose(H.smoothed_table(n, a), _tree_estimate(n, a), rtol=1e-12)


def test_leave_one_out_loss_equals_enumeration_over_rows():
    rng = np.random.default_rng(2)
    tables = _random_tables(rng)
    strengths = _random_strengths(rng, tables)
    got = H.leave_one_out_loss(tables, strengths)  # all families in one vectorised pass
    want = [_loo_by_enumeration(t, a) for t, a in zip(tables, strengths)]
    assert_allclose(got, want, rtol=1e-11)
    # one number per depth broadcasts over the depth's nodes
    levels = [[1.5] * t.ndim for t in tables]
    assert_allclose(H.leave_one_out_loss(tables, levels), [_loo_by_enumeration(t, a) for t, a in zip(tables, levels)],
                    rtol=1e-11)


@pytest.mark.parametrize("tie", ["node", "level"])
def test_gradient_equals_finite_differences(tie):
    rng = np.random.default_rng(3)
    paths = H._Paths(_random_tables(rng), tie)
    beta = np.log(rng.uniform(0.05, 20, paths.n_params))
    _, grad = paths.loss(np.exp(beta), gradient=True)
    eps = 1e-6
    numeric = [(paths.loss(np.exp(beta + eps * e)).sum() - paths.loss(np.exp(beta - eps * e)).sum()) / (2 * eps)
               for e in np.eye(paths.n_params)]
    assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


_TINY = np.array([[[7.0, 1.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 4.0]],
                  [[3.0, 3.0, 1.0], [1.0, 0.0, 5.0], [6.0, 0.0, 0.0]]])


def test_objective_is_the_loss_plus_the_gamma_prior_of_every_strength():
    rng = np.random.default_rng(7)
    for tie in ("node", "level"):
        paths = H._Paths(_random_tables(rng), tie)
        a = rng.uniform(0.05, 20, paths.n_params)
        prior = np.bincount(paths.param_family, H.PRIOR_RATE * a - H.PRIOR_SHAPE * np.log(a))
        assert_allclose(paths.objective(a), paths.loss(a) + prior, rtol=1e-12)
        beta = np.log(a)
        _, grad = paths.objective(a, gradient=True)
        eps = 1e-6
        numeric = [(paths.objective(np.exp(beta + eps * e)).sum() - paths.objective(np.exp(beta - eps * e)).sum())
                   / (2 * eps) for e in np.eye(paths.n_params)]
        assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def _objective(tables, strengths, tie="node"):
    paths = H._Paths(tables, tie)
    return paths.objective(paths.flat(strengths))


def test_level_optimum_is_no_worse_than_a_fine_grid_and_scipy():
    """A tiny table (a class, one parent), one strength per depth: the gradient steps'
    strengths against every point of a grid of 41^3 strengths and L-BFGS-B from several starts."""
    found = H.fit_strengths([_TINY], tie="level")[0]
    paths = H._Paths([_TINY], "level")
    best_found = paths.objective(paths.flat([found]))[0]
    grid = np.geomspace(*H.STRENGTH_BOUNDS, 41)
    mesh = np.stack(np.meshgrid(grid, grid, grid, indexing="ij"), axis=-1).reshape(-1, 3)
    assert best_found <= min(paths.objective(a)[0] for a in mesh) + 1e-9
    _no_worse_than_scipy(paths, best_found)


def test_node_optimum_is_no_worse_than_scipy():
    """One strength per node (1 + 2 + 6 of them): against L-BFGS-B from several starts."""
    found = H.fit_strengths([_TINY], tie="node")[0]
    best_found = _objective([_TINY], [found])[0]
    paths = H._Paths([_TINY], "node")
    assert paths.n_params == 9
    assert best_found <= _objective([_TINY], [H.fit_strengths([_TINY], tie="level")[0]])[0] + 1e-9
    _no_worse_than_scipy(paths, best_found)


def _no_worse_than_scipy(paths, best_found):
    bounds = [tuple(np.log(H.STRENGTH_BOUNDS))] * paths.n_params
    for start in (0.0, -3.0, 5.0):
        res = minimize(lambda b: paths.objective(np.exp(b))[0], np.full(paths.n_params, start), method="L-BFGS-B",
                       bounds=bounds)
        assert best_found <= res.fun * (1 + 1e-5)  # the steps stop at a change of 1e-3 in log a


def test_a_node_whose_rows_agree_still_leaves_room_for_unseen_values():
    """The prior keeps a strength off its lower bound: without it, a class whose 30 rows all
    show one value would give the others about 1e-5 (the bound's share)."""
    n = np.array([[30.0, 0.0, 0.0], [10.0, 12.0, 8.0]])
    (p,), _ = H.hgs_tables([n])
    assert p[0, 1] > 5e-3 and p[0, 2] > 5e-3
    assert_allclose(p.sum(axis=-1), 1.0)


def test_both_is_the_mean_of_the_node_and_level_tables():
    rng = np.random.default_rng(6)
    tables = _random_tables(rng)
    got, (by_node, by_level) = H.hgs_tables(tables, tie="both")
    for t, p, a, b in zip(tables, got, by_node, by_level):
        assert_allclose(p, 0.5 * (H.smoothed_table(t, a) + H.smoothed_table(t, b)), rtol=1e-12)
    # the strengths per node start from those per depth: the objective is not convex, but
    # that start ends within half a percent of a start from scratch
    cold = _objective(tables, H.fit_strengths(tables, "node"))
    assert np.all(_objective(tables, by_node) <= cold * 1.005)
    assert np.all(_objective(tables, by_node) <= _objective(tables, by_level) + 1e-9)


def test_each_family_finds_its_own_optimum_when_fitted_together():
    rng = np.random.default_rng(4)
    tables = _random_tables(rng)
    together = _objective(tables, H.fit_strengths(tables))
    alone = [_objective([t], H.fit_strengths([t]))[0] for t in tables]
    assert_allclose(together, alone, rtol=1e-12)


def test_limits_unseen_configurations_and_empty_tables():
    n = np.zeros((2, 3, 2))
    n[0, 0] = [9, 1]
    n[1, 1] = [2, 8]
    # a configuration no row reaches takes its parent node's estimate (the class's)
    (p,), _ = H.hgs_tables([n])
    (class_level,), _ = H.hgs_tables([n.sum(axis=1)])
    assert_allclose(p.sum(axis=-1), 1.0)
    assert_allclose(H.smoothed_table(n, [1.0, 1.0, 1.0])[0, 2], H.smoothed_table(n.sum(axis=1), [1.0, 1.0])[0])
    # tiny strengths: relative frequencies where there are rows; huge: the uniform root
    assert_allclose(H.smoothed_table(n, [1e5, 1e-9, 1e-9])[0, 0], [0.9, 0.1], atol=1e-8)
    assert_allclose(H.smoothed_table(n, [1e12] * 3), 0.5, atol=1e-9)
    # no row at all and no level at all: uniform, and an empty table
    (empty, none), _ = H.hgs_tables([np.zeros((2, 3, 4)), np.zeros((2, 3, 0))])
    assert_allclose(empty, 0.25)
    assert none.shape == (2, 3, 0)
    with pytest.raises(ValueError, match="tie='depth' is not one of"):
        H.fit_strengths([n], tie="depth")


def test_learn_parameters_hgs_gives_finite_normalised_tables():
    X, y = load_dataset("car")
    model = KDB(k=2, smoothing="hgs", verbose=0).fit(X, y)
    for table in model.log_cpts_:
        assert np.isfinite(table).all()
        assert_allclose(np.exp(table).sum(axis=-1), 1.0)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(axis=1), 1.0)
    # held out: a lower log-loss than the Dirichlet tables' (0.194 against 0.243; a
    # smoothing that learned nothing would not have it)
    train = np.random.default_rng(0).random(len(X)) < 0.5
    losses = {}
    for p in ("hgs", "bayes"):
        fitted = KDB(k=3, smoothing=p, verbose=0).fit(X[train], y[train])
        proba = fitted.predict_proba(X[~train])
        losses[p] = -np.log(proba[np.arange(len(proba)), np.searchsorted(fitted.classes_, y[~train])]).mean()
    assert losses["hgs"] < losses["bayes"] - 0.02


def _missing_table(n=600, seed=5):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({c: rng.integers(0, 3 + j, n).astype(object) for j, c in enumerate("abcde")})
    y = np.where((X["a"] == 0) ^ (X["b"] == 1) ^ (rng.random(n) < 0.2), "yes", "no")
    X.iloc[::13, 2] = None
    return X, pd.Series(y)


def test_streamed_fits_equal_in_memory_fits():
    """The strengths come from the counts alone: blocks give the same tables, to the bit."""
    X, y = _missing_table()
    blocks = [(X[i:i + 150], y[i:i + 150]) for i in range(0, len(X), 150)]
    for make in (lambda: KDB(k=2, smoothing="hgs", verbose=0), lambda: SKDB(k=2, smoothing="hgs", verbose=0)):
        whole = make().fit(X, y)
        streamed = fit_blocks(make(), lambda: iter(blocks), classes=np.unique(y))
        for got, want in zip(streamed.log_cpts_, whole.log_cpts_):
            assert_array_equal(got, want)
        assert_array_equal(streamed.predict_proba(X), whole.predict_proba(X))
    whole = TAN(smoothing="hgs").fit(X, y)
    streamed = TAN(smoothing="hgs")
    for i, (Xb, yb) in enumerate(blocks):
        streamed.partial_fit(Xb, yb, classes=np.unique(y) if i == 0 else None)
    assert_array_equal(streamed.predict_proba(X), whole.predict_proba(X))


def test_naive_bayes_and_eskdb_learn_with_hgs_deterministically():
    X, y = _missing_table(300)
    nb = NaiveBayes(smoothing="hgs").fit(X, y)
    assert_allclose(nb.predict_proba(X).sum(axis=1), 1.0)
    first = ESKDB(n_estimators=4, k=2, smoothing="hgs", random_state=0, verbose=0).fit(X, y)
    again = ESKDB(n_estimators=4, k=2, smoothing="hgs", random_state=0, verbose=0, n_jobs=2).fit(X, y)
    assert_array_equal(first.predict_proba(X), again.predict_proba(X))


def test_unknown_smoothing_is_refused_with_the_options():
    X, y = _missing_table(100)
    with pytest.raises(ValueError, match="hgs"):
        SKDB(smoothing="hsg", verbose=0).fit(X, y)
