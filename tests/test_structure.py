"""Chow-Liu TAN and the MDL-optimal FAN are optimal: checked against every forest.

The reference score of a forest is computed directly from the rows (maximum
likelihood parameters counted with pandas, log-likelihood summed row by row), not
from pybnc's decomposition, so a wrong weight, threshold or spanning step fails.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from pybnc import FAN, TAN
from pybnc.counts.tables import count
from pybnc.structure import Structure, chow_liu, maximum_spanning_forest, orient_forest
from tests.conftest import random_codes


def all_forests(n):
    """Every acyclic set of undirected edges on n nodes (includes the empty forest)."""
    edges = list(itertools.combinations(range(n), 2))
    for mask in range(1 << len(edges)):
        chosen = [e for b, e in enumerate(edges) if mask >> b & 1]
        if len(chosen) > n - 1:
            continue
        root = list(range(n))

        def find(a):
            while root[a] != a:
                a = root[a]
            return a

        acyclic = True
        for u, v in chosen:
            a, b = find(u), find(v)
            if a == b:
                acyclic = False
                break
            root[a] = b
        if acyclic:
            yield chosen


def _family_log_likelihood(codes, y, i, parents):
    """sum over rows of log P_ML(x_i | c, parents), counting each row's configuration."""
    keys = np.column_stack([y] + [codes[:, p] for p in parents] + [codes[:, i]])
    _, family_idx, family_n = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    _, parent_idx, parent_n = np.unique(keys[:, :-1], axis=0, return_inverse=True, return_counts=True)
    return float(np.sum(np.log(family_n[family_idx.ravel()] / parent_n[parent_idx.ravel()])))


def direct_log_likelihood(codes, y, structure, cache=None):
    """sum over rows of log P_ML(c) + sum_i log P_ML(x_i | c, parents), by counting rows."""
    cache = {} if cache is None else cache
    _, class_idx, class_n = np.unique(y, return_inverse=True, return_counts=True)
    ll = float(np.sum(np.log(class_n[class_idx] / len(y))))
    for i, parents in enumerate(structure.parents):
        if (i, parents) not in cache:
            cache[(i, parents)] = _family_log_likelihood(codes, y, i, parents)
        ll += cache[(i, parents)]
    return ll


def direct_score(codes, y, cards, k, structure, criterion, cache=None):
    n_params = k - 1 + sum(
        k * (int(np.prod([cards[p] for p in ps])) if ps else 1) * (cards[i] - 1)
        for i, ps in enumerate(structure.parents)
    )
    penalty = {"loglik": 0.0, "aic": 1.0, "bic": np.log(len(y)) / 2, "mdl": np.log(len(y)) / 2}[criterion]
    return direct_log_likelihood(codes, y, structure, cache) - penalty * n_params


PROBLEMS = [
    (4, (2, 3, 2, 4), 2, 0),
    (5, (3, 2, 2, 3, 2), 3, 1),
    (6, (2, 2, 3, 2, 4, 2), 2, 2),
    (6, (3, 2, 2, 2, 3, 2), 2, 3),
]


@pytest.mark.parametrize("n, cards, k, seed", PROBLEMS)
@pytest.mark.parametrize("criterion", ["mdl", "aic"])
def test_penalised_chow_liu_beats_every_forest(n, cards, k, seed, criterion):
    rng = np.random.default_rng(seed)
    codes, y = random_codes(rng, 150, cards, k)
    found = chow_liu(count(codes, y, cards, k), criterion)
    best_found = direct_score(codes, y, cards, k, found, criterion)
    cache = {}
    scores = [direct_score(codes, y, cards, k, orient_forest(n, f), criterion, cache) for f in all_forests(n)]
    assert len(scores) == {4: 38, 5: 291, 6: 2932}[n]  # labelled forests on n nodes
    assert best_found >= max(scores) - 1e-8
    assert best_found == pytest.approx(max(scores), rel=1e-12)


@pytest.mark.parametrize("n, cards, k, seed", PROBLEMS[:3])
def test_chow_liu_tan_maximises_likelihood_over_spanning_trees(n, cards, k, seed):
    rng = np.random.default_rng(seed + 10)
    codes, y = random_codes(rng, 120, cards, k)
    found = chow_liu(count(codes, y, cards, k), "loglik")
    assert len(found.arcs) == n - 1
    trees = [f for f in all_forests(n) if len(f) == n - 1]
    assert len(trees) == n ** (n - 2)  # Cayley
    cache = {}
    best = max(direct_log_likelihood(codes, y, orient_forest(n, t), cache) for t in trees)
    assert direct_log_likelihood(codes, y, found) == pytest.approx(best, rel=1e-12)


def test_fan_equals_tan_mdl_equals_tan_bic():
    rng = np.random.default_rng(7)
    codes, y = random_codes(rng, 400, (2, 3, 4, 2, 3, 2, 2), 2)
    X = pd.DataFrame(codes).astype(str)
    fan = FAN().fit(X, y)
    assert fan.structure_ == TAN(criterion="mdl").fit(X, y).structure_
    assert fan.structure_ == TAN(criterion="bic").fit(X, y).structure_


def test_bic_of_fitted_fan_matches_direct_score():
    rng = np.random.default_rng(3)
    codes, y = random_codes(rng, 300, (2, 3, 2, 3), 2)
    X = pd.DataFrame(codes, columns=list("abcd")).astype(str)
    model = FAN(smoothing="mle").fit(X, y)
    expected = direct_score(codes, y, (2, 3, 2, 3), 2, model.structure_, "bic")
    assert model.bic(X, y) == pytest.approx(expected, rel=1e-10)


def test_spanning_forest_is_deterministic_under_ties():
    w = np.ones((4, 4))
    assert maximum_spanning_forest(w, positive_only=False) == [(0, 1), (0, 2), (0, 3)]
    assert maximum_spanning_forest(-w, positive_only=True) == []
    assert maximum_spanning_forest(np.zeros((0, 0)), positive_only=False) == []
    with pytest.raises(ValueError, match="square"):
        maximum_spanning_forest(np.ones((2, 8)), positive_only=False)  # as many cells as 4 x 4


def _kruskal(weights, positive_only):
    """The reference: every edge sorted by (weight descending, (i, j)), union-find."""
    n = weights.shape[0]
    # NaN and -inf edges are never used (left out before sorting: NaN has no order)
    order = sorted((-weights[i, j], i, j) for i in range(n) for j in range(i + 1, n)
                   if weights[i, j] > -np.inf)
    root, edges = list(range(n)), []

    def find(a):
        while root[a] != a:
            a = root[a]
        return a

    for negative, i, j in order:
        if (positive_only and -negative <= 0) or -negative == -np.inf or np.isnan(negative):
            continue
        a, b = find(i), find(j)
        if a != b:
            root[max(a, b)] = min(a, b)
            edges.append((i, j))
    return edges


@pytest.fixture(params=["compiled", "numpy"])
def forest_path(request, monkeypatch):
    """The compiled spanning forest, and the numpy one it replaces where kernels are built."""
    import importlib

    module = importlib.import_module("pybnc.structure.chow_liu")  # the package exports a function of that name
    if request.param == "compiled":
        if module._native is None:
            pytest.skip("the compiled kernels are not built")
    else:
        monkeypatch.setattr(module, "_native", None)
    return request.param


@pytest.mark.parametrize("seed", range(12))
def test_spanning_forest_equals_kruskal_with_ties_and_forbidden_edges(seed, forest_path):
    """Prim under the strict order (weight, then (i, j)) gives Kruskal's forest, in its order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    w = rng.integers(-2, 3, size=(n, n)).astype(float)  # few values: many ties
    w[rng.random((n, n)) < 0.15] = -np.inf
    w = np.triu(w, 1) + np.triu(w, 1).T
    for positive_only in (False, True):
        assert maximum_spanning_forest(w, positive_only) == _kruskal(w, positive_only)


@pytest.mark.parametrize("seed", range(30))
def test_spanning_forest_reads_the_upper_triangle_and_skips_nan(seed, forest_path):
    """An asymmetric matrix is read at (min, max) as Kruskal reads it; NaN and -inf edges are
    never used; ties (few values) are broken by (i, j); up to 60 nodes, several components."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 60))
    w = rng.integers(-1, 4, size=(n, n)).astype(float) / 2
    w[rng.random((n, n)) < 0.1] = np.nan
    w[rng.random((n, n)) < 0.3 * (seed % 3)] = -np.inf  # some tables split into components
    for positive_only in (False, True):
        forest = maximum_spanning_forest(w, positive_only)
        assert forest == _kruskal(w, positive_only)
        assert all(i < j and np.isfinite(w[i, j]) for i, j in forest)


def test_orientation_roots_each_tree_at_its_first_feature():
    s = orient_forest(5, [(3, 1), (1, 4), (0, 2)])
    assert s == Structure(((), (), (0,), (1,), (1,)))
    assert s.topological_order() == [0, 1, 2, 3, 4]
