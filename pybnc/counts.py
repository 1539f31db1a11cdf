"""Sufficient statistics: class counts and class-conditional counts of all feature pairs.

Counts are additive: the counts of a union of row blocks are the sum of the blocks'
counts. That one fact gives incremental fitting, out-of-core and distributed
fitting (count each block, sum) and fast cross-validation (training = total - fold).

All pairwise tables come from one Gram matrix per class: with the features one-hot
encoded into ``W = sum(r_i)`` columns, ``M_c.T @ M_c`` holds ``N(c, x_i = a, x_j = b)``
for every pair at once in block ``(i, j)``. A missing value is an all-zero one-hot
block, so every pair table counts exactly the rows where both features are observed
(available-case analysis) and the diagonal block ``(i, i)`` holds ``N(c, x_i)``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

# float32 sums of 0/1 products are exact integers below 2**24; chunking the rows keeps
# every single BLAS product under that bound, and the float64 total stays exact to 2**53.
_CHUNK_ROWS = 1 << 16
# Above this one-hot width the dense Gram costs more than per-feature bincounts.
_GRAM_MAX_WIDTH = 1024


@functools.lru_cache(maxsize=1)
def _blas_controller() -> ThreadpoolController:
    # Finding the loaded BLAS libraries reads the process's memory map: do it once,
    # not on every count (it cost more than counting a small table).
    return ThreadpoolController()


@dataclass
class Counts:
    """Class counts and class-conditional counts of all feature pairs.

    Attributes
    ----------
    cardinalities : ndarray of shape (n_features,)
        Number of levels of each feature.
    class_counts : ndarray of shape (n_classes,)
        ``N(c)``: rows of each class.
    joint : ndarray of shape (n_classes, W, W)
        ``joint[c, off[i] + a, off[j] + b] = N(c, x_i = a, x_j = b)`` counted over the
        rows where both features are observed; ``W = sum(cardinalities)``.
    """

    cardinalities: np.ndarray
    class_counts: np.ndarray
    joint: np.ndarray

    @property
    def n_classes(self) -> int:
        return int(self.class_counts.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.cardinalities.shape[0])

    @property
    def n_rows(self) -> float:
        return float(self.class_counts.sum())

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.cardinalities)]).astype(np.int64)

    @property
    def column_feature(self) -> np.ndarray:
        """Feature index of each one-hot column (length ``W``)."""
        return np.repeat(np.arange(self.n_features), self.cardinalities)

    def block(self, i: int) -> slice:
        off = self.offsets
        return slice(int(off[i]), int(off[i + 1]))

    def feature(self, i: int) -> np.ndarray:
        """``N(c, x_i)`` over rows where ``x_i`` is observed, shape ``(K, r_i)``."""
        b = self.block(i)
        return np.diagonal(self.joint[:, b, b], axis1=1, axis2=2).copy()

    def pair(self, i: int, j: int) -> np.ndarray:
        """``N(c, x_i, x_j)`` over rows where both are observed, shape ``(K, r_i, r_j)``."""
        return self.joint[:, self.block(i), self.block(j)]

    def __add__(self, other: "Counts") -> "Counts":
        self._check_compatible(other)
        return Counts(self.cardinalities, self.class_counts + other.class_counts, self.joint + other.joint)

    def __sub__(self, other: "Counts") -> "Counts":
        self._check_compatible(other)
        return Counts(self.cardinalities, self.class_counts - other.class_counts, self.joint - other.joint)

    def _check_compatible(self, other: "Counts") -> None:
        if not np.array_equal(self.cardinalities, other.cardinalities) or self.n_classes != other.n_classes:
            raise ValueError("Counts over different features or classes cannot be combined.")


def segment_sums(a: np.ndarray, offsets: np.ndarray, axis: int) -> np.ndarray:
    """Sums of ``a`` over each feature's one-hot columns along ``axis`` (``offsets`` as
    ``Counts.offsets``); 0 for a feature without levels, where ``np.add.reduceat`` would
    return a neighbour's column or fail."""
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, 1)
    out = np.add.reduceat(np.pad(a, pad), offsets[:-1], axis=axis)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if empty.size:
        index = [slice(None)] * a.ndim
        index[axis] = empty
        out[tuple(index)] = 0
    return out


def _one_hot_columns(codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """One-hot column of every cell; a missing cell points at the spare column ``W``."""
    width = offsets[-1]
    return np.where(codes >= 0, offsets[:-1] + codes, width)


def _gram(codes: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    gram = np.zeros((width + 1, width + 1), dtype=np.float64)
    for start in range(0, codes.shape[0], _CHUNK_ROWS):
        chunk = codes[start : start + _CHUNK_ROWS]
        onehot = np.zeros((chunk.shape[0], width + 1), dtype=np.float32)
        onehot[np.arange(chunk.shape[0])[:, None], _one_hot_columns(chunk, offsets)] = 1.0
        gram += np.dot(onehot.T, onehot)
    return gram[:width, :width]  # drop the spare column that collected missing cells


def _pairs_by_bincount(codes: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """Same table as ``_gram`` for very wide encodings: one bincount per feature."""
    table = np.zeros(width * width, dtype=np.float64)
    columns = _one_hot_columns(codes, offsets)
    columns[columns == width] = -1
    for i in range(codes.shape[1]):
        rows = columns[columns[:, i] >= 0]
        cells = rows[:, i, None] * width + rows
        table += np.bincount(cells[rows >= 0], minlength=width * width)
    return table.reshape(width, width)


def count(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int) -> Counts:
    """Count the sufficient statistics of a coded table.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), int
        Feature codes, ``-1`` for missing.
    y : ndarray of shape (n_samples,), int
        Class codes ``0 .. n_classes - 1``.
    cardinalities : array-like of int
        Levels per feature.
    n_classes : int

    Returns
    -------
    Counts
        Additive counts; ``count(A) + count(B) == count(A ∪ B)``.

    Examples
    --------
    >>> import numpy as np
    >>> c = count(np.array([[0, 1], [1, -1]]), np.array([0, 1]), [2, 2], 2)
    >>> c.pair(0, 1)[0].tolist(), c.feature(1).tolist()
    ([[0.0, 1.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 0.0]])
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)
    width = int(offsets[-1])
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    class_counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    joint = np.zeros((n_classes, width, width), dtype=np.float64)
    order = np.argsort(y, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(class_counts).astype(np.int64)])
    pair_table = _gram if width <= _GRAM_MAX_WIDTH else _pairs_by_bincount
    # One BLAS thread: these products are small and memory-bound, and a threaded
    # OpenBLAS on a busy machine (cross-validation in parallel, other jobs) spins
    # and runs several hundred times slower than one thread.
    with _blas_controller().limit(limits=1, user_api="blas"):
        for c in range(n_classes):
            rows = order[bounds[c] : bounds[c + 1]]
            if rows.size:
                joint[c] = pair_table(codes[rows], offsets, width)
    return Counts(cardinalities, class_counts, joint)


# -- family counts ------------------------------------------------------------------------
@dataclass
class FamilyCounts:
    """Class-conditional counts of chosen families, with a slot for "missing".

    A family is a tuple of features ``(p_1, ..., p_m, child)``; its table has shape
    ``(K, r_p1 + 1, ..., r_pm + 1, r_child + 1)`` where the last index of every
    feature axis (``r``) counts the rows where that feature is missing. Keeping the
    missing slot makes every sub-family derivable exactly by :meth:`marginal`
    (available-case counts of any subset of a family's features), so a learner that
    tries ``k' < k`` parents, or backs off to fewer parents, needs no second pass.

    Attributes
    ----------
    cardinalities : ndarray of shape (n_features,)
    class_counts : ndarray of shape (n_classes,)
    families : tuple of tuple of int
    tables : list of ndarray
        One table per family, float64 (exact counts).

    Examples
    --------
    >>> import numpy as np
    >>> fc = count_families(np.array([[0, 1], [1, -1], [1, 1]]), np.array([0, 1, 1]), [2, 2], 2, [(0, 1)])
    >>> fc.table(0)[1].tolist()        # class 1: N(x0, x1) over rows with both observed
    [[0.0, 0.0], [0.0, 1.0]]
    >>> fc.marginal(0, [0])[1].tolist()  # class 1: N(x0) over rows with x0 observed
    [0.0, 2.0]
    """

    cardinalities: np.ndarray
    class_counts: np.ndarray
    families: tuple
    tables: list

    @property
    def n_classes(self) -> int:
        return int(self.class_counts.shape[0])

    @property
    def n_rows(self) -> float:
        return float(self.class_counts.sum())

    def index(self, family) -> int:
        """Position of ``family`` among :attr:`families`."""
        return self.families.index(tuple(int(v) for v in family))

    def table(self, f: int) -> np.ndarray:
        """Available-case counts ``N(c, family)`` of family ``f``: rows where all its
        features are observed, shape ``(K, r_p1, ..., r_child)``."""
        full = self.tables[f]
        return full[(slice(None),) + tuple(slice(0, s - 1) for s in full.shape[1:])]

    def marginal(self, f: int, keep) -> np.ndarray:
        """Available-case counts of the features at positions ``keep`` of family ``f``.

        Rows where a kept feature is missing are left out; the other features are
        summed over all their slots, missing included. Shape ``(K, r_keep...)``.
        """
        keep = [int(a) for a in keep]
        full = self.tables[f]
        n_axes = full.ndim - 1
        drop = tuple(1 + a for a in range(n_axes) if a not in keep)
        summed = full.sum(axis=drop) if drop else full
        return summed[(slice(None),) + tuple(slice(0, full.shape[1 + a] - 1) for a in sorted(keep))]

    def __add__(self, other: "FamilyCounts") -> "FamilyCounts":
        self._check_compatible(other)
        return FamilyCounts(self.cardinalities, self.class_counts + other.class_counts, self.families,
                            [a + b for a, b in zip(self.tables, other.tables)])

    def __sub__(self, other: "FamilyCounts") -> "FamilyCounts":
        self._check_compatible(other)
        return FamilyCounts(self.cardinalities, self.class_counts - other.class_counts, self.families,
                            [a - b for a, b in zip(self.tables, other.tables)])

    def _check_compatible(self, other: "FamilyCounts") -> None:
        if (not np.array_equal(self.cardinalities, other.cardinalities) or self.n_classes != other.n_classes
                or self.families != other.families):
            raise ValueError("Family counts over different features, classes or families cannot be combined.")


def count_families(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, families) -> FamilyCounts:
    """Count ``N(c, family)`` for each family, with a missing slot per feature.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), int
        Feature codes, ``-1`` for missing.
    y : ndarray of shape (n_samples,), int
        Class codes ``0 .. n_classes - 1``.
    cardinalities : array-like of int
    n_classes : int
    families : iterable of tuple of int
        Feature indices ``(parents..., child)``; any length >= 1.

    Returns
    -------
    FamilyCounts
        Additive: ``count_families(A) + count_families(B) == count_families(A ∪ B)``.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    families = tuple(tuple(int(v) for v in fam) for fam in families)
    class_counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    # Missing (-1) goes to the extra slot r of its feature.
    slotted = np.where(codes >= 0, codes, cards[None, :]).astype(np.int64)
    tables = []
    for fam in families:
        shape = (n_classes, *(int(cards[v]) + 1 for v in fam))
        flat = y.copy()
        for v in fam:  # row-major cell index, built column by column (no (n, m) temporary)
            flat *= int(cards[v]) + 1
            flat += slotted[:, v]
        size = int(np.prod(shape))
        tables.append(np.bincount(flat, minlength=size).astype(np.float64).reshape(shape))
    return FamilyCounts(cards, class_counts, families, tables)
