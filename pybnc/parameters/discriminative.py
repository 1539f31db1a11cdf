"""Discriminative parameters: one weight per table cell and class, for the conditional likelihood.

A generative classifier scores class ``c`` of a row by a sum of log-probabilities,
one per table it reads (the class prior, each feature's table at the row's cell). Give
every cell ``m`` and class ``c`` a weight ``w[m, c]``::

    score(c | x) = sum_m a[x, m] * w[m, c] * log theta[m, c],     P(c | x) = softmax_c score

(``a[x, m]`` is 1 when the row reads cell ``m``, 0 otherwise; an averaged model reads a
cell with the weight ``1 / (number of its estimators)``). At ``w = 1`` this is the
generative model; the weights minimise the negative conditional log-likelihood plus
``penalty / 2 * ||w - 1||^2`` (Zaidi et al., WANBIA-C, ICDM 2014; ALR^n, MLJ 2016;
MLJ 2017), by scipy's L-BFGS. The score is linear in ``w``, so the objective is convex
for every structure. Without a penalty, for naive Bayes, it is multinomial logistic
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

:func:`fit_network_weights` is the function for a network (naive Bayes, TAN, FAN,
kDB, SKDB, ...): from the structure, its generative log tables and the coded rows to
the weighted tables. Averaged models (AODE, AnDE) build their designs in
:mod:`pybnc.averaging.alr`.

Missing values
--------------
A missing feature contributes nothing: its own cell is not read. For naive Bayes
this is exactly what summing it out does (its table sums to one). A feature whose
parent is missing reads its *back-off* cell ``log P(x_i | c)`` (the naive Bayes table,
weighted like any other cell) when back-off tables are given, else nothing
(``docs/missing-values.md``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning

from ..structure.dag import Structure

#: Most weights (cells read by the training rows x classes) optimised at once: each
#: L-BFGS vector is then at most 32 MiB and its history of 10 pairs about 700 MiB.
MAX_WEIGHTS = 1 << 22
DEFAULT_MAX_ITER = 500


def default_penalty(n_rows: float) -> float:
    """The penalty ``lambda`` the estimators use when none is given.

    Examples
    --------
    >>> default_penalty(1000)
    1.0
    """
    return 1.0


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
    """

    matrix: scipy.sparse.csr_matrix
    y: np.ndarray
    sample_weight: np.ndarray


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
        scipy's message.
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


def _active_cells(source, n_cells: int) -> np.ndarray:
    """Cells read by at least one row (with a positive sample weight)."""
    seen = np.zeros(n_cells, dtype=bool)
    for design in source():
        matrix = design.matrix
        rows = np.repeat(design.sample_weight > 0, np.diff(matrix.indptr))
        seen[matrix.indices[rows & (matrix.data != 0)]] = True
    return np.flatnonzero(seen)


def _compact(design: RowDesign, active: np.ndarray, n_cells: int) -> RowDesign:
    """The design over the active cells only (their positions in ``active``)."""
    matrix = design.matrix
    if active.size == n_cells:
        return design
    columns = np.searchsorted(active, matrix.indices)
    compact = scipy.sparse.csr_matrix((matrix.data, columns, matrix.indptr), shape=(matrix.shape[0], active.size))
    return RowDesign(compact, design.y, design.sample_weight)


def conditional_nll(values: np.ndarray, source) -> tuple[float, np.ndarray, float]:
    """Weighted sum of ``-log P(y | x)`` over the designs for cell values ``values``
    (``w * log theta``, shape ``(n_cells, K)``), its gradient with respect to ``values``
    and the total sample weight."""
    total, nll = 0.0, 0.0
    gradient = np.zeros_like(values)
    for design in source():
        scores = design.matrix @ values
        top = scores.max(axis=1, keepdims=True)
        exp = np.exp(scores - top)
        norm = exp.sum(axis=1, keepdims=True)
        rows = np.arange(scores.shape[0])
        weight = design.sample_weight
        nll += float(weight @ (top[:, 0] + np.log(norm[:, 0]) - scores[rows, design.y]))
        residual = exp / norm
        residual[rows, design.y] -= 1.0
        residual *= weight[:, None]
        gradient += design.matrix.T @ residual
        total += float(weight.sum())
    return nll, gradient, total


def penalised_objective(weights, log_values, designs, penalty: float) -> tuple[float, np.ndarray]:
    """The objective :func:`fit_weights` minimises and its gradient, per unit of sample weight.

    ``(sum_rows -log P(y | x; w) + penalty / 2 * ||w - 1||^2) / sum(sample_weight)``
    for weights ``w`` and log values, both of shape ``(n_cells, K)`` (cell major, as the
    optimiser holds them); ``designs`` as in :func:`fit_weights`. Returns the value and
    the gradient, shape ``(n_cells, K)``.
    """
    nll, gradient, total = conditional_nll(weights * log_values, _design_source(designs))
    scale = 1.0 / max(total, 1e-300)
    diff = weights - 1.0
    value = (nll + 0.5 * penalty * float(np.vdot(diff, diff))) * scale
    return value, (gradient * log_values + penalty * diff) * scale


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
    from scipy.optimize import minimize  # here: only discriminative fits need it

    n_cells = _n_cells(log_values, n_cells)
    penalty = float(penalty)
    if not np.isfinite(penalty) or penalty < 0:
        raise ValueError(f"penalty must be a finite number >= 0, got {penalty!r}.")
    source = _design_source(designs)
    active = _active_cells(source, n_cells)
    logs = np.ascontiguousarray(cell_values(log_values, active).T)  # (active, K)
    k = logs.shape[1]
    if active.size * k > MAX_WEIGHTS:
        raise MemoryError(
            f"The training rows read {active.size:,} cells of {k} classes: {active.size * k:,} weights, more "
            f"than {MAX_WEIGHTS:,}. Use a model with fewer cells (naive Bayes, TAN, a lower k, AODE rather "
            "than AnDE(n=2)), fewer levels (a smaller n_bins, rare levels grouped), or weighting=None.")
    if callable(designs):
        def compact():
            return (_compact(d, active, n_cells) for d in designs())
    else:
        held = [_compact(d, active, n_cells) for d in source()]

        def compact():
            return iter(held)
    start = np.ones((active.size, k))
    if initial is not None and initial.cells.size:  # the warm start's cells that are also read here
        at = np.minimum(np.searchsorted(initial.cells, active), initial.cells.size - 1)
        hit = initial.cells[at] == active
        start[hit] = initial.weights[at[hit]]

    def objective(x):
        value, grad = penalised_objective(x.reshape(active.size, k), logs, compact, penalty)
        return value, grad.ravel()

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a failed search is caught below
        first = objective(np.ones(active.size * k))[0]
        result = minimize(objective, start.ravel(), jac=True, method="L-BFGS-B",
                          options={"maxiter": int(max_iter), "ftol": tol, "gtol": tol * 100, "maxcor": 10})
    found = result.x.reshape(active.size, k)
    value = float(result.fun)
    ok = bool(np.isfinite(value) and np.isfinite(found).all() and value <= first)
    message = str(result.message)
    if not ok:
        found, value = np.ones((active.size, k)), first
        warnings.warn(f"The discriminative weights' optimiser failed ({message}); the generative model is "
                      "kept. A larger penalty makes the problem better conditioned.", ConvergenceWarning,
                      stacklevel=2)
    elif result.status == 1:
        warnings.warn(f"The discriminative weights did not converge in {result.nit} L-BFGS iterations "
                      f"(max_iter={max_iter}); the best weights found are kept. Raise max_iter, or the "
                      "penalty.", ConvergenceWarning, stacklevel=2)
    return DiscriminativeFit(active, found, int(result.nit), bool(ok and result.status == 0), value, float(first),
                             message, penalty)


def design_scores(matrix, log_values) -> np.ndarray:
    """``matrix @ values.T``: the score of every row and class, shape ``(n, K)``, for cell
    values of shape ``(K, n_cells)`` (or a function gathering them, as in
    :func:`fit_weights`); only the cells the rows read are gathered."""
    matrix = scipy.sparse.csr_matrix(matrix)
    used, inverse = np.unique(matrix.indices, return_inverse=True)
    compact = scipy.sparse.csr_matrix((matrix.data, inverse.ravel(), matrix.indptr),
                                      shape=(matrix.shape[0], used.size))
    return compact @ np.ascontiguousarray(cell_values(log_values, used).T)


# -- networks -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NetworkCells:
    """Where each table of a network sits among the cells.

    Cell 0 is the class prior; feature ``i``'s table (``q_i * r_i`` cells, parent
    configuration major) starts at ``table_start[i]``; its back-off table ``P(x_i | c)``
    (``r_i`` cells, features with parents only) at ``back_off_start[i]`` (-1: none).
    ``features`` are the features that take part (SKDB leaves some out).
    """

    structure: Structure
    cardinalities: np.ndarray
    table_start: np.ndarray
    back_off_start: np.ndarray
    features: np.ndarray
    n_cells: int


def network_cells(structure: Structure, class_log_prior, log_cpts, back_off=None, features=None):
    """The network's log tables as one ``(K, n_cells)`` array, and their layout.

    Parameters
    ----------
    structure : Structure
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray of shape (K, q_i, r_i)
    back_off : list of ndarray of shape (K, r_i), optional
        ``log P(x_i | c)``, read for an observed feature whose parent is missing.
    features : array-like of int, optional
        The features that take part (default all).

    Returns
    -------
    log_values : ndarray of shape (K, n_cells)
    layout : NetworkCells
    """
    d = structure.n_features
    cards = np.array([np.asarray(t).shape[2] for t in log_cpts], dtype=np.int64)
    k = np.asarray(class_log_prior).shape[0]
    blocks = [np.asarray(class_log_prior, dtype=np.float64)[:, None]]
    table_start = np.full(d, -1, dtype=np.int64)
    back_off_start = np.full(d, -1, dtype=np.int64)
    used = np.arange(d) if features is None else np.sort(np.asarray(features, dtype=np.int64))
    at = 1
    for i in used:
        table = np.asarray(log_cpts[i], dtype=np.float64)
        table_start[i] = at
        blocks.append(table.reshape(k, -1))
        at += blocks[-1].shape[1]
        if back_off is not None and structure.parents[i]:
            back_off_start[i] = at
            blocks.append(np.asarray(back_off[i], dtype=np.float64).reshape(k, -1))
            at += blocks[-1].shape[1]
    layout = NetworkCells(structure, cards, table_start, back_off_start, used, at)
    return np.concatenate(blocks, axis=1), layout


def network_design(codes, layout: NetworkCells, y=None, sample_weight=None) -> RowDesign:
    """The cells each row reads: the prior, each observed feature's family cell (its back-off
    cell when a parent is missing, nothing without back-off)."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    cards = layout.cardinalities
    columns = [np.zeros(n, dtype=np.int64)]
    present = [np.ones(n, dtype=bool)]
    for i in layout.features:
        observed = codes[:, i] >= 0
        cell = np.maximum(codes[:, i], 0).astype(np.int64)
        complete = observed.copy()
        config = np.zeros(n, dtype=np.int64)
        for p in layout.structure.parents[i]:  # row-major over the parents in increasing index
            config = config * cards[p] + np.maximum(codes[:, p], 0)
            complete &= codes[:, p] >= 0
        family = layout.table_start[i] + config * cards[i] + cell
        if layout.back_off_start[i] >= 0:
            family = np.where(complete, family, layout.back_off_start[i] + cell)
            complete = observed
        columns.append(family)
        present.append(complete)
    present = np.column_stack(present)
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))])
    matrix = scipy.sparse.csr_matrix((np.ones(int(indptr[-1])), np.column_stack(columns)[present], indptr),
                                     shape=(n, layout.n_cells))
    y = np.zeros(n, dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return RowDesign(matrix, y, weight)


def split_network_values(values: np.ndarray, layout: NetworkCells, log_cpts):
    """Cell values ``(K, n_cells)`` back into ``(class_log_prior, log_cpts, back_off)`` shapes
    (features that take no part keep their tables)."""
    tables, back_off = list(log_cpts), [None] * len(log_cpts)
    for i in layout.features:
        shape = np.asarray(log_cpts[i]).shape
        start = layout.table_start[i]
        tables[i] = values[:, start : start + shape[1] * shape[2]].reshape(shape).copy()
        if layout.back_off_start[i] >= 0:
            start = layout.back_off_start[i]
            back_off[i] = values[:, start : start + shape[2]].copy()
    return values[:, 0].copy(), tables, back_off


def merge_rows(codes, y, sample_weight=None):
    """Identical rows of the same class as one row of summed weight: the objective and its
    gradient are unchanged, the work shrinks (car, nursery, chess repeat few rows; large
    discretised tables many). Returns ``codes, y, sample_weight``."""
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    weight = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if y.size == 0:
        return codes, y, weight
    keys = np.column_stack([codes.astype(np.int64), y])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    if unique.shape[0] == y.size:
        return codes, y, weight
    merged = np.bincount(inverse.ravel(), weights=weight, minlength=unique.shape[0])
    return unique[:, :-1].astype(codes.dtype), unique[:, -1], merged


def fit_network_weights(structure: Structure, class_log_prior, log_cpts, codes, y, back_off=None, features=None,
                        penalty: float = 1.0, sample_weight=None, max_iter: int = DEFAULT_MAX_ITER,
                        tol: float = 1e-7, designs=None):
    """Discriminative weights of a network's tables: the pure learner of the estimators.

    Parameters
    ----------
    structure : Structure
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray of shape (K, q_i, r_i)
        The generative log tables (the starting point).
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    y : ndarray of shape (n,), int
    back_off : list of ndarray of shape (K, r_i), optional
        ``log P(x_i | c)``, read where a feature's parent is missing.
    features : array-like of int, optional
        The features that take part (default all).
    penalty, max_iter, tol
        See :func:`fit_weights`.
    sample_weight : ndarray of shape (n,), optional
    designs : callable, optional
        Instead of ``codes``/``y``: a function yielding :class:`RowDesign` blocks afresh
        (out of core; build them with :func:`network_design` and the layout of
        :func:`network_cells`).

    Returns
    -------
    tables : tuple
        ``(class_log_prior, log_cpts, back_off)`` holding ``w * log theta``; predict with
        :func:`network_scores`.
    fit : DiscriminativeFit

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> from pybnc.parameters.learn import learn_parameters
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> x = np.where(rng.random(400) < 0.8, y, 1 - y)
    >>> codes = np.column_stack([x, x, x])  # one feature three times: naive Bayes triple-counts it
    >>> s = Structure.naive_bayes(3)
    >>> t = learn_parameters(s, count(codes, y, [2, 2, 2], 2), "bayes")
    >>> (prior, tables, _), fit = fit_network_weights(s, t.class_log_prior, t.log_cpts, codes, y, penalty=0.1)
    >>> scores = network_scores(codes, s, prior, tables)
    >>> bool(fit.converged), round(float(np.mean(scores.argmax(1) == y)), 2)
    (True, 0.8)
    """
    log_values, layout = network_cells(structure, class_log_prior, log_cpts, back_off, features)
    if designs is None:
        merged = merge_rows(codes, y, sample_weight)
        designs = [network_design(merged[0], layout, merged[1], merged[2])]
    fit = fit_weights(log_values, designs, penalty, max_iter, tol)
    return split_network_values(fit.weighted(log_values), layout, log_cpts), fit


def network_scores(codes, structure: Structure, class_log_prior, log_cpts, back_off=None, features=None):
    """``score(c | x)`` of every row under (weighted) tables, shape ``(n, K)``: the sum of the
    cells the row reads (:func:`network_design`)."""
    log_values, layout = network_cells(structure, class_log_prior, log_cpts, back_off, features)
    return design_scores(network_design(codes, layout).matrix, log_values)
