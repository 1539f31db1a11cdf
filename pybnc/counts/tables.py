"""Sufficient statistics, counted on demand: what each model needs and no more.

* **Level counts** ``N(c, x_i = a)`` over the rows where ``x_i`` is observed, one
  ``(K, W)`` array (``W = sum(r_i)``): all naive Bayes and its weightings need.
* **Pair counts** ``N(c, x_i = a, x_j = b)`` over the rows where both are observed
  (available-case analysis): Chow-Liu (TAN, FAN), TBMATAN, AODE, MANB-free models.
  Stored **reduced** dense by default: the one-hot Gram matrix per class without the
  last level of each feature observed in every row (its cells follow exactly from the
  others and the level counts), float32 while that is exact; a table of binary
  features takes a quarter of the full ``K x W x W`` table (**dense**, still available
  with ``layout="dense"``). When the rows are few next to the cells, or the table is
  large and has fewer nonzeros than cells, **sparse**: per class the strictly upper
  blocks (``i < j``) of the full Gram matrix in CSR, whose nonzeros are at most
  ``rows x pairs`` whatever the number of levels.
* **Family counts** for chosen parent sets (kDB, SKDB, AnDE): :func:`count_families`.

Every kind is additive: the counts of a union of row blocks are the sum of the
blocks' counts. That one fact gives incremental fitting, out-of-core and distributed
fitting (count each block, sum) and fast cross-validation (training = total - fold).

Dense pair tables come from one Gram matrix per class: with the features one-hot
encoded, ``M_c.T @ M_c`` holds every pair in block ``(i, j)``. A missing value is an
all-zero one-hot block, so each pair counts exactly the rows where both features are
observed. Memory (``docs/large-data.md``, :func:`pair_layout`): reduced dense up to
256 MiB, sparse up to ``MAX_SPARSE_CELLS`` stored cells, bounded before counting by
``min(rows x pairs, sum_{i<j} K r_i r_j)``, and beyond 256 MiB whichever is smaller
(reduced up to 4 GiB); beyond that a ``MemoryError`` names the shape and the bound.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse

from .._utils.blas import one_blas_thread
from .._utils.native import load_kernels

# float32 sums of 0/1 products are exact integers below 2**24; chunking the rows keeps
# every single BLAS product under that bound, and the float64 total stays exact to 2**53.
_CHUNK_ROWS = 1 << 16
# Every integer below 2**24 is a float32: reduced counts of fewer rows are stored in float32.
_FLOAT32_EXACT_BELOW = 1 << 24
#: Dense pair tables up to this many float64 cells (``K * W * W``; 256 MiB).
DENSE_MAX_CELLS = 1 << 25
#: Sparse pair tables up to this many stored cells (16 bytes each: 4 GiB).
MAX_SPARSE_CELLS = 1 << 28
#: The rows stand for the pair counts (layout ``"rows"``) only of tables whose reduced pair
#: counts would hold at least this many cells (smaller ones cost little either way).
ROWS_LAYOUT_FROM = 1 << 22
#: The pair kernel's scratch table holds ``K x r x r'`` cells for the two largest cardinalities.
ROWS_MAX_PAIR_CELLS = 1 << 24


def one_hot_offsets(cardinalities) -> np.ndarray:
    """Where each feature's levels start among the one-hot columns (every level of every
    feature, in order), then the width ``W``: shape ``(d + 1,)``, int64.

    Examples
    --------
    >>> one_hot_offsets([2, 3]).tolist(), column_features([2, 3]).tolist()
    ([0, 2, 5], [0, 0, 1, 1, 1])
    """
    return np.concatenate([[0], np.cumsum(np.asarray(cardinalities, dtype=np.int64))]).astype(np.int64)


def column_features(cardinalities) -> np.ndarray:
    """The feature of each one-hot column (length ``W``)."""
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    return np.repeat(np.arange(cardinalities.shape[0]), cardinalities)

class ClassTotals:
    """What every table of counts derives from its ``class_counts``."""

    @property
    def n_classes(self) -> int:
        return int(self.class_counts.shape[0])

    @property
    def n_rows(self) -> float:
        return float(self.class_counts.sum())


@dataclass
class Counts(ClassTotals):
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
    reduced : ndarray of shape (n_classes, W', W') or None
        Reduced dense pair counts: the dense table restricted to the one-hot columns
        ``kept``, float32 while every count is below ``2**24`` (exact), else float64.
        A feature observed in every row has its last level left out: its cells follow
        exactly from the others and the level counts,
        ``N(c, a, x_j = last) = N(c, a) - sum_{b < last} N(c, a, x_j = b)``, so a table
        of binary features takes a quarter of the dense one (read through
        :meth:`pair`, :meth:`dense_joint`, :func:`pybnc.scores.information.pairwise_cmi`).
    kept : ndarray of shape (W',) or None
        The one-hot columns (increasing) behind ``reduced``.
    shared_statistics : dict or None
        Statistics computed from these counts (:func:`~pybnc.scores.information.pairwise_cmi`),
        kept for the next reader where the counts are shared and never changed (the
        candidates of one cross-validation fold, which each learn a structure from the
        same pairs); None keeps none.
    """

    cardinalities: np.ndarray
    class_counts: np.ndarray
    joint: np.ndarray | None = None
    levels: np.ndarray | None = None
    sparse: list | None = None
    reduced: np.ndarray | None = None
    kept: np.ndarray | None = None
    shared_statistics: dict | None = field(default=None, repr=False, compare=False)
    # The coded rows ``(codes, y)`` behind these counts while they are at hand: set by
    # :func:`count` for unweighted rows (and for whole-number weights, the rows repeated
    # by them) and by :meth:`with_rows`, dropped by every combination. Not a field, so
    # never compared nor saved as such.
    _rows = None

    @property
    def rows(self) -> tuple | None:
        """``(codes, y)``, the coded rows these counts were counted from, or None.

        Pair statistics may be computed from them (:mod:`pybnc.scores.pair_rows`) where
        that costs less than reading the pair counts: a wide table has far fewer rows
        per pair than cells. Counts of layout ``"rows"`` hold no pair counts at all:
        the rows are their pairs, counted when something needs them
        (:meth:`stored_pairs`)."""
        return self._rows

    def with_rows(self, codes, y) -> "Counts":
        """These counts (the same arrays) with the rows behind them, unweighted: ``codes``
        and class codes ``y`` must be the rows they were counted from."""
        out = copy.copy(self)
        out._rows = (np.asarray(codes), np.asarray(y, dtype=np.int64))
        return out

    def to_keep(self) -> "Counts":
        """These counts as a fitted model keeps them: stored pair counts without the rows
        they came from; counts of layout ``"rows"`` as they are (the rows are their pairs)."""
        if self._rows is None or self.layout == "rows":
            return self
        out = copy.copy(self)
        out._rows = None
        return out

    def stored_pairs(self) -> "Counts":
        """These counts with their pairs stored: themselves, or for layout ``"rows"`` the
        pairs counted from the rows (once, then kept) in the layout :func:`pair_layout`
        picks."""
        if self.layout != "rows":
            return self
        stored = getattr(self, "_stored", None)
        if stored is None:
            codes, y = self._rows
            stored = _count(codes, y, self.cardinalities, self.n_classes, True, "auto", None)
            stored.shared_statistics = self.shared_statistics
            self._stored = stored
        return stored

    def saved_form(self) -> "Counts":
        """What a model file stores (:mod:`pybnc.io`): the counts with their pairs stored."""
        return self.stored_pairs()

    def __post_init__(self):
        if self.levels is None:
            if self.joint is None:
                raise ValueError("Counts need the level counts (levels=) or the dense pair counts (joint=).")
            self.levels = np.diagonal(self.joint, axis1=1, axis2=2).copy()
        if (self.reduced is None) != (self.kept is None):
            raise ValueError("Reduced pair counts need their one-hot columns (kept=), and kept= needs reduced=.")

    @property
    def n_features(self) -> int:
        return int(self.cardinalities.shape[0])

    # Computed once: a wide table's fit reads them for every feature (4 million cumulative
    # sums per parameter learning at 2,000 columns).
    @functools.cached_property
    def offsets(self) -> np.ndarray:
        """:func:`one_hot_offsets` of the features (read-only)."""
        offsets = one_hot_offsets(self.cardinalities)
        offsets.flags.writeable = False
        return offsets

    @functools.cached_property
    def column_feature(self) -> np.ndarray:
        """Feature index of each one-hot column (length ``W``): :func:`column_features` (read-only)."""
        feature = column_features(self.cardinalities)
        feature.flags.writeable = False
        return feature

    @property
    def has_pairs(self) -> bool:
        return self.joint is not None or self.sparse is not None or self.reduced is not None or self._rows is not None

    @property
    def layout(self) -> str:
        """``"dense"``, ``"reduced"``, ``"sparse"``, ``"rows"`` (the pairs counted from the
        rows when needed) or ``"levels"`` (no pair counts)."""
        if self.joint is not None:
            return "dense"
        if self.reduced is not None:
            return "reduced"
        if self.sparse is not None:
            return "sparse"
        return "rows" if self._rows is not None else "levels"

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
        if self.reduced is not None and i != j:
            return self._reduced_pair(i, j)
        if self.reduced is not None:
            return np.stack([np.diag(row) for row in self.feature(i)])
        if self.sparse is None and self._rows is not None:
            return self._pair_from_rows(i, j) if i != j else np.stack([np.diag(row) for row in self.feature(i)])
        if self.sparse is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        if i == j:
            return np.stack([np.diag(row) for row in self.feature(i)])
        lo, hi = (i, j) if i < j else (j, i)
        table = np.stack([m[self.block(lo), self.block(hi)].toarray() for m in self.sparse])
        return table if i < j else table.transpose(0, 2, 1)

    def _pair_from_rows(self, i: int, j: int) -> np.ndarray:
        """:meth:`pair` counted from the rows (layout ``"rows"``): one pass over them."""
        codes, y = self._rows
        ri, rj = int(self.cardinalities[i]), int(self.cardinalities[j])
        both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
        cells = (y[both] * ri + codes[both, i]) * rj + codes[both, j]
        return np.bincount(cells, minlength=self.n_classes * ri * rj).reshape(self.n_classes, ri, rj).astype(np.float64)

    @functools.cached_property
    def _kept_offsets(self) -> np.ndarray:
        """Where each feature's kept levels start in ``reduced`` (its kept levels are a
        prefix of its levels: only the last one is ever left out)."""
        kept_per_feature = np.bincount(self.column_feature[self.kept], minlength=self.n_features)
        return np.concatenate([[0], np.cumsum(kept_per_feature)]).astype(np.int64)

    def _reduced_pair(self, i: int, j: int) -> np.ndarray:
        """:meth:`pair` from the reduced counts: the kept cells, then the left-out level's."""
        ko, off = self._kept_offsets, self.offsets
        ri, rj = int(self.cardinalities[i]), int(self.cardinalities[j])
        ki, kj = int(ko[i + 1] - ko[i]), int(ko[j + 1] - ko[j])
        out = np.zeros((self.n_classes, ri, rj))
        out[:, :ki, :kj] = self.reduced[:, ko[i] : ko[i + 1], ko[j] : ko[j + 1]]
        if kj < rj:  # x_j observed in every row: N(a, last) = N(a) - sum_b N(a, b)
            out[:, :ki, rj - 1] = self.levels[:, off[i] : off[i] + ki] - out[:, :ki, :kj].sum(axis=2)
        if ki < ri:  # x_i observed in every row: N(last, b) = N(b) - sum_a N(a, b)
            out[:, ri - 1, :] = self.levels[:, off[j] : off[j + 1]] - out[:, :ki, :].sum(axis=1)
        return out

    def dense_rows(self, c, f0: int, f1: int, g0: int = 0, g1: int | None = None) -> np.ndarray:
        """Dense pair counts of class ``c`` between features ``f0 .. f1 - 1`` (rows) and
        ``g0 .. g1 - 1`` (columns, all by default): a block of :meth:`dense_joint`,
        built from the reduced counts without the rest of the table. ``c`` may be a
        slice of classes: then the block has a leading class axis."""
        if self.layout == "rows":
            return self.stored_pairs().dense_rows(c, f0, f1, g0, g1)
        g1 = self.n_features if g1 is None else g1
        off = self.offsets
        single = not isinstance(c, slice)
        classes = slice(c, c + 1) if single else c
        if self.joint is not None:
            block = self.joint[classes, off[f0] : off[f1], off[g0] : off[g1]]
            return block[0] if single else block
        if self.reduced is None:
            raise ValueError("dense_rows reads dense or reduced pair counts.")
        ko, feature = self._kept_offsets, self.column_feature
        kept_row = np.arange(off[f0], off[f1]) - off[feature[off[f0] : off[f1]]] < np.diff(ko)[feature[off[f0] : off[f1]]]
        kept_col = np.arange(off[g0], off[g1]) - off[feature[off[g0] : off[g1]]] < np.diff(ko)[feature[off[g0] : off[g1]]]
        source = self.reduced[classes, ko[f0] : ko[f1], ko[g0] : ko[g1]]
        out = np.zeros((source.shape[0], kept_row.size, kept_col.size))
        rows_kept = np.flatnonzero(kept_row)
        if kept_col.all():
            out[:, kept_row] = source
        else:
            out[:, rows_kept[:, None], np.flatnonzero(kept_col)[None, :]] = source
        local_cols = off[g0 : g1 + 1] - off[g0]
        levels = self.levels[classes]
        dropped = np.flatnonzero(~kept_col)
        if dropped.size:  # the last level of a feature seen in every row: N(a) - sum_b N(a, b)
            within = segment_sums(out[:, kept_row], local_cols, axis=2)
            rows = off[f0] + rows_kept
            out[:, rows_kept[:, None], dropped[None, :]] = (levels[:, rows, None]
                                                          - within[:, :, feature[off[g0] + dropped] - g0])
        dropped = np.flatnonzero(~kept_row)
        if dropped.size:  # and its row: N(b) - sum_a N(a, b), now that every column is filled
            within = segment_sums(out, off[f0 : f1 + 1] - off[f0], axis=1)
            out[:, dropped] = levels[:, None, off[g0] : off[g1]] - within[:, feature[off[f0] + dropped] - f0]
        return out[0] if single else out

    def with_full_pairs(self) -> "Counts":
        """The same counts with the pairs dense (``K x W x W``) when that fits, else sparse."""
        if self.layout == "rows":
            return self.stored_pairs().with_full_pairs()
        if self.reduced is None:
            return self
        width = int(self.offsets[-1])
        common = dict(levels=self.levels.copy())
        if self.n_classes * width * width <= DENSE_MAX_CELLS:
            return Counts(self.cardinalities, self.class_counts.copy(), joint=self.dense_joint(), **common)
        return Counts(self.cardinalities, self.class_counts.copy(), sparse=self._sparse_form(), **common)

    def pair_entries(self, c: int):
        """Nonzero pair counts of class ``c`` with ``feature(u) < feature(v)``:
        ``(u, v, n)`` arrays over one-hot columns, read from either layout."""
        if self.layout == "rows":
            return self.stored_pairs().pair_entries(c)
        if self.sparse is not None:
            upper = self.sparse[c].tocoo()
            return upper.row, upper.col, upper.data
        if self.reduced is not None:
            return self.with_full_pairs().pair_entries(c)
        if self.joint is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        # Off the diagonal, a diagonal block (i, i) is zero (one level per row), so the
        # strict upper triangle is exactly the blocks i < j.
        u, v = np.nonzero(np.triu(self.joint[c], 1))
        return u, v, self.joint[c, u, v]

    def dense_joint(self) -> np.ndarray:
        """The ``(K, W, W)`` dense pair counts, built from the sparse ones if need be."""
        if self.layout == "rows":
            return self.stored_pairs().dense_joint()
        if self.joint is not None:
            return self.joint
        width = int(self.offsets[-1])
        if self.reduced is not None:
            _check_dense_fits(self.n_classes, width, "a dense copy of the reduced pair counts")
            return self.dense_rows(slice(None), 0, self.n_features)
        if self.sparse is None:
            raise ValueError("These counts hold no pair counts: count them with count(..., pairs=True).")
        _check_dense_fits(self.n_classes, width, "a dense copy of the sparse pair counts")
        joint = np.zeros((self.n_classes, width, width))
        for c, m in enumerate(self.sparse):
            upper = m.toarray()
            joint[c] = upper + upper.T
            joint[c][np.diag_indices(width)] = self.levels[c]
        return joint

    def _combine(self, other: "Counts", sign: float) -> "Counts":
        self._check_compatible(other)
        if "rows" in (self.layout, other.layout):  # the sum of two tables' rows is stored
            return self.stored_pairs()._combine(other.stored_pairs(), sign)
        pairs = {}
        if self.has_pairs and other.has_pairs:
            if (self.reduced is not None and other.reduced is not None
                    and np.array_equal(self.kept, other.kept)):
                # float32 stays exact while every count (at most the rows) is below 2**24
                rows = max(self.n_rows, other.n_rows, self.n_rows + sign * other.n_rows)
                dtype = np.result_type(self.reduced, other.reduced, _exact_dtype(rows))
                pairs["reduced"] = self.reduced.astype(dtype, copy=False) + dtype.type(sign) * other.reduced
                pairs["kept"] = self.kept
            elif self.sparse is None and other.sparse is None and (
                    self.n_classes * int(self.offsets[-1]) ** 2 <= DENSE_MAX_CELLS):
                pairs["joint"] = self.dense_joint() + sign * other.dense_joint()
            else:  # one sparse, or too large to add dense: the sum is sparse
                pairs["sparse"] = [a + sign * b for a, b in zip(self._sparse_form(), other._sparse_form())]
        elif self.has_pairs or other.has_pairs:
            raise ValueError("Counts with pair counts cannot be combined with counts without them.")
        return Counts(self.cardinalities, self.class_counts + sign * other.class_counts,
                      levels=self.levels + sign * other.levels, **pairs)

    def _sparse_form(self) -> list:
        if self.layout == "rows":
            return self.stored_pairs()._sparse_form()
        if self.sparse is not None:
            return self.sparse
        if self.joint is not None:
            return [scipy.sparse.csr_array(np.triu(j, 1)) for j in self.joint]
        width, off, feature = int(self.offsets[-1]), self.offsets, self.column_feature
        out = []
        for c in range(self.n_classes):  # blocks of whole features' rows, the columns right of them
            rows, cols, data = [], [], []
            for lo, hi in feature_blocks(off, max(1, (1 << 22) // max(width, 1))):
                block = self.dense_rows(c, lo, hi, lo)
                u, v = np.nonzero(block)
                u, v = u + off[lo], v + off[lo]
                upper = feature[u] < feature[v]
                rows.append(u[upper])
                cols.append(v[upper])
                data.append(block[u[upper] - off[lo], v[upper] - off[lo]])
            out.append(scipy.sparse.csr_array((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                                              shape=(width, width)))
        return out

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
    starts = offsets[:-1]
    if starts.size and starts[-1] >= a.shape[axis]:  # the last feature has no levels: reduceat needs a column there
        shape = list(a.shape)
        shape[axis] = 1
        a = np.concatenate([a, np.zeros(shape, dtype=a.dtype)], axis=axis)
    out = np.add.reduceat(a, starts, axis=axis)
    empty = np.flatnonzero(np.diff(offsets) == 0)
    if empty.size:
        index = [slice(None)] * a.ndim
        index[axis] = empty
        out[tuple(index)] = 0
    return out


def feature_blocks(offsets: np.ndarray, columns: int) -> list:
    """``(lo, hi)`` runs of whole features, each about ``columns`` one-hot columns wide
    (at least one feature), covering every feature in order."""
    d, blocks, first = offsets.size - 1, [], 0
    while first < d:
        last = max(first + 1, int(np.searchsorted(offsets, offsets[first] + columns, side="right")) - 1)
        blocks.append((first, min(last, d)))
        first = min(last, d)
    return blocks


def _exact_dtype(n_rows: float):
    """float32 while counts of ``n_rows`` rows are exact in it (below ``2**24``), else float64."""
    return np.dtype(np.float32 if n_rows < _FLOAT32_EXACT_BELOW else np.float64)


def _check_dense_fits(n_classes: int, width: int, what: str) -> None:
    cells = n_classes * width * width
    if cells > DENSE_MAX_CELLS:
        raise MemoryError(
            f"{what} needs {n_classes} classes x {width} x {width} levels = {cells:,} cells, above the bound "
            f"of {DENSE_MAX_CELLS:,} (pybnc.counts.tables.DENSE_MAX_CELLS). AODE, AnDE and TBMATAN hold a table "
            "of every pair of levels for every class: give the columns fewer levels (a smaller n_bins, "
            "discretizer='mdl', rare levels grouped), or use a model whose tables follow its arcs (NaiveBayes, "
            "TAN, KDB, SKDB), which read the sparse pair counts."
        )


def pair_layout(n_rows: int, cardinalities, n_classes: int, complete=None) -> str:
    """``"reduced"`` or ``"sparse"``: how :func:`count` stores the pair counts of a table.

    Reduced dense (see :class:`Counts`; ``K * W' * W'`` cells of float32, or float64
    from ``2**24`` rows) while it takes at most ``8 * DENSE_MAX_CELLS`` bytes (256 MiB)
    and the rows are not few next to the cells (the sparse bound below is over an
    eighth of the cells). Otherwise the smaller of the two in bytes, sparse at 12 bytes
    a nonzero (bounded by ``min(rows x pairs, sum_{i<j} K r_i r_j)``, which must be at
    most ``MAX_SPARSE_CELLS``), reduced while at most ``16 * MAX_SPARSE_CELLS`` bytes
    (4 GiB, the sparse layout's own bound). ``complete`` marks the features observed
    in every row (they lose a level in the reduced table); by default none.

    Raises
    ------
    MemoryError
        When neither fits; the message names the shape and the bound.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    width, d = int(cards.sum()), cards.size
    dropped = 0 if complete is None else int((np.asarray(complete, dtype=bool) & (cards > 0)).sum())
    reduced_cells = n_classes * (width - dropped) ** 2
    reduced_bytes = reduced_cells * _exact_dtype(n_rows).itemsize
    pairs = d * (d - 1) // 2
    cell_bound = n_classes * (int(cards.sum()) ** 2 - int((cards**2).sum())) // 2
    sparse_bound = min(n_rows * pairs, cell_bound)
    if reduced_bytes <= 8 * DENSE_MAX_CELLS and 8 * sparse_bound >= reduced_cells:
        return "reduced"
    sparse_fits = sparse_bound <= MAX_SPARSE_CELLS
    if sparse_fits and 12 * sparse_bound <= reduced_bytes:
        return "sparse"
    if reduced_bytes <= 16 * MAX_SPARSE_CELLS:
        return "reduced"  # nonzeros about as many as cells: dense is the smaller
    if sparse_fits:
        return "sparse"
    raise MemoryError(
        f"The pair counts of {n_rows:,} rows x {d:,} features ({width:,} levels in all, "
        f"{n_classes} classes) may hold up to {sparse_bound:,} nonzero cells, above the bound of "
        f"{MAX_SPARSE_CELLS:,} (pybnc.counts.tables.MAX_SPARSE_CELLS, 16 bytes a cell), and dense "
        f"{reduced_bytes:,} bytes, above {16 * MAX_SPARSE_CELLS:,}. Use naive Bayes "
        "(level counts only), fewer features or fewer levels, or fit on fewer rows."
    )


def _gram(codes: np.ndarray, column_of: np.ndarray, offsets: np.ndarray, out: np.ndarray, weights=None) -> None:
    """Add the one-hot Gram matrix of ``codes`` to ``out`` (``(W', W')``), one-hot column
    ``offsets[i] + a`` going to ``column_of[...]`` (``-1``: left out, like a missing value);
    with ``weights``, each row's products weighted."""
    width = out.shape[0]
    column_of = np.append(column_of, -1)  # a missing value reads this one
    # Row chunks small enough that the one-hot chunk stays near 64 MiB.
    step = max(1, min(_CHUNK_ROWS, (1 << 24) // (width + 1)))
    for start in range(0, codes.shape[0], step):
        chunk = codes[start : start + step]
        onehot = np.zeros((chunk.shape[0], width + 1), dtype=np.float32)
        columns = column_of[np.where(chunk >= 0, offsets[:-1] + chunk, column_of.size - 1)]  # -1: the spare column
        onehot[np.arange(chunk.shape[0])[:, None], columns] = 1.0
        onehot = onehot[:, :width]  # drop the spare column that collected missing cells
        weighted = onehot if weights is None else onehot * weights[start : start + step, None].astype(out.dtype)
        if start == 0 and out.dtype == np.float32:
            np.matmul(onehot.T, weighted, out=out)  # float32 product, exact below 2**24 rows (weight) per chunk
        else:
            out += np.matmul(onehot.T, weighted)


def _sparse_upper(codes: np.ndarray, offsets: np.ndarray, width: int, budget: int = 1 << 23, weights=None):
    """Blocks ``i < j`` of the one-hot Gram matrix as CSR, a run of whole features' rows
    at a time: each run's products (at most ``rows x features in the run x features``
    nonzeros) stay under ``budget`` beside the result, and the Python loop runs over
    runs, not over features."""
    n, d = codes.shape
    rows, features = np.nonzero(codes >= 0)
    columns = offsets[features] + codes[rows, features]
    onehot = scipy.sparse.csc_array((np.ones(rows.size), (rows, columns)), shape=(n, width))
    weighted = onehot if weights is None else \
        scipy.sparse.csc_array((np.asarray(weights, dtype=np.float64)[rows], (rows, columns)), shape=(n, width))
    del rows, features, columns
    feature = np.repeat(np.arange(d), np.diff(offsets))
    indptr, indices, data, filled = [np.zeros(1, dtype=np.int64)], [], [], 0
    run = max(1, budget // max(1, n * d))
    for lo in range(0, d, run):
        first, end = int(offsets[lo]), int(offsets[min(d, lo + run)])
        if end == first:
            continue
        piece = scipy.sparse.csr_array(onehot[:, first:end].T @ weighted[:, first:])
        piece.sort_indices()
        row = np.repeat(np.arange(end - first), np.diff(piece.indptr))
        upper = feature[piece.indices + first] > feature[row + first]  # drop the run's own blocks i >= j
        indptr.append(np.cumsum(np.bincount(row[upper], minlength=end - first)) + filled)
        indices.append((piece.indices[upper] + first).astype(np.int32))  # W < 2**31: half the bytes of int64
        data.append(piece.data[upper])
        filled += int(upper.sum())
        del piece, row, upper
    cat = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)  # noqa: E731
    indptr = np.concatenate(indptr)
    return scipy.sparse.csr_array(
        (cat(data, np.float64), cat(indices, np.int32), indptr.astype(np.int32) if filled < 2**31 else indptr),
        shape=(width, width))


def count(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, pairs: bool = True,
          layout: str = "auto", weights=None) -> Counts:
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
    layout : {"auto", "dense", "reduced", "sparse", "rows"}, default="auto"
        How to store the pairs (:class:`Counts`); ``"rows"`` stores none and keeps the
        rows, from which each pair is counted when needed. ``"auto"`` takes ``"rows"``
        for unweighted rows where :func:`rows_layout_pays`, else asks :func:`pair_layout`.
    weights : ndarray of shape (n_samples,), optional
        Non-negative weight of each row (:mod:`pybnc._utils.sample_weight`): a row counts
        its weight, so integer weights equal repeated rows exactly. Reduced pairs stay
        float32 while the weights are whole numbers summing below ``2**24``.

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
    >>> count(np.array([[0, 1], [1, -1]]), np.array([0, 1]), [2, 2], 2, weights=np.array([2.5, 1.0])).pair(0, 1)[0].tolist()
    [[0.0, 2.5], [0.0, 0.0]]
    """
    codes, y = np.asarray(codes), np.asarray(y, dtype=np.int64)
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    if layout == "rows" and weights is not None:
        raise ValueError("layout='rows' keeps unweighted rows as the pair counts; weighted rows need a stored layout.")
    rows_only = pairs and (layout == "rows" or (layout == "auto" and weights is None and rows_layout_pays(
        codes.shape[0], cardinalities, n_classes, (codes >= 0).all(axis=0) & (cardinalities > 0))))
    counts = _count(codes, y, cardinalities, n_classes, pairs and not rows_only, layout, weights)
    if pairs and weights is None:
        counts._rows = (codes, y)
    elif pairs and _repeatable(np.asarray(weights, dtype=np.float64), codes.shape[0]) \
            and information_reads_rows(counts):  # else a large table would hold a copy of its rows for nothing
        repeats = np.repeat(np.arange(codes.shape[0]), np.asarray(weights).astype(np.int64))
        counts._rows = (codes[repeats], y[repeats])
    return counts


#: Whole-number weights summing to at most this many times the rows keep the rows repeated
#: by their weights beside the counts, where the pairwise information reads rows.
REPEATS_MAX_FACTOR = 2


def _repeatable(weights: np.ndarray, n_rows: int) -> bool:
    """Whether ``weights`` are whole numbers summing to at most :data:`REPEATS_MAX_FACTOR`
    times the rows: :func:`count` then keeps the rows repeated by them where
    :func:`information_reads_rows`.

    Integer weights are repeated rows, so the pairwise information may be counted from
    the repeats (:mod:`pybnc.scores.pair_rows`) as from any unweighted rows: a bootstrap
    sample (:class:`pybnc.averaging.BaggedBNC`'s members) draws as many rows as the table
    has, and on 288 rows of movement_libras' 90 columns its information took 28 ms from
    the weighted counts against 3 ms from the repeats."""
    return float(weights.sum()) <= REPEATS_MAX_FACTOR * max(n_rows, 1) and np.array_equal(weights, np.round(weights))


def information_reads_rows(counts: "Counts") -> bool:
    """Whether the pairwise information of ``counts`` costs less counted from their rows
    (:mod:`pybnc.scores.pair_rows`) than read from their pair counts: counts of layout
    ``"rows"`` or sparse pairs (cheap from the rows, slow cell by cell) where the kernel can
    take them, else :func:`rows_cost_less` on the stored width. Whether the rows are at hand
    is the caller's question (:func:`pybnc.scores.pair_rows.cheaper_from_rows`)."""
    if counts.sparse is not None or counts.layout == "rows":
        return (pair_table_cells(counts.cardinalities, counts.n_classes) <= ROWS_MAX_PAIR_CELLS
                and load_kernels("pybnc.scores._pairs_c") is not None)
    stored = counts.kept.size if counts.reduced is not None else int(counts.offsets[-1])
    return rows_cost_less(counts.n_rows, counts.cardinalities, counts.n_classes, stored)


def pair_table_cells(cardinalities, n_classes: int) -> int:
    """Cells of the largest pair's table, ``K`` times the two largest cardinalities."""
    top = np.sort(np.asarray(cardinalities, dtype=np.int64))[-2:]
    return int(n_classes * max(int(top.prod()) if top.size else 0, 1))


def rows_cost_less(n_rows: int, cardinalities, n_classes: int, stored_width: int) -> bool:
    """Whether every pair's information costs less counted from the rows
    (:mod:`pybnc.scores.pair_rows`) than read from pair counts of ``stored_width`` one-hot
    columns: the compiled kernel is built, its largest table within ``ROWS_MAX_PAIR_CELLS``,
    and the rows times the pairs of features of two levels or more no more than 4 per
    stored cell plus 16 per class and pair of features.

    The weights were measured on the tables of issue 20 (arrhythmia, musk, satellite,
    movement_libras, audiology, cylinder bands): a row's visit to a pair costs about 4 ns,
    the counts' path about 15 ns a stored cell and 60 ns a pair of features per class (its
    passes over (d, d) arrays, whatever the levels: on 2,000 columns of which MDL left most
    one level, a second a fit). Tall tables with few levels keep the counts."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    if pair_table_cells(cards, n_classes) > ROWS_MAX_PAIR_CELLS:
        return False
    informative = int((cards >= 2).sum())
    counts_cost = 4 * n_classes * stored_width**2 + 16 * n_classes * cards.size**2
    if n_rows * informative * (informative - 1) / 2 > counts_cost:
        return False
    return load_kernels("pybnc.scores._pairs_c") is not None


def rows_layout_pays(n_rows: int, cardinalities, n_classes: int, complete) -> bool:
    """Whether :func:`count` keeps the rows as the pair counts (layout ``"rows"``): the
    reduced table would hold at least ``ROWS_LAYOUT_FROM`` cells and the information costs
    less from the rows (:func:`rows_cost_less`), which then also spares the Gram products.
    A wide table with few rows is the case: 160 rows of 2,000 columns in 10 bins, 320
    million row-pair visits against 648 million cells."""
    width = int(np.asarray(cardinalities, dtype=np.int64).sum()) - int(np.asarray(complete, dtype=bool).sum())
    return n_classes * width**2 >= ROWS_LAYOUT_FROM and rows_cost_less(n_rows, cardinalities, n_classes, width)


def _count(codes, y, cardinalities, n_classes, pairs, layout, weights) -> Counts:
    offsets = one_hot_offsets(cardinalities)
    width = int(offsets[-1])
    rows_per_class = np.bincount(y, minlength=n_classes)
    if weights is None:
        class_counts, total = rows_per_class.astype(np.float64), codes.shape[0]
    else:
        weights = np.asarray(weights, dtype=np.float64)
        class_counts = np.bincount(y, weights=weights, minlength=n_classes)
        # float32 holds whole sums below 2**24 exactly, and nothing fractional
        total = float(weights.sum()) if np.array_equal(weights, np.round(weights)) else float("inf")
    complete = None
    if pairs:
        complete = (codes >= 0).all(axis=0) & (cardinalities > 0)
        if layout == "auto":
            layout = pair_layout(codes.shape[0], cardinalities, n_classes, complete)
        elif layout not in ("dense", "reduced", "sparse", "rows"):
            raise ValueError(f"layout={layout!r} is not one of 'auto', 'dense', 'reduced', 'sparse', 'rows'.")
    # Dense pairs hold the level counts on their diagonal (a level with itself): no pass of their own.
    levels = None if pairs and layout == "dense" else _level_counts(codes, y, offsets, n_classes, weights)
    if not pairs:
        return Counts(cardinalities, class_counts, levels=levels)
    order = np.argsort(y, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(rows_per_class)])
    by_class = [order[bounds[c] : bounds[c + 1]] for c in range(n_classes)]
    part = (lambda r: None) if weights is None else (lambda r: weights[r])  # noqa: E731
    if layout == "sparse":
        upper = [_sparse_upper(codes[r], offsets, width, weights=part(r)) for r in by_class]
        return Counts(cardinalities, class_counts, levels=levels, sparse=upper)
    if layout == "dense":
        kept, dtype = np.arange(width), np.dtype(np.float64)
    else:  # a feature seen in every row leaves its last level out: the level counts give it back
        keep = np.ones(width, dtype=bool)
        keep[offsets[1:][complete] - 1] = False
        kept, dtype = np.flatnonzero(keep), _exact_dtype(total)
    column_of = np.full(width, -1, dtype=np.int64)
    column_of[kept] = np.arange(kept.size)
    table = np.zeros((n_classes, kept.size, kept.size), dtype=dtype)
    # one BLAS thread: these products are small and memory-bound (pybnc._utils.blas)
    with one_blas_thread():
        for c, r in enumerate(by_class):
            if r.size:
                _gram(codes[r], column_of, offsets, table[c], part(r))
    if layout == "reduced":
        return Counts(cardinalities, class_counts, levels=levels, reduced=table, kept=kept)
    levels = np.diagonal(table, axis1=1, axis2=2).copy()  # N(c, level) = N(c, level, same level)
    return Counts(cardinalities, class_counts, table, levels)


def _level_counts(codes: np.ndarray, y: np.ndarray, offsets: np.ndarray, n_classes: int,
                  weights=None) -> np.ndarray:
    """``(K, W)`` float counts (sums of ``weights``) of every level within every class,
    missing codes skipped."""
    width = int(offsets[-1])
    observed = codes >= 0
    if observed.all():  # no missing value: every cell counts, no index arrays
        cells = (y * width)[:, None] + (offsets[:-1] + codes)
        cell_weights = None if weights is None else np.broadcast_to(weights[:, None], cells.shape).ravel()
        counted = np.bincount(cells.ravel(), cell_weights, minlength=n_classes * width)
    else:
        rows, features = np.nonzero(observed)
        counted = np.bincount(y[rows] * width + offsets[features] + codes[rows, features],
                              None if weights is None else weights[rows], minlength=n_classes * width)
    return counted.astype(np.float64).reshape(n_classes, width)


def moved_columns(moves: list, cardinalities) -> np.ndarray:
    """The one-hot column (of the grown encoding of ``cardinalities``) where each old
    one-hot column goes, for the ``moves`` of :func:`pybnc.encode.grow_encoder`."""
    offsets = one_hot_offsets(cardinalities)
    return np.concatenate([offsets[i] + np.asarray(m) for i, m in enumerate(moves)]).astype(np.int64)


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
    counts = counts.with_full_pairs()  # the left-out last levels move: count them back first
    cards = np.asarray(cardinalities, dtype=np.int64)
    columns = moved_columns(moves, cards)
    width = int(cards.sum())
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
