"""Decomposable scores: what an arc gains and what a parameter costs (loglik, AIC, BIC/MDL).

Conventions follow bnclassify: higher is better,
``AIC = LL - |theta|`` and ``BIC = LL - |theta| log(N) / 2``.
"""

from __future__ import annotations

import numpy as np

from ..counts.tables import Counts
from .information import pairwise_cmi


def arc_parameters(cardinalities: np.ndarray, n_classes: int) -> np.ndarray:
    """Free parameters an augmenting arc between two features adds: ``K (r_i - 1)(r_j - 1)``."""
    r = np.asarray(cardinalities, dtype=np.float64) - 1.0
    return n_classes * np.outer(r, r)


def penalty_per_parameter(criterion: str, n_rows: float) -> float:
    """What one free parameter costs: 0 (loglik), 1 (AIC), ``log(N) / 2`` (BIC, MDL)."""
    if criterion == "loglik":
        return 0.0
    if criterion == "aic":
        return 1.0
    if criterion in ("bic", "mdl"):
        return float(np.log(n_rows) / 2.0) if n_rows > 1 else 0.0
    raise ValueError(f"criterion={criterion!r} is not one of 'loglik', 'aic', 'bic', 'mdl'.")


def ode_arc_weights(counts: Counts, criterion: str = "loglik") -> np.ndarray:
    """Score gain of each augmenting arc of a one-dependence estimator.

    ``w_ij = N I(X_i; X_j | C) - penalty * K (r_i - 1)(r_j - 1)``, symmetric: the
    gain does not depend on the arc's direction. With ``mdl`` (and ``bic``) the
    penalty is Hamine & Helman's threshold ``T_R`` times ``N``, so an arc improves
    the score exactly when its weight is positive.
    """
    weights, n_pair = pairwise_cmi(counts)
    n = counts.n_rows
    weights *= n  # in place: on wide tables every d x d temporary costs a fresh page-faulted table
    penalty = penalty_per_parameter(criterion, n)
    if penalty:
        weights -= penalty * arc_parameters(counts.cardinalities, counts.n_classes)
    # Two features never observed in the same row (one of them never observed at all,
    # say) give no evidence for an arc, and the child would lose its own counts: -inf.
    weights[n_pair == 0] = -np.inf
    np.fill_diagonal(weights, -np.inf)
    return weights


def penalised(log_likelihood: float, n_parameters: int, n_rows: float, criterion: str) -> float:
    """``LL - penalty * |theta|`` for the given criterion."""
    return float(log_likelihood - penalty_per_parameter(criterion, n_rows) * n_parameters)
