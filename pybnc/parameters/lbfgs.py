"""Limited-memory BFGS without bounds, as a generator the caller drives point by point.

The discriminative weights (:mod:`pybnc.parameters.discriminative`) minimise a smooth
convex function of up to millions of unbounded weights. scipy's L-BFGS-B handles
bounds the weights never have, and its step costs as much as an evaluation of the
objective itself there (soybean's discriminative AODE, 218,000 weights: 40 % of the
fit in ``setulb``); the two-loop recursion below is a few vector operations per
iteration. The iteration is Nocedal & Wright's Algorithm 7.4/7.5 (Numerical
Optimization, 2nd ed., 2006): the inverse Hessian from the last ``history`` steps,
scaled by ``s'y / y'y``; a backtracking line search (Armijo's condition, quadratic
interpolation) from the unit step, which is enough for a convex objective, where every
step has ``s'y >= 0``. The stopping rules are L-BFGS-B's: the relative reduction of the
objective at most ``ftol``, or the largest gradient entry at most ``gtol``.

:func:`lbfgs_steps` yields each point it wants evaluated and is sent back the value
and gradient there, so that the caller may evaluate in one call
(:func:`minimize_lbfgs`) or in passes over blocks of rows
(:func:`pybnc.parameters.discriminative_passes.fit_weights_in_passes`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

#: Armijo's sufficient decrease, as a share of the slope times the step.
ARMIJO = 1e-4
#: Most trial steps of one line search.
MAX_BACKTRACKS = 30


@dataclass
class LBFGSResult:
    """Where :func:`lbfgs_steps` stopped; the fields are those of scipy's ``OptimizeResult``.

    ``status`` is 0 when a stopping rule was met, 1 when the iterations ran out, 2 when
    the line search found no decrease (the best point so far is kept) or the objective
    is not finite at the start.
    """

    x: np.ndarray
    fun: float
    jac: np.ndarray
    nit: int
    nfev: int
    status: int
    message: str

    @property
    def success(self) -> bool:
        return self.status == 0


#: Vectors longer than this are multiplied by einsum's single loop, not BLAS.
BLAS_DOT_MAX = 8192


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    # OpenBLAS threads its ddot on long vectors, which on a busy 2-core machine took 6 ms
    # for 218,000 entries where einsum's single loop takes 0.4; on short ones ndarray.dot
    # costs less to call
    return float(a.dot(b)) if a.size <= BLAS_DOT_MAX else float(np.einsum("i,i->", a, b))


def _direction(grad: np.ndarray, steps: np.ndarray, changes: np.ndarray, rhos: np.ndarray, order) -> np.ndarray:
    """``-H grad`` by the two-loop recursion over the kept pairs, oldest first in ``order``."""
    q = grad.copy()
    alphas = np.empty(len(order))
    for i in range(len(order) - 1, -1, -1):
        j = order[i]
        alphas[i] = rhos[j] * _dot(steps[j], q)
        q -= alphas[i] * changes[j]
    last = order[-1]
    q *= 1.0 / (rhos[last] * _dot(changes[last], changes[last]))  # s'y / y'y
    for i, j in enumerate(order):
        beta = rhos[j] * _dot(changes[j], q)
        q += (alphas[i] - beta) * steps[j]
    return np.negative(q, out=q)


def lbfgs_steps(x0, max_iter: int = 500, ftol: float = 1e-7, gtol: float = 1e-5,
                history: int = 10) -> Generator[np.ndarray, tuple, LBFGSResult]:
    """Minimise a smooth function from ``x0``: a generator of the points to evaluate.

    Each ``yield`` gives a point ``x`` (do not modify it); send back ``(value, gradient)``
    there. The generator returns an :class:`LBFGSResult` (``StopIteration.value``).

    Parameters
    ----------
    x0 : array-like
        The start; flattened to one dimension.
    max_iter : int, default=500
        Most iterations (accepted steps).
    ftol : float, default=1e-7
        Stop when ``(f_old - f_new) / max(|f_old|, |f_new|, 1) <= ftol``.
    gtol : float, default=1e-5
        Stop when every gradient entry is at most ``gtol`` in magnitude.
    history : int, default=10
        Step pairs kept for the inverse Hessian.

    Returns
    -------
    LBFGSResult
        The point of least value found, its value and gradient, the iterations and
        evaluations taken, and why it stopped.

    Examples
    --------
    >>> def f(x):  # (x0 - 1)^2 + 10 (x1 + 2)^2 and its gradient
    ...     return (x[0] - 1) ** 2 + 10 * (x[1] + 2) ** 2, np.array([2 * (x[0] - 1), 20 * (x[1] + 2)])
    >>> steps = lbfgs_steps(np.zeros(2))
    >>> x = next(steps)
    >>> try:
    ...     while True:
    ...         x = steps.send(f(x))
    ... except StopIteration as done:
    ...     result = done.value
    >>> np.round(result.x, 4).tolist(), result.status
    ([1.0, -2.0], 0)
    """
    x = np.array(x0, dtype=np.float64).ravel()
    value, grad = yield x
    value, grad, nfev = float(value), np.array(grad, dtype=np.float64).ravel(), 1
    if not (np.isfinite(value) and np.isfinite(grad).all()):
        return LBFGSResult(x, value, grad, 0, nfev, 2, "ABNORMAL: the objective is not finite at the start")
    steps, changes = np.empty((history, x.size)), np.empty((history, x.size))
    rhos, order = np.empty(history), []
    if np.abs(grad).max(initial=0.0) <= gtol:
        return LBFGSResult(x, value, grad, 0, nfev, 0, "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL")
    for iteration in range(1, int(max_iter) + 1):
        direction = _direction(grad, steps, changes, rhos, order) if order else -grad
        slope = _dot(grad, direction)
        if not slope < 0:  # rounding lost the descent: start the memory afresh
            order, direction = [], -grad
            slope = -_dot(grad, grad)
        # the first step is scaled to unit length, as L-BFGS-B's; later ones start at 1
        step = 1.0 if order else min(1.0, 1.0 / np.sqrt(-slope))
        for _ in range(MAX_BACKTRACKS):
            trial = x + step * direction
            trial_value, trial_grad = yield trial
            trial_value, nfev = float(trial_value), nfev + 1
            if np.isfinite(trial_value) and trial_value <= value + ARMIJO * step * slope:
                break
            curvature = 2.0 * (trial_value - value - slope * step)
            shrunk = -slope * step * step / curvature if np.isfinite(curvature) and curvature > 0 else 0.5 * step
            step = min(max(shrunk, 0.1 * step), 0.5 * step)
        else:
            return LBFGSResult(x, value, grad, iteration - 1, nfev, 2,
                               "ABNORMAL_TERMINATION_IN_LNSRCH: no decrease along the search direction")
        trial_grad = np.array(trial_grad, dtype=np.float64).ravel()
        change = trial_grad - grad
        curvature = _dot(change, trial - x)
        if curvature > 1e-10 * _dot(change, change):  # keep the pair only when it is positive definite
            slot = order.pop(0) if len(order) == history else len(order)
            steps[slot], changes[slot], rhos[slot] = trial - x, change, 1.0 / curvature
            order.append(slot)
        reduction = (value - trial_value) / max(abs(value), abs(trial_value), 1.0)
        x, value, grad = trial, trial_value, trial_grad
        if reduction <= ftol:
            return LBFGSResult(x, value, grad, iteration, nfev, 0, "CONVERGENCE: REL_REDUCTION_OF_F_<=_FACTR*EPSMCH")
        if np.abs(grad).max() <= gtol:
            return LBFGSResult(x, value, grad, iteration, nfev, 0, "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL")
    return LBFGSResult(x, value, grad, int(max_iter), nfev, 1, "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT")


def minimize_lbfgs(objective, x0, **options) -> LBFGSResult:
    """:func:`lbfgs_steps` with ``objective(x) -> (value, gradient)`` called at each point.

    Examples
    --------
    >>> result = minimize_lbfgs(lambda x: (float(x @ x), 2 * x), np.ones(3))
    >>> result.success, float(result.fun) < 1e-12
    (True, True)
    """
    steps = lbfgs_steps(x0, **options)
    x = next(steps)
    try:
        while True:
            x = steps.send(objective(x))
    except StopIteration as done:
        return done.value
