"""HDP smoothing: the paper's limits, seeding, and the kDB family with smoothing="hdp"."""

import functools
import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from pybnc import KDB, SKDB
from pybnc.datasets import load_dataset
from pybnc.parameters import hdp
from pybnc.parameters.hdp import hdp_tables


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
    model = Model(k=2, smoothing="hdp", random_state=0, verbose=0).fit(X, y)
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0) and model.score(X, y) > 0.9
    again = Model(k=2, smoothing="hdp", random_state=0, verbose=0).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), proba)


@pytest.fixture
def engine():
    """The compiled chains (the sampler's one implementation)."""
    if hdp._native is None:
        pytest.skip("the C kernels are not built (tests/test_native.py fails)")
    return "compiled"


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
    (p,) = hdp_tables([leaves], n_iterations=20000, burn_in=200, random_state=0, fixed_concentration=3.0)
    np.testing.assert_allclose(p, exact, atol=0.006)
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


@functools.lru_cache(maxsize=1)
def log_stirling_first_kind(n_max: int = hdp.STIRLING_MAX_N) -> np.ndarray:
    """``log S(n, t)`` (unsigned, first kind) for ``0 <= n, t <= n_max``; ``-inf`` where 0.

    """
    table = np.full((n_max + 1, n_max + 1), -np.inf)
    table[0, 0] = 0.0
    for n in range(n_max):  # S(n+1, t) = n S(n, t) + S(n, t-1)
        shifted = np.concatenate([[-np.inf], table[n, :-1]])
        with np.errstate(divide="ignore"):
            table[n + 1] = np.logaddexp(np.log(n) + table[n] if n else np.full(n_max + 1, -np.inf), shifted)
    return table


def _stirling_exact(n_max):
    """Unsigned Stirling numbers of the first kind as Python integers."""
    table = [[1]]
    for n in range(n_max):
        row = [0] * (n + 2)
        for t in range(n + 2):
            row[t] = (n * table[n][t] if t <= n else 0) + (table[n][t - 1] if t >= 1 else 0)
        table.append(row)
    return table


def test_compiled_stirling_ratios_match_exact_integers():
    """The compiled sampler weighs candidates by ratios S(n, v + 1) / S(n, v) and
    S(n, v - 1) / S(n, v), built by a subtraction-free recurrence: exact integers agree
    to a few ulps, up to the largest count it samples."""
    from fractions import Fraction

    if hdp._native is None:
        pytest.skip("the C kernels are not built (tests/test_native.py fails)")
    exact = _stirling_exact(300)
    for n, v in [(2, 1), (5, 2), (40, 1), (40, 39), (120, 7), (300, 1), (300, 150), (300, 299)]:
        up, down = hdp._native.stirling_ratios(n, v)
        assert up == pytest.approx(float(Fraction(exact[n][v + 1], exact[n][v])), rel=1e-13)
        if v >= 2:
            assert down == pytest.approx(float(Fraction(exact[n][v - 1], exact[n][v])), rel=1e-13)
    big = hdp._native.stirling_ratios(hdp.STIRLING_MAX_N, 40)[0]
    table = log_stirling_first_kind()
    assert big == pytest.approx(np.exp(table[hdp.STIRLING_MAX_N, 41] - table[hdp.STIRLING_MAX_N, 40]), rel=1e-9)


def _draws(kind, a=0.0, b=0.0, totals=(), n=20000, seed=3):
    if hdp._native is None:
        pytest.skip("the C kernels are not built (tests/test_native.py fails)")
    out = np.empty(n)
    hdp._native.draws(seed, kind, a, b, np.asarray(totals, dtype=np.int64), out)
    return out


@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 40.0, 3000.0])
def test_compiled_gamma_and_beta_draws_follow_their_distributions(shape):
    from scipy import stats

    assert stats.kstest(_draws(2, shape), stats.gamma(shape).cdf).pvalue > 1e-3
    # -log q, q ~ Beta(shape, 7)
    assert stats.kstest(np.exp(-_draws(3, shape, 7.0)), stats.beta(shape, 7.0).cdf).pvalue > 1e-3
    assert stats.kstest(_draws(0), stats.uniform().cdf).pvalue > 1e-3
    assert stats.kstest(_draws(1), stats.norm().cdf).pvalue > 1e-3


@pytest.mark.parametrize("shape", [1, 2, 5, 11, 12, 40])
def test_compiled_gamma_of_a_whole_shape_follows_its_distribution(shape):
    """The grouped concentration draws take Gamma(m) for whole m as a sum of
    exponentials below 12 and by the general method from there."""
    from scipy import stats

    if hdp._native is None:
        pytest.skip("the C kernels are not built (tests/test_native.py fails)")
    assert stats.kstest(_draws(6, float(shape)), stats.gamma(shape).cdf).pvalue > 1e-3

@pytest.mark.parametrize("c", [0.6, 3.0, 250.0])
def test_grouped_concentration_rate_has_the_node_by_node_distribution(c):
    """sum_j -log q_j, q_j ~ Beta(c, N_j): drawn as sum_i Gamma(m_i) / (c + i) for the
    totals up to 64 (a product of Beta(c + i, 1)), node by node above, against two
    draws per node."""
    from scipy import stats

    totals = [1, 1, 2, 3, 3, 7, 19, 64, 65, 300, 0]
    grouped, by_node = _draws(4, c, totals=totals, seed=5), _draws(5, c, totals=totals, seed=6)
    assert stats.ks_2samp(grouped, by_node).pvalue > 1e-3
    exact_mean = sum(stats.beta(c, n).expect(lambda q: -np.log(q)) for n in totals if n)
    assert grouped.mean() == pytest.approx(exact_mean, rel=0.02)


def _shared_case():
    a, b = _leaves(21), _leaves(22)
    return [[a, b[:, 0]], [b, a.copy(), np.zeros((2, 0))], [a[:, 1], b]]  # a and b held twice


def test_shared_chains_smooth_each_distinct_table_once_with_its_own_draws(engine, monkeypatch):
    """Equal tables share one chain and one estimate, and a table's estimate is the
    draw of its chain alone (its stream is its counts' hash): the same as smoothing it
    by itself, whoever else is smoothed in the same call, in any order, in a copy sent
    to another process."""
    lists = _shared_case()
    smoothed = []
    real = hdp._chain_estimates
    monkeypatch.setattr(hdp, "_chain_estimates", lambda tables, *a, **k: smoothed.extend(tables) or real(tables, *a, **k))
    chains = hdp.SharedChains(n_iterations=60, random_state=5)
    got = [chains.estimates(tables) for tables in lists]
    assert got[1][2].shape == (2, 0)  # the empty table needs no chain
    assert got[1][1] is got[0][0] and got[2][1] is got[1][0]
    assert len(smoothed) == 4  # a, b, a[:, 1], b[:, 0]
    for tables, estimates in zip(lists, got):
        for table, p in zip(tables, estimates):
            assert p.shape == table.shape and not p.flags.writeable
            if table.size:
                np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    for table, p in [(lists[0][0], got[0][0]), (lists[0][1], got[0][1]), (lists[2][0], got[2][0])]:
        (alone,) = real([np.rint(table)], [hdp.table_seed(table, 5)], 60, hdp._burn_in(60, None))
        np.testing.assert_array_equal(p, alone)
    import pickle
    copy = pickle.loads(pickle.dumps(chains))
    for tables, estimates in zip(reversed(lists), reversed(got)):
        for p, q in zip(copy.estimates(tables), estimates):
            np.testing.assert_array_equal(p, q)
    other = hdp.SharedChains(n_iterations=60, random_state=6).estimates(lists[0])
    assert not np.array_equal(other[0], got[0][0])  # the base seed matters


def test_shared_chains_between_threads_run_each_chain_once(monkeypatch):
    """Threads asking for the same tables at once: one runs each chain, the others wait
    for it, and all get what a single thread gets."""
    if hdp._native is None:
        pytest.skip("the C kernels are not built (tests/test_native.py fails)")
    from concurrent.futures import ThreadPoolExecutor

    lists = _shared_case() * 4
    smoothed = []
    real = hdp._chain_estimates
    monkeypatch.setattr(hdp, "_chain_estimates", lambda tables, *a, **k: smoothed.extend(tables) or real(tables, *a, **k))
    chains = hdp.SharedChains(n_iterations=300, random_state=1)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(chains.estimates, lists))
    assert len(smoothed) == 4
    alone = hdp.SharedChains(n_iterations=300, random_state=1)
    for tables, estimates in zip(lists, got):
        for p, q in zip(alone.estimates(tables), estimates):
            np.testing.assert_array_equal(p, q)
