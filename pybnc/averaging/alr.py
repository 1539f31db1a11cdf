"""AODE and AnDE with discriminative weights, in the ALR^n form (Zaidi et al., MLJ 2016).

AnDE averages its super-parent estimators (SPnDEs) arithmetically, which no weight
can make linear. ALR^n averages in log space instead: the score of class ``c`` is
the mean, over the row's qualifying super-parent sets ``S`` (the set ``Q(x)`` of
:mod:`pybnc.averaging.aode` and :mod:`pybnc.averaging.ande`), of the SPnDE's log
joint, every cell it reads carrying a weight of its own::

    score(c | x) = 1/|Q(x)| sum_{S in Q(x)} [ w log P(c, x_S) + sum_{l not in S} w log P(x_l | c, x_S) ]

with one weight per cell and class (``w`` of ``P(c, x_S)`` at the cell ``x_S``, of
``P(x_l | c, x_S)`` at ``(x_S, x_l)``). A row without a qualifying set falls back as
AnDE does (A2DE to AODE's log-mean, AODE to naive Bayes), each fallback with weights
of its own. At ``w = 1`` this is the geometric mean of the SPnDEs (the generative
counterpart of ALR^n, as AnJE is of the paper's joins), not AnDE's arithmetic one.
The score is linear in ``w``: the fit is :func:`pybnc.parameters.discriminative.fit_weights`.

Missing values: a missing feature is never a super-parent (AnDE's rule) and, as a
child, contributes nothing (it is summed out of every SPnDE, whose factor sums to one
at ``w = 1``).

Size: a row reads ``|Q(x)| * d`` cells (AODE, ``d`` features) or ``|Q(x)| * d``
with ``|Q(x)|`` up to ``d (d - 1) / 2`` (A2DE): the design of a table is held in
memory when it has at most :data:`DESIGN_CELLS` entries, else rebuilt block by block
at every evaluation (slower, bounded memory). Only cells that training rows read get
a weight (:data:`pybnc.parameters.discriminative.MAX_WEIGHTS` of them at most).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse

from ..parameters.discriminative import (BlockSums, RowDesign, conditional_nll, design_scores, fit_weights,
                                         merge_rows)
from ._alr_pairs import PairBlock

#: Most design entries (rows x cells read) held in memory; past it the blocks are rebuilt.
DESIGN_CELLS = 1 << 24
#: Entries of one block of rows built at once.
_BLOCK_ENTRIES = 1 << 22
#: Largest ``K * W^3`` for which A2DE's pairs are read by dense products
#: (:mod:`pybnc.averaging._alr_pairs`) rather than a sparse design.
DENSE_PAIR_CELLS = 1 << 24


@dataclass
class SuperParentCells:
    """The cells of an ALR^n model and their generative log values.

    Cells, in this order: (``n = 2`` only) pairs ``a * W + b`` of one-hot columns, then
    ``(a * W + b) * W + e`` for a child column ``e``; then AODE's ``a``, ``(a, b)`` as
    ``a * W + b``, the class prior and naive Bayes's column ``b``.
    """

    n: int
    offsets: np.ndarray
    log_joint: np.ndarray
    log_child: np.ndarray
    class_log_prior: np.ndarray
    naive: np.ndarray
    log_pair: np.ndarray | None = None
    log_pair_child: np.ndarray | None = None

    @property
    def width(self) -> int:
        return int(self.offsets[-1])

    @property
    def aode_start(self) -> int:
        """The first AODE cell (after A2DE's pairs and their children)."""
        w = self.width
        return w * w + w**3 if self.n == 2 else 0

    @property
    def n_cells(self) -> int:
        w = self.width
        return self.aode_start + 2 * w + w * w + 1

    @property
    def n_features(self) -> int:
        return self.offsets.size - 1

    @property
    def n_sets(self) -> tuple[int, int]:
        """Super-parent sets of A2DE and of AODE: each SPnDE's log values are divided by
        their number, and a row reads them with the weight ``n_sets / |Q(x)|`` (1 when all
        qualify), so that a weight moves the score as much as a network's does and one
        penalty suits both (the scale of AnJE's geometric mean in ALR^n)."""
        d = self.n_features
        return max(d * (d - 1) // 2, 1), max(d, 1)

    def _parts(self):
        """``(first cell, table as (K, cells), divisor)`` of each table, in cell order."""
        k, w = self.log_joint.shape[0], self.width
        pairs, singles = self.n_sets
        parts = []
        if self.n == 2:
            parts += [(0, self.log_pair.reshape(k, -1), pairs), (w * w, self.log_pair_child.reshape(k, -1), pairs)]
        start = self.aode_start
        parts += [(start, self.log_joint, singles), (start + w, self.log_child.reshape(k, -1), singles),
                  (start + w + w * w, self.class_log_prior[:, None], 1), (start + w + w * w + 1, self.naive, 1)]
        return parts

    def __call__(self, cells: np.ndarray) -> np.ndarray:
        """Log values of ``cells`` (sorted), shape ``(K, len(cells))``."""
        cells = np.asarray(cells, dtype=np.int64)
        out = np.empty((self.log_joint.shape[0], cells.size))
        for start, table, divisor in self._parts():
            lo, hi = np.searchsorted(cells, [start, start + table.shape[1]])
            out[:, lo:hi] = table[:, cells[lo:hi] - start] / divisor
        return out

    def deltas(self, fit) -> "SuperParentCells":
        """Tables of ``(w - 1) * log theta``: what the weights add to the generative scores
        (0 where no training row read the cell)."""
        tables = {name: None if getattr(self, name) is None else np.zeros(np.shape(getattr(self, name)))
                  for name in ("log_pair", "log_pair_child", "log_joint", "log_child", "class_log_prior", "naive")}
        out = SuperParentCells(self.n, self.offsets, **tables)
        for (start, table, _), (_, source, _) in zip(out._parts(), self._parts()):  # views into out's arrays
            lo, hi = np.searchsorted(fit.cells, [start, start + table.shape[1]])
            cells = fit.cells[lo:hi] - start
            table[:, cells] = (fit.weights[lo:hi].T - 1.0) * source[:, cells]
        return out


def _block_design(codes, space: SuperParentCells, qualifies, pair_ok, y, weight, pairs: bool = True,
                  offset=None) -> RowDesign:
    """The cells one block of rows reads (see the module notes), every row with the same
    number of entries: an entry a row does not read has the weight 0 (no gather, no
    boolean selection; its cell, any valid one, gets nothing from it)."""
    width = space.width
    m, d = codes.shape
    observed, cols = _columns(codes, space)
    cols = cols.astype(np.int32)  # (a feature without levels is never observed: its clipped column is unused)
    usable = observed & qualifies[cols]
    n_usable = usable.sum(axis=1)
    aode = np.where(n_usable > 0, d / np.maximum(n_usable, 1), 0.0)  # a row's weight on AODE's cells
    naive = (n_usable == 0).astype(np.float64)
    entries = _entries_per_row(space, d, pairs)
    indices = np.empty((m, entries), dtype=np.int32)
    data = np.empty((m, entries))
    at = 0

    def put(cells, weights):
        nonlocal at
        cells = cells.reshape(m, -1)
        indices[:, at : at + cells.shape[1]] = cells
        data[:, at : at + cells.shape[1]] = weights.reshape(m, -1)
        at += cells.shape[1]

    if space.n == 2 and pairs:
        first, second = np.triu_indices(d, 1)
        pair_usable = observed[:, first] & observed[:, second] & pair_ok[cols[:, first], cols[:, second]]
        n_pairs = pair_usable.sum(axis=1)
        pairs = np.where(n_pairs > 0, first.size / np.maximum(n_pairs, 1), 0.0)
        aode = np.where(n_pairs > 0, 0.0, aode)
        naive = np.where(n_pairs > 0, 0.0, naive)
        pair = cols[:, first] * width + cols[:, second]
        others = (np.arange(d)[None, :] != first[:, None]) & (np.arange(d)[None, :] != second[:, None])
        put(pair, pair_usable * pairs[:, None])
        put(width * width + pair[:, :, None] * width + cols[:, None, :],
            (pair_usable[:, :, None] & observed[:, None, :] & others[None]) * pairs[:, None, None])
    start = space.aode_start
    put(start + cols, usable * aode[:, None])
    put(start + width + cols[:, :, None] * width + cols[:, None, :],
        (usable[:, :, None] & observed[:, None, :] & ~np.eye(d, dtype=bool)) * aode[:, None, None])
    put(np.full((m, 1), start + width + width * width), naive[:, None])
    put(start + width + width * width + 1 + cols, observed * naive[:, None])
    indptr = np.arange(0, m * entries + 1, entries, dtype=np.int32 if m * entries < 2**31 else np.int64)
    matrix = scipy.sparse.csr_matrix((data.ravel(), indices.ravel(), indptr), shape=(m, space.n_cells))
    return RowDesign(matrix, y, weight, offset)


def _held_as_rows(codes, space: SuperParentCells) -> bool:
    """Whether :func:`alr_designs` holds these rows' designs in memory as :class:`RowDesign`
    blocks only: no dense pair block, and every row's entries (as many for each row)
    within :data:`DESIGN_CELLS`."""
    n, d = np.shape(codes)
    return not _dense_pairs(space) and n * _entries_per_row(space, d) <= DESIGN_CELLS


def _entries_per_row(space: SuperParentCells, d: int, pairs: bool = True) -> int:
    n_pairs = d * (d - 1) // 2 if space.n == 2 and pairs else 0
    return n_pairs * (d + 1) + d * d + 2 * d + 1


def _columns(codes, space: SuperParentCells):
    observed = codes >= 0
    cols = np.minimum(np.where(observed, space.offsets[:-1] + np.maximum(codes, 0), 0), max(space.width - 1, 0))
    return observed, cols


def _dense_pairs(space: SuperParentCells) -> bool:
    return space.n == 2 and space.log_joint.shape[0] * space.width**3 <= DENSE_PAIR_CELLS


def _pair_rows(codes, space: SuperParentCells, pair_ok):
    """The rows with a qualifying pair, as a :class:`PairBlock` (no ``y`` yet), and their mask."""
    observed, cols = _columns(codes, space)
    d, width = codes.shape[1], space.width
    first, second = np.triu_indices(d, 1)
    usable = observed[:, first] & observed[:, second] & pair_ok[cols[:, first], cols[:, second]]
    n_pairs = usable.sum(axis=1)
    has = n_pairs > 0
    onehot = np.zeros((int(has.sum()), width))
    r, f = np.nonzero(observed[has])
    onehot[r, cols[has][r, f]] = 1.0
    feature = np.repeat(np.arange(d), np.diff(space.offsets))
    later = feature[None, :] > feature[:, None]
    return onehot, first.size / np.maximum(n_pairs[has], 1), pair_ok & later, feature, has


def alr_designs(codes, space: SuperParentCells, qualifies, pair_ok=None, y=None, sample_weight=None, offset=None):
    """The rows' designs: a list held in memory when small enough, else a function that
    rebuilds them block by block (see :data:`DESIGN_CELLS`). A2DE's rows with a qualifying
    pair are one :class:`~pybnc.averaging._alr_pairs.PairBlock` while ``K W^3`` is at most
    :data:`DENSE_PAIR_CELLS`. ``offset`` (``(n, K)``) is added to the rows' scores."""
    codes = np.asarray(codes)
    n, d = codes.shape
    y = np.zeros(n, dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    front, pairs = [], True
    if _dense_pairs(space):
        onehot, scale, mask, feature, has = _pair_rows(codes, space, pair_ok)
        front = [PairBlock(onehot, scale, mask, feature, y[has], weight[has], None if offset is None else offset[has])]
        codes, y, weight, pairs = codes[~has], y[~has], weight[~has], False
        offset = None if offset is None else offset[~has]
    step = max(1, _BLOCK_ENTRIES // _entries_per_row(space, d, pairs))

    def blocks():
        yield from front
        for start in range(0, codes.shape[0], step):
            rows = slice(start, start + step)
            yield _block_design(codes[rows], space, qualifies, pair_ok, y[rows], weight[rows], pairs,
                                None if offset is None else offset[rows])

    held, size = [], 0
    for block in blocks():
        if isinstance(block, RowDesign):
            size += block.matrix.nnz
            if size > DESIGN_CELLS:
                return blocks
        held.append(block)
    return held


class _Blocks:
    """Several designs answering as one (a block of rows out of core: its pair rows and the rest)."""

    def __init__(self, parts):
        self.parts = parts

    def cells(self) -> np.ndarray:
        return np.unique(np.concatenate([p.cells() for p in self.parts])) if self.parts else np.empty(0, np.int64)

    def on(self, active, n_cells):
        return _Blocks([p.on(active, n_cells) for p in self.parts])

    def sums(self, values):
        return BlockSums(*conditional_nll(values, lambda: iter(self.parts)))

    def entries(self) -> int:
        return sum(p.entries() for p in self.parts)


def alr_block(codes, space: SuperParentCells, qualifies, pair_ok=None, y=None, sample_weight=None,
              generative=None) -> _Blocks:
    """One block of coded rows as a single design (for the out-of-core passes);
    ``generative`` as in :func:`fit_alr_weights`."""
    designs = offset_alr_designs(codes, space, qualifies, pair_ok, y, sample_weight, generative)
    return _Blocks(list(designs() if callable(designs) else designs))


def offset_alr_designs(codes, space: SuperParentCells, qualifies, pair_ok=None, y=None, sample_weight=None,
                       generative=None):
    """:func:`alr_designs` whose rows score ``generative`` (as in :func:`fit_alr_weights`) at
    weights of 1: offset by the generative model's scores minus the log-mean of the estimators.

    Designs held in memory give that log-mean themselves (what :func:`alr_scores` would
    build them again for: the same blocks of rows, the same sums)."""
    if generative is None:
        return alr_designs(codes, space, qualifies, pair_ok, y, sample_weight)
    if not _held_as_rows(codes, space):  # built block by block, or A2DE's pair rows in their own block
        offset = generative(codes) - alr_scores(codes, space, qualifies, pair_ok)
        return alr_designs(codes, space, qualifies, pair_ok, y, sample_weight, offset)
    designs = alr_designs(codes, space, qualifies, pair_ok, y, sample_weight)
    log_mean = np.empty((np.shape(codes)[0], space.log_joint.shape[0]))
    bounds = np.cumsum([0] + [d.matrix.shape[0] for d in designs])
    for design, lo, hi in zip(designs, bounds[:-1], bounds[1:]):
        log_mean[lo:hi] = design_scores(design.matrix, space)
    offset = generative(codes) - log_mean
    return [replace(d, offset=offset[lo:hi]) for d, lo, hi in zip(designs, bounds[:-1], bounds[1:])]


def fit_alr_weights(space: SuperParentCells, codes, y, qualifies, pair_ok=None, penalty: float = 1.0,
                    sample_weight=None, max_iter: int = 500, tol: float = 1e-7, generative=None):
    """Discriminative weights of an AODE (``space.n == 1``) or A2DE in the ALR^n form.

    Parameters
    ----------
    space : SuperParentCells
        The generative tables.
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    y : ndarray of shape (n,), int
    qualifies : ndarray of shape (W,), bool
        One-hot columns that may be super-parents (AODE's frequency rule).
    pair_ok : ndarray of shape (W, W), bool, optional
        Column pairs that may be super-parents (``n = 2``).
    penalty, max_iter, tol
        See :func:`pybnc.parameters.discriminative.fit_weights`.
    sample_weight : ndarray of shape (n,), optional
    generative : callable, optional
        ``generative(codes)``: AnDE's own log joint ``(n, K)`` (its arithmetic average).
        A row then scores ``generative(x) + sum (w - 1) log theta`` over its cells, so
        weights of 1 give AnDE itself; without it a row scores the log-mean of its
        estimators (the ALR^n form proper).

    Returns
    -------
    DiscriminativeFit
        Score rows with :func:`alr_scores` on ``space.deltas(fit)``, plus ``generative``.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc import AODE
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> codes = np.column_stack([y ^ (rng.random(300) < 0.2), rng.integers(0, 2, 300)])
    >>> aode = AODE(min_count=0).fit(codes, y)
    >>> space = SuperParentCells(1, np.array([0, 2, 4]), aode.log_joint_, aode.log_child_,
    ...                          aode.class_log_prior_, np.concatenate([t[:, 0] for t in aode.log_cpts_], axis=1))
    >>> fit = fit_alr_weights(space, codes, y, aode.super_parent_ok_)
    >>> scores = alr_scores(codes, space, aode.super_parent_ok_) + alr_scores(codes, space.deltas(fit),
    ...                                                                      aode.super_parent_ok_)
    >>> bool(fit.converged), scores.shape
    (True, (300, 2))
    """
    codes, y, sample_weight = merge_rows(codes, y, sample_weight)
    designs = offset_alr_designs(codes, space, qualifies, pair_ok, y, sample_weight, generative)
    return fit_weights(space, designs, penalty, max_iter, tol, n_cells=space.n_cells)


def alr_scores(codes, space: SuperParentCells, qualifies, pair_ok=None) -> np.ndarray:
    """``score(c | x)`` of every row, shape ``(n, K)`` (block by block)."""
    codes = np.asarray(codes)
    n, d = codes.shape
    k = space.log_joint.shape[0]
    out = np.empty((n, k))
    rest, pairs = np.ones(n, dtype=bool), True
    if _dense_pairs(space):
        onehot, scale, mask, feature, has = _pair_rows(codes, space, pair_ok)
        w = space.width
        tables = space(np.arange(w * w + w**3))
        block = PairBlock(onehot, scale, mask, feature, np.zeros(onehot.shape[0], dtype=np.int64),
                          np.ones(onehot.shape[0]))
        out[has] = block.scores(tables[:, : w * w].reshape(k, w, w), tables[:, w * w :].reshape(k, w, w, w))
        rest, pairs = ~has, False
    rows = np.flatnonzero(rest)
    step = max(1, _BLOCK_ENTRIES // _entries_per_row(space, d, pairs))
    for start in range(0, rows.size, step):
        part = rows[start : start + step]
        design = _block_design(codes[part], space, qualifies, pair_ok, np.zeros(part.size, dtype=np.int64),
                               np.ones(part.size), pairs)
        out[part] = design_scores(design.matrix, space)
    return out
