"""The MDL cut points of many columns at once are those of one column at a time."""

import numpy as np
import pandas as pd
import pytest

from pybnc.encode import Encoder
from pybnc.encode.discretize import cut_points
from pybnc.encode import mdl_columns
from pybnc.encode.mdl_columns import mdl_cut_points_of_columns


def _one_at_a_time(X, y, weights=None):
    out = []
    for j in range(X.shape[1]):
        rows = ~np.isnan(X[:, j])
        out.append(np.asarray(cut_points(X[rows, j], "mdl", y=y[rows], weights=None if weights is None
                                         else weights[rows]), dtype=np.float64) if rows.any() else np.empty(0))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_same_cuts_as_one_column_at_a_time(seed):
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(2, 250)), int(rng.integers(1, 10)), int(rng.choice([2, 3, 9, 13]))
    y = rng.integers(0, k, n)
    # columns that carry the class to a varying degree, with ties (few levels) and missing values
    X = rng.integers(0, int(rng.integers(2, 40)), (n, d)) + y[:, None] * rng.random(d) * rng.integers(0, 3)
    X = X.astype(np.float64)
    if seed % 3 == 0:
        X[rng.random((n, d)) < 0.25] = np.nan
    weights = None
    if seed % 4 == 1:  # a bootstrap sample: whole weights, some zero
        weights = rng.multinomial(n, np.ones(n) / n).astype(np.float64)
    elif seed % 4 == 3:  # fractional weights take the one-column path
        weights = rng.random(n) + 0.1
    got = mdl_cut_points_of_columns(X, y, weights)
    expected = _one_at_a_time(X, y, weights)
    for j in range(d):
        np.testing.assert_array_equal(got[j], expected[j])


def test_the_cuts_do_split_a_separable_column():
    x = np.repeat(np.arange(8.0), 20)
    y = (x > 3.5).astype(int)
    noise = np.random.default_rng(0).normal(size=x.size)
    cuts = mdl_cut_points_of_columns(np.column_stack([x, noise]), y)
    np.testing.assert_array_equal(cuts[0], [3.5])
    assert cuts[1].size == 0


def test_the_encoder_cuts_float_columns_as_before():
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(0, 4, n)
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) + (y == j % 4) * 1.5 for j in range(12)})
    X.iloc[rng.random(n) < 0.1, 3] = np.nan
    X["text"] = rng.choice(["a", "b"], n)
    encoder = Encoder(discretizer="mdl").fit(X, y)
    for j, name in enumerate(encoder.columns_):
        if encoder.kinds_[j] == "discretised":
            values = X[name].to_numpy()
            rows = ~np.isnan(values)
            np.testing.assert_array_equal(encoder.cut_points_[j], cut_points(values[rows], "mdl", y=y[rows]))


def test_an_infinite_value_is_still_refused_by_name():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    X.loc[3, "b"] = np.inf
    with pytest.raises(ValueError, match="Column 'b' holds the infinite"):
        Encoder(discretizer="mdl").fit(X, rng.integers(0, 2, 50))


@pytest.mark.skipif(mdl_columns._native is None, reason="the compiled kernels are not built")
@pytest.mark.parametrize("seed", range(60))
def test_the_compiled_recursion_accepts_numpys_cuts(seed, monkeypatch):
    """The kernel's cuts are those of the numpy recursion, level by level: class counts
    with ties (few levels, repeated patterns), from 2 to 130 classes, whole weights."""
    rng = np.random.default_rng(seed)
    k = int(rng.choice([2, 3, 8, 9, 15, 17, 130]))
    n_columns = int(rng.integers(1, 6))
    sizes = rng.integers(1, 60, n_columns)
    # each column runs through a few regimes of class patterns (so that cuts are accepted),
    # each group a regime's pattern times 1 to 3 (so that equal gains recur at different cuts)
    patterns = rng.integers(0, 6, (4, k)) * (rng.random((4, k)) < 0.6)
    regime = np.concatenate([np.sort(rng.integers(0, 4, size)) for size in sizes])
    table = patterns[regime] * rng.integers(1, 4, (sizes.sum(), 1)) + (rng.random((sizes.sum(), k)) < 0.05)
    table[:, 0] += table.sum(axis=1) == 0  # no empty group
    if seed % 2:  # each column a palindrome: mirrored cuts of exactly equal gain, the first one wins
        table = np.concatenate([np.concatenate([part, part[::-1]]) for part in np.split(table, np.cumsum(sizes)[:-1])])
        sizes = 2 * sizes
    starts = np.concatenate([[0], np.cumsum(sizes)])
    compiled = np.sort(mdl_columns._split_levels(table, starts))
    monkeypatch.setattr(mdl_columns, "_native", None)
    expected = np.sort(mdl_columns._split_levels(table, starts))
    np.testing.assert_array_equal(compiled, expected)


@pytest.mark.skipif(mdl_columns._native is None, reason="the compiled kernels are not built")
def test_the_compiled_entropy_is_numpys_to_the_bit():
    """The kernel's entropy of a row of counts sums as numpy sums (pairwise, 8 lanes)."""
    from pybnc.encode.discretize import _entropy_bits

    rng = np.random.default_rng(0)
    for k in [1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 129, 300]:
        counts = rng.integers(0, 1000, (500, k)) * (rng.random((500, k)) < 0.8)
        counts[:, 0] += counts.sum(axis=1) == 0
        out = np.empty(500)
        mdl_columns._native.entropies(counts.astype(np.int64), float(np.log(2.0)), out)
        np.testing.assert_array_equal(out, _entropy_bits(counts))
