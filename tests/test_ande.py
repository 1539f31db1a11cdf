"""AnDE: n=1 is AODE; A2DE against its formula by brute force; out of core equals fit."""

import numpy as np
import pandas as pd
import pytest

from pybnc import AODE, AnDE
from pybnc.datasets import load_dataset
from pybnc.streaming import fit_blocks, fit_dask
from tests.conftest import random_codes


def _table(codes):
    return pd.DataFrame({f"f{j}": pd.Categorical.from_codes(codes[:, j], categories=range(codes[:, j].max() + 1))
                         for j in range(codes.shape[1])})


def test_n1_is_aode_exactly():
    X, y = load_dataset("house-votes-84")  # missing values
    for kw in ({}, {"min_count": 0, "smoothing": "mle"}):
        a, b = AnDE(n=1, **kw).fit(X, y), AODE(**kw).fit(X, y)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def _a2de_brute_force(codes, y, cards, n_classes, x, alpha, min_count):
    """log of the A2DE average at row x, straight from the definition (loops and masks)."""
    d = len(cards)
    estimates = []
    for i in range(d):
        for j in range(i + 1, d):
            if x[i] < 0 or x[j] < 0:
                continue
            both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
            match = both & (codes[:, i] == x[i]) & (codes[:, j] == x[j])
            if match.sum() < min_count:
                continue
            log_p = np.log([(np.sum(match & (y == c)) + alpha) / (both.sum() + n_classes * cards[i] * cards[j] * alpha)
                            for c in range(n_classes)])
            for l_ in range(d):
                if l_ in (i, j) or x[l_] < 0:
                    continue  # a missing child sums to one
                seen = match & (codes[:, l_] >= 0)
                for c in range(n_classes):
                    num = np.sum(seen & (y == c) & (codes[:, l_] == x[l_]))
                    log_p[c] += np.log((num + alpha) / (np.sum(seen & (y == c)) + cards[l_] * alpha))
            estimates.append(log_p)
    return np.log(np.mean(np.exp(estimates), axis=0)) if estimates else None


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
def test_a2de_equals_its_definition(rng, missing_rate):
    cards, n_classes = [2, 3, 2, 3], 3
    codes, y = random_codes(rng, 60, cards, n_classes, missing_rate)
    codes[:, 0] = np.where(codes[:, 0] < 0, 1, codes[:, 0])  # every level present, so encodings match
    model = AnDE(n=2, min_count=3).fit(_table(codes), y)
    log_post = model.predict_log_proba(_table(codes))
    checked = 0
    for row, x in enumerate(codes):
        expected = _a2de_brute_force(codes, y, cards, n_classes, x, 1.0, 3)
        if expected is None:
            continue  # AODE's fallback, tested by AODE's tests
        expected -= np.log(np.exp(expected).sum())
        np.testing.assert_allclose(log_post[row], expected, rtol=1e-10)
        checked += 1
    assert checked > 40
    offsets = np.concatenate([[0], np.cumsum(cards)])
    expected = np.zeros(model.triple_counts_.shape)  # every ordered triple of three features, by brute force
    for row, x in enumerate(codes):
        seen = [offsets[j] + x[j] for j in range(len(cards)) if x[j] >= 0]
        for a in seen:
            for b in seen:
                for e in seen:
                    if len({a, b, e}) == 3:
                        expected[y[row], a, b, e] += 1
    np.testing.assert_array_equal(model.triple_counts_, expected)


def test_out_of_core_equals_fit():
    codes, y = random_codes(np.random.default_rng(2), 400, [3, 2, 4, 3], 2, 0.1)
    X = pd.DataFrame({f"f{j}": pd.Series(codes[:, j]).map(lambda v: None if v < 0 else f"v{v}") for j in range(4)})
    full = AnDE(n=2).fit(X, y)
    blocks = [(X[i : i + 100], y[i : i + 100]) for i in range(0, 400, 100)]
    streamed = fit_blocks(AnDE(n=2), iter(blocks), classes=[0, 1])  # one pass
    np.testing.assert_allclose(streamed.predict_proba(X), full.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(streamed.triple_counts_, full.triple_counts_)
    dd = pytest.importorskip("dask.dataframe")
    dask_fit = fit_dask(AnDE(n=2), dd.from_pandas(X.assign(t=y), npartitions=3), "t", scheduler="synchronous")
    np.testing.assert_allclose(dask_fit.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_too_wide_is_refused_with_the_fix():
    X = pd.DataFrame({f"f{j}": np.arange(600) % 300 for j in range(4)}).astype(str).radd("v")  # text, not numbers
    with pytest.raises(ValueError, match="AnDE\\(n=1\\)"):
        AnDE(n=2).fit(X, np.arange(600) % 2)
