"""Values to level codes: the shortcuts (a dict for few levels, numpy for float columns)
give what pandas' index gives, value for value."""

import numpy as np
import pandas as pd
import pytest

from pybnc.encode._levels import factorize_column, lookup_column, match_levels


def _by_pandas(col: pd.Series, levels: np.ndarray) -> np.ndarray:
    codes, uniques = pd.factorize(col, sort=False)
    mapping = np.append(pd.Index(levels, dtype=object).get_indexer(np.asarray(uniques, dtype=object)), -1)
    return mapping[codes]


def test_match_levels_is_pandas_index_matching():
    levels = np.array([1, "1", 2.5, "none", (1, 2), False], dtype=object)
    # 1.0 and np.int64(1) are 1, 0 is False: equal values match across types, as in pandas
    values = np.array([1.0, "1", 2.5, "none", (1, 2), 0, "x", 3, np.int64(1), np.float64(2.5)], dtype=object)
    expected = pd.Index(levels, dtype=object).get_indexer(values)
    assert match_levels(levels, values).tolist() == expected.tolist()
    assert expected.tolist()[:3] == [0, 1, 2] and expected[6] == -1  # the test can tell a miss from a hit
    # levels equal as keys (1 and 1.0) are pandas' to match: here, a non-unique index refuses
    with pytest.raises(Exception):
        match_levels(np.array([1, 1.0], dtype=object), np.array([1], dtype=object))


@pytest.mark.parametrize("seed", range(20))
def test_float_columns_are_looked_up_as_pandas_does(seed):
    rng = np.random.default_rng(seed)
    fitted = np.round(rng.normal(size=int(rng.integers(1, 12))), 1)
    fit_col = pd.Series(rng.choice(np.append(fitted, [np.nan, -0.0]), 50))
    fit_codes, levels = factorize_column(fit_col, "f")
    assert fit_codes.tolist() == _by_pandas(fit_col, levels).tolist()
    test_col = pd.Series(rng.choice(np.concatenate([fitted, [np.nan, 0.0, 99.5, -3.25]]), 80))
    codes, example = lookup_column(test_col, levels, "f")
    assert codes.tolist() == _by_pandas(test_col, levels).tolist() and example is None
    assert (codes >= 0).any()
    # the same levels in another order (a model grown block by block) take pandas' path
    shuffled = levels[::-1].copy()
    if shuffled.size > 1:
        assert lookup_column(test_col, shuffled, "f")[0].tolist() == _by_pandas(test_col, shuffled).tolist()


def test_text_levels_and_a_float_column_name_the_foreign_value():
    codes, example = lookup_column(pd.Series([1.5, np.nan]), np.array(["a", "b"], dtype=object), "f")
    assert codes.tolist() == [-1, -1] and example == 1.5
