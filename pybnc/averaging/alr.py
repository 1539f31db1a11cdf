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

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ..parameters.discriminative import RowDesign, design_scores, fit_weights, merge_rows

#: Most design entries (rows x cells read) held in memory; past it the blocks are rebuilt.
DESIGN_CELLS = 1 << 24
#: Entries of one block of rows built at once.
_BLOCK_ENTRIES = 1 << 22


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

    def weighted(self, fit) -> "SuperParentCells":
        """The tables with ``w * log theta`` where the fit gave a weight."""
        tables = {name: None if getattr(self, name) is None else np.array(getattr(self, name), dtype=np.float64)
                  for name in ("log_pair", "log_pair_child", "log_joint", "log_child", "class_log_prior", "naive")}
        out = SuperParentCells(self.n, self.offsets, **tables)
        for start, table, _ in out._parts():  # views into out's arrays
            lo, hi = np.searchsorted(fit.cells, [start, start + table.shape[1]])
            table[:, fit.cells[lo:hi] - start] *= fit.weights[lo:hi].T
        return out


def _aode_entries(cols, observed, usable, width: int, start: int):
    """Candidate cells ``(m, E)``, their mask, and the rows' weight (``d/|Q|``; 1 for naive Bayes)."""
    m, d = cols.shape
    n_usable = usable.sum(axis=1)
    has = n_usable > 0
    off_diagonal = ~np.eye(d, dtype=bool)
    child = start + width + cols[:, :, None] * width + cols[:, None, :]
    cells = [start + cols, child.reshape(m, -1), np.full((m, 1), start + width + width * width),
             start + width + width * width + 1 + cols]
    masks = [usable, (usable[:, :, None] & observed[:, None, :] & off_diagonal).reshape(m, -1),
             ~has[:, None], observed & ~has[:, None]]
    return cells, masks, np.where(has, d / np.maximum(n_usable, 1), 1.0), has


def _block_design(codes, space: SuperParentCells, qualifies, pair_ok, y, weight) -> RowDesign:
    """The cells one block of rows reads (see the module notes)."""
    width, offsets = space.width, space.offsets
    observed = codes >= 0
    cols = np.where(observed, offsets[:-1] + np.maximum(codes, 0), 0).astype(np.int64)
    cols = np.minimum(cols, max(width - 1, 0))  # a feature without levels is never observed
    usable = observed & qualifies[cols]
    cells, masks, scale, _ = _aode_entries(cols, observed, usable, width, space.aode_start)
    if space.n == 2:
        m, d = cols.shape
        first, second = np.triu_indices(d, 1)
        pair_usable = observed[:, first] & observed[:, second] & pair_ok[cols[:, first], cols[:, second]]
        n_pairs = pair_usable.sum(axis=1)
        has = n_pairs > 0
        pair = cols[:, first] * width + cols[:, second]
        child = width * width + pair[:, :, None] * width + cols[:, None, :]
        others = (np.arange(d)[None, :] != first[:, None]) & (np.arange(d)[None, :] != second[:, None])
        masks = [mask & ~has[:, None] for mask in masks]
        cells = [pair, child.reshape(m, -1)] + cells
        masks = [pair_usable, (pair_usable[:, :, None] & observed[:, None, :] & others[None]).reshape(m, -1)] + masks
        scale = np.where(has, first.size / np.maximum(n_pairs, 1), scale)
    mask = np.concatenate(masks, axis=1)
    counts = mask.sum(axis=1)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    matrix = scipy.sparse.csr_matrix((np.repeat(scale, counts), np.concatenate(cells, axis=1)[mask], indptr),
                                     shape=(codes.shape[0], space.n_cells))
    return RowDesign(matrix, y, weight)


def _entries_per_row(space: SuperParentCells, d: int) -> int:
    pairs = d * (d - 1) // 2 if space.n == 2 else 0
    return pairs * (d + 1) + d * d + 2 * d + 1


def alr_designs(codes, space: SuperParentCells, qualifies, pair_ok=None, y=None, sample_weight=None):
    """The rows' designs: a list held in memory when small enough, else a function that
    rebuilds them block by block (see :data:`DESIGN_CELLS`)."""
    codes = np.asarray(codes)
    n, d = codes.shape
    y = np.zeros(n, dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    step = max(1, _BLOCK_ENTRIES // _entries_per_row(space, d))

    def blocks():
        for start in range(0, n, step):
            rows = slice(start, start + step)
            yield _block_design(codes[rows], space, qualifies, pair_ok, y[rows], weight[rows])

    held, size = [], 0
    for block in blocks():
        size += block.matrix.nnz
        if size > DESIGN_CELLS:
            return blocks
        held.append(block)
    return held


def fit_alr_weights(space: SuperParentCells, codes, y, qualifies, pair_ok=None, penalty: float = 1.0,
                    sample_weight=None, max_iter: int = 500, tol: float = 1e-7, designs=None):
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
    designs : callable, optional
        A function yielding the designs afresh (out of core), instead of ``codes``/``y``.

    Returns
    -------
    weighted : SuperParentCells
        The tables holding ``w * log theta``; score rows with :func:`alr_scores`.
    fit : DiscriminativeFit

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> from pybnc import AODE
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> codes = np.column_stack([y ^ (rng.random(300) < 0.2), rng.integers(0, 2, 300)])
    >>> aode = AODE(min_count=0).fit(codes, y)
    >>> space = SuperParentCells(1, np.array([0, 2, 4]), aode.log_joint_, aode.log_child_,
    ...                          aode.class_log_prior_, np.concatenate([t[:, 0] for t in aode.log_cpts_], axis=1))
    >>> weighted, fit = fit_alr_weights(space, codes, y, aode.super_parent_ok_)
    >>> bool(fit.converged), alr_scores(codes[:2], weighted, aode.super_parent_ok_).shape
    (True, (2, 2))
    """
    if designs is None:
        codes, y, sample_weight = merge_rows(codes, y, sample_weight)
        designs = alr_designs(codes, space, qualifies, pair_ok, y, sample_weight)
    fit = fit_weights(space, designs, penalty, max_iter, tol, n_cells=space.n_cells)
    return space.weighted(fit), fit


def alr_scores(codes, space: SuperParentCells, qualifies, pair_ok=None) -> np.ndarray:
    """``score(c | x)`` of every row, shape ``(n, K)`` (block by block)."""
    designs = alr_designs(codes, space, qualifies, pair_ok)
    designs = designs() if callable(designs) else designs
    k = space.log_joint.shape[0]
    parts = [design_scores(block.matrix, space) for block in designs]
    return np.concatenate(parts, axis=0) if parts else np.empty((0, k))
