"""Limited-memory BFGS without bounds, as a generator the caller drives point by point.

The discriminative weights (:mod:`pybnc.parameters.discriminative`) minimise a smooth
convex function of up to millions of unbounded weights, in memory or in passes over
blocks of rows that the caller drives (a stream, a Dask frame). scipy's L-BFGS-B calls
its objective, so it cannot hand a point to a pass and wait; one optimiser for both
keeps a fit in passes equal to the fit in memory (in memory scipy's was not faster:
0.9 to 1.4 times this one's fit time, ``benchmarks/bench_lbfgs.py``).

The iteration is Nocedal & Wright's Algorithm 7.5 (Numerical
Optimization, 2nd ed., 2006): the inverse Hessian from the last ``history`` steps,
scaled by ``s'y / y'y``, applied in its compact form (Byrd, Nocedal & Schnabel,
Math. Programming 63, 1994, eq. 3.1), which is the two-loop recursion's product in
three passes over the kept pairs (two matrix products for the direction, one for a new
pair's inner products) rather than forty vector operations; a backtracking line search
(Armijo's condition, quadratic interpolation) from the unit step, which is enough for a
convex objective, where every step has ``s'y >= 0``. The stopping rules are L-BFGS-B's:
the relative reduction of the objective at most ``ftol``, or the largest gradient entry
at most ``gtol``.

:func:`lbfgs_steps` yields each point it wants evaluated and is sent back the value
and gradient there, so that the caller may evaluate in one call
(:func:`minimize_lbfgs`) or in passes over blocks of rows
(:func:`pybnc.parameters.discriminative_passes.fit_weights_in_passes`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .._utils.blas import one_blas_thread

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


#: Vectors longer than this are multiplied by einsum's single loop (dot) or on one BLAS
#: thread (the kept pairs' products), not by a threaded BLAS.
BLAS_DOT_MAX = 8192


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    # OpenBLAS threads its ddot on long vectors, which on a busy 2-core machine took 6 ms
    # for 218,000 entries where einsum's single loop takes 0.4; on short ones ndarray.dot
    # costs less to call
    return float(a.dot(b)) if a.size <= BLAS_DOT_MAX else float(np.einsum("i,i->", a, b))


def _product(left: np.ndarray, right: np.ndarray, long: bool) -> np.ndarray:
    """``left @ right`` with the kept pairs: on one BLAS thread where the vectors are ``long``."""
    if not long:
        return left @ right
    with one_blas_thread():
        return left @ right


#: From this many weights the direction is the compact form's matrix products; below it
#: the two-loop recursion's vector operations cost less (one step with 10 pairs, against
#: the compact form: 528 weights 0.14 / 0.26 ms, 147,022 6.2 / 7.8 ms, 700,000 51.4 /
#: 34.7 ms).
COMPACT_FROM = 1 << 18


class _Memory:
    """The last ``history`` step pairs ``(s, y)`` and their inner products.

    ``pairs`` holds the steps in rows ``[0, history)`` and the gradient changes in rows
    ``[history, 2 history)``, a pair's two rows at the same slot; ``s_y[i, j] = s_i'y_j``
    and ``y_y[i, j] = y_i'y_j`` over slots; ``order`` lists the slots in use, oldest first.
    """

    def __init__(self, history: int, size: int):
        self.history = history
        self.pairs = np.zeros((2 * history, size))  # unused rows stay zero: their products are
        self.s_y = np.zeros((history, history))    # read, with a coefficient of zero
        self.y_y = np.zeros((history, history))
        self.order: list[int] = []
        self.long = size > BLAS_DOT_MAX
        self.compact = size >= COMPACT_FROM

    def add(self, step: np.ndarray, change: np.ndarray) -> None:
        """Keep a pair, in place of the oldest when the memory is full."""
        h = self.history
        slot = self.order.pop(0) if len(self.order) == h else len(self.order)
        self.pairs[slot], self.pairs[h + slot] = step, change
        if self.compact:
            with_step, with_change = _product(self.pairs, self.pairs[[slot, h + slot]].T, self.long).T
            self.s_y[slot, :] = with_step[h:]  # s_new' y_j
            self.s_y[:, slot] = with_change[:h]  # s_i' y_new
            self.y_y[slot, :] = self.y_y[:, slot] = with_change[h:]
        else:  # the two-loop recursion reads each pair's own products only
            self.s_y[slot, slot], self.y_y[slot, slot] = _dot(step, change), _dot(change, change)
        self.order.append(slot)

    def direction(self, grad: np.ndarray) -> np.ndarray:
        """``-H grad`` for the two-loop recursion's ``H``, in the compact form
        ``H = g I + [S gY] M [S gY]'`` (``g = s'y / y'y`` of the newest pair; ``M`` from
        ``R``, the upper triangle of ``S'Y``, and ``Y'Y``), the pairs oldest first; by the
        two-loop recursion itself below :data:`COMPACT_FROM` weights."""
        if not self.compact:
            return self._two_loop(grad)
        h, kept = self.history, np.asarray(self.order)
        with_grad = _product(self.pairs, grad, self.long)
        s_grad, y_grad = with_grad[kept], with_grad[h + kept]
        s_y = self.s_y[np.ix_(kept, kept)]
        newest = kept[-1]
        scale = self.s_y[newest, newest] / self.y_y[newest, newest]
        upper = np.triu(s_y)  # R: s_i'y_j for i <= j
        u = scipy.linalg.solve_triangular(upper, s_grad)
        p = scipy.linalg.solve_triangular(
            upper, np.diag(s_y) * u + scale * (self.y_y[np.ix_(kept, kept)] @ u - y_grad), trans="T")
        coefficients = np.zeros(2 * h)
        coefficients[kept], coefficients[h + kept] = p, -scale * u
        direction = _product(coefficients, self.pairs, self.long)
        direction += scale * grad
        return np.negative(direction, out=direction)

    def _two_loop(self, grad: np.ndarray) -> np.ndarray:
        """``-H grad`` by Nocedal & Wright's Algorithm 7.4 over the kept pairs."""
        h, q = self.history, grad.copy()
        alphas = np.empty(len(self.order))
        for i in range(len(self.order) - 1, -1, -1):
            j = self.order[i]
            alphas[i] = _dot(self.pairs[j], q) / self.s_y[j, j]
            q -= alphas[i] * self.pairs[h + j]
        newest = self.order[-1]
        q *= self.s_y[newest, newest] / self.y_y[newest, newest]  # s'y / y'y
        for i, j in enumerate(self.order):
            beta = _dot(self.pairs[h + j], q) / self.s_y[j, j]
            q += (alphas[i] - beta) * self.pairs[j]
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
    memory = _Memory(history, x.size)
    if np.abs(grad).max(initial=0.0) <= gtol:
        return LBFGSResult(x, value, grad, 0, nfev, 0, "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL")
    for iteration in range(1, int(max_iter) + 1):
        direction = memory.direction(grad) if memory.order else -grad
        slope = _dot(grad, direction)
        if not slope < 0:  # rounding lost the descent: start the memory afresh
            memory.order, direction = [], -grad
            slope = -_dot(grad, grad)
        # the first step is scaled to unit length, as L-BFGS-B's; later ones start at 1
        step = 1.0 if memory.order else min(1.0, 1.0 / np.sqrt(-slope))
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
        moved = trial - x
        if _dot(change, moved) > 1e-10 * _dot(change, change):  # keep the pair only when it is positive definite
            memory.add(moved, change)
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
