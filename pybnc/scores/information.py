"""Information-theoretic quantities from counts: entropy and (conditional) mutual information.

Everything is in nats. Pairwise quantities are computed for all feature pairs at
once from the nonzero pair counts of :class:`pybnc.counts.tables.Counts` (dense or sparse),
by ``np.bincount`` over cells rather than a Python loop over pairs.
"""

from __future__ import annotations

import numpy as np

from ..counts.tables import Counts, feature_blocks, segment_sums
from . import pair_rows
from ._xlogx import LOOKUP_FROM as _LOOKUP_FROM  # noqa: F401 - read by the tests
from ._xlogx import xlogx as _xlogx
from ._xlogx import xlogx_direct as _xlogx_direct  # noqa: F401


def _xlogy_sum(counts: np.ndarray, axis=None) -> np.ndarray:
    """Sum of ``n log n`` with ``0 log 0 = 0``."""
    safe = np.where(counts > 0, counts, 1.0)
    return np.sum(counts * np.log(safe), axis=axis)


def entropy(counts: np.ndarray) -> float:
    """Entropy (nats) of the empirical distribution given by a table of counts.

    >>> print(round(entropy(np.array([1.0, 1.0])), 6))  # log 2
    0.693147
    """
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum()
    if n <= 0:
        return 0.0
    return float(np.log(n) - _xlogy_sum(counts) / n)


def mutual_information(table: np.ndarray) -> float:
    """``I(A; B)`` (nats) of a 2-D contingency table ``N(a, b)``.

    >>> print(round(mutual_information(np.array([[5.0, 0.0], [0.0, 5.0]])), 6))  # log 2
    0.693147
    """
    table = np.asarray(table, dtype=np.float64)
    return entropy(table.sum(axis=1)) + entropy(table.sum(axis=0)) - entropy(table.ravel())


def class_mutual_information(counts: Counts) -> np.ndarray:
    """``I(X_i; C)`` for every feature, over the rows where ``X_i`` is observed."""
    out = np.empty(counts.n_features)
    for i in range(counts.n_features):
        out[i] = mutual_information(counts.feature(i).T)
    return out


def pairwise_cmi(counts: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Conditional mutual information ``I(X_i; X_j | C)`` of every feature pair.

    Each pair uses the rows where both features are observed (available-case
    analysis); its marginals are taken from the same rows, so every estimate is a
    true mutual information of one empirical distribution and never negative.
    Computed from the nonzero pair counts alone (:meth:`~pybnc.counts.tables.Counts.pair_entries`),
    so the dense and the sparse layouts give the same values and the cost follows the
    nonzeros, not ``W**2``.

    Returns
    -------
    cmi : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    n_pair : ndarray of shape (n_features, n_features)
        Number of rows behind each pair's estimate (on the diagonal: the rows where
        the feature is observed); read-only when the table has no missing value.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> x = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> cmi, _ = pairwise_cmi(count(x, np.array([0, 0, 1, 1]), [2, 2], 2))
    >>> bool(np.isclose(cmi[0, 1], np.log(2)))
    True
    """
    kept = counts.shared_statistics
    if kept is None:
        return _pairwise_cmi(counts)
    if "pairwise_cmi" not in kept:
        kept["pairwise_cmi"] = _pairwise_cmi(counts)
    cmi, n_pair = kept["pairwise_cmi"]  # each reader its own copy, as from a computation of its own
    return cmi.copy(), n_pair.copy() if n_pair.flags.writeable else n_pair


def _pairwise_cmi(counts: Counts) -> tuple[np.ndarray, np.ndarray]:
    if pair_rows.cheaper_from_rows(counts):  # looked up at the call: a benchmark switches it
        per_pair, n_pair = pair_rows.cmi_terms_from_rows(*counts.rows, counts.cardinalities, counts.n_classes, counts.levels)
        return _finished_cmi(counts, per_pair, n_pair)
    counts = counts.stored_pairs()  # layout "rows" without the kernel: the pairs counted once
    if counts.reduced is not None and 4 * (counts.kept.size - (counts.offsets[-1] - counts.n_features)) \
            <= counts.n_features:
        return _reduced_cmi(counts)  # most features lost a level: the few others' pairs are done apart
    if counts.joint is not None or counts.reduced is not None:
        per_pair, n_pair = _dense_cmi_terms(counts)
    else:
        per_pair, n_pair = _sparse_cmi_terms(counts)
    return _finished_cmi(counts, per_pair, n_pair)


def _finished_cmi(counts: Counts, per_pair: np.ndarray, n_pair: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``I = N I / N`` of every pair, rounded and symmetric, and ``n_pair`` with each
    feature's observed rows on its diagonal."""
    cmi = np.where(n_pair > 0, per_pair / np.where(n_pair > 0, n_pair, 1.0), 0.0)
    # Rounded to 1e-12 nats: pairs whose information is mathematically equal (frequent on
    # small tables) then tie exactly and are told apart by index, not by the order in
    # which a layout happened to sum; rounding also clears a -1e-17.
    cmi = np.maximum(np.round((cmi + cmi.T) / 2.0, 12), 0.0)
    np.fill_diagonal(cmi, 0.0)
    n_pair[np.diag_indices(counts.n_features)] = segment_sums(counts.levels.sum(axis=0), counts.offsets, axis=0)
    return cmi, n_pair


def _dense_cmi_terms(counts: Counts, chunk_cells: int = 1 << 18):
    """``N I(X_i; X_j | C)`` and ``N`` of every pair from dense (or reduced) counts, as
    ``sum N log N + N_c log N_c - sum N_ca log N_ca - sum N_cb log N_cb`` within each
    pair, every sum a segment sum: three passes over ``W x W`` per class, a block of
    whole features' rows (about ``chunk_cells`` cells, 2 MiB) at a time, so that the
    temporaries stay in cache and none is as large as the counts."""
    off = counts.offsets
    d = counts.n_features
    per_pair, n_pair = np.zeros((d, d)), np.zeros((d, d))
    width = int(off[-1])
    blocks = feature_blocks(off, max(1, chunk_cells // max(width, 1)))
    widths = np.diff(off)
    equal = bool(widths.size and widths[0] > 0 and (widths == widths[0]).all())  # as the whole table
    cell_terms, level_terms, total = np.empty((d, d)), np.empty((d, d)), np.empty((d, d))
    for c in range(counts.n_classes):
        for lo, hi in blocks:
            rows = counts.dense_rows(c, lo, hi)
            local = off[lo : hi + 1] - off[lo]
            within = segment_sums(rows, off, axis=1)  # (rows, d): N(c, x_i = a) within pair (i, j)
            total[lo:hi] = segment_sums(within, local, axis=0, equal_widths=equal)  # N(c) within pair (i, j)
            level_terms[lo:hi] = segment_sums(_xlogx(within), local, axis=0, equal_widths=equal)
            cell_terms[lo:hi] = segment_sums(segment_sums(_xlogx(rows), local, axis=0, equal_widths=equal), off,
                                             axis=1)
        # The joint is symmetric, so the margin of x_j within (i, j) is that of (j, i).
        per_pair += cell_terms + _xlogx(total) - level_terms - level_terms.T
        n_pair += total
    np.fill_diagonal(per_pair, 0.0)
    return per_pair, n_pair


def _reduced_cmi(counts: Counts, chunk_cells: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pairwise_cmi` from reduced counts, straight from the reduced cells.

    Between two features observed in every row (each has lost its last level) the
    margins within the pair are the level counts, so only the cells need work, and
    only the pairs ``i < j``, a block of whole features' rows at a time (the
    temporaries stay in cache). The left-out cells are rebuilt per block:
    ``N(a, last) = N(a) - sum_b N(a, b)``, likewise the last row, and
    ``N(last, last) = N(last_j) - sum_a N(a, last_j)``. Each block is finished
    (divided by ``N``, rounded) in place, as :func:`pairwise_cmi` does the whole table.
    The pairs of a feature with missing values are then done again from its dense rows
    (:meth:`~pybnc.counts.tables.Counts.dense_rows`), with margins over the rows where both
    features are observed.
    """
    d, off, ko = counts.n_features, counts.offsets, counts._kept_offsets
    cmi = np.empty((d, d))  # every cell written below: a block's rows, and its mirror
    incomplete = np.flatnonzero(np.diff(ko) == counts.cardinalities)  # kept every level: missing values
    if incomplete.size:
        n_pair = np.full((d, d), counts.n_rows)
    else:  # every pair counts every row: a read-only view of one number, not a d x d table
        n_pair = np.broadcast_to(np.float64(counts.n_rows), (d, d))
    if counts.n_rows <= 0:
        cmi.fill(0.0)
        return cmi, n_pair
    # The blocks read r_i - 1 kept levels of every feature: a feature with missing values
    # (it kept all r_i) shows its first r_i - 1 here, and its pairs are redone below.
    shown = np.minimum(np.diff(ko), np.maximum(counts.cardinalities - 1, 0))
    so = np.concatenate([[0], np.cumsum(shown)]).astype(np.int64)
    if incomplete.size:
        position = np.arange(int(ko[-1])) - np.repeat(ko[:-1], np.diff(ko))  # level within its feature
        picked = np.flatnonzero(position < np.repeat(shown, np.diff(ko)))
    last = np.maximum(off[1:] - 1, 0)  # each feature's left-out level, a one-hot column
    if bool((shown == 1).all()):  # one level shown per feature (binary): nothing to sum
        def sum_kept(a, offsets, axis):
            return a
    else:
        def sum_kept(a, offsets, axis):
            return segment_sums(a, offsets, axis=axis)
    kept_levels = counts.levels[:, counts.kept if not incomplete.size else counts.kept[picked]]
    # sum_a N(c, a) log N(c, a) per feature, and N_c log N_c: the margins' share of every pair
    level_terms = segment_sums(_xlogx(counts.levels), off, axis=1)
    class_terms = _xlogx(counts.class_counts)
    for lo, hi in feature_blocks(so, max(1, chunk_cells // max(int(so[-1]), 1))):
        rows_at, cols_at = so[lo : hi + 1] - so[lo], so[lo:] - so[lo]
        block = np.zeros((hi - lo, d - lo))
        for c in range(counts.n_classes):
            if incomplete.size:
                cells = counts.reduced[c][np.ix_(picked[so[lo] : so[hi]], picked[so[lo] :])].astype(np.float64)
            else:
                cells = counts.reduced[c, so[lo] : so[hi], so[lo] :].astype(np.float64)
            last_col = kept_levels[c, so[lo] : so[hi], None] - sum_kept(cells, cols_at, 1)  # N(a, last_j)
            last_row = kept_levels[c, None, so[lo] :] - sum_kept(cells, rows_at, 0)  # N(last_i, b)
            corner = counts.levels[c][None, last[lo:]] - sum_kept(last_col, rows_at, 0)  # N(last_i, last_j)
            block += sum_kept(sum_kept(_xlogx(cells), rows_at, 0), cols_at, 1)
            block += sum_kept(_xlogx(last_col), rows_at, 0)
            block += sum_kept(_xlogx(last_row), cols_at, 1)
            block += _xlogx(corner)
            block += class_terms[c] - level_terms[c, lo:hi, None] - level_terms[c, None, lo:]
        block = np.maximum(np.round(block / counts.n_rows, 12), 0.0)
        block[:, : hi - lo] = np.triu(block[:, : hi - lo], 1)
        block[:, : hi - lo] += block[:, : hi - lo].T  # the square on the diagonal, both halves
        cmi[lo:hi, lo:] = block
        cmi[hi:, lo:hi] = block[:, hi - lo :].T
    # A feature with missing values kept all its levels, and the blocks above took its
    # pairs' margins for level counts: its row and column are done again here.
    for i in incomplete:
        # every class at once: a loop over classes cost 24 times a few small operations per
        # feature on audiology (24 classes), 70 % of its TAN fit
        rows = counts.dense_rows(slice(None), i, i + 1)  # (K, r_i, W): N(c, x_i = a, x_j = b)
        within = segment_sums(rows, off, axis=2)  # N(c, x_i = a) within pair (i, j)
        pair_total = within.sum(axis=1)
        terms = (segment_sums(_xlogx(rows).sum(axis=1), off, axis=1) + _xlogx(pair_total)
                 - _xlogx(within).sum(axis=1) - segment_sums(_xlogx(rows.sum(axis=1)), off, axis=1)).sum(axis=0)
        total = pair_total.sum(axis=0)
        row = np.maximum(np.round(np.where(total > 0, terms / np.where(total > 0, total, 1.0), 0.0), 12), 0.0)
        row[i] = 0.0
        cmi[i], cmi[:, i] = row, row
        n_pair[i], n_pair[:, i] = total, total
    if incomplete.size:
        n_pair[np.diag_indices(d)] = segment_sums(counts.levels.sum(axis=0), off, axis=0)
    return cmi, n_pair


def _sparse_cmi_terms(counts: Counts, chunk: int = 1 << 22):
    """The same as :func:`_dense_cmi_terms` from the nonzero cells of the upper blocks,
    ``chunk`` cells at a time so that the temporaries stay small beside the counts."""
    d, width = counts.n_features, int(counts.offsets[-1])
    feat = counts.column_feature
    per_pair, n_pair = np.zeros(d * d), np.zeros(d * d)
    for upper in counts.sparse:
        row_of = np.repeat(np.arange(width, dtype=np.int64), np.diff(upper.indptr))
        total = np.zeros(d * d)
        u_margin = np.zeros(width * d)  # N(c, x_i = a) within pair (i, j), at a * d + j
        v_margin = np.zeros(width * d)  # N(c, x_j = b) within pair (i, j), at b * d + i
        cell_terms = np.zeros(d * d)
        for start in range(0, upper.nnz, chunk):
            u, v = row_of[start : start + chunk], upper.indices[start : start + chunk].astype(np.int64)
            n = upper.data[start : start + chunk]
            fu, fv = feat[u], feat[v]
            total += np.bincount(fu * d + fv, n, minlength=d * d)
            u_margin += np.bincount(u * d + fv, n, minlength=width * d)
            v_margin += np.bincount(v * d + fu, n, minlength=width * d)
            cell_terms += np.bincount(fu * d + fv, _xlogx(n), minlength=d * d)
        del row_of
        level_terms = np.zeros((d, d))
        u_terms, v_terms = _xlogx(u_margin).reshape(width, d), _xlogx(v_margin).reshape(width, d)
        level_terms += segment_sums(u_terms, counts.offsets, axis=0)  # [i, j]: x_i's side of (i, j)
        level_terms += segment_sums(v_terms, counts.offsets, axis=0).T  # [i, j]: x_j's side
        per_pair += cell_terms + _xlogx(total) - level_terms.ravel()
        n_pair += total
    per_pair, n_pair = per_pair.reshape(d, d), n_pair.reshape(d, d)
    return per_pair + per_pair.T, n_pair + n_pair.T
