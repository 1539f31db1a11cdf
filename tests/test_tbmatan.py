"""TBMATAN / SSTBMATAN against explicit averages over every spanning tree, and the
log-space determinant against high-precision references."""

import itertools
import math
import warnings

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

from pybnc import SSTBMATAN, TBMATAN
from pybnc.averaging import _laplacian
from pybnc.averaging._laplacian import log_tree_sum, log_tree_sums_for_rows
from pybnc.averaging.sstbmatan import stubborn_log_weights
from pybnc.datasets import load_dataset

ESS = 10.0


# -- brute force: every spanning tree, written from the paper's equations ------------------
def spanning_trees(n):
    """All n^(n-2) labelled trees on n nodes (Prüfer sequences), as edge lists."""
    if n == 1:
        return [[]]
    if n == 2:
        return [[(0, 1)]]
    trees = []
    for seq in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for s in seq:
            degree[s] += 1
        edges = []
        for s in seq:
            leaf = min(i for i in range(n) if degree[i] == 1)
            edges.append((leaf, s))
            degree[leaf] -= 1
            degree[s] -= 1
        u, v = [i for i in range(n) if degree[i] == 1]
        edges.append((u, v))
        trees.append(edges)
    assert len(trees) == n ** (n - 2)
    return trees


def loop_counts(x, y, cards, k):
    """Available-case counts with explicit loops (independent of pybnc.counts.tables)."""
    n = len(cards)
    nc = np.zeros(k)
    nu = [np.zeros((k, r)) for r in cards]
    nuv = {(u, v): np.zeros((k, cards[u], cards[v])) for u in range(n) for v in range(n) if u != v}
    for row, c in zip(x, y):
        nc[c] += 1
        for u in range(n):
            if row[u] >= 0:
                nu[u][c, row[u]] += 1
                for v in range(n):
                    if v != u and row[v] >= 0:
                        nuv[u, v][c, row[u], row[v]] += 1
    return nc, nu, nuv


def brute_force_jll(x_train, y_train, cards, k, x_test, weights="eq22", drop_missing=False):
    """log P(x_observed, c | D) averaged explicitly over every tree.

    Each tree predicts with its posterior-mean parameters, rooted at node 0; its
    weight is prod_e W_e with W from eq. 22 literally (or transformed by eqs. 25-29,
    or the Bayes factor, which differs from eq. 22 by a factor common to all edges
    when the data are complete).
    With missing training values, each edge uses its pair's own rows (pybnc's
    documented treatment); with ``drop_missing`` a missing test feature's factors
    are dropped (the documented approximation) instead of summed out.
    """
    n = len(cards)
    nc, nu, nuv = loop_counts(x_train, y_train, cards, k)
    lam = ESS
    log_w = np.full((n, n), -np.inf)
    for u, v in itertools.combinations(range(n), 2):
        pair = nuv[u, v]
        a_cell, a_u, a_v = lam / (k * cards[u] * cards[v]), lam / (k * cards[u]), lam / (k * cards[v])
        term_u = np.sum(gammaln(a_u) - gammaln(a_u + pair.sum(axis=2)))
        term_v = np.sum(gammaln(a_v) - gammaln(a_v + pair.sum(axis=1)))
        term_uv = np.sum(gammaln(a_cell + pair) - gammaln(a_cell))
        log_w[u, v] = log_w[v, u] = term_u + term_v + term_uv  # eq. 22 as printed
        if weights == "bayes_factor":  # pybnc's W: eq. 22 times a factor equal for all edges
            log_w[u, v] += np.sum(gammaln(lam / k + pair.sum(axis=(1, 2))) - gammaln(lam / k))
            log_w[v, u] = log_w[u, v]
    if weights == "stubborn":
        log_w = stubborn_log_weights(log_w, 5.0)

    def p_class(c):
        return (lam / k + nc[c]) / (lam + nc.sum())

    def p_node(u, s, c):
        return (lam / (k * cards[u]) + nu[u][c, s]) / (lam / k + nu[u][c].sum())

    def ratio(u, v, su, sv, c):  # P(su, sv | c) / (P(su | c) P(sv | c)) on the pair's rows
        pair = nuv[u, v][c]
        tot = lam / k + pair.sum()
        puv = (lam / (k * cards[u] * cards[v]) + pair[su, sv]) / tot
        pu = (lam / (k * cards[u]) + pair[su].sum()) / tot
        pv = (lam / (k * cards[v]) + pair[:, sv].sum()) / tot
        return puv / (pu * pv)

    def tree_prob(edges, s, c, keep):
        p = p_class(c)
        for u in range(n):
            if keep[u]:
                p *= p_node(u, s[u], c)
        for u, v in edges:
            if keep[u] and keep[v]:
                p *= ratio(u, v, s[u], s[v], c)
        return p

    trees = spanning_trees(n)
    tree_log_w = np.array([sum(log_w[u, v] for u, v in t) for t in trees])
    tree_w = np.exp(tree_log_w - tree_log_w.max())
    tree_w /= tree_w.sum()
    out = np.zeros((len(x_test), k))
    for r, row in enumerate(x_test):
        holes = [u for u in range(n) if row[u] < 0]
        fills = [()] if drop_missing else list(itertools.product(*[range(cards[h]) for h in holes]))
        keep = [row[u] >= 0 or not drop_missing for u in range(n)]
        for c in range(k):
            total = 0.0
            for fill in fills:
                s = list(row)
                for h, f in zip(holes if not drop_missing else [], fill):
                    s[h] = f
                total += sum(w * tree_prob(t, s, c, keep) for w, t in zip(tree_w, trees))
            out[r, c] = np.log(total)
    return out


def random_problem(seed, n, k=3, rows=60):
    rng = np.random.default_rng(seed)
    cards = list(rng.integers(2, 5, size=n))
    y = rng.integers(0, k, size=rows)
    y[:k] = np.arange(k)
    # Correlated features so that the tree posterior is far from uniform.
    x = np.empty((rows, n), dtype=int)
    x[:, 0] = (y + rng.integers(0, 2, rows)) % cards[0]
    for u in range(1, n):
        noise = rng.random(rows) < 0.3
        x[:, u] = np.where(noise, rng.integers(0, cards[u], rows), (x[:, u - 1] + y) % cards[u])
    x[: max(cards), :] = np.arange(max(cards))[:, None] % np.array(cards)  # every level seen
    return x, y, cards, k


def frame(x):
    return pd.DataFrame({f"a{u}": pd.array(np.where(x[:, u] >= 0, x[:, u], pd.NA), dtype="Int64")
                         for u in range(x.shape[1])})


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("model", [TBMATAN, SSTBMATAN])
def test_equals_average_over_all_spanning_trees(n, model):
    x, y, cards, k = random_problem(n, n)
    test = np.random.default_rng(100 + n).integers(0, 4, size=(6, n)) % np.array(cards)
    fitted = model().fit(frame(x), y)
    got = fitted._jll_encoded(test)
    want = brute_force_jll(x, y, cards, k, test, "eq22" if model is TBMATAN else "stubborn")
    if model is TBMATAN:  # the joint probability itself, normaliser included
        np.testing.assert_allclose(got, want, rtol=1e-9)
    proba = fitted.predict_proba(frame(test))
    want_proba = np.exp(want - want.max(axis=1, keepdims=True))
    np.testing.assert_allclose(proba, want_proba / want_proba.sum(axis=1, keepdims=True), rtol=1e-9)


@pytest.mark.parametrize("n_missing", [1, 2])
def test_missing_at_predict_is_summed_out_exactly(n_missing):
    x, y, cards, k = random_problem(7, 5)
    test = np.random.default_rng(8).integers(0, 4, size=(3, 5)) % np.array(cards)
    rng = np.random.default_rng(9)
    for row in test:
        row[rng.choice(5, size=n_missing, replace=False)] = -1
    fitted = TBMATAN().fit(frame(x), y)
    got = fitted._jll_encoded(test)
    np.testing.assert_allclose(got, brute_force_jll(x, y, cards, k, test), rtol=1e-9)
    assert fitted.missing_summary(frame(test)) == {
        "complete": 0, "exact": 3, "approximate": 0, "unseen_cells": 0}


def test_rows_missing_most_features_are_summed_out_exactly():
    """Three of five features missing, in several patterns: every completion of every
    tree, against the explicit average."""
    x, y, cards, k = random_problem(31, 5)
    rng = np.random.default_rng(32)
    test = rng.integers(0, 4, size=(4, 5)) % np.array(cards)
    for row in test:
        row[rng.choice(5, size=3, replace=False)] = -1
    fitted = TBMATAN().fit(frame(x), y)
    np.testing.assert_allclose(fitted._jll_encoded(test), brute_force_jll(x, y, cards, k, test), rtol=1e-9)


def test_features_with_one_level_or_none_are_eliminated_once_exactly():
    """A constant column is a factor 1 in every tree (Bayes factor 1, h = 1) and is
    eliminated from the tree sums once; a column never observed in training is in no
    tree: it contributes nothing (docs/missing-values.md). Against the explicit average
    over the trees of the other columns, the one-level ones included."""
    x, y, cards, k = random_problem(41, 4)
    x6 = np.column_stack([x[:, :2], np.zeros(len(x), int), x[:, 2:], np.zeros(len(x), int)])
    cards6 = cards[:2] + [1] + cards[2:] + [1]
    train = frame(x6)
    train["a5"] = pd.array([pd.NA] * len(x), dtype="Int64")  # never observed: no level at all
    fitted = TBMATAN().fit(train, y)
    assert fitted.encoder_.cardinalities_.tolist() == cards6[:5] + [0]
    rng = np.random.default_rng(42)
    test = rng.integers(0, 4, size=(4, 6)) % np.array(cards6)
    test[:2, 1] = -1  # a missing feature as well
    test[1::2, 2] = -1  # and a missing one-level feature
    codes = test.copy()
    codes[:, 5] = -1
    want = brute_force_jll(x6[:, :5], y, cards6[:5], k, test[:, :5])
    np.testing.assert_allclose(fitted._jll_encoded(codes), want, rtol=1e-9)
    assert (fitted.log_edge_weights_[5, :5] == -np.inf).all()  # no edge: in no tree


def test_warning_names_unseen_categories_when_nothing_is_missing():
    x, y, cards, k = random_problem(51, 4)
    fitted = TBMATAN(max_missing_combinations=1).fit(frame(x), y)
    test = frame(x[:3]).astype("Int64")
    test.iloc[:, 1] = 9  # a category never seen: treated as missing
    test.iloc[:, 3] = 7
    with pytest.warns(UserWarning, match=r"6 of their 6 missing cells hold categories not seen in training"):
        fitted.predict_proba(test)
    assert fitted.missing_summary(test) == {"complete": 0, "exact": 0, "approximate": 3, "unseen_cells": 6}


def test_beyond_the_bound_the_leaf_approximation_is_used_and_reported():
    x, y, cards, k = random_problem(11, 5)
    test = np.random.default_rng(12).integers(0, 4, size=(4, 5)) % np.array(cards)
    test[:, 2] = -1
    test[:, 4] = -1
    fitted = TBMATAN(max_missing_combinations=1).fit(frame(x), y)
    with pytest.warns(UserWarning, match="max_missing_combinations"):
        got = fitted._jll_encoded(test)
    assert fitted.missing_summary(frame(test))["approximate"] == 4
    np.testing.assert_allclose(got, brute_force_jll(x, y, cards, k, test, drop_missing=True), rtol=1e-9)
    exact = TBMATAN().fit(frame(x), y)._jll_encoded(test)
    assert not np.allclose(got, exact, rtol=1e-6)  # it is an approximation, and a different number


def test_missing_training_values_use_per_pair_available_cases():
    x, y, cards, k = random_problem(21, 4, rows=80)
    rng = np.random.default_rng(22)
    x_missing = x.copy()
    x_missing[rng.random(x.shape) < 0.15] = -1
    x_missing[: max(cards)] = x[: max(cards)]
    test = np.random.default_rng(23).integers(0, 4, size=(5, 4)) % np.array(cards)
    fitted = TBMATAN().fit(frame(x_missing), y)
    # Pair-dependent with missing data, eq. 22's extra class factor would favour the
    # pairs with fewer observed rows; pybnc uses the proper Bayes factor.
    want = brute_force_jll(x_missing, y, cards, k, test, weights="bayes_factor")
    np.testing.assert_allclose(fitted._jll_encoded(test), want, rtol=1e-9)
    proba = fitted.predict_proba(frame(test))
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)


# -- the determinant ------------------------------------------------------------------------
def mp_log_tree_sum(log_weights, digits=400):
    with mpmath.workdps(digits):
        n = log_weights.shape[0]
        w = [[mpmath.exp(mpmath.mpf(float(log_weights[u, v]))) if u != v else mpmath.mpf(0)
              for v in range(n)] for u in range(n)]
        q = mpmath.matrix(n - 1, n - 1)
        for u in range(n - 1):
            for v in range(n - 1):
                q[u, v] = -w[u][v] if u != v else mpmath.fsum(w[u])
        return mpmath.log(mpmath.det(q))


ENGINES = ["numpy", pytest.param("compiled", marks=pytest.mark.skipif(
    _laplacian._native is None, reason="the C kernels are not built (tests/test_native.py fails)"))]


@pytest.mark.parametrize("engine", ENGINES)
def test_log_tree_sum_matches_explicit_tree_enumeration(engine):
    rng = np.random.default_rng(0)
    for n in range(2, 6):
        log_w = rng.normal(0, 3, (n, n))
        log_w = (log_w + log_w.T) / 2
        want = np.logaddexp.reduce([sum(log_w[u, v] for u, v in t) for t in spanning_trees(n)])
        assert log_tree_sum(log_w, engine) == pytest.approx(want, rel=1e-13)
    cut = np.zeros((4, 4))
    cut[:2, 2:] = cut[2:, :2] = -np.inf  # two components: no spanning tree
    assert log_tree_sum(cut, engine) == -np.inf


def test_engines_agree_on_row_batches():
    rng = np.random.default_rng(5)
    log_beta = rng.uniform(-800, 50, (7, 7))
    log_beta = (log_beta + log_beta.T) / 2
    log_h = rng.normal(0, 2, (3, 14, 14))
    log_h = (log_h + np.swapaxes(log_h, 1, 2)) / 2
    columns = 2 * np.arange(7) + rng.integers(0, 2, (40, 7))
    drop = rng.random((40, 7)) < 0.2
    engines = ["numpy"] + (["compiled"] if _laplacian._native is not None else [])
    results = [log_tree_sums_for_rows(log_beta, log_h, columns, drop, engine=e) for e in engines]
    dense = np.swapaxes(np.where((drop[:, :, None] | drop[:, None, :])[None], 0.0,
                                 log_h[:, columns[:, :, None], columns[:, None, :]]), 0, 1) + log_beta
    for got in results:
        np.testing.assert_allclose(got, log_tree_sum(dense, "numpy"), rtol=1e-13)


@pytest.mark.skipif(_laplacian._native is None, reason="the compiled kernels are not built")
@pytest.mark.parametrize("spread", [5.0, 600.0, 1250.0])
@pytest.mark.parametrize("with_extra", [False, True])
def test_compiled_graphs_in_lanes_equal_one_graph_at_a_time(spread, with_extra, monkeypatch):
    """The plain-double elimination run on four graphs at once (one per vector lane)
    against the same kernel one graph at a time, where it takes plain doubles: log
    weights spanning at most 1300 nats in all (here up to about 1250), log h within 300,
    with or without extra weights (a Kron reduction's, some absent). Sizes cover fewer
    nodes than a block of four and partial blocks; row counts leave a partial group of
    lanes; some rows drop features. Both against the log-space numpy engine too."""
    rng = np.random.default_rng(int(spread) + with_extra)
    for n, n_classes, n_rows in [(2, 1, 3), (3, 2, 5), (4, 3, 1), (5, 2, 7), (6, 1, 9), (9, 3, 6), (14, 2, 11)]:
        log_beta = rng.uniform(-spread, 0.0, (n, n))
        log_beta = (log_beta + log_beta.T) / 2
        log_beta[0, 1] = log_beta[1, 0] = -spread  # the whole range is used
        log_h = rng.normal(0, 1 + spread / 300, (n_classes, 2 * n, 2 * n)).clip(-20, 20)
        columns = 2 * np.arange(n) + rng.integers(0, 2, (n_rows, n))
        drop = rng.random((n_rows, n)) < 0.15
        drop[0] = False
        log_extra = None
        if with_extra:
            log_extra = rng.uniform(-spread, 20.0, (n, n))
            log_extra = np.where(rng.random((n, n)) < 0.3, -np.inf, (log_extra + log_extra.T) / 2)
            log_extra = np.minimum(log_extra, log_extra.T)  # symmetric, -inf included
        got = log_tree_sums_for_rows(log_beta, log_h, columns, drop, engine="compiled", log_extra=log_extra)
        monkeypatch.setattr(_laplacian, "_LANES", False)
        want = log_tree_sums_for_rows(log_beta, log_h, columns, drop, engine="compiled", log_extra=log_extra)
        monkeypatch.setattr(_laplacian, "_LANES", True)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=0)
        reference = log_tree_sums_for_rows(log_beta, log_h, columns, drop, engine="numpy", log_extra=log_extra)
        np.testing.assert_allclose(got, reference, rtol=1e-12)


@pytest.mark.skipif(_laplacian._native is None, reason="the compiled kernels are not built")
@pytest.mark.parametrize("n", [4, 6, 9])
def test_compiled_lanes_keep_products_of_a_tiny_and_a_dominant_weight(n, monkeypatch):
    """One edge dominates all others by 1250 nats: eliminating one of its ends adds to
    each tiny edge (u, other end) about its own weight, through a tiny w_uk over a pivot
    as large as the dominant edge. Formed as (w_uk / d_k) w_kv that quotient underflows
    and the trees through the dominant edge lose half their weight; the lanes must take
    the (larger / d_k) * smaller product on such wide rows."""
    log_beta = np.full((n, n), -1250.0)
    log_beta[1, n - 2] = log_beta[n - 2, 1] = 0.0
    log_h = np.zeros((2, 2 * n, 2 * n))
    log_h[1] = np.random.default_rng(n).normal(0, 1, (2 * n, 2 * n))
    columns = 2 * np.arange(n) + np.random.default_rng(n).integers(0, 2, (5, n))
    got = log_tree_sums_for_rows(log_beta, log_h, columns, engine="compiled")
    dense = np.swapaxes(log_h[:, columns[:, :, None], columns[:, None, :]], 0, 1) + log_beta
    np.testing.assert_allclose(got, log_tree_sum(dense, "numpy"), rtol=1e-12)
    # class 0 (h = 1): 2 n^(n-3) trees hold the dominant edge, each of weight
    # e^(-1250 (n - 2)); the others are e^1250 times lighter
    trees_with_edge = 2 * n ** (n - 3)
    np.testing.assert_allclose(got[:, 0], np.log(trees_with_edge) - 1250.0 * (n - 2), rtol=1e-12)
    monkeypatch.setattr(_laplacian, "_LANES", False)
    np.testing.assert_allclose(got, log_tree_sums_for_rows(log_beta, log_h, columns, engine="compiled"), rtol=1e-10)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("spread", [30.0, 1000.0])
def test_log_tree_sum_matches_high_precision_in_either_arithmetic(engine, spread):
    """Weights within e^30 of each other (the compiled kernel eliminates them as plain
    doubles) and spanning e^1300 (in logs, with many near-equal log-adds among the
    rest): both against 1500-digit arithmetic."""
    rng = np.random.default_rng(7)
    log_w = rng.uniform(-5.0, 5.0, (9, 9))
    log_w[3, :] -= spread
    log_w[:, 6] += spread / 3
    log_w = (log_w + log_w.T) / 2
    np.testing.assert_allclose(log_tree_sum(log_w, engine), float(mp_log_tree_sum(log_w, 1500)), rtol=1e-13)


@pytest.mark.parametrize("engine", ENGINES)
def test_log_tree_sum_is_exact_where_lu_fails(engine):
    rng = np.random.default_rng(1)
    log_w = rng.uniform(-460, 0, (8, 8))
    log_w = (log_w + log_w.T) / 2
    batch = np.stack([log_w, log_w[::-1, ::-1]])
    ref = float(mp_log_tree_sum(log_w))
    got = log_tree_sum(batch, engine)
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    w = np.exp(log_w)
    np.fill_diagonal(w, 0.0)
    sign, lu = np.linalg.slogdet((np.diag(w.sum(axis=1)) - w)[:-1, :-1])
    assert sign <= 0 or abs(lu - ref) > 1.0  # float64 LU: wrong sign or off by e^1 or more


@pytest.mark.slow
def test_chess_posterior_matches_700_digit_evaluation_of_eq17():
    X, y = load_dataset("chess")
    model = TBMATAN().fit(X, y)
    rows = np.random.default_rng(0).choice(len(X), 20, replace=False)
    codes = model.encoder_.transform(X.iloc[rows])
    got = model.predict_log_proba(X.iloc[rows])
    # Eq. 17 in 700-digit arithmetic (log W spans ~840 nats = 365 digits, so LU
    # needs more than that): weights beta* h with eq. 22's W and eq. 19's h,
    # normaliser Z_beta*, from the (exact integer) counts.
    off, cards = model.column_offsets_, model.encoder_.cardinalities_
    from pybnc.counts.tables import count

    counts = count(model.encoder_.transform(X), np.unique(y, return_inverse=True)[1], cards, 2)
    n, k, lam = len(cards), 2, ESS
    with mpmath.workdps(700):
        memo = {}

        def lg(x):  # the arguments repeat a lot: prior + small integer
            key = str(x)
            if key not in memo:
                memo[key] = mpmath.loggamma(x)
            return memo[key]

        joint = counts.dense_joint()
        nprime = [mpmath.mpf(lam) / (k * int(r)) for r in cards]
        log_w = [[None] * n for _ in range(n)]
        for u, v in itertools.combinations(range(n), 2):
            total = mpmath.mpf(0)
            for c in range(k):
                block = joint[c, off[u]:off[u] + cards[u], off[v]:off[v] + cards[v]]
                a = mpmath.mpf(lam) / (k * int(cards[u]) * int(cards[v]))
                total += mpmath.fsum(lg(a + int(b)) - lg(a) for b in block.ravel())
                total += mpmath.fsum(lg(nprime[u]) - lg(nprime[u] + int(b)) for b in block.sum(axis=1))
                total += mpmath.fsum(lg(nprime[v]) - lg(nprime[v] + int(b)) for b in block.sum(axis=0))
            log_w[u][v] = log_w[v][u] = total

        def log_det(h):
            q = mpmath.matrix(n - 1, n - 1)
            w = [[mpmath.exp(log_w[u][v] + h[u][v]) if u != v else 0 for v in range(n)] for u in range(n)]
            for u in range(n - 1):
                for v in range(n - 1):
                    q[u, v] = -w[u][v] if u != v else mpmath.fsum(w[u])
            return mpmath.log(mpmath.det(q))

        log_z = log_det([[0] * n for _ in range(n)])
        ref = np.empty((20, k))
        nc = counts.class_counts
        for r, row in enumerate(codes):
            jll = []
            for c in range(k):
                nu = [mpmath.mpf(lam) / (k * cards[u]) + int(joint[c, off[u] + row[u], off[u] + row[u]]) for u in range(n)]
                h = [[0] * n for _ in range(n)]
                for u, v in itertools.combinations(range(n), 2):
                    nuv = mpmath.mpf(lam) / (k * cards[u] * cards[v]) + int(joint[c, off[u] + row[u], off[v] + row[v]])
                    h[u][v] = h[v][u] = mpmath.log(nuv / (nu[u] * nu[v]))
                log_h0 = -log_z - mpmath.log(lam + nc.sum()) + mpmath.fsum(mpmath.log(x) for x in nu)
                jll.append(log_h0 + log_det(h))  # eq. 17
            norm = mpmath.log(mpmath.fsum(mpmath.exp(j) for j in jll))
            ref[r] = [float(j - norm) for j in jll]
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)
    # Float64 LU on the same weights: with the shift that avoids overflow, far off or -inf.
    lu_errors = []
    for r, row in enumerate(codes[:5]):
        columns = off + row
        lw = model.log_edge_weights_ + model.log_dependence_[0][np.ix_(columns, columns)]
        w = np.exp(lw - lw[np.isfinite(lw)].max())
        np.fill_diagonal(w, 0.0)
        sign, lu = np.linalg.slogdet((np.diag(w.sum(axis=1)) - w)[:-1, :-1])
        exact = log_tree_sum(lw) - lw[np.isfinite(lw)].max() * (n - 1)
        lu_errors.append(abs(lu - exact) if sign > 0 else np.inf)
    assert min(lu_errors) > 1e-3


# -- the estimator contract -----------------------------------------------------------------
def test_sklearn_contract_and_validation():
    X, y = load_dataset("votes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        proba = TBMATAN().fit(X, y).predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="alpha"):
        TBMATAN(alpha=0).fit(X, y)
    with pytest.raises(ValueError, match="max_missing_combinations"):
        TBMATAN(max_missing_combinations=0).fit(X, y)
    with pytest.raises(ValueError, match="decades"):
        SSTBMATAN(decades=-1).fit(X, y)


def test_stubborn_weights_follow_eqs_25_to_29():
    rng = np.random.default_rng(3)
    log_w = rng.uniform(-900, 900, (6, 6))
    log_w = (log_w + log_w.T) / 2
    out = stubborn_log_weights(log_w) / np.log(10)
    off = ~np.eye(6, dtype=bool)
    assert out[off].max() == pytest.approx(0.0, abs=1e-12) and out[off].min() == pytest.approx(-5.0)
    assert (np.argsort(out[off]) == np.argsort(log_w[off])).all()  # order kept
    narrow = np.where(off, np.log(10) * rng.uniform(-3, 0, (6, 6)), 0)
    narrow = (narrow + narrow.T) / 2
    shifted = stubborn_log_weights(narrow) - narrow  # a = 1: a pure shift
    assert np.ptp(shifted[off]) < 1e-12
