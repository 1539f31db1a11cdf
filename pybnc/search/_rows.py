"""The cached scorer's passes over rows: a family's counts per fold, its log table read
back per row, and the correct predictions of a candidate sum.

A search on a small table makes thousands of these passes, each over every row, so
each is one loop in C (``_rows_c.c``, compiled at install) instead of the several
temporary arrays numpy needs (flat indices, masks, a take, a cast). Without the
compiled module the numpy versions run; both give bit-identical numbers (counts are
integers; a gathered value is a copy; sums are taken in the same order).
"""

from __future__ import annotations

import numpy as np

from .._utils.native import load_kernels

_native = load_kernels("pybnc.search._rows_c")
_c = np.ascontiguousarray  # the kernels read contiguous arrays (a no-op on most calls)


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
    if _native is not None:
        out = np.zeros(size)
        _native.count_rows(_c(leading), _c(parent), _c(child), n_parent, levels, out)
        return out.reshape(n_leading, n_parent, levels)
    keep = (parent >= 0) & (child >= 0)
    flat = (leading * n_parent + parent) * levels + child
    flat = flat if keep.all() else flat[keep]
    return np.bincount(flat, minlength=size).astype(np.float64).reshape(n_leading, n_parent, levels)


def gather_rows(table: np.ndarray, groups, parent, child, out=None, add=True) -> np.ndarray:
    """``table[g, :, parent, child]`` per row, class-major ``(K, rows)``; 0 where ``parent``
    or ``child`` is missing (``-1``). With ``out``, the values are added to it in place
    (the same sums as adding the built array), or written into it with ``add=False``,
    and ``out`` is returned.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.arange(8.0).reshape(1, 2, 2, 2)  # (groups, K, q, r)
    >>> gather_rows(table, np.zeros(3, int), np.array([0, 1, -1]), np.array([1, 0, 0])).tolist()
    [[1.0, 2.0, 0.0], [5.0, 6.0, 0.0]]
    """
    n_groups, k, q, r = table.shape
    n = np.shape(child)[0]
    if _native is not None and table.size:
        target = np.empty((k, n)) if out is None else out
        _native.gather_rows(_c(table), n_groups, k, q, r, _c(groups), _c(parent), _c(child), target,
                            out is not None and add)
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
    if add:
        out += values
    else:
        out[...] = values
    return out


def compact_join_small(left, right, right_levels: int, space: int):
    """:func:`~pybnc.search.joins.compact_join` through a table of the ``space`` keys, in two
    passes over the rows; ``None`` without the compiled kernels (the caller's numpy code runs)."""
    if _native is None:
        return None
    codes = np.empty(left.shape[0], dtype=np.int64)
    keys = np.empty(min(max(space, 0), left.shape[0]), dtype=np.int64)
    n_keys = _native.compact_join(_c(left), _c(right), right_levels, max(space, 0), codes, keys)
    return codes, keys[:n_keys]


def training_counts(per_fold: np.ndarray, codes, fold) -> np.ndarray:
    """Each row's count in its training folds, ``per_fold[c, :, code].sum() - per_fold[c,
    fold, code]``, class-major ``(K, rows)``, from counts ``(K, F, codes)``."""
    k, n_folds, width = per_fold.shape
    if _native is not None:
        out = np.empty((k, np.shape(codes)[0]))
        _native.training_counts(_c(per_fold), k, n_folds, width, _c(codes), _c(fold), out)
        return out
    return per_fold.sum(axis=1).take(codes, axis=1) - per_fold.reshape(k, -1).take(fold * width + codes, axis=1)


def correct_per_fold(total, y, fold, n_folds: int, plus=(), minus=()) -> np.ndarray:
    """Correct predictions per fold of ``total + sum(plus) - sum(minus)`` (added in that
    order), ties to the first class (argmax's rule); ``(K, n)`` class-major arrays."""
    if _native is not None:
        out = np.empty(n_folds)
        _native.correct_per_fold(_c(total), total.shape[0], _c(y), _c(fold), len(plus), [_c(a) for a in (*plus, *minus)], out)
        return out
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
    if _native is None or table.size == 0:
        return correct_per_fold(total, y, fold, n_folds, [gather_rows(table, groups, parent, child)], [minus])
    out = np.empty(n_folds)
    _native.correct_per_fold_swapped(_c(total), _c(table), *table.shape, _c(groups), _c(parent), _c(child),
                                     _c(minus), _c(y), _c(fold), out)
    return out
