"""Temperature scaling: one number that makes a classifier's probabilities as sharp as
its held-out rows say they should be (Guo et al., "On calibration of modern neural
networks", ICML 2017, sec. 4.2).

The tempered posterior is ``P(c | x)^(1/T)`` normalised over the classes: ``T > 1``
softens an overconfident model, ``T < 1`` sharpens an underconfident one, and the
order of the classes, so the predicted class, never changes. ``T`` minimises the
log-loss of out-of-fold probabilities, which the model did not see when it made them.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

from ..evaluation.metrics import LOG_LOSS_EPS

#: The temperatures considered: a wider range only follows the noise of a few rows.
TEMPERATURE_RANGE = (0.25, 4.0)


def fit_temperature(proba: np.ndarray, y_codes: np.ndarray) -> float:
    """The temperature of least log-loss of ``proba`` on the classes ``y_codes``.

    Parameters
    ----------
    proba : ndarray of shape (n_rows, n_classes)
        Out-of-fold class probabilities; rows of zeros (rows no fold held out) are
        left out.
    y_codes : ndarray of shape (n_rows,)
        Each row's class, a column of ``proba``.

    Returns
    -------
    float
        ``T`` in :data:`TEMPERATURE_RANGE`; 1.0 when no row is held out or when
        tempering lowers the log-loss by less than 1e-4 per row.

    Examples
    --------
    Probabilities of 0.99 that are right on four rows of five are overconfident:

    >>> proba = np.array([[0.99, 0.01]] * 4 + [[0.01, 0.99]])
    >>> t = fit_temperature(proba, np.array([0, 0, 0, 0, 0]))
    >>> bool(t > 1)
    True
    >>> fit_temperature(np.array([[0.8, 0.2], [0.3, 0.7]]), np.array([0, 1])) < 1
    True
    """
    proba = np.asarray(proba, dtype=np.float64)
    held = proba.sum(axis=1) > 0
    if not held.any():
        return 1.0
    log_p = np.log(np.clip(proba[held], LOG_LOSS_EPS, 1.0))
    rows, classes = np.arange(log_p.shape[0]), np.asarray(y_codes)[held]

    def loss(log_t: float) -> float:
        return float(-log_softmax(log_p / np.exp(log_t), axis=1)[rows, classes].mean())

    low, high = np.log(TEMPERATURE_RANGE[0]), np.log(TEMPERATURE_RANGE[1])
    best = minimize_scalar(loss, bounds=(low, high), method="bounded", options={"xatol": 1e-3})
    if not loss(best.x) < loss(0.0) - 1e-4:
        return 1.0
    return float(np.exp(best.x))
