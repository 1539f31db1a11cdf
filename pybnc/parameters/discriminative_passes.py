"""The discriminative weights' optimisation driven pass by pass over blocks of rows.

The estimators learn out of core through a generator of passes
(:func:`pybnc.estimators.base.run_passes`): each ``yield`` hands out a function of one
coded block, and the sum of its results over the blocks comes back. The L-BFGS of
:mod:`pybnc.parameters.lbfgs` is itself a generator of the points it wants evaluated,
so each of its points becomes one pass. The optimisation is
:func:`pybnc.parameters.discriminative.fit_weights`'s, on the same sums.
"""

from __future__ import annotations

import numpy as np

from .discriminative import (DEFAULT_MAX_ITER, BlockSums, RowDesign, _lbfgs_options, _n_cells, _penalised, _result,
                             _weights_of, lbfgs_history)
from .lbfgs import lbfgs_steps


class _Cells:
    """The cells a block of rows reads (sorted) and its entries; blocks add up as the
    union of the cells and the sum of the entries."""

    def __init__(self, cells, entries: int):
        self.cells = cells
        self.entries = entries

    def __add__(self, other: "_Cells") -> "_Cells":
        return _Cells(np.union1d(self.cells, other.cells), self.entries + other.entries)


def _cells_of(design) -> _Cells:
    return _Cells(design.cells(), design.entries())


def fit_weights_in_passes(log_values, design_of, penalty: float = 1.0, max_iter: int = DEFAULT_MAX_ITER,
                          tol: float = 1e-7, n_cells=None):
    """:func:`fit_weights` over blocks of rows read afresh at every evaluation: a generator.

    It yields one function of a coded block ``(codes, y)`` per pass over the rows; the
    caller applies it to every block, sends back the sum of the results (``None`` for no
    block) and goes on until the generator returns the :class:`DiscriminativeFit` (as
    :func:`pybnc.estimators.base.run_passes` drives a model's passes). The first pass
    finds the cells the rows read, each further pass is one evaluation of the objective,
    so the result is the in-memory fit's: the sums over blocks are the sums over all
    rows.

    Parameters
    ----------
    log_values, penalty, max_iter, tol, n_cells
        As :func:`fit_weights`.
    design_of : callable
        ``design_of(codes, y)``: the :class:`RowDesign` of a coded block.

    Examples
    --------
    >>> import numpy as np, scipy.sparse
    >>> log_values = np.log([[0.5, 0.6, 0.4], [0.5, 0.4, 0.6]])
    >>> def design_of(codes, y):
    ...     rows = np.column_stack([np.zeros(len(y)), codes[:, 0] + 1]).astype(float)
    ...     a = scipy.sparse.csr_matrix((np.ones(2 * len(y)), rows.ravel(), np.arange(0, 2 * len(y) + 1, 2)),
    ...                                 shape=(len(y), 3))
    ...     return RowDesign(a, y, np.ones(len(y)))
    >>> blocks = [(np.array([[0], [1]] * 3), np.array([0, 1] * 3)) for _ in range(2)]
    >>> passes = fit_weights_in_passes(log_values, design_of)
    >>> step = next(passes)
    >>> try:
    ...     while True:
    ...         step = passes.send(sum((step(c, y) for c, y in blocks[1:]), step(*blocks[0])))
    ... except StopIteration as done:
    ...     fit = done.value
    >>> bool(fit.converged), fit.weights.shape
    (True, (3, 2))
    """
    n_cells = _n_cells(log_values, n_cells)
    found = yield lambda codes, y: _cells_of(design_of(codes, y))
    if found is None:
        found = _Cells(np.empty(0, dtype=np.int64), 0)
    active = found.cells
    logs, start = _weights_of(active, log_values, None, penalty)
    history = lbfgs_history(found.entries, logs.size, logs.shape[1])
    steps = lbfgs_steps(start, **_lbfgs_options(max_iter, tol, history))
    point, first = next(steps), None
    try:
        while True:
            values = point.reshape(logs.shape) * logs
            sums = yield lambda codes, y: design_of(codes, y).on(active, n_cells).sums(values)
            if sums is None:
                sums = BlockSums(0.0, np.zeros_like(logs), 0.0)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                value, grad = _penalised(point.reshape(logs.shape), logs, sums, float(penalty))
            if first is None:  # L-BFGS starts at ones: its first evaluation is the generative model's
                first = value
            point = steps.send((value, grad.ravel()))
    except StopIteration as done:
        result = done.value
    return _result(active, result, first, max_iter, penalty)
