"""Sufficient statistics, counted on demand: what each model needs and no more.

* **Level counts** ``N(c, x_i = a)`` over the rows where ``x_i`` is observed, one
  ``(K, W)`` array (``W = sum(r_i)``): all naive Bayes and its weightings need.
* **Pair counts** ``N(c, x_i = a, x_j = b)`` over the rows where both are observed
  (available-case analysis): Chow-Liu (TAN, FAN), TBMATAN, AODE, MANB-free models.
  Stored **dense** (``K x W x W``) while that is small, else **sparse**: per class
  the strictly upper blocks (``i < j``) of the one-hot Gram matrix in CSR, whose
  nonzeros are at most ``rows x pairs`` whatever the number of levels.
* **Family counts** for chosen parent sets (kDB, SKDB, AnDE): :func:`count_families`.

Every kind is additive: the counts of a union of row blocks are the sum of the
blocks' counts. That one fact gives incremental fitting, out-of-core and distributed
fitting (count each block, sum) and fast cross-validation (training = total - fold).

Dense pair tables come from one Gram matrix per class: with the features one-hot
encoded, ``M_c.T @ M_c`` holds every pair in block ``(i, j)``. A missing value is an
all-zero one-hot block, so each pair counts exactly the rows where both features are
observed. Memory (``docs/large-data.md``): dense up to ``DENSE_MAX_CELLS`` cells of
float64; sparse up to ``MAX_SPARSE_CELLS`` stored cells (16 bytes each), bounded
before counting by ``min(rows x pairs, sum_{i<j} K r_i r_j)``; beyond that a
``MemoryError`` names the shape and the bound.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.sparse
from threadpoolctl import ThreadpoolController

# float32 sums of 0/1 products are exact integers below 2**24; chunking the rows keeps
# every single BLAS product under that bound, and the float64 total stays exact to 2**53.
_CHUNK_ROWS = 1 << 16
#: Dense pair tables up to this many float64 cells (``K * W * W``; 256 MiB).
DENSE_MAX_CELLS = 1 << 25
#: Sparse pair tables up to this many stored cells (16 bytes each: 4 GiB).
MAX_SPARSE_CELLS = 1 << 28


@functools.lru_cache(maxsize=1)
def _blas_controller() -> ThreadpoolController:
    # Finding the loaded BLAS libraries reads the process's memory map: do it once,
    # not on every count (it cost more than counting a small table).
    return ThreadpoolController()


@dataclass
class Counts:
    """Class counts, level counts and (when asked for) pair counts.

    Attributes
    ----------
    cardinalities : ndarray of shape (n_features,)
        Number of levels of each feature.
    class_counts : ndarray of shape (n_classes,)
        ``N(c)``: rows of each class.
    joint : ndarray of shape (n_classes, W, W) or None
        Dense pair counts: ``joint[c, off[i] + a, off[j] + b] = N(c, x_i = a, x_j = b)``
        over the rows where both features are observed; the diagonal block ``(i, i)``
        holds ``N(c, x_i)`` on its diagonal. None when the pairs are sparse or were not
        counted.
    levels : ndarray of shape (n_classes, W)
        ``N(c, x_i = a)`` over the rows where ``x_i`` is observed, at ``off[i] + a``.
    sparse : list of scipy.sparse.csr_array or None
        Sparse pair counts: per class a ``(W, W)`` matrix holding the blocks ``i < j``.
    """

    cardinalities: np.ndarray
    class_counts: np.ndarray
    joint: np.ndarray | None = None
    levels: np.ndarray | None = None
    sparse: list | None = None

    def __post_init__(self):
        if self.levels is None:
            if self.joint is None:
                raise ValueError("Counts need the level counts (levels=) or the dense pair counts (joint=).")
            self.levels = np.diagonal(self.joint, axis1=1, axis2=2).copy()

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

    @property
    def has_pairs(self) -> bool:
        return self.joint is not None or self.sparse is not None

    @property
    def layout(self) -> str:
        """``"dense"``, ``"sparse"`` or ``"levels"`` (no pair counts)."""
        return "dense" if self.joint is not None else "sparse" if self.sparse is not None else "levels"

    def block(self, i: int) -> slice:
        off = self.offsets
        return slice(int(off[i]), int(off[i + 1]))

    def feature(self, i: int) -> np.ndarray:
        """``N(c, x_i)`` over rows where ``x_i`` is observed, shape ``(K, r_i)``."""
        return self.levels[:, self.block(i)].copy()

    def pair(self, i: int, j: int) -> np.ndarray:
        """``N(c, x_i, x_j)`` over rows where both are observed, shape ``(K, r_i, r_j)``."""
        if self.joint is not None:
            return self.joint[:, self.block(i), self.block(j)]
        if self.sparse is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        if i == j:
            return np.stack([np.diag(row) for row in self.feature(i)])
        lo, hi = (i, j) if i < j else (j, i)
        table = np.stack([m[self.block(lo), self.block(hi)].toarray() for m in self.sparse])
        return table if i < j else table.transpose(0, 2, 1)

    def pair_entries(self, c: int):
        """Nonzero pair counts of class ``c`` with ``feature(u) < feature(v)``:
        ``(u, v, n)`` arrays over one-hot columns, read from either layout."""
        if self.sparse is not None:
            upper = self.sparse[c].tocoo()
            return upper.row, upper.col, upper.data
        if self.joint is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        # Off the diagonal, a diagonal block (i, i) is zero (one level per row), so the
        # strict upper triangle is exactly the blocks i < j.
        u, v = np.nonzero(np.triu(self.joint[c], 1))
        return u, v, self.joint[c, u, v]

    def dense_joint(self) -> np.ndarray:
        """The ``(K, W, W)`` dense pair counts, built from the sparse ones if need be."""
        if self.joint is not None:
            return self.joint
        if self.sparse is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        width = int(self.offsets[-1])
        _check_dense_fits(self.n_classes, width, "a dense copy of the sparse pair counts")
        joint = np.zeros((self.n_classes, width, width))
        for c, m in enumerate(self.sparse):
            upper = m.toarray()
            joint[c] = upper + upper.T
            joint[c][np.diag_indices(width)] = self.levels[c]
        return joint

    def _combine(self, other: "Counts", sign: float) -> "Counts":
        self._check_compatible(other)
        pairs = {}
        if self.has_pairs and other.has_pairs:
            if self.joint is not None and other.joint is not None:
                pairs["joint"] = self.joint + sign * other.joint
            else:  # one sparse: the sum is sparse (the dense side is small by construction)
                pairs["sparse"] = [a + sign * b for a, b in zip(self._sparse_form(), other._sparse_form())]
        elif self.has_pairs or other.has_pairs:
            raise ValueError("Counts with pair counts cannot be combined with counts without them.")
        return Counts(self.cardinalities, self.class_counts + sign * other.class_counts,
                      levels=self.levels + sign * other.levels, **pairs)

    def _sparse_form(self) -> list:
        if self.sparse is not None:
            return self.sparse
        return [scipy.sparse.csr_array(np.triu(j, 1)) for j in self.joint]

    def __add__(self, other: "Counts") -> "Counts":
        return self._combine(other, 1.0)

    def __sub__(self, other: "Counts") -> "Counts":
        return self._combine(other, -1.0)

    def _check_compatible(self, other: "Counts") -> None:
        if not np.array_equal(self.cardinalities, other.cardinalities) or self.n_classes != other.n_classes:
            raise ValueError("Counts over different features or classes cannot be combined.")


def segment_sums(a: np.ndarray, offsets: np.ndarray, axis: int, equal_widths: bool | None = None) -> np.ndarray:
    """Sums of ``a`` over each feature's one-hot columns along ``axis`` (``offsets`` as
    ``Counts.offsets``); 0 for a feature without levels, where ``np.add.reduceat`` would
    return a neighbour's column or fail. ``equal_widths=False`` takes the general path
    even when these features are equally wide (a block of a table whose features are
    not sums the same way as the whole table, to the last bit)."""
    widths = np.diff(offsets)
    if equal_widths is None:
        equal_widths = bool(widths.size and widths[0] > 0 and (widths == widths[0]).all())
    if equal_widths:
        # Every feature as wide (binary tables, say): a reshape and a sum, no copy.
        r = int(widths[0])
        view = np.moveaxis(a.reshape(a.shape[:axis] + (widths.size, r) + a.shape[axis + 1:]), axis + 1, 0)
        out = view[0].copy()
        for level in view[1:]:  # r strided adds: numpy reduces a short inner axis slowly
            out += level
        return out
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, 1)
    out = np.add.reduceat(np.pad(a, pad), offsets[:-1], axis=axis)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if empty.size:
        index = [slice(None)] * a.ndim
        index[axis] = empty
        out[tuple(index)] = 0
    return out


def _check_dense_fits(n_classes: int, width: int, what: str) -> None:
    cells = n_classes * width * width
    if cells > DENSE_MAX_CELLS:
        raise MemoryError(
            f"{what} needs {n_classes} x {width} x {width} = {cells:,} cells, above the bound of "
            f"{DENSE_MAX_CELLS:,} (pybnc.counts.DENSE_MAX_CELLS); use a model that reads the sparse "
            "pair counts, or fewer levels."
        )


def pair_layout(n_rows: int, cardinalities, n_classes: int) -> str:
    """``"dense"`` or ``"sparse"``: how :func:`count` stores the pair counts of a table.

    Dense while ``K * W * W`` is at most ``DENSE_MAX_CELLS`` and the rows are not few
    next to the cells; sparse otherwise, if its bound on nonzeros,
    ``min(rows x pairs, sum_{i<j} K r_i r_j)``, is at most ``MAX_SPARSE_CELLS``.

    Raises
    ------
    MemoryError
        When even the sparse counts cannot fit; the message names the shape and the bound.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    width, d = int(cards.sum()), cards.size
    dense_cells = n_classes * width * width
    pairs = d * (d - 1) // 2
    cell_bound = n_classes * (int(cards.sum()) ** 2 - int((cards**2).sum())) // 2
    sparse_bound = min(n_rows * pairs, cell_bound)
    if dense_cells <= DENSE_MAX_CELLS and 8 * sparse_bound >= dense_cells:
        return "dense"
    if sparse_bound > MAX_SPARSE_CELLS:
        raise MemoryError(
            f"The pair counts of {n_rows:,} rows x {d:,} features ({width:,} levels in all, "
            f"{n_classes} classes) may hold up to {sparse_bound:,} nonzero cells, above the bound of "
            f"{MAX_SPARSE_CELLS:,} (pybnc.counts.MAX_SPARSE_CELLS, 16 bytes a cell). Use naive Bayes "
            "(level counts only), fewer features or fewer levels, or fit on fewer rows."
        )
    return "sparse"


def _gram(codes: np.ndarray, offsets: np.ndarray, width: int, out: np.ndarray) -> None:
    """Add the one-hot Gram matrix of ``codes`` to ``out`` (``(W, W)`` float64)."""
    # Row chunks small enough that the one-hot chunk stays near 64 MiB.
    step = max(1, min(_CHUNK_ROWS, (1 << 24) // (width + 1)))
    for start in range(0, codes.shape[0], step):
        chunk = codes[start : start + step]
        onehot = np.zeros((chunk.shape[0], width + 1), dtype=np.float32)
        columns = np.where(chunk >= 0, offsets[:-1] + chunk, width)  # missing: the spare column W
        onehot[np.arange(chunk.shape[0])[:, None], columns] = 1.0
        onehot = onehot[:, :width]  # drop the spare column that collected missing cells
        out += np.dot(onehot.T, onehot)  # float32 product, exact below 2**24 rows per chunk


def _sparse_upper(codes: np.ndarray, offsets: np.ndarray, width: int):
    """Blocks ``i < j`` of the one-hot Gram matrix as CSR, one feature's rows at a time,
    so no more than one feature's products exist beside the result."""
    rows, features = np.nonzero(codes >= 0)
    columns = offsets[features] + codes[rows, features]
    onehot = scipy.sparse.csc_array((np.ones(rows.size), (rows, columns)), shape=(codes.shape[0], width))
    indptr, indices, data, filled = [np.zeros(1, dtype=np.int64)], [], [], 0
    for i in range(offsets.size - 1):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        if hi == lo:
            continue
        piece = scipy.sparse.csr_array(onehot[:, lo:hi].T @ onehot[:, hi:])
        piece.sort_indices()
        indptr.append(piece.indptr[1:].astype(np.int64) + filled)
        indices.append((piece.indices + hi).astype(np.int32))  # W < 2**31: half the bytes of int64
        data.append(piece.data)
        filled += piece.nnz
        del piece
    cat = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)  # noqa: E731
    indptr = np.concatenate(indptr)
    return scipy.sparse.csr_array(
        (cat(data, np.float64), cat(indices, np.int32), indptr.astype(np.int32) if filled < 2**31 else indptr),
        shape=(width, width))


def count(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, pairs: bool = True,
          layout: str = "auto") -> Counts:
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
    pairs : bool, default=True
        Count the pairs too; naive Bayes needs only the class and level counts.
    layout : {"auto", "dense", "sparse"}, default="auto"
        How to store the pairs; ``"auto"`` asks :func:`pair_layout`.

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
    >>> s = count(np.array([[0, 1], [1, -1]]), np.array([0, 1]), [2, 2], 2, layout="sparse")
    >>> s.layout, s.pair(0, 1)[0].tolist()
    ('sparse', [[0.0, 1.0], [0.0, 0.0]])
    """
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cardinalities)]).astype(np.int64)
    width = int(offsets[-1])
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    class_counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    if pairs and layout == "auto":
        layout = pair_layout(codes.shape[0], cardinalities, n_classes)
    elif pairs and layout not in ("dense", "sparse"):
        raise ValueError(f"layout={layout!r} is not one of 'auto', 'dense', 'sparse'.")
    # Dense pairs hold the level counts on their diagonal (a level with itself): no pass of their own.
    levels = None if pairs and layout == "dense" else _level_counts(codes, y, offsets, n_classes)
    if not pairs:
        return Counts(cardinalities, class_counts, levels=levels)
    order = np.argsort(y, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(class_counts).astype(np.int64)])
    by_class = [order[bounds[c] : bounds[c + 1]] for c in range(n_classes)]
    if layout == "sparse":
        upper = [_sparse_upper(codes[r], offsets, width) for r in by_class]
        return Counts(cardinalities, class_counts, levels=levels, sparse=upper)
    joint = np.zeros((n_classes, width, width), dtype=np.float64)
    # One BLAS thread: these products are small and memory-bound, and a threaded
    # OpenBLAS on a busy machine (cross-validation in parallel, other jobs) spins
    # and runs several hundred times slower than one thread.
    with _blas_controller().limit(limits=1, user_api="blas"):
        for c, r in enumerate(by_class):
            if r.size:
                _gram(codes[r], offsets, width, joint[c])
    levels = np.diagonal(joint, axis1=1, axis2=2).copy()  # N(c, level) = N(c, level, same level)
    return Counts(cardinalities, class_counts, joint, levels)


def _level_counts(codes: np.ndarray, y: np.ndarray, offsets: np.ndarray, n_classes: int) -> np.ndarray:
    """``(K, W)`` float counts of every level within every class, missing codes skipped."""
    width = int(offsets[-1])
    observed = codes >= 0
    if observed.all():  # no missing value: every cell counts, no index arrays
        cells = (y * width)[:, None] + (offsets[:-1] + codes)
        counted = np.bincount(cells.ravel(), minlength=n_classes * width)
    else:
        rows, features = np.nonzero(observed)
        counted = np.bincount(y[rows] * width + offsets[features] + codes[rows, features],
                              minlength=n_classes * width)
    return counted.astype(np.float64).reshape(n_classes, width)


def remap_counts(counts: Counts, moves: list, cardinalities) -> Counts:
    """Counts re-indexed to a grown encoding: old level ``a`` of feature ``i`` moves to
    ``moves[i][a]``; new levels get zero counts (they were never seen).

    Examples
    --------
    >>> import numpy as np
    >>> c = count(np.array([[0], [1], [1]]), np.array([0, 0, 1]), [2], 2)
    >>> remap_counts(c, [np.array([1, 2])], [3]).feature(0).tolist()
    [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cards)])
    columns = np.concatenate([offsets[i] + np.asarray(m) for i, m in enumerate(moves)]).astype(np.int64)
    width = int(offsets[-1])
    levels = np.zeros((counts.n_classes, width))
    levels[:, columns] = counts.levels
    pairs = {}
    if counts.joint is not None:
        pairs["joint"] = np.zeros((counts.n_classes, width, width), dtype=np.float64)
        pairs["joint"][:, columns[:, None], columns[None, :]] = counts.joint
    elif counts.sparse is not None:
        # Levels move within their feature's block, so blocks i < j stay above the diagonal.
        move = scipy.sparse.csr_array((np.ones(columns.size), (np.arange(columns.size), columns)),
                                      shape=(columns.size, width))
        pairs["sparse"] = [scipy.sparse.csr_array(move.T @ m @ move) for m in counts.sparse]
    return Counts(cards, counts.class_counts.copy(), levels=levels, **pairs)


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
