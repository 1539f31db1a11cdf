"""Every feature pair's ``N I(X_i; X_j | C)`` straight from the coded rows.

:func:`pybnc.scores.information.pairwise_cmi` reads the pair counts, whose cells number
``K x W x W`` (``W`` levels in all). A wide table with few rows has far fewer rows per
pair than cells: 160 rows of 2,000 columns cut in 10 bins count 648 million cells for
320 million row-pair visits. Here each pair is counted from its rows into a small table
that is read back through the same rows (only the cells a row touched, each once) and
cleared, so the cost follows ``rows x pairs`` and nothing of size ``W x W`` is held.

Both functions return what :func:`pybnc.scores.information._dense_cmi_terms` returns:
``per_pair[i, j] = N I(X_i; X_j | C)`` and ``n_pair[i, j] = N`` over the rows where both
features are observed (available-case analysis), symmetric, zero diagonal. The compiled
kernel (``_pairs_c``, built at install) and the numpy version give the same values up to
the order of their sums (tested against each other and against brute force).
"""

from __future__ import annotations

import numpy as np

from .._utils.native import load_kernels
from ..counts.tables import (ROWS_MAX_PAIR_CELLS, column_features, information_reads_rows, one_hot_offsets,
                             pair_table_cells, segment_sums)
from ._xlogx import xlogx as _xlogx
from ._xlogx import xlogx_direct as _xlogx_direct


def cheaper_from_rows(counts) -> bool:
    """Whether :func:`cmi_terms_from_rows` on ``counts.rows`` costs less than reading the
    pair counts: the rows are at hand and
    :func:`~pybnc.counts.tables.information_reads_rows`."""
    return counts.rows is not None and information_reads_rows(counts)


def cmi_terms_from_rows(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, levels=None):
    """``(per_pair, n_pair)`` of every feature pair, from ``codes`` (``-1`` missing) and
    class codes ``y``; the compiled kernel when built, else :func:`cmi_terms_numpy`.
    ``levels``: the ``(K, W)`` level counts of these rows, if the caller holds them.
    A feature of fewer than two levels tells nothing of another: its pairs are 0
    without a pass over their rows.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> per_pair, n_pair = cmi_terms_from_rows(x, np.array([0, 0, 1, 1]), [2, 2], 2)
    >>> bool(np.isclose(per_pair[0, 1] / n_pair[0, 1], np.log(2)))
    True
    """
    codes = np.asarray(codes)
    cards = np.asarray(cardinalities, dtype=np.int64)
    informative = np.flatnonzero(cards >= 2)
    if informative.size < cards.size:
        n, d = codes.shape
        per_pair = np.zeros((d, d))
        observed = codes >= 0
        if observed.all():
            n_pair = np.full((d, d), float(n))
        else:
            observed = observed.astype(np.float64)
            n_pair = observed.T @ observed  # rows where both are observed: whole numbers, exact
        if informative.size:
            where = np.ix_(informative, informative)
            kept = None if levels is None else levels[:, (cards >= 2)[column_features(cards)]]
            per_pair[where], n_pair[where] = cmi_terms_from_rows(codes[:, informative], y, cards[informative],
                                                                 n_classes, kept)
        np.fill_diagonal(n_pair, 0.0)
        return per_pair, n_pair
    kernels = load_kernels("pybnc.scores._pairs_c")
    if kernels is None or pair_table_cells(cards, n_classes) > ROWS_MAX_PAIR_CELLS:
        return cmi_terms_numpy(codes, y, cards, n_classes)
    n, d = codes.shape
    y = np.ascontiguousarray(y, dtype=np.int32)
    offsets, observed = one_hot_offsets(cards), codes >= 0
    complete = observed.all(axis=0)
    # sum_{c,a} N(c, a) log N(c, a) of each complete feature, and sum_c N(c) log N(c)
    if levels is None:
        width = int(offsets[-1])
        cells = (y.astype(np.int64)[:, None] * width + offsets[:-1] + codes)[observed]
        levels = np.bincount(cells, minlength=n_classes * width).reshape(n_classes, width).astype(np.float64)
    level_terms = segment_sums(_xlogx(levels), offsets, axis=1).sum(axis=0)
    class_term = float(_xlogx(np.bincount(y, minlength=n_classes).astype(np.float64)).sum())
    terms, n_pair = np.zeros((d, d)), np.zeros((d, d))
    kernels.pair_terms(np.ascontiguousarray(codes.T, dtype=np.int32), y, cards, n_classes,
                       complete.astype(np.uint8), _xlogx_direct(np.arange(n + 1, dtype=np.float64)),
                       np.ascontiguousarray(level_terms), class_term, terms, n_pair)
    return terms + terms.T, n_pair + n_pair.T


def cmi_terms_numpy(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, chunk_cells: int = 1 << 22):
    """:func:`cmi_terms_from_rows` in numpy: for each feature, the tables of its pairs with
    the features after it, about ``chunk_cells`` cells at a time, counted by one
    ``bincount`` over the rows."""
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    cards = np.asarray(cardinalities, dtype=np.int64)
    n, d = codes.shape
    per_pair, n_pair = np.zeros((d, d)), np.zeros((d, d))
    for i in range(d - 1):
        ri = max(int(cards[i]), 1)
        lead = y * ri + codes[:, i]  # (class, x_i) of each row
        rest = np.arange(i + 1, d)
        width = max(int(cards[rest].max()), 1)
        step = max(1, chunk_cells // (n_classes * ri * width))
        for lo in range(0, rest.size, step):
            js = rest[lo : lo + step]
            both = (codes[:, i] >= 0)[:, None] & (codes[:, js] >= 0)
            rows, which = np.nonzero(both)
            keys = (which * (n_classes * ri) + lead[rows]) * width + codes[rows, js[which]]
            joint = np.bincount(keys, minlength=js.size * n_classes * ri * width).reshape(js.size, n_classes, ri, width)
            joint = joint.astype(np.float64)
            terms = (_xlogx(joint).sum(axis=(1, 2, 3)) + _xlogx(joint.sum(axis=(2, 3))).sum(axis=1)
                     - _xlogx(joint.sum(axis=3)).sum(axis=(1, 2)) - _xlogx(joint.sum(axis=2)).sum(axis=(1, 2)))
            per_pair[i, js], n_pair[i, js] = terms, both.sum(axis=0)
    return per_pair + per_pair.T, n_pair + n_pair.T
