"""The cached scorer's passes over rows: a family's counts per fold, its log table read
back per row, and the correct predictions of a candidate sum.

A search on a small table makes thousands of these passes, each over every row, so
each is one loop under numba (the ``fast`` extra) instead of the several temporary
arrays numpy needs (flat indices, masks, a take, a cast). Without numba the numpy
versions run; both give bit-identical numbers (counts are integers; a gathered value
is a copy; sums are taken in the same order).
"""

from __future__ import annotations

import numpy as np

from .._utils.jit import Kernels


def fold_counts(leading: np.ndarray, n_leading: int, parent: np.ndarray, n_parent: int, child: np.ndarray,
                levels: int) -> np.ndarray:
    """Float counts ``N(leading, parent, child)``, shape ``(n_leading, n_parent, levels)``,
    over the rows where neither ``parent`` nor ``child`` is missing (``-1``).

    Examples
    --------
    >>> import numpy as np
    >>> fold_counts(np.array([0, 0, 1]), 2, np.array([0, -1, 1]), 2, np.array([1, 1, 0]), 2)[:, :, 1].tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    size = n_leading * n_parent * levels
    if _KERNELS.available:
        out = np.zeros(size)
        _KERNELS.ready()["_count_rows"](leading, parent, child, n_parent, levels, out)
        return out.reshape(n_leading, n_parent, levels)
    keep = (parent >= 0) & (child >= 0)
    flat = (leading * n_parent + parent) * levels + child
    flat = flat if keep.all() else flat[keep]
    return np.bincount(flat, minlength=size).astype(np.float64).reshape(n_leading, n_parent, levels)


def gather_rows(table: np.ndarray, groups, parent, child, out=None) -> np.ndarray:
    """``table[g, :, parent, child]`` per row, class-major ``(K, rows)``; 0 where ``parent``
    or ``child`` is missing (``-1``). With ``out``, the values are added to it in place
    (the same sums as adding the built array) and ``out`` is returned.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.arange(8.0).reshape(1, 2, 2, 2)  # (groups, K, q, r)
    >>> gather_rows(table, np.zeros(3, int), np.array([0, 1, -1]), np.array([1, 0, 0])).tolist()
    [[1.0, 2.0, 0.0], [5.0, 6.0, 0.0]]
    """
    n_groups, k, q, r = table.shape
    n = np.shape(child)[0]
    if _KERNELS.available and table.size:
        target = np.empty((k, n)) if out is None else out
        _KERNELS.ready()["_gather_rows"](np.ascontiguousarray(table), groups, parent, child, target, out is not None)
        return target
    if table.size == 0:  # a feature never observed in training (no level): nothing to read
        values = np.zeros((k, n))
    else:
        flat = np.ascontiguousarray(table.transpose(1, 0, 2, 3)).reshape(k, -1)
        ok = (parent >= 0) & (child >= 0)
        if ok.all():
            values = flat.take((groups * q + parent) * r + child, axis=1)
        else:
            values = flat.take((groups * q + np.maximum(parent, 0)) * r + np.maximum(child, 0), axis=1)
            values[:, ~ok] = 0.0
    if out is None:
        return values
    out += values
    return out


def compact_join_small(left, right, right_levels: int, space: int):
    """:func:`~pybnc.search.joins.compact_join` through a table of the ``space`` keys, in two
    passes over the rows; ``None`` without numba (the caller's numpy code runs)."""
    if not _KERNELS.available:
        return None
    codes = np.empty(left.shape[0], dtype=np.int64)
    keys = _KERNELS.ready()["_compact_join"](left, right, right_levels, max(space, 0), codes)
    return codes, keys


def training_counts(per_fold: np.ndarray, codes, fold) -> np.ndarray:
    """Each row's count in its training folds, ``per_fold[c, :, code].sum() - per_fold[c,
    fold, code]``, class-major ``(K, rows)``, from counts ``(K, F, codes)``."""
    k, n_folds, width = per_fold.shape
    if _KERNELS.available:
        out = np.empty((k, np.shape(codes)[0]))
        _KERNELS.ready()["_training_counts"](np.ascontiguousarray(per_fold), codes, fold, out)
        return out
    return per_fold.sum(axis=1).take(codes, axis=1) - per_fold.reshape(k, -1).take(fold * width + codes, axis=1)


def correct_per_fold(total, y, fold, n_folds: int, plus=(), minus=()) -> np.ndarray:
    """Correct predictions per fold of ``total + sum(plus) - sum(minus)`` (added in that
    order), ties to the first class (argmax's rule); ``(K, n)`` class-major arrays."""
    if _KERNELS.available:
        return _KERNELS.ready()["_correct_per_fold"](total, y, fold, n_folds, len(plus), (*plus, *minus))
    candidate = total.copy()
    for a in plus:
        candidate += a
    for a in minus:
        candidate -= a
    correct = candidate.argmax(axis=0) == y
    return np.bincount(fold, weights=correct, minlength=n_folds)


def correct_per_fold_swapped(total, table, groups, parent, child, minus, y, fold, n_folds: int) -> np.ndarray:
    """:func:`correct_per_fold` of ``total + gather_rows(table, groups, parent, child) - minus``
    for rows with no missing value, the table read as the rows are scored: a candidate
    family is scored without writing (and keeping) its ``(K, n)`` array, at the cost of
    reading it."""
    if not _KERNELS.available or table.size == 0:
        return correct_per_fold(total, y, fold, n_folds, [gather_rows(table, groups, parent, child)], [minus])
    return _KERNELS.ready()["_correct_per_fold_swapped"](total, np.ascontiguousarray(table), groups, parent, child,
                                                         minus, y, fold, n_folds)


def _count_rows_loop(leading, parent, child, n_parent, levels, out):
    for i in range(leading.shape[0]):
        p, x = parent[i], child[i]
        if p >= 0 and x >= 0:
            out[(leading[i] * n_parent + p) * levels + x] += 1.0


def _gather_rows_loop(table, groups, parent, child, out, add):
    # One pass to find each row's cell, then one contiguous pass per class.
    _, n_classes, q, r = table.shape
    flat = table.ravel()
    n = child.shape[0]
    cell = np.empty(n, dtype=np.int64)
    for i in range(n):
        p, x = parent[i], child[i]
        cell[i] = (groups[i] * n_classes * q + p) * r + x if p >= 0 and x >= 0 else -1
    for c in range(n_classes):
        offset, row = c * q * r, out[c]
        for i in range(n):
            if cell[i] >= 0:
                if add:
                    row[i] += flat[cell[i] + offset]
                else:
                    row[i] = flat[cell[i] + offset]
            elif not add:
                row[i] = 0.0


def _training_counts_loop(per_fold, codes, fold, out):
    n_classes, n_folds, width = per_fold.shape
    for c in range(n_classes):
        total = np.zeros(width)
        for f in range(n_folds):
            total += per_fold[c, f]
        for i in range(codes.shape[0]):
            out[c, i] = total[codes[i]] - per_fold[c, fold[i], codes[i]]


def _correct_per_fold_swapped_loop(total, table, groups, parent, child, minus, y, fold, n_folds):
    # _correct_per_fold_loop with its one plus array read from the table (each row's cell
    # found once, as in _gather_rows_loop): the same sums in the same order.
    n_classes, n = total.shape
    _, _, q, r = table.shape
    flat = table.ravel()
    cell = np.empty(n, dtype=np.int64)
    for i in range(n):
        cell[i] = (groups[i] * n_classes * q + parent[i]) * r + child[i]
    best = np.empty(n)
    arg = np.zeros(n, dtype=np.int64)
    for c in range(n_classes):
        offset = c * q * r
        for i in range(n):
            value = total[c, i] + flat[cell[i] + offset]
            value -= minus[c, i]
            if c == 0 or value > best[i]:
                best[i] = value
                arg[i] = c
    return _hits_per_fold(arg, y, fold, n_folds)


def _hits_per_fold(arg, y, fold, n_folds):
    out = np.zeros(n_folds)
    for i in range(arg.shape[0]):
        if arg[i] == y[i]:
            out[fold[i]] += 1.0
    return out


def _compact_join_loop(left, right, right_levels, space, codes):
    label = np.full(space, -1, dtype=np.int64)
    for i in range(left.shape[0]):
        if left[i] >= 0 and right[i] >= 0:
            label[left[i] * right_levels + right[i]] = 0
    n_keys = 0
    for key in range(space):  # labels in increasing key order
        if label[key] == 0:
            label[key] = n_keys
            n_keys += 1
    keys = np.empty(n_keys, dtype=np.int64)
    for key in range(space):
        if label[key] >= 0:
            keys[label[key]] = key
    for i in range(left.shape[0]):
        codes[i] = label[left[i] * right_levels + right[i]] if left[i] >= 0 and right[i] >= 0 else -1
    return keys


def _correct_per_fold_loop(total, y, fold, n_folds, n_plus, arrays):
    # Class by class, each class's row contiguous: the maximum and its class per row.
    n_classes, n = total.shape
    best = np.empty(n)
    arg = np.zeros(n, dtype=np.int64)
    for c in range(n_classes):
        for i in range(n):
            value = total[c, i]
            for a in range(len(arrays)):
                if a < n_plus:
                    value += arrays[a][c, i]
                else:
                    value -= arrays[a][c, i]
            if c == 0 or value > best[i]:
                best[i] = value
                arg[i] = c
    return _hits_per_fold(arg, y, fold, n_folds)


_KERNELS = Kernels(globals(), [("_hits_per_fold", "_hits_per_fold", {}),
                               ("_count_rows", "_count_rows_loop", {}), ("_gather_rows", "_gather_rows_loop", {}),
                               ("_correct_per_fold", "_correct_per_fold_loop", {}),
                               ("_compact_join", "_compact_join_loop", {}),
                               ("_training_counts", "_training_counts_loop", {}),
                               ("_correct_per_fold_swapped", "_correct_per_fold_swapped_loop", {})])
