"""Counts of chosen families (a feature and its parents), for kDB learned out of core.

:mod:`pybnc.counts.tables` counts every feature with the class and every pair; a kDB family
with two or more feature parents needs a table of its own, counted here in one pass over
the rows and additive over row blocks, folds and Dask partitions as the pair counts are.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numpy as np

from .tables import ClassTotals


@dataclass
class FamilyCounts(ClassTotals):
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
    #: per table, None or the flat indices of every cell a row fell in (sorted; a
    #: superset of the non-zero cells): a large table on few rows is summed from them
    occupied: list = None

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
        summed = sum_over(full, drop, self.nonzero_cells(f)) if drop else full
        return summed[(slice(None),) + tuple(slice(0, full.shape[1 + a] - 1) for a in sorted(keep))]

    def __add__(self, other: "FamilyCounts") -> "FamilyCounts":
        self._check_compatible(other)
        occupied = [None if a is None or b is None else np.union1d(a, b)
                    for a, b in zip(self.occupied_cells(), other.occupied_cells())]
        return FamilyCounts(self.cardinalities, self.class_counts + other.class_counts, self.families,
                            [a + b for a, b in zip(self.tables, other.tables)], occupied)

    def __sub__(self, other: "FamilyCounts") -> "FamilyCounts":
        self._check_compatible(other)
        return FamilyCounts(self.cardinalities, self.class_counts - other.class_counts, self.families,
                            [a - b for a, b in zip(self.tables, other.tables)], self.occupied)

    def occupied_cells(self) -> list:
        """:attr:`occupied`, a None per table where it is not known."""
        return self.occupied if self.occupied is not None else [None] * len(self.tables)

    def nonzero_cells(self, f: int):
        """:func:`nonzero_cells` of family ``f``'s table, from :attr:`occupied` when known."""
        return nonzero_cells(self.tables[f], self.occupied_cells()[f])

    def _check_compatible(self, other: "FamilyCounts") -> None:
        if (not np.array_equal(self.cardinalities, other.cardinalities) or self.n_classes != other.n_classes
                or self.families != other.families):
            raise ValueError("Family counts over different features, classes or families cannot be combined.")


#: A table of more cells than this, and this share or less of them non-zero, is summed
#: from its non-zero cells: a kDB family of five parents on a few hundred rows has
#: hundreds of thousands of cells, nearly all empty, and numpy's sums over its middle
#: axes took 20 ns a cell (audiology: 0.19 s of a 0.34 s SKDB fit).
SPARSE_CELLS, SPARSE_SHARE = 1 << 14, 0.125


def nonzero_cells(table: np.ndarray, occupied=None):
    """``(coordinates, values)`` of the non-zero cells of a large, mostly empty
    ``table`` (see :data:`SPARSE_CELLS`), for :func:`sum_over`; None for any other.
    ``occupied``: flat indices of a superset of those cells, when known (finding them
    in the table costs 4 ns a cell)."""
    if table.size <= SPARSE_CELLS:
        return None
    flat = np.flatnonzero(table) if occupied is None else occupied
    if flat.size > SPARSE_SHARE * table.size:
        return None
    return np.unravel_index(flat, table.shape), table.ravel()[flat]


def sum_over(table: np.ndarray, drop, cells=None) -> np.ndarray:
    """``table`` summed over the axes ``drop``; from ``cells`` (its
    :func:`nonzero_cells`, or some of them) when given (the same sums: counts are whole
    numbers).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.zeros((2, 200, 100)); t[1, 3, 4] = 2.0; t[1, 5, 4] = 1.0
    >>> sum_over(t, (1,), nonzero_cells(t))[1].tolist() == sum_over(t, (1,))[1].tolist()
    True
    >>> float(sum_over(t, (1,), nonzero_cells(t))[1, 4])
    3.0
    """
    drop = tuple(drop)
    if cells is None:
        return table.sum(axis=drop) if drop else table
    coords, values = cells
    keep = [a for a in range(table.ndim) if a not in drop]
    shape = tuple(table.shape[a] for a in keep)
    index = np.ravel_multi_index(tuple(coords[a] for a in keep), shape) if keep else np.zeros(values.size, int)
    return np.bincount(index, values, minlength=int(np.prod(shape))).reshape(shape)


def untouched_zeros(size: int) -> np.ndarray:
    """``np.zeros(size)`` in memory of its own, mapped afresh: the pages no cell is
    written to are never allocated or cleared. ``np.zeros`` takes a large block from
    the heap once glibc has freed one of that size, and then clears every byte (a
    member of ESKDB on letter: 0.5 to 0.9 s of clearing per 14 million cells, where
    the first took 0.04 s)."""
    buffer = mmap.mmap(-1, max(size, 1) * 8)
    return np.frombuffer(buffer, dtype=np.float64, count=size)


def count_families(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, families,
                   weights=None) -> FamilyCounts:
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
    weights : ndarray of shape (n_samples,), optional
        Each row counts its weight (:mod:`pybnc._utils.sample_weight`).

    Returns
    -------
    FamilyCounts
        Additive: ``count_families(A) + count_families(B) == count_families(A ∪ B)``.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    families = tuple(tuple(int(v) for v in fam) for fam in families)
    class_counts = np.bincount(y, weights, minlength=n_classes).astype(np.float64)
    # Missing (-1) goes to the extra slot r of its feature.
    slotted = np.where(codes >= 0, codes, cards[None, :]).astype(np.int64)
    tables, occupied = [], []
    for fam in families:
        shape = (n_classes, *(int(cards[v]) + 1 for v in fam))
        flat = y.copy()
        for v in fam:  # row-major cell index, built column by column (no (n, m) temporary)
            flat *= int(cards[v]) + 1
            flat += slotted[:, v]
        size = int(np.prod(shape))
        if size > SPARSE_CELLS and flat.size * 8 < size:
            # many more cells than rows: only the rows' cells are written (the rest stays
            # untouched zero pages), and kept, as they are cheaper to sort than to find
            cells, row_cell = np.unique(flat, return_inverse=True)
            table = untouched_zeros(size)
            table[cells] = np.bincount(row_cell, weights, minlength=cells.size)
            tables.append(table.reshape(shape))
            occupied.append(cells)
        else:
            tables.append(np.bincount(flat, weights, minlength=size).astype(np.float64).reshape(shape))
            occupied.append(None)
    return FamilyCounts(cards, class_counts, families, tables, occupied)
