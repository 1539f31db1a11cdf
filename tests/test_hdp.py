"""HDP smoothing: the paper's limits, seeding, and the kDB family with params="hdp"."""

import numpy as np
import pytest
from scipy.special import gammaln

from pybnc import KDB, SKDB
from pybnc.datasets import load_dataset
from pybnc.hdp import hdp_tables, log_stirling_first_kind


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
