"""The float columns of a table encoded together: one conversion, one sort.

A fit codes each float column by its distinct values (few of them) or by its cut points
(:func:`pybnc.encode.discretize.cut_points`). Column by column, a table of hundreds of
float columns spends its encoding on the calls around the arithmetic: a pandas Series
per column, a sort per column, a handful of small numpy calls per quantile (arrhythmia,
279 columns: about 0.4 ms a column). Here the columns are converted to one float array,
sorted together, and the equal-frequency cuts of every column come from a few array
operations over all of them.

The codes, levels and cut points are those of the one-column path to the bit: the
same formulas on the same numbers (:func:`quantile_cut_points_of_columns` says how the
nearest gap is found without a search per column).
"""

from __future__ import annotations

import numpy as np

from ._levels import MISSING
from .discretize import cut_points
from .mdl_columns import mdl_cut_points_of_columns

#: Most cells (rows x columns) converted and sorted at once: a tall table's columns go a
#: few at a time, so that the copies stay about 32 MiB each (a wide, short table's all go
#: together; a tall one spends its time on the values, not on the calls around them).
BLOCK_CELLS = 1 << 22


def column_groups(positions: list, n_rows: int) -> list:
    """``positions`` in consecutive groups of at most :data:`BLOCK_CELLS` cells (one
    column at least)."""
    size = max(1, BLOCK_CELLS // max(n_rows, 1))
    return [positions[i:i + size] for i in range(0, len(positions), size)]


def quantile_cut_points_of_columns(ordered: np.ndarray, n_observed: np.ndarray, gap: np.ndarray, n_bins: int) -> list:
    """``cut_points(x_j, "quantile", n_bins)`` of every column ``j``, computed together.

    Parameters
    ----------
    ordered : ndarray of shape (n_rows, n_columns)
        Each column sorted increasing, missing values (NaN) last.
    n_observed : ndarray of shape (n_columns,)
        Observed values of each column.
    gap : ndarray of bool, shape (n_rows, n_columns)
        ``ordered[r, j] > ordered[r - 1, j]`` (False in row 0): where a distinct value starts.
    n_bins : int

    Returns
    -------
    list of ndarray
        The cut points of each column.

    Notes
    -----
    The one-column path moves each target rank ``i n / n_bins`` to the nearest gap
    between distinct values with a binary search among the gaps' ranks. The ranks are
    whole numbers, so the gaps below a target ``t`` are the gaps at rank at most
    ``ceil(t) - 1``: a running count of the gaps down each column gives every search's
    answer at once; the comparison that picks the nearer gap, its tie rule, and the
    midpoints are the one-column path's.

    Examples
    --------
    >>> x = np.arange(100.0)[:, None]
    >>> quantile_cut_points_of_columns(x, np.array([100]), np.r_[False, [True] * 99][:, None], 5)
    [array([19.5, 39.5, 59.5, 79.5])]
    """
    n_rows, n_columns = ordered.shape
    gap_column, gap_rank = np.nonzero(gap.T)  # by column, then by rank
    starts = np.searchsorted(gap_column, np.arange(n_columns + 1))
    n_gaps = np.diff(starts)
    cut = np.flatnonzero(n_gaps > 0)
    column = np.repeat(cut, n_bins - 1)
    targets = np.tile(np.arange(1, n_bins), cut.size) * (n_observed[column] / n_bins)
    below = np.cumsum(gap, axis=0, dtype=np.int64 if n_rows >= 2**31 else np.int32)  # gaps at rank <= r
    row = np.clip(np.ceil(targets).astype(np.int64) - 1, 0, n_rows - 1)
    last = n_gaps[column] - 1
    right = np.clip(below[row, column], 0, last)
    left = np.clip(right - 1, 0, last)
    ranks_left, ranks_right = gap_rank[starts[column] + left], gap_rank[starts[column] + right]
    take_left = np.abs(ranks_left - targets) <= np.abs(ranks_right - targets)
    chosen = np.where(take_left, ranks_left, ranks_right)
    # each column's chosen gaps are non-decreasing: np.unique keeps the first of each run
    first = np.r_[True, (chosen[1:] != chosen[:-1]) | (column[1:] != column[:-1])]
    chosen, column = chosen[first], column[first]
    mids = _column_midpoints(ordered, chosen, column)
    out = [np.empty(0) for _ in range(n_columns)]
    bounds = np.searchsorted(column, np.arange(n_columns + 1))
    for j in cut:
        out[j] = mids[bounds[j]:bounds[j + 1]]
    return out


def _column_midpoints(ordered: np.ndarray, positions: np.ndarray, column: np.ndarray) -> np.ndarray:
    """:func:`~pybnc.encode.discretize._midpoints` at ``positions`` of the given columns."""
    a, b = ordered[positions - 1, column], ordered[positions, column]
    mid = a / 2.0 + b / 2.0
    return np.where(mid > a, mid, b)


def numeric_columns(values: np.ndarray, discretizer: str, n_bins: int, y_codes=None, weights=None) -> list:
    """``(codes, levels, cuts)`` of every float column of ``values`` (n_rows, n_columns;
    NaN missing, nothing infinite), as :class:`~pybnc.Encoder` codes one:
    at most ``n_bins`` distinct values are its levels (``cuts`` None); more are cut by
    ``discretizer``, the levels then being the intervals' labels (filled in by the caller).

    Examples
    --------
    >>> values = np.array([[0.0, 1.5], [1.0, np.nan], [0.0, 2.5]])
    >>> [(c.tolist(), list(l), cuts) for c, l, cuts in numeric_columns(values, "quantile", 5)]
    [([0, 1, 0], [0.0, 1.0], None), ([0, -1, 1], [1.5, 2.5], None)]
    """
    n_rows, n_columns = values.shape
    ordered = np.sort(values, axis=0)  # NaN last
    observed = ~np.isnan(values)
    n_observed = observed.sum(axis=0)
    gap = np.zeros(values.shape, dtype=bool)
    gap[1:] = ordered[1:] > ordered[:-1]  # False against NaN
    n_distinct = gap.sum(axis=0) + (n_observed > 0)
    cut = n_distinct > n_bins
    found = [None] * n_columns
    if discretizer == "mdl" and y_codes is not None and cut.any():
        found = mdl_cut_points_of_columns(values, np.asarray(y_codes), weights)
    elif discretizer == "quantile" and weights is None and cut.any():
        found = quantile_cut_points_of_columns(ordered, n_observed, gap, n_bins)
    out = []
    for j in range(n_columns):
        column, seen = values[:, j], observed[:, j]
        if not cut[j]:
            distinct = ordered[: n_observed[j], j][np.r_[True, gap[1 : n_observed[j], j]]] if n_observed[j] else \
                np.empty(0)
            codes = np.where(seen, np.searchsorted(distinct, column), MISSING).astype(np.int32)
            out.append((codes, distinct.astype(object), None))
            continue
        cuts = found[j]
        if cuts is None:
            cuts = np.asarray(cut_points(column[seen], method=discretizer, n_bins=n_bins,
                                         y=None if y_codes is None else y_codes[seen],
                                         weights=None if weights is None else weights[seen]), dtype=np.float64)
        codes = np.where(seen, np.searchsorted(cuts, column, side="right"), MISSING).astype(np.int32)
        out.append((codes, None, cuts))
    return out
