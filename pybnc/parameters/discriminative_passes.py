"""The discriminative weights' optimisation driven pass by pass over blocks of rows.

The estimators learn out of core through a generator of passes
(:func:`pybnc.estimators.base.run_passes`): each ``yield`` hands out a function of one
coded block, and the sum of its results over the blocks comes back. scipy's L-BFGS-B
calls its objective, so the generator asks the driver once for the function that makes
a pass (:data:`pybnc._utils.passes.PASS_MAKER`) and each evaluation is one pass. The
optimisation is :func:`pybnc.parameters.discriminative.fit_weights`'s, on the same sums.
"""

from __future__ import annotations

import numpy as np

from .._utils.passes import PASS_MAKER
from .discriminative import (DEFAULT_MAX_ITER, BlockSums, RowDesign, _n_cells, _penalised, _result, _weights_of,
                             lbfgs_history, minimize_weights)


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

    It yields one function of a coded block ``(codes, y)``, to which the caller sends
    back the sum of its results over the blocks (``None`` for no block), then
    :data:`~pybnc._utils.passes.PASS_MAKER`, to which it sends back its function making
    one such pass; it returns the :class:`DiscriminativeFit`
    (:func:`pybnc.estimators.base.run_passes` drives a model's passes so). The first
    pass finds the cells the rows read, each further pass is one evaluation of the
    objective, so the result is the in-memory fit's: the sums over blocks are the sums
    over all rows.

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
    >>> from pybnc.estimators.base import run_passes
    >>> fits = []
    >>> def learn():
    ...     fits.append((yield from fit_weights_in_passes(log_values, design_of)))
    >>> run_passes(learn(), lambda: iter(blocks))
    >>> fit = fits[0]
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
    one_pass = yield PASS_MAKER

    def objective(x):
        weights = x.reshape(logs.shape)
        values = weights * logs
        sums = one_pass(lambda codes, y: design_of(codes, y).on(active, n_cells).sums(values))
        if sums is None:
            sums = BlockSums(0.0, np.zeros_like(logs), 0.0)
        value, grad = _penalised(weights, logs, sums, float(penalty))
        return value, grad.ravel()

    # the start is all ones: L-BFGS-B's first evaluation is the generative model's objective
    result, first = minimize_weights(objective, start, max_iter, tol, history)
    return _result(active, result, first, max_iter, penalty)
