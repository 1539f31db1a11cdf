"""Class posteriors from joint log-likelihoods: the one normalisation of every classifier."""

from __future__ import annotations

import numpy as np

LOG_PROBA_FLOOR = np.log(1e-300)


def log_posterior(jll: np.ndarray) -> np.ndarray:
    """Normalise joint log-likelihoods ``(n, K)`` into log class posteriors.

    Floored at ``log(1e-300)`` so that ``exp`` never underflows to an exact 0 and
    ``log(predict_proba)`` stays equal to ``predict_log_proba``.
    """
    top = jll.max(axis=1, keepdims=True)
    log_norm = top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True))
    return np.maximum(jll - log_norm, LOG_PROBA_FLOOR)
