"""The L-BFGS of the discriminative weights against scipy's L-BFGS-B and known minima."""

import numpy as np
import pytest
from scipy.optimize import minimize, rosen, rosen_der

from pybnc.parameters.lbfgs import lbfgs_steps, minimize_lbfgs


def _logistic(n_rows=300, n_cols=40, penalty=0.1, seed=0):
    """A penalised logistic regression: value and gradient."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n_rows, n_cols))
    y = (a @ rng.normal(size=n_cols) + rng.normal(size=n_rows) > 0).astype(float)

    def objective(w):
        z = a @ w
        value = np.logaddexp(0.0, z).sum() - y @ z + penalty / 2 * w @ w
        return value, a.T @ (1.0 / (1.0 + np.exp(-z)) - y) + penalty * w

    return objective, n_cols


@pytest.mark.parametrize("penalty", [1.0, 0.01])
def test_reaches_the_minimum_scipy_reaches(penalty):
    objective, d = _logistic(penalty=penalty)
    ours = minimize_lbfgs(objective, np.zeros(d), ftol=1e-12, gtol=1e-8, max_iter=2000)
    theirs = minimize(objective, np.zeros(d), jac=True, method="L-BFGS-B",
                      options={"ftol": 1e-14, "gtol": 1e-10, "maxiter": 5000})
    assert ours.success and ours.status == 0
    assert ours.fun == pytest.approx(theirs.fun, rel=1e-9)
    np.testing.assert_allclose(ours.x, theirs.x, atol=1e-4)
    np.testing.assert_allclose(objective(ours.x)[1], ours.jac)


def test_non_convex_rosenbrock():
    result = minimize_lbfgs(lambda x: (rosen(x), rosen_der(x)), np.array([-1.2, 1.0, -0.5, 2.0]),
                            ftol=1e-14, gtol=1e-8, max_iter=1000)
    np.testing.assert_allclose(result.x, np.ones(4), atol=1e-5)
    assert result.fun <= rosen(np.array([-1.2, 1.0, -0.5, 2.0]))


def test_out_of_domain_steps_are_shrunk():
    """A first step into the objective's infinite region is backtracked, not taken."""
    def objective(x):  # minimum at x = 0.5 inside (0, 1); infinite outside
        if not 0 < x[0] < 1:
            return np.inf, np.array([np.nan])
        return -np.log(x[0]) - np.log(1 - x[0]), np.array([-1 / x[0] + 1 / (1 - x[0])])

    result = minimize_lbfgs(objective, np.array([0.05]), gtol=1e-9)
    assert result.status == 0 and result.x[0] == pytest.approx(0.5, abs=1e-6)


def test_stops_at_max_iter_and_on_a_non_finite_start():
    objective, d = _logistic()
    result = minimize_lbfgs(objective, np.zeros(d), max_iter=2)
    assert (result.status, result.nit, result.success) == (1, 2, False)
    assert result.fun < objective(np.zeros(d))[0]
    bad = minimize_lbfgs(lambda x: (np.nan, x), np.zeros(3))
    assert bad.status == 2 and bad.nit == 0


def test_the_generator_and_the_function_driver_agree():
    objective, d = _logistic(seed=3)
    steps = lbfgs_steps(np.zeros(d))
    points = [next(steps)]
    try:
        while True:
            points.append(steps.send(objective(points[-1])))
    except StopIteration as done:
        driven = done.value
    called = minimize_lbfgs(objective, np.zeros(d))
    assert driven.nfev == called.nfev == len(points)
    np.testing.assert_array_equal(driven.x, called.x)


def _two_loop(grad, steps, changes):
    """Nocedal & Wright's Algorithm 7.4: ``-H grad`` from the pairs, oldest first."""
    q = grad.copy()
    rhos = [1.0 / (s @ y) for s, y in zip(steps, changes)]
    alphas = []
    for s, y, rho in reversed(list(zip(steps, changes, rhos))):
        alphas.append(rho * (s @ q))
        q -= alphas[-1] * y
    q *= (steps[-1] @ changes[-1]) / (changes[-1] @ changes[-1])
    for (s, y, rho), alpha in zip(zip(steps, changes, rhos), reversed(alphas)):
        q += (alpha - rho * (y @ q)) * s
    return -q


@pytest.mark.parametrize("compact", [True, False])
@pytest.mark.parametrize("size", [7, 20_000])  # the long one runs its products on one BLAS thread
def test_the_compact_direction_is_the_two_loop_recursions(size, compact, monkeypatch):
    """The kept pairs' compact inverse Hessian (and, below COMPACT_FROM weights, the memory's
    own two-loop recursion) gives the two-loop recursion's direction, through the memory's
    wrap-around (more pairs than it keeps) and a reset."""
    from pybnc.parameters import lbfgs
    from pybnc.parameters.lbfgs import _Memory

    monkeypatch.setattr(lbfgs, "COMPACT_FROM", 0 if compact else 1 << 40)

    rng = np.random.default_rng(size)
    memory, steps, changes = _Memory(4, size), [], []
    assert memory.compact == compact
    a = rng.normal(size=(size, size)) if size < 100 else None
    for k in range(7):
        s = rng.normal(size=size)
        y = a.T @ a @ s + s if a is not None else s * rng.uniform(0.5, 2.0, size)  # s'y > 0
        memory.add(s, y)
        steps, changes = (steps + [s])[-4:], (changes + [y])[-4:]
        grad = rng.normal(size=size)
        expected = _two_loop(grad, steps, changes)
        np.testing.assert_allclose(memory.direction(grad), expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
        if k == 4:  # start afresh, as the iteration does when rounding loses the descent
            memory.order, steps, changes = [], [], []
