"""Discretisation of continuous columns.

Bayesian network classifiers in pybnc work on discrete variables, so
continuous attributes are cut into intervals first.  :func:`cut_points`
learns the interior cut points of one column; the scikit-learn transformers
:class:`EqualFrequencyDiscretizer`, :class:`EqualWidthDiscretizer` and
:class:`MDLPDiscretizer` apply it to every numeric column of a table.

A value ``v`` falls in bin ``np.searchsorted(cuts, v, side="right")``, so the
bins are ``(-inf, c0), [c0, c1), ..., [c_last, inf)``.

References
----------
Fayyad, U. M. & Irani, K. B. (1993). Multi-interval discretization of
continuous-valued attributes for classification learning. IJCAI-93.

Friedman, N., Geiger, D. & Goldszmidt, M. (1997). Bayesian network
classifiers. Machine Learning 29, 131-163.

Cerquides, J. & Lopez de Mantaras, R. (2003). Tractable Bayesian learning of
tree augmented naive Bayes classifiers. ICML-03.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import entr
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

__all__ = [
    "cut_points",
    "class_count_table",
    "distinct_midpoints",
    "mdl_cut_points",
    "EqualFrequencyDiscretizer",
    "EqualWidthDiscretizer",
    "MDLPDiscretizer",
]

_METHODS = ("quantile", "uniform", "mdl")


def cut_points(x, method="quantile", n_bins=5, y=None, weights=None) -> np.ndarray:
    """Sorted interior cut points for one continuous column.

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite values of one column; the caller drops missing values.
    method : {"quantile", "uniform", "mdl"}, default="quantile"
        ``"quantile"``: equal frequency, ``n_bins`` bins of about ``n / n_bins``
        rows each (Cerquides & Lopez de Mantaras 2003 used 5).
        ``"uniform"``: equal width, ``n_bins`` bins between ``min(x)`` and
        ``max(x)``.
        ``"mdl"``: Fayyad & Irani (1993) recursive entropy minimisation with the
        MDL stopping rule, as used by Friedman, Geiger & Goldszmidt (1997);
        ``n_bins`` is ignored.
    n_bins : int, default=5
        Number of bins wanted (at least 2) for ``"quantile"`` and ``"uniform"``.
    y : array-like of shape (n,), optional
        Class of each row, needed only by ``"mdl"``.  Integer codes
        ``0..K-1`` are expected, but any labels are accepted.
    weights : array-like of shape (n,), optional
        Positive weight of each row (:mod:`pybnc._utils.sample_weight`): ``"quantile"``
        places its targets on the cumulative weight, ``"mdl"`` reads weighted class
        counts (and the weight total as its ``N``), so integer weights give the cuts of
        the repeated rows. ``"uniform"`` reads the range alone.

    Returns
    -------
    numpy.ndarray of float64
        Strictly increasing interior cut points, possibly empty.  A column with
        few distinct values gets fewer than ``n_bins - 1`` cuts.

    Notes
    -----
    For ``"quantile"`` and ``"mdl"`` every cut is the midpoint between two
    adjacent distinct observed values, so no training value sits on a
    boundary.  The quantile target ``i * n / n_bins`` (the number of rows
    below cut ``i``) is moved to the nearest gap between distinct values,
    then duplicate cuts are dropped.  ``"uniform"`` cuts are the equal-width
    edges themselves; they may coincide with observed values, which then go
    to the upper bin.  Bins left empty by the equal-width edges are kept, as
    the definition of equal width requires.

    Examples
    --------
    >>> cut_points(np.arange(100.0), "quantile", n_bins=5)
    array([19.5, 39.5, 59.5, 79.5])
    >>> cut_points([0.0, 10.0], "uniform", n_bins=5)
    array([2., 4., 6., 8.])
    >>> x = np.repeat(np.arange(8.0), 20)
    >>> cut_points(x, "mdl", y=(x > 3.5).astype(int))
    array([3.5])
    >>> cut_points([1.0, 2.0, 3.0, 4.0], "quantile", n_bins=2, weights=[3, 1, 1, 1])
    array([1.5])
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if method != "mdl":
        _check_n_bins(n_bins)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite; drop missing values before cutting")
    if x.size == 0:
        return np.empty(0)

    if method == "uniform":
        lo, hi = x.min(), x.max()
        if lo == hi:
            return np.empty(0)
        steps = np.arange(1, n_bins)
        with np.errstate(over="ignore"):
            width = hi - lo
        if np.isfinite(width):
            cuts = lo + width * steps / n_bins
        else:  # hi - lo overflowed; a weighted mean of the ends cannot
            cuts = lo * (1.0 - steps / n_bins) + hi * (steps / n_bins)
        return np.unique(cuts[(cuts > lo) & (cuts <= hi)])

    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != x.shape:
            raise ValueError(f"weights must be 1-D with {x.shape[0]} entries, got shape {weights.shape}")
    if method == "quantile":
        order = np.argsort(x, kind="stable")
        xs = x[order]
        gaps = _gap_positions(xs)
        if gaps.size == 0:
            return np.empty(0)
        total = xs.size if weights is None else float(weights.sum())
        targets = np.arange(1, n_bins) * (total / n_bins)
        if weights is not None:  # a gap's rank: the weight of the rows below it
            below = np.concatenate([[0.0], np.cumsum(weights[order])])
            return _midpoints(xs, _nearest_gaps(below[gaps], targets, gaps))
        return _midpoints(xs, _nearest_gaps(gaps, targets, gaps))

    if y is None:
        raise ValueError('method="mdl" cuts by the class: pass y, the class of each row')
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise ValueError(f"y must be 1-D with {x.shape[0]} entries, got shape {y.shape}")
    values, value_codes = np.unique(x, return_inverse=True)
    _, class_codes = np.unique(y, return_inverse=True)
    table = class_count_table(value_codes.ravel(), class_codes.ravel(), values.size, weights=weights)
    return mdl_cut_points(table, distinct_midpoints(values))


def _nearest_gaps(ranks, targets, gaps):
    """The gap (of ``gaps``, at increasing ``ranks``) nearest to each target rank,
    distinct; ties go to the lower gap."""
    right = np.clip(np.searchsorted(ranks, targets), 0, ranks.size - 1)
    left = np.clip(right - 1, 0, ranks.size - 1)
    take_left = np.abs(ranks[left] - targets) <= np.abs(ranks[right] - targets)
    return np.unique(np.where(take_left, gaps[left], gaps[right]))


def class_count_table(value_codes, class_codes, n_values, n_classes=None, weights=None) -> np.ndarray:
    """``(n_values, n_classes)`` matrix: how many rows (int64), or the sum of their
    ``weights`` (float64, whole when the weights are), have each value and class."""
    if n_classes is None:
        n_classes = int(class_codes.max()) + 1 if class_codes.size else 1
    flat = np.asarray(value_codes, dtype=np.int64) * n_classes + class_codes
    table = np.bincount(flat, weights=weights, minlength=n_values * n_classes).reshape(n_values, n_classes)
    whole = weights is None or np.array_equal(table, np.round(table))
    return table.astype(np.int64, copy=False) if whole else table


def distinct_midpoints(values) -> np.ndarray:
    """The cut between each pair of adjacent strictly increasing ``values``."""
    values = np.asarray(values, dtype=np.float64)
    return _midpoints(values, np.arange(1, values.size))


def mdl_cut_points(class_counts, boundaries) -> np.ndarray:
    """Fayyad & Irani's MDLP cut points from a column's class counts per value.

    MDLP only compares the cumulative class counts at the boundaries between
    distinct values, so this table is all it needs: ``cut_points(x, "mdl", y=y)``
    builds it from the rows, and ``fit_dask`` sums it over a Dask DataFrame's
    partitions (:mod:`pybnc.encode.class_tables`).

    Parameters
    ----------
    class_counts : array-like of shape (m, K)
        ``class_counts[i, k]``: rows of class ``k`` in the ``i``-th group of the
        column in increasing order (one distinct value, or one bin of values).
        Groups with no rows are merged into their neighbours.
    boundaries : array-like of shape (m - 1,)
        ``boundaries[i]`` separates group ``i`` from group ``i + 1``:
        :func:`distinct_midpoints` of the distinct values, or the edges of the bins.

    Returns
    -------
    numpy.ndarray of float64
        The accepted cuts, increasing; each is one of ``boundaries``.

    Examples
    --------
    >>> counts = [[20, 0], [20, 0], [0, 20], [0, 20]]
    >>> mdl_cut_points(counts, distinct_midpoints([0.0, 1.0, 2.0, 3.0]))
    array([1.5])
    >>> mdl_cut_points(counts, [0.7, 1.2, 2.9])
    array([1.2])
    """
    counts = np.asarray(class_counts)
    boundaries = np.asarray(boundaries, dtype=np.float64)
    if counts.ndim != 2 or boundaries.shape != (max(counts.shape[0] - 1, 0),):
        raise ValueError(f"class_counts of shape (m, K) needs m - 1 boundaries; got {counts.shape} "
                         f"and {boundaries.shape}")
    filled = np.flatnonzero(counts.sum(axis=1) > 0)
    if filled.size < 2:
        return np.empty(0)
    # Between two filled groups every boundary makes the same split; take the one
    # just below the upper group.
    return boundaries[filled[_mdl_split_groups(counts[filled])] - 1]


def _check_n_bins(n_bins):
    if (
        not isinstance(n_bins, numbers.Integral)
        or isinstance(n_bins, bool)
        or n_bins < 2
    ):
        raise ValueError(f"n_bins must be an integer >= 2, got {n_bins!r}")


def _gap_positions(xs):
    """Positions j (0 < j < n) with xs[j-1] < xs[j] in a sorted array."""
    return np.flatnonzero(xs[1:] > xs[:-1]) + 1


def _midpoints(xs, positions):
    a, b = xs[positions - 1], xs[positions]
    mid = a / 2.0 + b / 2.0
    # Adjacent floats can round the midpoint down onto a; b still separates them.
    return np.where(mid > a, mid, b)


def _entropy_bits(counts):
    """Entropy in bits of each row of a count matrix (empty rows give 0)."""
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(totals > 0, counts / totals, 0.0)
    return entr(p).sum(axis=-1) / np.log(2.0)


def _filled_entropy_bits(counts):
    """:func:`_entropy_bits` of count rows none of which is empty: the same values,
    without the guard for empty rows (a segment and both halves of each of its splits
    hold rows), which costs more than the entropy on short segments."""
    return entr(counts / counts.sum(axis=-1, keepdims=True)).sum(axis=-1) / np.log(2.0)


def _split_scores(cum, rows, lo, hi, n_candidates=None):
    """Every split of the groups ``lo..hi`` (before group ``lo + 1 .. hi - 1``): the
    candidates, their information gain and their margin over Fayyad & Irani's MDL
    threshold (accepted when positive). ``n_candidates`` replaces ``N - 1`` in the
    threshold's ``log2`` (Weka's "better encoding", counting distinct cuts)."""
    _, _, cand, gain, margin = _segment_split_scores(cum, rows, np.array([lo]), np.array([hi]),
                                                     n_candidates is not None)
    return cand, gain, margin


def _segment_split_scores(cum, rows, lo, hi, count_candidates: bool):
    """:func:`_split_scores` of several segments ``lo[s]..hi[s]`` (each of two groups or
    more) at once, their candidates one after another: ``(segment of each candidate,
    each segment's first candidate's position, candidates, gains, margins)``;
    ``count_candidates`` as a given ``n_candidates`` (each segment's own count of
    candidates)."""
    width = hi - lo - 1
    starts = np.concatenate([[0], np.cumsum(width)[:-1]])
    segment = np.repeat(np.arange(lo.size), width)
    first = lo[segment]
    cand = first + 1 + (np.arange(segment.size) - starts[segment])
    total = cum[hi] - cum[lo]
    n_s = (rows[hi] - rows[lo])[segment]
    ent_s = _filled_entropy_bits(total)[segment]
    left = cum[cand] - cum[first]
    right = total[segment] - left
    n_left = rows[cand] - rows[first]
    ent_l, ent_r = _filled_entropy_bits(left), _filled_entropy_bits(right)
    gain = ent_s - (n_left * ent_l + (n_s - n_left) * ent_r) / n_s
    k = np.count_nonzero(total, axis=1)[segment]
    k1, k2 = np.count_nonzero(left, axis=1), np.count_nonzero(right, axis=1)
    delta = np.log2(3.0**k - 2.0) - (k * ent_s - k1 * ent_l - k2 * ent_r)
    n_cuts = width[segment] if count_candidates else n_s - 1
    return segment, starts, cand, gain, gain - (np.log2(n_cuts) + delta) / n_s


def _cumulative(counts):
    # cum[i] holds the class counts of the first i groups, so the counts of any
    # segment and of all its candidate halves are differences.
    cum = np.zeros((counts.shape[0] + 1, counts.shape[1]), dtype=counts.dtype)
    np.cumsum(counts, axis=0, out=cum[1:])
    return cum, cum.sum(axis=1)


def _mdl_split_groups(counts):
    """Indices ``j`` (split before group ``j``) accepted by Fayyad & Irani's recursive
    MDLP over ordered groups of rows with class counts ``counts`` (no empty group)."""
    cum, rows = _cumulative(counts)
    accepted = []
    stack = [(0, counts.shape[0])]
    while stack:
        lo, hi = stack.pop()
        if hi - lo < 2 or _entropy_bits(cum[hi] - cum[lo]) == 0.0:
            continue  # a pure segment can never gain information
        cand, gain, margin = _split_scores(cum, rows, lo, hi)
        best = int(np.argmax(gain))
        if margin[best] > 0:
            j = int(cand[best])
            accepted.append(j)
            stack.append((lo, j))
            stack.append((j, hi))
    return np.sort(np.asarray(accepted, dtype=np.intp))


def sampled_mdl_cut_points(class_counts, boundaries, rng) -> np.ndarray:
    """Stochastic MDLP (Zhang, Petitjean & Buntine 2020, ESKDB's discretisation): each
    split is drawn with probability proportional to its margin over the MDL threshold
    among the splits that pass it, then both halves are split the same way; when no
    split of the whole column passes, one is drawn in proportion to its information
    gain, so a column keeps at least one cut. As the authors' code, the threshold
    counts the candidate cuts of a segment rather than its rows.

    Parameters
    ----------
    class_counts, boundaries :
        As :func:`mdl_cut_points`.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of float64
        The cuts drawn, increasing; each is one of ``boundaries``.

    Examples
    --------
    >>> counts = [[20, 0], [20, 0], [0, 20], [0, 20]]
    >>> sampled_mdl_cut_points(counts, [0.5, 1.5, 2.5], np.random.default_rng(0))
    array([1.5])
    """
    return sampled_mdl_columns([class_counts], [boundaries], rng)[0]


def sampled_mdl_columns(class_counts: list, boundaries: list, rng) -> list:
    """:func:`sampled_mdl_cut_points` of several columns at once: every segment of every
    column at the same depth of the recursion is scored by one set of array operations,
    and its draw is the next uniform of ``rng`` (segments in column order, then left to
    right), so the cuts depend on ``rng`` alone.

    Examples
    --------
    >>> step = [[20, 0], [20, 0], [0, 20], [0, 20]]
    >>> sampled_mdl_columns([step, [[5, 5]]], [[0.5, 1.5, 2.5], []], np.random.default_rng(0))
    [array([1.5]), array([], dtype=float64)]
    """
    n_columns = len(class_counts)
    filled, cums, rows, base = [], [], [], [0]
    for counts in class_counts:
        counts = np.asarray(counts)
        keep = np.flatnonzero(counts.sum(axis=1) > 0)
        cum, n = _cumulative(counts[keep].astype(np.float64))
        filled.append(keep)
        cums.append(cum)
        rows.append(n)
        base.append(base[-1] + cum.shape[0])
    cum, n_rows = np.concatenate(cums), np.concatenate(rows)
    accepted = [[] for _ in range(n_columns)]
    # a segment: its column, its first and last group (global positions into cum) and
    # whether it is the whole column (the only one that falls back on the gain)
    column = np.arange(n_columns)
    base = np.array(base, dtype=np.intp)
    lo, hi = base[:-1], base[1:] - 1  # a column's cum has one row more than its groups
    whole = np.ones(n_columns, dtype=bool)
    while True:
        wide = hi - lo >= 2
        column, lo, hi, whole = column[wide], lo[wide], hi[wide], whole[wide]
        if not column.size:
            break
        segment, starts, cand, gain, margin = _segment_split_scores(cum, n_rows, lo, hi, True)
        weights = np.maximum(margin, 0.0)
        passes = np.add.reduceat(weights, starts) > 0
        # no split passes: the whole column draws one by its gain; a half stops
        by_gain = ~passes & whole
        weights = np.where((passes | by_gain)[segment], np.where(passes[segment], weights, np.maximum(gain, 0.0)), 0)
        sums = np.add.reduceat(weights, starts)
        drawn = sums > 0
        uniform = np.zeros(column.size)
        uniform[drawn] = rng.random(int(drawn.sum()))
        # the first candidate whose cumulative share passes the uniform, as Generator.choice
        running = np.cumsum(weights)
        share = running - (running[starts] - weights[starts])[segment]
        below = share <= uniform[segment] * sums[segment]
        pick = np.minimum(np.add.reduceat(below.astype(np.intp), starts), hi - lo - 2)
        j = lo + 1 + pick
        for c, cut in zip(column[drawn], j[drawn] - base[column[drawn]]):
            accepted[c].append(int(cut))
        split = drawn & passes
        column = np.concatenate([column[split], column[split]])
        lo, hi = np.concatenate([lo[split], j[split]]), np.concatenate([j[split], hi[split]])
        whole = np.zeros(column.size, dtype=bool)
        order = np.lexsort((lo, column))
        column, lo, hi, whole = column[order], lo[order], hi[order], whole[order]
    return [np.asarray(b, dtype=np.float64)[f[np.sort(np.asarray(a, dtype=np.intp))] - 1]
            for a, b, f in zip(accepted, boundaries, filled)]


class _BaseDiscretizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform of the column discretisers.

    Numeric columns (integer or float, not boolean) are discretised; other
    DataFrame columns are passed through unchanged and get ``None`` in
    ``cut_points_``.  Missing values are ignored when fitting and stay
    missing after transform.
    """

    _method = "quantile"
    _needs_y = False

    def fit(self, X, y=None):
        """Learn the cut points of every numeric column.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Class labels; required by :class:`MDLPDiscretizer` only.

        Returns
        -------
        self
        """
        if self._method != "mdl":
            _check_n_bins(self.n_bins)
        if self._needs_y and y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        columns = self._columns(X, reset=True)
        if self._needs_y:
            y = column_or_1d(y, warn=True)
            check_consistent_length(X, y)
            if pd.isna(y).any():
                raise ValueError("y contains missing values")
        cuts = []
        for col in columns:
            if col is None:
                cuts.append(None)
                continue
            keep = ~np.isnan(col)
            cuts.append(
                cut_points(
                    col[keep],
                    method=self._method,
                    n_bins=getattr(self, "n_bins", 5),
                    y=y[keep] if self._needs_y else None,
                )
            )
        self.cut_points_ = cuts
        self.n_bins_ = np.array([-1 if c is None else c.size + 1 for c in cuts])
        return self

    def transform(self, X):
        """Replace each numeric value by its bin code.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_samples, n_features)

        Returns
        -------
        numpy.ndarray or pandas.DataFrame
            For a DataFrame: a copy with discretised columns of dtype
            ``"Int64"`` (missing stays ``<NA>``) and other columns unchanged.
            For an array: ``int64`` codes, or ``float64`` with NaN where the
            input was missing.
        """
        check_is_fitted(self, "cut_points_")
        columns = self._columns(X, reset=False)
        codes, missing = [], []
        for col, cuts in zip(columns, self.cut_points_):
            if cuts is None or col is None:
                codes.append(None)
                missing.append(None)
            else:
                codes.append(np.searchsorted(cuts, col, side="right").astype(np.int64))
                missing.append(np.isnan(col))

        if isinstance(X, pd.DataFrame):
            out = X.copy()
            for j, (code, miss) in enumerate(zip(codes, missing)):
                if code is not None:
                    out.isetitem(j, pd.arrays.IntegerArray(code, miss))
            return out
        n_rows = columns[0].shape[0]
        if not codes:
            return np.empty((n_rows, 0), dtype=np.int64)
        values = np.column_stack(codes)
        miss = np.column_stack(missing)
        if miss.any():
            values = values.astype(np.float64)
            values[miss] = np.nan
        return values

    def _columns(self, X, reset):
        """Validate X; return its columns as float arrays (None = pass through)."""
        if sparse.issparse(X):
            raise TypeError(f"{type(self).__name__} does not accept sparse input")
        if isinstance(X, pd.DataFrame):
            _validate(self, X, reset=reset, skip_check_array=True)
            if X.shape[0] == 0:
                raise ValueError("Found array with 0 sample(s); a minimum of 1 is required.")
            if not reset and X.shape[1] != len(self.cut_points_):
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} "
                    f"is expecting {len(self.cut_points_)} features as input."
                )
            names, columns = list(X.columns), []
            for j, name in enumerate(names):
                s = X.iloc[:, j]
                numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
                if not reset and numeric != (self.cut_points_[j] is not None):
                    raise ValueError(f"Column {name!r} changed between numeric and non-numeric")
                columns.append(s.to_numpy(dtype=np.float64, na_value=np.nan) if numeric else None)
        else:
            arr = _validate(self, X, reset=reset, dtype=np.float64)
            if not reset and any(c is None for c in self.cut_points_):
                raise ValueError(
                    f"{type(self).__name__} was fitted on a DataFrame with "
                    "non-numeric columns; transform a DataFrame too"
                )
            names = list(range(arr.shape[1]))
            columns = [arr[:, j] for j in range(arr.shape[1])]
        for name, col in zip(names, columns):
            if col is not None and np.isinf(col).any():
                raise ValueError(f"Column {name!r} contains infinite values")
        return columns

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = self._needs_y
        tags.transformer_tags.preserves_dtype = []
        return tags


def _validate(estimator, X, reset, skip_check_array=False, dtype=None):
    """Set or check n_features_in_ / feature_names_in_; check arrays."""
    kwargs = {"reset": reset}
    if skip_check_array:
        kwargs["skip_check_array"] = True
    else:
        kwargs["dtype"] = dtype
    if not skip_check_array:
        kwargs["ensure_all_finite"] = False
    return validate_data(estimator, X, **kwargs)


class EqualFrequencyDiscretizer(_BaseDiscretizer):
    """Equal-frequency (quantile) discretiser of every numeric column.

    Parameters
    ----------
    n_bins : int, default=5
        Bins per column (at least 2); columns with few distinct values get fewer.

    Attributes
    ----------
    cut_points_ : list of numpy.ndarray or None
        Interior cut points of each column; None for passed-through columns.
    n_bins_ : numpy.ndarray of int
        Bins actually made per column (-1 for passed-through columns).
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str
        Only when fitted on a DataFrame with string column names.

    Examples
    --------
    >>> X = np.arange(100.0).reshape(-1, 1)
    >>> d = EqualFrequencyDiscretizer(n_bins=5).fit(X)
    >>> d.cut_points_[0]
    array([19.5, 39.5, 59.5, 79.5])
    >>> d.transform([[0.0], [19.5], [99.0]]).ravel()
    array([0, 1, 4])
    """

    _method = "quantile"

    def __init__(self, n_bins=5):
        self.n_bins = n_bins


class EqualWidthDiscretizer(_BaseDiscretizer):
    """Equal-width discretiser of every numeric column.

    Parameters
    ----------
    n_bins : int, default=5
        Bins per column (at least 2) between the column's minimum and maximum.

    Attributes
    ----------
    cut_points_ : list of numpy.ndarray or None
    n_bins_ : numpy.ndarray of int
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str

    Examples
    --------
    >>> X = pd.DataFrame({"t": [0.0, 3.0, 10.0, None]})
    >>> EqualWidthDiscretizer(n_bins=5).fit_transform(X)["t"].tolist()
    [0, 1, 4, <NA>]
    """

    _method = "uniform"

    def __init__(self, n_bins=5):
        self.n_bins = n_bins


class MDLPDiscretizer(_BaseDiscretizer):
    """Supervised discretiser of Fayyad & Irani (1993) with the MDL stop rule.

    ``fit(X, y)`` needs the class labels.  Columns on which no cut pays for
    itself get a single bin.

    Attributes
    ----------
    cut_points_ : list of numpy.ndarray or None
    n_bins_ : numpy.ndarray of int
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str

    Examples
    --------
    >>> x = np.repeat(np.arange(8.0), 20)
    >>> d = MDLPDiscretizer().fit(x.reshape(-1, 1), x > 3.5)
    >>> d.cut_points_
    [array([3.5])]
    """

    _method = "mdl"
    _needs_y = True

    def __init__(self):
        pass
