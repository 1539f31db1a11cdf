"""Fayyad & Irani's MDLP cut points of many numeric columns at once.

:func:`pybnc.encode.discretize.cut_points` cuts one column: a few sorts and a loop
over the segments it splits, each a handful of small numpy calls. On a table of
thousands of numeric columns those calls, not the arithmetic, take the time (a
300 x 2,000 table: 2.3 s of a TAN fit's 5.2 s). Here the columns are sorted together,
their class counts per distinct value come from one ``bincount``, and the recursion
runs level by level: every segment of every column that is still open is scored in
the same few array operations.

The cuts are those of :func:`~pybnc.encode.discretize.cut_points` to the bit: the
same formulas on the same integer counts, in the same order. Where that cannot be
promised (fractional row weights, whose running sums round differently, or a column
whose observed rows lack a class, which the one-column path drops from its table),
the column goes through the one-column path.
"""

from __future__ import annotations

import numpy as np

from .._utils.native import load_kernels
from .discretize import _entropy_bits, _midpoints, cut_points

_native = load_kernels("pybnc.encode._mdl_c")

#: Cells (rows x classes of the columns' tables) scored in one pass: columns are cut in
#: groups of about this many, so that a pass's arrays (512 KiB each) stay in cache
#: (2**16 cut a 300 x 2,000 table in 0.30 s, 2**21 in 0.42 s).
CELLS_PER_PASS = 1 << 16
#: Most rows (their total weight) the compiled recursion takes: it reads numpy's
#: ``log2(n - 1)`` from a table over every segment size (32 MiB here).
LOG_TABLE_MAX = 1 << 22


def mdl_cut_points_of_columns(values: np.ndarray, y_codes: np.ndarray, weights=None) -> list:
    """``cut_points(values[:, j], "mdl", y=...)`` of every column ``j``, computed together.

    Parameters
    ----------
    values : ndarray of shape (n_rows, n_columns)
        The numeric columns; NaN marks a missing value (left out of its column's
        cuts, as the one-column path's caller drops it). No infinite values.
    y_codes : ndarray of shape (n_rows,)
        Class codes ``0..K-1``.
    weights : ndarray of shape (n_rows,), optional
        Positive row weights (whole numbers keep the fast path).

    Returns
    -------
    list of ndarray
        The increasing cut points of each column.

    Examples
    --------
    >>> x = np.repeat(np.arange(8.0), 20)
    >>> y = (x > 3.5).astype(int)
    >>> mdl_cut_points_of_columns(np.column_stack([x, -x]), y)
    [array([3.5]), array([-3.5])]
    """
    values = np.asarray(values, dtype=np.float64)
    y_codes = np.asarray(y_codes, dtype=np.int64)
    n_rows, n_columns = values.shape
    cuts = [None] * n_columns
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
    observed = ~np.isnan(values)
    if weights is not None and not np.array_equal(weights, np.round(weights)):
        together = []  # fractional weights: each column alone
    else:
        n_classes = int(y_codes.max()) + 1 if n_rows else 1
        present = np.ones((n_classes, n_columns), dtype=bool)
        if not observed.all():  # a class missing from a column's observed rows: that column alone
            for c in range(n_classes):
                present[c] = observed[y_codes == c].any(axis=0)
        together = np.flatnonzero(present.all(axis=0) & observed.any(axis=0))
        per_pass = max(1, CELLS_PER_PASS // max(1, n_rows * n_classes))
        total = n_rows if weights is None else int(round(weights.sum()))
        logs = _log_tables(total, n_classes) if together.size else None  # once for every group
        for start in range(0, together.size, per_pass):
            group = together[start : start + per_pass]
            found = _cut_group(values[:, group], observed[:, group], y_codes, n_classes, weights, logs)
            for j, column_cuts in zip(group, found):
                cuts[j] = column_cuts
    for j in range(n_columns):
        if cuts[j] is None:
            rows = observed[:, j]
            cuts[j] = np.asarray(cut_points(values[rows, j], "mdl", y=y_codes[rows],
                                            weights=None if weights is None else weights[rows]), dtype=np.float64)
    return cuts


def _cut_group(values, observed, y_codes, n_classes: int, weights, logs=None) -> list:
    """The cuts of columns whose observed rows hold every class, with whole weights
    (``logs``: :func:`_log_tables` for these rows and classes, if already made)."""
    n_rows, n_columns = values.shape
    order = np.argsort(values, axis=0, kind="stable")  # NaN last
    ordered = np.take_along_axis(values, order, axis=0).T  # (columns, rows), each increasing
    counts_observed = observed.sum(axis=0)
    rank = np.arange(n_rows)
    kept = rank[None, :] < counts_observed[:, None]  # the observed rows of each column, in order
    new_value = np.ones_like(kept)
    new_value[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    new_value &= kept
    flat = np.flatnonzero(kept.ravel())  # column-major runs of observed rows
    group = np.cumsum(new_value.ravel()[flat]) - 1  # each observed row's (column, distinct value)
    firsts = flat[new_value.ravel()[flat]]  # where each distinct value starts
    column_of_group = firsts // n_rows
    rows_of = order.T.ravel()[flat]
    table = np.bincount(group * n_classes + y_codes[rows_of], minlength=firsts.size * n_classes,
                        weights=None if weights is None else weights[rows_of]).reshape(firsts.size, n_classes)
    table = np.round(table).astype(np.int64) if weights is not None else table.astype(np.int64)
    # the cut below each distinct value: midway from the column's previous distinct value
    distinct = ordered.ravel()[firsts]
    below = np.full(firsts.size, np.nan)
    inner = np.flatnonzero(np.r_[False, column_of_group[1:] == column_of_group[:-1]])
    below[inner] = _midpoints(distinct, inner)
    # groups that hold no weight (a zero weight) are merged into their neighbours: the
    # split before a filled group is the cut just below it, as mdl_cut_points does
    filled = table.sum(axis=1) > 0
    table, column_of_group, below = table[filled], column_of_group[filled], below[filled]
    starts = np.searchsorted(column_of_group, np.arange(n_columns + 1))
    accepted = _split_levels(table, starts, logs)
    cuts = [[] for _ in range(n_columns)]
    for g in np.sort(accepted):
        cuts[column_of_group[g]].append(below[g])
    return [np.asarray(c, dtype=np.float64) for c in cuts]


def _split_levels(table: np.ndarray, starts: np.ndarray, logs=None) -> np.ndarray:
    """Fayyad & Irani's recursive MDLP over the ordered groups of every column (rows
    ``starts[j]:starts[j + 1]`` of ``table``, no empty group), a level of the
    recursion at a time. Returns the groups before which a cut is accepted.

    Every quantity is computed as :func:`pybnc.encode.discretize._split_scores`
    computes it for one segment, so the same splits win. The compiled kernel
    (``pybnc.encode._mdl_c``) walks each column's segments in one loop and gives the same
    cuts (a test compares the two), reading ``logs`` (:func:`_log_tables`) if given."""
    cum = np.zeros((table.shape[0] + 1, table.shape[1]), dtype=np.int64)
    np.cumsum(table, axis=0, out=cum[1:])  # integer counts: differences are exact
    rows = cum.sum(axis=1)
    if _native is not None and rows[-1] <= LOG_TABLE_MAX:
        if logs is None or logs[0].size <= rows[-1] or logs[1].size <= table.shape[1]:
            logs = _log_tables(int(rows[-1]), table.shape[1])
        return _compiled_splits(cum, rows, starts, logs)
    lo, hi = starts[:-1].copy(), starts[1:].copy()
    accepted = []
    while lo.size:
        total = cum[hi] - cum[lo]
        ent_s = _entropy_bits(total)
        open_ = (hi - lo >= 2) & (ent_s != 0.0)  # a pure segment can never gain information
        lo, hi, total, ent_s = lo[open_], hi[open_], total[open_], ent_s[open_]
        if not lo.size:
            break
        n_candidates = hi - lo - 1
        segment = np.repeat(np.arange(lo.size), n_candidates)
        first = np.cumsum(n_candidates) - n_candidates
        candidate = lo[segment] + 1 + (np.arange(segment.size) - first[segment])
        base = lo[segment]
        n_seg = (rows[hi] - rows[lo])[segment]
        left = cum[candidate] - cum[base]
        right = total[segment] - left
        n_left = rows[candidate] - rows[base]
        ent_l, ent_r = _entropy_bits(left), _entropy_bits(right)
        s = ent_s[segment]
        gain = s - (n_left * ent_l + (n_seg - n_left) * ent_r) / n_seg
        k = np.count_nonzero(total, axis=1)[segment]
        k1, k2 = np.count_nonzero(left, axis=1), np.count_nonzero(right, axis=1)
        delta = np.log2(3.0**k - 2.0) - (k * s - k1 * ent_l - k2 * ent_r)
        margin = gain - (np.log2(n_seg - 1) + delta) / n_seg
        # the first best split of each segment, as np.argmax takes it
        best_gain = np.maximum.reduceat(gain, first)
        best = np.minimum.reduceat(np.where(gain == best_gain[segment], np.arange(segment.size), segment.size), first)
        split = margin[best] > 0
        at = candidate[best[split]]
        accepted.append(at)
        lo, hi = np.concatenate([lo[split], at]), np.concatenate([at, hi[split]])
    return np.concatenate(accepted) if accepted else np.empty(0, dtype=np.int64)


def _log_tables(total: int, n_classes: int):
    """The logarithms numpy takes in :func:`_split_levels`, computed by numpy for the
    compiled kernel: ``log2(n)`` for ``n = 0 .. total`` (a segment of ``n + 1`` rows reads
    ``log2(n)``) and ``log2(3^k - 2)`` for ``k = 0 .. n_classes``; None where the kernel
    is not built or ``total`` exceeds :data:`LOG_TABLE_MAX`."""
    if _native is None or total > LOG_TABLE_MAX:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):  # entries never read: log2(0), log2(3^0 - 2)
        return (np.log2(np.arange(int(total) + 1, dtype=np.int64)),
                np.log2(3.0 ** np.arange(n_classes + 1, dtype=np.int64) - 2.0))


def _compiled_splits(cum: np.ndarray, rows: np.ndarray, starts: np.ndarray, logs) -> np.ndarray:
    """:func:`_split_levels` by the compiled kernel, whose margins are numpy's to the bit
    with numpy's logarithms (``logs``, :func:`_log_tables`)."""
    log2_rows, log2_classes = logs
    out = np.empty(max(cum.shape[0] - 1, 0), dtype=np.int64)
    accepted = _native.mdl_splits(np.ascontiguousarray(cum), np.ascontiguousarray(rows, dtype=np.int64),
                                  np.ascontiguousarray(starts, dtype=np.int64), log2_rows, log2_classes,
                                  float(np.log(2.0)), out)
    return out[:accepted]
