"""Encode a raw table into small integer codes: the first stage of every learner.

Every column becomes ``int32`` codes ``0 .. r_i - 1`` with ``-1`` for a missing
value (the convention of pandas categorical codes). The labels of each code are
kept so that learned tables can be shown with the user's own category names.

Column kinds
------------
* bool, category, string/object and integer columns are categorical: their
  levels are the declared categories (pandas ``category``) or the sorted distinct
  non-missing values seen at fit time.
* float columns with more than ``n_bins`` distinct values are discretised with the
  cut points of :func:`pybnc.discretize.cut_points` learned at fit time
  (equal-frequency bins by default, as Cerquides & López de Màntaras 2003); float
  columns with at most ``n_bins`` distinct values are categorical.

Policies
--------
* Missing values (NaN, None, ``pd.NA``) become code ``-1``: learners count them by
  available-case analysis and prediction sums them out exactly.
* A category never seen at fit time is treated as missing at predict time
  (documented policy; it never raises).
* Infinite values raise a ``ValueError`` naming the column: they are neither a
  category nor a point on the real line that a bin can hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .discretize import cut_points

MISSING = -1


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "to_pandas"):  # pyarrow tables, polars frames
        return X.to_pandas()
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected a 2-D table (n_samples, n_features), got an array of shape "
            f"{arr.shape}. Reshape a single feature with X.reshape(-1, 1) or a single "
            "sample with X.reshape(1, -1)."
        )
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])


def _interval_labels(cuts: np.ndarray) -> np.ndarray:
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    return np.array(
        [f"[{lo:.6g}, {hi:.6g})" for lo, hi in zip(edges[:-1], edges[1:])], dtype=object
    )


def _is_float_column(col: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(col.dtype)


def _float_values(col: pd.Series, name) -> np.ndarray:
    values = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isinf(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Column {name!r} holds the infinite value {values[row]} (row {row}). "
            "Replace infinities with NaN to treat them as missing, or with a finite value."
        )
    return values


def _sortable_levels(values: np.ndarray) -> np.ndarray:
    """Distinct values, sorted when they are mutually comparable (else by text)."""
    uniq = pd.unique(values)
    try:
        order = np.argsort(uniq, kind="stable")
    except TypeError:
        order = np.argsort(np.array([str(u) for u in uniq], dtype=object), kind="stable")
    return np.asarray(uniq, dtype=object)[order]


def _lookup_levels(col: pd.Series, levels: np.ndarray) -> np.ndarray:
    """Code of each value among ``levels``; unseen levels and missing values give -1."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":  # plain numpy ints, no NA
        numeric = np.array([v for v in levels if isinstance(v, (int, np.integer))], dtype=np.int64)
        if numeric.size == levels.size and np.all(np.diff(numeric) > 0):
            # Sorted integer levels (the usual coded table): a binary search, no hashing.
            values = col.to_numpy(dtype=np.int64)
            if numeric[0] == 0 and numeric[-1] == numeric.size - 1:  # levels 0..r-1: codes already
                return np.where((values >= 0) & (values < numeric.size), values, MISSING).astype(np.int32)
            pos = np.minimum(np.searchsorted(numeric, values), numeric.size - 1)
            return np.where(numeric[pos] == values, pos, MISSING).astype(np.int32)
    if isinstance(col.dtype, pd.CategoricalDtype):
        # Map the few categories, then take by the column's codes (-1 is missing there too).
        categories = col.cat.categories.to_numpy(dtype=object)
        if categories.size == levels.size and all(a == b and type(a) is type(b) for a, b in zip(categories, levels)):
            return col.cat.codes.to_numpy().astype(np.int32)  # the levels are the categories
        lookup = pd.Index(levels, dtype=object).get_indexer(categories)
        lookup = np.append(lookup, MISSING).astype(np.int32)
        return lookup[col.cat.codes.to_numpy()]
    return pd.Index(levels, dtype=object).get_indexer(col.to_numpy(dtype=object)).astype(np.int32)


class TableEncoder:
    """Learn and apply the column encoding of a table.

    Parameters
    ----------
    n_bins : int, default=5
        Number of bins for continuous (float) columns.
    discretizer : {"quantile", "uniform", "mdl"}, default="quantile"
        How continuous columns are cut: equal frequency, equal width, or the
        supervised Fayyad-Irani MDL method (needs ``y`` at fit).
    max_levels : int, default=1000
        Largest number of levels a categorical column may have. Learners store
        tables whose size grows with the levels, so a column such as an identifier
        is almost always a mistake.

    Attributes
    ----------
    columns_ : list
        Column names (``x0, x1, ...`` for arrays).
    kinds_ : list of {"categorical", "discretised"}
    categories_ : list of ndarray
        Label of each code, per column.
    cut_points_ : list of ndarray or None
        Cut points of discretised columns (``None`` for categorical ones).
    cardinalities_ : ndarray of int
        Number of codes per column.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = TableEncoder().fit(pd.DataFrame({"a": ["x", "y", None], "b": [1, 2, 1]}))
    >>> enc.transform(pd.DataFrame({"a": ["y", "z"], "b": [2, 1]})).tolist()
    [[1, 1], [-1, 0]]
    """

    def __init__(self, n_bins: int = 5, discretizer: str = "quantile", max_levels: int = 1000):
        self.n_bins = n_bins
        self.discretizer = discretizer
        self.max_levels = max_levels

    def fit(self, X, y_codes: np.ndarray | None = None) -> "TableEncoder":
        frame = _as_frame(X)
        n = len(frame)
        if self.discretizer not in ("quantile", "uniform", "mdl"):
            raise ValueError(
                f"discretizer={self.discretizer!r} is not one of 'quantile', 'uniform', 'mdl'."
            )
        if not (isinstance(self.n_bins, (int, np.integer)) and self.n_bins >= 2):
            raise ValueError(f"n_bins must be an integer >= 2, got {self.n_bins!r}.")
        self.columns_ = list(frame.columns)
        self.kinds_, self.categories_, self.cut_points_ = [], [], []
        for name in self.columns_:
            col = frame[name]
            if _is_float_column(col):
                values = _float_values(col, name)
                observed = values[~np.isnan(values)]
                distinct = np.unique(observed)
                if distinct.size > self.n_bins:
                    y_obs = None if y_codes is None else y_codes[~np.isnan(values)]
                    cuts = cut_points(observed, method=self.discretizer, n_bins=self.n_bins, y=y_obs)
                    self.kinds_.append("discretised")
                    self.cut_points_.append(np.asarray(cuts, dtype=np.float64))
                    self.categories_.append(_interval_labels(np.asarray(cuts)))
                    continue
                levels = distinct.astype(object)
            elif isinstance(col.dtype, pd.CategoricalDtype):
                levels = np.asarray(col.cat.categories, dtype=object)
            elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
                levels = np.unique(col.to_numpy()).astype(object)  # numpy ints: no missing
            else:
                levels = _sortable_levels(col[col.notna()].to_numpy(dtype=object))
            if len(levels) > self.max_levels or len(levels) > max(n, 1):
                raise ValueError(
                    f"Column {name!r} has {len(levels)} levels for {n} rows (limit "
                    f"max_levels={self.max_levels}). A column with about one level per row "
                    "(an identifier, a free-text field) carries no class information; drop it, "
                    "or cast it to float so that it is discretised, or raise max_levels."
                )
            self.kinds_.append("categorical")
            self.cut_points_.append(None)
            self.categories_.append(levels)
        self.cardinalities_ = np.array([len(c) for c in self.categories_], dtype=np.int64)
        return self

    def transform(self, X) -> np.ndarray:
        frame = _as_frame(X)
        if frame.shape[1] != len(self.columns_):
            raise ValueError(
                f"X has {frame.shape[1]} columns but the model was fitted on "
                f"{len(self.columns_)} ({self.columns_[:5]}{'...' if len(self.columns_) > 5 else ''})."
            )
        codes = np.empty((len(frame), len(self.columns_)), dtype=np.int32)
        for j, (kind, cats, cuts) in enumerate(zip(self.kinds_, self.categories_, self.cut_points_)):
            col = frame.iloc[:, j]
            if kind == "discretised":
                values = _float_values(col, self.columns_[j])
                out = np.searchsorted(cuts, values, side="right").astype(np.int32)
                out[np.isnan(values)] = MISSING
            else:
                if _is_float_column(col):
                    _float_values(col, self.columns_[j])  # infinities are an error, not a level
                out = _lookup_levels(col, cats)
            codes[:, j] = out
        return codes

    def fit_transform(self, X, y_codes: np.ndarray | None = None) -> np.ndarray:
        return self.fit(X, y_codes).transform(X)
