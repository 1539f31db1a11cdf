"""The float columns coded together (pybnc.encode.numeric_block) equal the one-column path
to the bit: cut points, codes and levels."""

import numpy as np
import pandas as pd
import pytest

from pybnc.encode import Encoder
from pybnc.encode.discretize import cut_points
from pybnc.encode.numeric_block import numeric_columns


def _columns(seed):
    """Ties, few distinct values, constant and empty columns, missing values, huge and tiny numbers."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    cols = [rng.normal(size=n), rng.integers(0, 4, n).astype(float), rng.integers(0, 30, n) / 7.0,
            np.full(n, 2.5), np.round(rng.normal(size=n), 1) * 1e300, rng.normal(size=n) * 1e-300,
            np.where(rng.random(n) < 0.5, np.nan, rng.normal(size=n)), np.full(n, np.nan)]
    return np.column_stack(cols), rng.integers(0, 3, n)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("discretizer,n_bins", [("quantile", 2), ("quantile", 5), ("quantile", 10),
                                                ("uniform", 5), ("mdl", 5)])
def test_columns_coded_together_equal_each_column_alone(seed, discretizer, n_bins):
    values, y = _columns(seed)
    together = numeric_columns(np.asfortranarray(values), discretizer, n_bins, y_codes=y)
    for j, (codes, levels, cuts) in enumerate(together):
        x = values[:, j]
        seen = ~np.isnan(x)
        distinct = np.unique(x[seen])
        if distinct.size <= n_bins:
            assert cuts is None
            np.testing.assert_array_equal(levels.astype(float), distinct)
            expected = np.where(seen, np.searchsorted(distinct, x), -1)
        else:
            alone = cut_points(x[seen], discretizer, n_bins=n_bins, y=y[seen])
            assert cuts.tobytes() == np.asarray(alone, dtype=np.float64).tobytes()
            expected = np.where(seen, np.searchsorted(alone, x, side="right"), -1)
        np.testing.assert_array_equal(codes, expected)


def test_an_encoder_codes_a_wide_table_as_column_by_column():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(np.round(rng.normal(size=(150, 40)), 1), columns=[f"x{i}" for i in range(40)])
    X.iloc[::7, 3] = np.nan
    X["text"] = rng.choice(["a", "b"], 150)
    y = rng.integers(0, 2, 150)
    for params in ({"discretizer": "quantile", "n_bins": 10}, {"discretizer": "mdl"}):
        together = Encoder(**params)
        codes = together.fit_transform(X, y)
        alone = Encoder(**params)
        alone._float_block = lambda *args: {}  # every column by the one-column path
        np.testing.assert_array_equal(codes, alone.fit_transform(X, y))
        assert [list(c) for c in together.categories_] == [list(c) for c in alone.categories_]
        np.testing.assert_array_equal(together.transform(X), codes)


def test_an_infinite_or_text_value_at_predict_is_refused_naming_its_column():
    X = pd.DataFrame({"a": np.arange(30.0), "b": np.arange(30.0)[::-1]})
    enc = Encoder(n_bins=3, discretizer="quantile").fit(X)
    with pytest.raises(ValueError, match="Column 'b' holds the infinite value"):
        enc.transform(X.assign(b=np.r_[np.inf, np.arange(29.0)]))
    with pytest.raises(ValueError, match="Column 'a' is numeric in this model but holds the value 'x'"):
        enc.transform(X.assign(a=["x"] + [1.0] * 29))


def test_a_tall_table_is_coded_a_few_columns_at_a_time_the_same(monkeypatch):
    import pybnc.encode.numeric_block as block

    rng = np.random.default_rng(1)
    X = pd.DataFrame(np.round(rng.normal(size=(300, 9)), 2), columns=[f"x{i}" for i in range(9)])
    X.iloc[::5, 2] = np.nan
    y = rng.integers(0, 3, 300)
    whole = Encoder(discretizer="quantile", n_bins=7)
    codes = whole.fit_transform(X, y)
    monkeypatch.setattr(block, "BLOCK_CELLS", 700)  # two columns a group
    assert [len(g) for g in block.column_groups(list(range(9)), 300)] == [2, 2, 2, 2, 1]
    grouped = Encoder(discretizer="quantile", n_bins=7)
    np.testing.assert_array_equal(grouped.fit_transform(X, y), codes)
    np.testing.assert_array_equal(grouped.transform(X), codes)  # column by column at predict
    assert [c.tolist() for c in grouped.cut_points_] == [c.tolist() for c in whole.cut_points_]
