"""The discriminative weights' optimisation driven pass by pass over blocks of rows.

The estimators learn out of core through a generator of passes
(:func:`pybnc.estimators.base.run_passes`): each ``yield`` hands out a function of one
coded block, and the sum of its results over the blocks comes back. scipy's L-BFGS wants
the opposite, a function it calls; here it runs in a helper thread whose objective asks
the generator for one pass per evaluation and waits for the sums. The optimisation is
:func:`pybnc.parameters.discriminative.fit_weights`'s, on the same sums.
"""

from __future__ import annotations

import queue
import threading

import numpy as np

from .discriminative import (DEFAULT_MAX_ITER, BlockSums, RowDesign, _lbfgs, _n_cells, _penalised, _result,
                             _weights_of)


class _Cells:
    """The cells a block of rows reads (sorted); blocks add up as the union."""

    def __init__(self, cells):
        self.cells = cells

    def __add__(self, other: "_Cells") -> "_Cells":
        return _Cells(np.union1d(self.cells, other.cells))


def fit_weights_in_passes(log_values, design_of, penalty: float = 1.0, max_iter: int = DEFAULT_MAX_ITER,
                          tol: float = 1e-7, n_cells=None):
    """:func:`fit_weights` over blocks of rows read afresh at every evaluation: a generator.

    It yields one function of a coded block ``(codes, y)`` per pass over the rows; the
    caller applies it to every block, sends back the sum of the results (``None`` for no
    block) and goes on until the generator returns the :class:`DiscriminativeFit` (as
    :func:`pybnc.estimators.base.run_passes` drives a model's passes). The first pass
    finds the cells the rows read, each further pass is one evaluation of the objective
    (scipy's L-BFGS runs in a helper thread that waits for each evaluation), so the
    result is the in-memory fit's: the sums over blocks are the sums over all rows.

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
    found = yield lambda codes, y: _Cells(design_of(codes, y).cells())
    active = found.cells if found is not None else np.empty(0, dtype=np.int64)
    logs, start = _weights_of(active, log_values, None, penalty)
    asked, answered = queue.Queue(), queue.Queue()
    stop = object()

    def objective(x):
        asked.put(("evaluate", x.reshape(logs.shape).copy()))
        reply = answered.get()
        if reply is stop:
            raise GeneratorExit
        return reply

    def optimise():
        try:
            asked.put(("done", _lbfgs(objective, start, max_iter, tol)))
        except BaseException as exc:  # reported in the generator's thread
            asked.put(("failed", exc))

    worker = threading.Thread(target=optimise, daemon=True)
    worker.start()
    first = None
    try:
        while True:
            kind, payload = asked.get()
            if kind != "evaluate":
                break
            values = payload * logs
            sums = yield lambda codes, y: design_of(codes, y).on(active, n_cells).sums(values)
            if sums is None:
                sums = BlockSums(0.0, np.zeros_like(logs), 0.0)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                value, grad = _penalised(payload, logs, sums, float(penalty))
            if first is None:
                first = value if np.all(payload == 1.0) else np.nan
            answered.put((value, grad.ravel()))
    finally:
        if worker.is_alive() and kind == "evaluate":  # closed early: end the optimiser's wait
            answered.put(stop)
        worker.join()
    if kind == "failed":
        raise payload
    if first is None or np.isnan(first):  # L-BFGS starts at ones: its first evaluation
        first = float(payload.fun)
    return _result(active, payload, first, max_iter, penalty)
