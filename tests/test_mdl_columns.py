"""The MDL cut points of many columns at once are those of one column at a time."""

import numpy as np
import pandas as pd
import pytest

from pybnc.encode import TableEncoder
from pybnc.encode.discretize import cut_points
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
    encoder = TableEncoder(discretizer="mdl").fit(X, y)
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
        TableEncoder(discretizer="mdl").fit(X, rng.integers(0, 2, 50))
