"""Discriminative parameters: one weight per table cell and class, for the conditional likelihood.

A generative classifier scores class ``c`` of a row by a sum of log-probabilities,
one per table it reads (the class prior, each feature's table at the row's cell). Give
every cell ``m`` and class ``c`` a weight ``w[m, c]``::

    score(c | x) = sum_m a[x, m] * w[m, c] * log theta[m, c],     P(c | x) = softmax_c score

(``a[x, m]`` is 1 when the row reads cell ``m``, 0 otherwise; an averaged model reads a
cell with the weight ``1 / (number of its estimators)``). At ``w = 1`` this is the
generative model; the weights minimise the negative conditional log-likelihood plus
``penalty / 2 * ||w - 1||^2`` (Zaidi et al., WANBIA-C, ICDM 2014; ALR^n, MLJ 2016;
MLJ 2017), by scipy's L-BFGS-B without bounds. The score is linear in ``w``, so the
objective is convex for every structure. Without a penalty, for naive Bayes, it is multinomial logistic
regression on one-hot columns (the same hypothesis space) with the generative
log-probabilities as a diagonal preconditioner.

The rows enter as a sparse design ``a`` (rows x cells, :class:`RowDesign`); the
objective and its gradient are two sparse products per evaluation,
``s = a @ (w * log theta)`` and ``grad = (a.T @ (P - Y)) * log theta``: no loop over
rows. Only cells that some training row reads get a weight (the others have no data
and the penalty holds them at 1), so the weights stay as few as the cells the data
reach. Designs may be a list held in memory or a function that yields them afresh
(out of core: every evaluation reads the blocks again, and the sums over blocks are
the in-memory sums).

:func:`fit_weights` takes designs held in memory or re-read afresh;
:func:`pybnc.parameters.discriminative_passes.fit_weights_in_passes` is the same
optimisation driven pass by pass over blocks of coded rows (the estimators' out-of-core
protocol). Networks (naive Bayes, TAN, FAN,
kDB, SKDB) build their designs in :mod:`pybnc.parameters.network_weights`, averaged
models (AODE, AnDE) in :mod:`pybnc.averaging.alr`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse
import scipy.special
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning

from .._utils.warn import warn
from .._utils.blas import available_cores, one_blas_thread
from .._utils.native import load_kernels

_native = load_kernels("pybnc.parameters._design_c")

#: Most weights (cells read by the training rows x classes) optimised at once: each
#: L-BFGS vector is then at most 32 MiB and its history of 10 pairs about 700 MiB.
MAX_WEIGHTS = 1 << 22
DEFAULT_MAX_ITER = 500


#: The default penalty's rule, ``log10 lambda = a - SLOPE log10 n`` (``n`` training rows),
#: fitted to the penalties an inner 3-fold cross-validation chose on the training rows
#: of every UCI table (benchmarks/discriminative_penalty.py, docs/discriminative.md).
PENALTY_SLOPE = 2.35
PENALTY_INTERCEPT = {"naive_bayes": 6.73, "network": 7.83, "averaged": 6.30}


def default_penalty(n_rows: float, kind: str = "network") -> float:
    """The penalty ``lambda`` the estimators use when none is given.

    Small tables get a strong penalty (the weights stay near the generative model, whose
    smoothing is worth more than what a few hundred rows say about the conditional
    likelihood), large ones a weak one: ``log10 lambda = a - 2.35 log10 n``, within
    ``[1e-3, 1e3]``, ``a`` by kind of model (``"naive_bayes"``: no arc; ``"network"``;
    ``"averaged"``: AODE and AnDE). Inner cross-validation on the UCI tables chose these
    (``docs/discriminative.md``).

    Examples
    --------
    >>> [round(default_penalty(n), 4) for n in (150, 1500, 15000)]
    [520.2182, 2.3237, 0.0104]
    """
    if kind not in PENALTY_INTERCEPT:
        raise ValueError(f"kind={kind!r} is not one of {sorted(PENALTY_INTERCEPT)}.")
    log_penalty = PENALTY_INTERCEPT[kind] - PENALTY_SLOPE * np.log10(max(float(n_rows), 1.0))
    return float(10.0 ** np.clip(log_penalty, -3.0, 3.0))


@dataclass
class RowDesign:
    """A block of rows as the cells they read.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix of shape (n_rows, n_cells)
        ``matrix[j, m]``: how much row ``j`` reads cell ``m`` (1, or an average's share).
    y : ndarray of shape (n_rows,), int
        Class codes.
    sample_weight : ndarray of shape (n_rows,), float
        Row multiplicities (1 for plain rows).
    offset : ndarray of shape (n_rows, K), optional
        Added to every row's scores: the generative model's exact score minus the sum
        of the cells the row reads (see :func:`with_base`), so that weights of 1 give
        the generative model on every row.
    by_cell : scipy.sparse.csr_matrix of shape (n_cells, n_rows), optional
        ``matrix`` transposed, each cell's rows in increasing order: a design read at
        every evaluation of a fit keeps it, so that the gradient gathers each cell's
        rows (the same sums, in the same order) rather than scattering into the cells.
    """

    matrix: scipy.sparse.csr_matrix
    y: np.ndarray
    sample_weight: np.ndarray
    offset: np.ndarray | None = None
    by_cell: scipy.sparse.csr_matrix | None = None

    # A block of rows may be held in another form (a dense product per anchor: A2DE's
    # pairs, :mod:`pybnc.averaging.alr`) as long as it answers these four questions.
    def cells(self) -> np.ndarray:
        """The cells some row of positive sample weight reads (with a nonzero weight), sorted."""
        matrix = self.matrix
        rows = np.repeat(self.sample_weight > 0, np.diff(matrix.indptr))
        return distinct_cells(matrix.indices[rows & (matrix.data != 0)], matrix.shape[1])

    def on(self, active: np.ndarray, n_cells: int) -> "RowDesign":
        """The block over the active cells only (their positions in ``active``)."""
        return _compact(self, active, n_cells)

    def sums(self, values: np.ndarray) -> "BlockSums":
        """:class:`BlockSums` for the values of the block's cells (after :meth:`on`)."""
        return block_sums(values, self)

    def entries(self) -> int:
        """The (row, cell) entries an evaluation reads: what it costs, per class."""
        return int(self.matrix.nnz)


@dataclass
class DiscriminativeFit:
    """What :func:`fit_weights` found.

    Attributes
    ----------
    cells : ndarray of shape (n_active,), int
        The cells some training row reads, increasing; every other cell keeps weight 1.
    weights : ndarray of shape (n_active, n_classes)
        ``w[m, c]`` of those cells.
    n_iter : int
        L-BFGS iterations.
    converged : bool
        Whether L-BFGS met its tolerance (False: it stopped at ``max_iter`` or could
        not make progress; the weights are still the best point it reached).
    objective, initial_objective : float
        Mean negative conditional log-likelihood plus the penalty (per unit of sample
        weight) at the returned weights and at ``w = 1``.
    message : str
        Why the optimiser stopped, in scipy's L-BFGS-B's words.
    penalty : float
    """

    cells: np.ndarray
    weights: np.ndarray
    n_iter: int
    converged: bool
    objective: float
    initial_objective: float
    message: str = ""
    penalty: float = 0.0

    def weighted(self, log_values: np.ndarray) -> np.ndarray:
        """``w * log theta`` for log values of shape ``(K, n_cells)`` (a new array)."""
        out = np.array(log_values, dtype=np.float64)
        out[:, self.cells] *= self.weights.T
        return out

    def deltas(self, log_values):
        """``(w - 1) * log theta`` for log values of shape ``(K, n_cells)``: what the weights
        add to the generative scores (0 where no training row read the cell); for log
        values given as a function of the cells (as :func:`fit_weights` takes them), a
        function of the cells too."""
        if callable(log_values):
            return lambda cells: self._deltas_at(np.asarray(cells, dtype=np.int64), log_values(cells))
        out = np.zeros(np.shape(log_values))
        out[:, self.cells] = (self.weights.T - 1.0) * np.asarray(log_values)[:, self.cells]
        return out

    def _deltas_at(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        out = np.zeros(values.shape)
        at, hit = self.located(cells)
        out[:, hit] = (self.weights[at[hit]].T - 1.0) * values[:, hit]
        return out

    def located(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where ``cells`` sit among the fit's (sorted) cells, and which of them are there:
        ``self.weights[at[hit]]`` are the weights of ``cells[hit]``; the others weigh 1."""
        cells = np.asarray(cells)
        if not self.cells.size:
            return np.zeros(cells.shape, dtype=np.int64), np.zeros(cells.shape, dtype=bool)
        at = np.minimum(np.searchsorted(self.cells, cells), self.cells.size - 1)
        return at, self.cells[at] == cells

    def dense_weights(self, n_cells: int) -> np.ndarray:
        """All weights, shape ``(n_cells, K)`` (ones where no row reads the cell)."""
        out = np.ones((n_cells, self.weights.shape[1]))
        out[self.cells] = self.weights
        return out


def _design_source(designs):
    """A function that yields the designs afresh."""
    if callable(designs):
        return designs
    designs = list(designs)
    return lambda: iter(designs)


def _active_cells(source, n_cells: int) -> tuple[np.ndarray, int]:
    """Cells read by at least one row (with a positive sample weight), and the entries
    the designs hold (:meth:`RowDesign.entries`), in one pass over them."""
    cells, entries = [], 0
    for design in source():
        cells.append(design.cells())
        entries += design.entries()
    if len(cells) == 1:  # rows in memory: one design, its cells already sorted and distinct
        return np.asarray(cells[0], dtype=np.int64), entries
    seen = np.zeros(n_cells, dtype=bool)
    for read in cells:
        seen[read] = True
    return np.flatnonzero(seen), entries


#: Largest number of cells mapped through a lookup array (int32: 256 MiB); past it, a
#: binary search maps them.
_LOOKUP_CELLS = 1 << 26


def _few(indices: np.ndarray, n_cells: int) -> bool:
    """Whether ``indices`` are so few against the cells that sorting them costs less than
    an array over every cell (or the cells are too many for one)."""
    return n_cells > _LOOKUP_CELLS or 16 * indices.size < n_cells


def distinct_cells(indices: np.ndarray, n_cells: int) -> np.ndarray:
    """``np.unique(indices)`` for indices in ``0 .. n_cells - 1``, in their dtype: marked in an
    array over the cells where they are not few against them (a pass over the indices,
    where sorting millions of a discriminative AODE's design cost 60 ms a fold on musk)."""
    if _few(indices, n_cells):
        return np.unique(indices)
    seen = np.zeros(n_cells, dtype=bool)
    seen[indices] = True
    return np.flatnonzero(seen).astype(indices.dtype, copy=False)


def _positions(indices: np.ndarray, cells: np.ndarray, n_cells: int) -> np.ndarray:
    """The position in ``cells`` (sorted) of every index (an index not in ``cells`` gets any
    valid position: it has the weight 0)."""
    if not _few(indices, n_cells):
        lookup = np.zeros(n_cells, dtype=np.int32)
        lookup[cells] = np.arange(cells.size, dtype=np.int32)
        return lookup[indices]
    return np.minimum(np.searchsorted(cells, indices), max(cells.size - 1, 0))


def _compact(design: RowDesign, active: np.ndarray, n_cells: int) -> RowDesign:
    """The design over the active cells only (their positions in ``active``)."""
    matrix = design.matrix
    if active.size == n_cells:
        return design
    if active.size == 0:
        return RowDesign(scipy.sparse.csr_matrix((matrix.shape[0], 0)), design.y, design.sample_weight,
                         design.offset)
    # (an entry of weight 0 may name a cell no row reads: any valid column will do)
    columns = _positions(matrix.indices, active, n_cells)
    compact = scipy.sparse.csr_matrix((matrix.data, columns, matrix.indptr), shape=(matrix.shape[0], active.size))
    return RowDesign(compact, design.y, design.sample_weight, design.offset)


@dataclass
class BlockSums:
    """What one block of rows adds to the objective: ``sum -log P(y | x)``, its gradient
    with respect to the cell values, and the rows' total weight. Blocks add up."""

    nll: float
    gradient: np.ndarray
    total: float

    def __add__(self, other: "BlockSums") -> "BlockSums":
        return BlockSums(self.nll + other.nll, self.gradient + other.gradient, self.total + other.total)


def block_softmax(scores: np.ndarray, y: np.ndarray, sample_weight: np.ndarray):
    """``sum -log P(y | x)`` of rows with these scores, ``(P - Y) * sample_weight`` (the
    gradient with respect to the scores) and the total weight."""
    log_p = scipy.special.log_softmax(scores, axis=1)
    rows = np.arange(log_p.shape[0])
    y = np.asarray(y, dtype=np.intp)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    nll = float(-(sample_weight * log_p[rows, y]).sum())
    residual = np.exp(log_p, out=log_p)
    residual *= sample_weight[:, None]
    residual[rows, y] -= sample_weight
    return nll, residual, float(sample_weight.sum())


def block_sums(values: np.ndarray, design: RowDesign) -> BlockSums:
    """:class:`BlockSums` of one design for cell values ``values`` (``w * log theta``, shape
    ``(n_cells, K)``)."""
    scores = _rows_product(design.matrix, values)
    if design.offset is not None:
        scores += design.offset
    nll, residual, total = block_softmax(scores, design.y, design.sample_weight)
    if design.by_cell is not None:  # kept where gathering each cell's rows pays
        return BlockSums(nll, _rows_product(design.by_cell, residual), total)
    return BlockSums(nll, _cells_product(design.matrix, residual), total)


def _compiled(matrix, n_classes: int) -> bool:
    """Whether the compiled products take this design (two classes, CSR); else scipy's,
    which give the same sums (and are as fast with more classes)."""
    return _native is not None and n_classes == 2 and scipy.sparse.issparse(matrix) and matrix.format == "csr"


def _native_operands(matrix, dense):
    """The CSR arrays and the dense operand as the compiled products take them, or None."""
    if np.ndim(dense) != 2 or not _compiled(matrix, np.shape(dense)[1]):
        return None
    return (matrix.indptr, matrix.indices, np.ascontiguousarray(matrix.data, dtype=np.float64),
            np.ascontiguousarray(dense, dtype=np.float64))


#: Most entries of a design with more than two classes whose transpose is kept beside it
#: through a fit (a second copy of its entries; 12 bytes each).
BY_CELL_MAX_ENTRIES = 1 << 24
#: A design held through a fit is cut into blocks of consecutive rows of at least this
#: many entries, and of at least :data:`BLOCK_ENTRIES_PER_WEIGHT` per weight (each block
#: adds a gradient over every cell and class, so a design of few rows per cell, a wide
#: table's, stays whole); the evaluations' threads share the blocks (or the designs)
#: out. The blocks, not the threads, fix the order of the sums, so the weights are the
#: same with any number of threads (on one core the design stays whole).
BLOCK_ENTRIES = 1 << 17
BLOCK_ENTRIES_PER_WEIGHT = 8


def _kept_for_every_evaluation(design, n_classes: int) -> list:
    """A design held through a fit, as the blocks an evaluation reads (see
    :data:`BLOCK_ENTRIES`), each with its transpose where the gradient reads that faster.

    The compiled products (two classes) always read it. scipy's ``matrix.T @ residual``
    scatters every row's residual into the cells' table; where the cells outnumber the
    rows that table is the larger one and its scattered writes leave the cache, while
    the transpose's product gathers from the rows' small table (movement_libras' AODE,
    313 rows, 46,787 cells, 15 classes: 29 -> 18 ms a product). Both add each cell's
    rows in increasing order, so a block's gradient is the same to the bit."""
    if not isinstance(design, RowDesign) or not scipy.sparse.issparse(design.matrix) \
            or design.matrix.format != "csr":
        return [design]
    n_rows, n_cells = design.matrix.shape
    gathers = _compiled(design.matrix, n_classes) or (n_rows < n_cells and design.matrix.nnz <= BY_CELL_MAX_ENTRIES)
    return [_with_transpose(block) if gathers else block for block in _row_blocks(design, n_classes)]


def _row_blocks(design: RowDesign, n_classes: int) -> list:
    """``design`` as blocks of consecutive rows of about equal entries (see :data:`BLOCK_ENTRIES`)."""
    matrix = design.matrix
    blocks = min(matrix.nnz // BLOCK_ENTRIES, matrix.nnz // (BLOCK_ENTRIES_PER_WEIGHT * matrix.shape[1] * n_classes))
    # on one core the blocks only cost (spambase's AODE, two classes: 2.7 -> 3.1 s a fit)
    if blocks < 2 or available_cores() < 2:
        return [design]
    cuts = np.searchsorted(matrix.indptr, np.linspace(0, matrix.nnz, blocks + 1)[1:-1])
    bounds = np.unique(np.concatenate([[0], cuts, [matrix.shape[0]]]))
    return [RowDesign(matrix[a:b], design.y[a:b], design.sample_weight[a:b],
                      None if design.offset is None else design.offset[a:b])
            for a, b in zip(bounds[:-1], bounds[1:])]


def _with_transpose(design: RowDesign) -> RowDesign:
    # csr -> csc (each cell's rows in increasing order), read as the transpose's csr
    by_cell = design.matrix.tocsc()
    return dataclasses.replace(design, by_cell=scipy.sparse.csr_matrix(
        (by_cell.data, by_cell.indices, by_cell.indptr), shape=design.matrix.shape[::-1]))


@contextlib.contextmanager
def _evaluation_threads(n_blocks: int):
    """A ``map`` over the blocks of an evaluation: on joblib's threads (as many as the
    cores, :func:`pybnc._utils.blas.available_cores`) where there are blocks enough,
    the same threads for every evaluation of the fit. Threads whatever
    ``joblib.parallel_config`` says (``require="sharedmem"``): the blocks share the
    fit's arrays, which processes would copy at every evaluation."""
    threads = min(n_blocks, available_cores())
    # BLAS on one thread through the fit: its few vector products are small, and a
    # threaded OpenBLAS's workers spin after each call on the cores these threads need
    # (krkopt's AODE on two threads: 28 ms an evaluation beside them, 19 without)
    with one_blas_thread():
        if threads <= 1:
            yield map
            return
        with Parallel(n_jobs=threads, require="sharedmem") as parallel:
            yield lambda function, items: parallel(delayed(_quietly(function))(item) for item in items)


def _quietly(function):
    """``function`` under the fit's floating-point state: numpy's ``errstate`` is a context
    variable, which a pool's threads do not inherit, and a trial point of the line search
    may overflow (the search then shrinks the step; no warning is due)."""
    def run(item):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return function(item)
    return run


def _rows_product(matrix, values: np.ndarray) -> np.ndarray:
    """``matrix @ values``: every row's score per class, shape ``(n_rows, K)``."""
    operands = _native_operands(matrix, values)
    if operands is None:
        return matrix @ values
    out = np.empty((matrix.shape[0], 2))
    _native.scores(*operands, out)
    return out


def _cells_product(matrix, residual: np.ndarray) -> np.ndarray:
    """``matrix.T @ residual``: every cell's gradient per class, shape ``(n_cells, K)``."""
    operands = _native_operands(matrix, residual)
    if operands is None:
        return matrix.T @ residual
    out = np.zeros((matrix.shape[1], 2))
    _native.gradient(*operands, out)
    return out


def conditional_nll(values: np.ndarray, source, mapper=map) -> tuple[float, np.ndarray, float]:
    """Weighted sum of ``-log P(y | x)`` over the designs, its gradient with respect to
    ``values`` and the total sample weight; ``mapper`` maps the designs' sums (``map``, or
    a thread pool's), which are added in the designs' order."""
    sums = None
    for part in mapper(lambda design: design.sums(values), source()):
        if sums is None:  # each design's gradient is its own new array: the first one is added to
            sums = part
        else:
            sums.nll, sums.total = sums.nll + part.nll, sums.total + part.total
            sums.gradient += part.gradient
    if sums is None:
        return 0.0, np.zeros_like(values), 0.0
    return sums.nll, sums.gradient, sums.total


def _penalised(weights, log_values, sums: BlockSums, penalty: float) -> tuple[float, np.ndarray]:
    scale = 1.0 / max(sums.total, 1e-300)
    diff = weights - 1.0
    value = (sums.nll + 0.5 * penalty * float(np.vdot(diff, diff))) * scale
    return value, (sums.gradient * log_values + penalty * diff) * scale


def penalised_objective(weights, log_values, designs, penalty: float, mapper=map) -> tuple[float, np.ndarray]:
    """The objective :func:`fit_weights` minimises and its gradient, per unit of sample weight.

    ``(sum_rows -log P(y | x; w) + penalty / 2 * ||w - 1||^2) / sum(sample_weight)``
    for weights ``w`` and log values, both of shape ``(n_cells, K)`` (cell major, as the
    optimiser holds them); ``designs`` as in :func:`fit_weights`. Returns the value and
    the gradient, shape ``(n_cells, K)``; ``mapper`` as in :func:`conditional_nll`.
    """
    nll, gradient, total = conditional_nll(weights * log_values, _design_source(designs), mapper)
    return _penalised(weights, log_values, BlockSums(nll, gradient, total), penalty)


def cell_values(log_values, cells: np.ndarray) -> np.ndarray:
    """``log_values[:, cells]`` of a ``(K, n_cells)`` array, or ``log_values(cells)`` of a
    function that gathers them (tables too large to copy into one array: A2DE)."""
    if callable(log_values):
        return np.asarray(log_values(cells), dtype=np.float64)
    return np.asarray(log_values, dtype=np.float64)[:, cells]


def _n_cells(log_values, n_cells) -> int:
    if callable(log_values):
        if n_cells is None:
            raise ValueError("n_cells must be given with log values given as a function.")
        return int(n_cells)
    return int(np.shape(log_values)[1])


def _weights_of(active: np.ndarray, log_values, initial, penalty) -> tuple[np.ndarray, np.ndarray]:
    """The active cells' log values ``(active, K)`` and starting weights (ones, or the warm
    start's where it has them), after the checks."""
    penalty = float(penalty)
    if not np.isfinite(penalty) or penalty < 0:
        raise ValueError(f"penalty must be a finite number >= 0, got {penalty!r}.")
    logs = np.ascontiguousarray(cell_values(log_values, active).T)
    k = logs.shape[1]
    if active.size * k > MAX_WEIGHTS:
        raise MemoryError(
            f"The training rows read {active.size:,} cells of {k} classes: {active.size * k:,} weights, more "
            f"than {MAX_WEIGHTS:,}. Use a model with fewer cells (naive Bayes, TAN, a lower k, AODE rather "
            "than AnDE(n=2)), fewer levels (a smaller n_bins, rare levels grouped), or weighting=None.")
    start = np.ones((active.size, k))
    if initial is not None:  # the warm start's cells that are also read here
        at, hit = initial.located(active)
        start[hit] = initial.weights[at[hit]]
    return logs, start


#: Step pairs L-BFGS keeps: at least HISTORY ...
HISTORY = 10
#: ... and up to MAX_HISTORY where an evaluation reads each weight many times, so that a
#: step's passes over the pairs stay cheap beside it (krkopt's discriminative AODE, 18
#: classes, 24,048 weights read by 1.1 million entries, five folds: 1,866 iterations in
#: 39.6 s with 10 pairs, 1,355 in 34.0 s with 40; letter's AODE, 477,308 weights read
#: about 220 times an evaluation, 29 iterations either way: 5.5 s with 10, 6.9 with 40) ...
MAX_HISTORY = 40
#: ... while the pairs take at most this many bytes (a history of HISTORY is kept whatever
#: it takes; MAX_WEIGHTS bounds it).
HISTORY_BYTES = 1 << 28
#: Entries x classes under which an evaluation is too cheap for more pairs (a step's
#: numpy calls cost 0.16 ms with 10 pairs, 0.57 with 40, on any short vector).
HISTORY_MIN_READS = 1 << 20
#: Measured costs: a step about 5 ns per pair and weight (two passes of two vector
#: operations each, memory-bound), an evaluation about 1 ns per entry and class (two
#: sparse products and the softmax), so that a step with ``m`` pairs stays within a
#: quarter of an evaluation while ``m <= entries x K / (HISTORY_COST x weights)``.
HISTORY_COST = 20


def lbfgs_history(entries: int, n_weights: int, n_classes: int) -> int:
    """The step pairs a fit of ``n_weights`` weights keeps, for designs of ``entries``
    (row, cell) entries and ``n_classes`` classes.

    More pairs take fewer iterations on a long fit, and each step makes two passes over
    them; ``m`` is the most pairs whose step stays within about a quarter of an
    evaluation (:data:`HISTORY_COST`), between :data:`HISTORY` and :data:`MAX_HISTORY`,
    within :data:`HISTORY_BYTES`; :data:`HISTORY` below :data:`HISTORY_MIN_READS`.

    Examples
    --------
    >>> lbfgs_history(1_100_000, 24_048, 18), lbfgs_history(3_000, 100, 2)
    (40, 10)
    """
    reads = int(entries) * int(n_classes)
    if reads < HISTORY_MIN_READS or n_weights <= 0:
        return HISTORY
    wanted = min(MAX_HISTORY, reads // (HISTORY_COST * n_weights), HISTORY_BYTES // (16 * n_weights))
    return int(max(HISTORY, wanted))


def minimize_weights(objective, start: np.ndarray, max_iter: int, tol: float, history: int = HISTORY):
    """scipy's L-BFGS-B, without bounds, on ``objective(x) -> (value, gradient)`` from
    ``start``: at most ``max_iter`` iterations, ``ftol = tol``, ``gtol = 100 tol`` and
    ``history`` step pairs (:func:`lbfgs_history`). Every fit of the weights, in memory
    or in passes, runs through it. Returns scipy's result and the objective at
    ``start`` (L-BFGS-B's first evaluation)."""
    first = []

    def recorded(x):
        value, grad = objective(x)
        if not first:
            first.append(value)
        return value, grad

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a failed search is caught after
        result = scipy.optimize.minimize(recorded, np.ravel(start), jac=True, method="L-BFGS-B",
                                         options={"maxiter": int(max_iter), "ftol": tol, "gtol": tol * 100,
                                                  "maxcor": int(history)})
    return result, first[0]


def _result(active, result, first: float, max_iter: int, penalty: float) -> DiscriminativeFit:
    """The fit, or the generative weights if the optimiser failed; warns when it did not converge."""
    found = result.x.reshape(active.size, -1)
    value = float(result.fun)
    ok = bool(np.isfinite(value) and np.isfinite(found).all() and np.isfinite(first) and value <= first)
    message = str(result.message)
    if not ok:
        found, value = np.ones(found.shape), first
        warn(f"The discriminative weights' optimiser failed ({message}); the generative model is "
             "kept. A larger penalty makes the problem better conditioned.", ConvergenceWarning)
    elif result.status == 1:
        warn(f"The discriminative weights did not converge in {result.nit} L-BFGS iterations "
             f"(max_iter={max_iter}); the best weights found are kept. Raise the limit "
             "(discriminative_max_iter of the estimators), or the penalty.", ConvergenceWarning)
    return DiscriminativeFit(active, found, int(result.nit), bool(ok and result.status == 0), value, float(first),
                             message, float(penalty))


def fit_weights(log_values, designs, penalty: float = 1.0, max_iter: int = DEFAULT_MAX_ITER, tol: float = 1e-7,
                initial=None, n_cells=None) -> DiscriminativeFit:
    """Cell weights that minimise the penalised negative conditional log-likelihood.

    Parameters
    ----------
    log_values : ndarray of shape (n_classes, n_cells), or callable
        ``log theta[c, m]``: the generative log-probability of each cell and class; or a
        function from cell indices to their ``(n_classes, len(cells))`` values (with
        ``n_cells``).
    designs : list of RowDesign, or callable returning an iterable of them
        The training rows; a callable is called once per evaluation (out of core).
    penalty : float, default=1.0
        ``lambda`` of ``lambda / 2 * ||w - 1||^2`` (added to the summed, not the mean,
        negative log-likelihood: a Gaussian prior of variance ``1 / lambda`` on each
        weight around the generative model).
    max_iter : int, default=500
        Most L-BFGS iterations; a :class:`~sklearn.exceptions.ConvergenceWarning` is
        issued when they run out.
    tol : float, default=1e-7
        L-BFGS's ``ftol`` (relative reduction of the objective); ``gtol`` is
        ``tol * 100``.
    initial : DiscriminativeFit, optional
        A warm start (another penalty's fit on the same cells); default all ones (the
        generative model).
    n_cells : int, optional
        Number of cells, when ``log_values`` is a function.

    Returns
    -------
    DiscriminativeFit
        The generative weights (all ones) with ``converged=False`` if the optimiser
        failed or did not improve on them (never NaN).

    Notes
    -----
    Designs held in memory are cut into blocks of rows (:data:`BLOCK_ENTRIES` entries)
    and each evaluation's blocks run on threads, as many as the process's cores
    (:func:`pybnc._utils.blas.available_cores`: at most ``OMP_NUM_THREADS``); the
    weights do not depend on the threads.

    Examples
    --------
    >>> import numpy as np, scipy.sparse
    >>> log_values = np.log([[0.5, 0.6, 0.4], [0.5, 0.4, 0.6]])   # cells: prior, x=0, x=1
    >>> a = scipy.sparse.csr_matrix(np.array([[1, 1, 0], [1, 0, 1]] * 5, dtype=float))
    >>> y = np.array([0, 1] * 5)
    >>> fit = fit_weights(log_values, [RowDesign(a, y, np.ones(10))], penalty=1.0)
    >>> bool(fit.converged), bool(fit.objective < fit.initial_objective), fit.weights.shape
    (True, True, (3, 2))
    """
    n_cells = _n_cells(log_values, n_cells)
    source = _design_source(designs)
    active, entries = _active_cells(source, n_cells)
    logs, start = _weights_of(active, log_values, initial, penalty)
    if callable(designs):
        def compact():
            return (d.on(active, n_cells) for d in designs())
        n_blocks = 1
    else:
        held = [block for d in source() for block in _kept_for_every_evaluation(d.on(active, n_cells), logs.shape[1])]
        n_blocks = len(held)

        def compact():
            return iter(held)

    with _evaluation_threads(n_blocks) as mapper:
        def objective(x):
            value, grad = penalised_objective(x.reshape(logs.shape), logs, compact, penalty, mapper)
            return value, grad.ravel()

        result, first = minimize_weights(objective, start, max_iter, tol,
                                         lbfgs_history(entries, logs.size, logs.shape[1]))
        if initial is not None:  # a warm start: the generative model's objective is at ones
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                first = objective(np.ones(logs.size))[0]
    return _result(active, result, first, max_iter, penalty)


def with_base(design: RowDesign, base: np.ndarray, log_values) -> RowDesign:
    """The design whose rows score ``base + sum of (w - 1) log theta`` over their cells:
    ``base`` (``(n, K)``, the generative model's exact log joint) replaces the sum of the
    cells at ``w = 1``. For complete rows of a network the two are equal; for rows with
    missing values (summed out exactly) and for AODE's arithmetic average they are not."""
    offset = np.asarray(base, dtype=np.float64) - design_scores(design.matrix, log_values)
    return RowDesign(design.matrix, design.y, design.sample_weight, offset)


def design_scores(matrix, log_values) -> np.ndarray:
    """``matrix @ values.T``: the score of every row and class, shape ``(n, K)``, for cell
    values of shape ``(K, n_cells)`` (or a function gathering them, as in
    :func:`fit_weights`); only the cells the rows read are gathered, unless the cells are
    no more than the entries. The same sums either way: each row's entries in their order."""
    matrix = scipy.sparse.csr_matrix(matrix)
    n_cells = matrix.shape[1]
    if n_cells <= matrix.nnz:  # gathering every cell costs less than finding the cells read (AODE's pairs)
        return matrix @ np.ascontiguousarray(cell_values(log_values, np.arange(n_cells)).T)
    used = distinct_cells(matrix.indices, n_cells)
    compact = scipy.sparse.csr_matrix((matrix.data, _positions(matrix.indices, used, n_cells), matrix.indptr),
                                      shape=(matrix.shape[0], used.size))
    return compact @ np.ascontiguousarray(cell_values(log_values, used).T)


def merge_rows(codes, y, sample_weight=None):
    """Identical rows of the same class as one row of summed weight, in sorted order: the
    objective and its gradient are unchanged (up to the order of the sums, now independent
    of the rows' order), the work shrinks (car, nursery, chess repeat few rows; large
    discretised tables many). Returns ``codes, y, sample_weight``."""
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    weight = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if y.size == 0:
        return codes, y, weight
    # always in the sorted order of the distinct rows, so that the sums (and the fit) do not
    # depend on the order the rows came in
    keys = np.column_stack([codes.astype(np.int64), y])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    merged = np.bincount(inverse.ravel(), weights=weight, minlength=unique.shape[0])
    return unique[:, :-1].astype(codes.dtype), unique[:, -1], merged


