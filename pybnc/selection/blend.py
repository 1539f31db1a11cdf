"""A weighted average of the class posteriors of several pybnc classifiers, and the
greedy choice of its weights from out-of-fold predictions.

Averaging the posteriors of a few different Bayesian network classifiers (a naive
Bayes, a TAN, a kDB, their discriminative variants) evens out their separate
overconfidence; it is what AODE and ESKDB do within one family. :func:`ensemble_selection`
is Caruana et al.'s ensemble selection ("Ensemble selection from libraries of models",
ICML 2004): starting from the best single model, add (with replacement) the model whose
addition most lowers the log-loss of the average of the out-of-fold predictions, for a
fixed number of steps or until no addition helps; a model's weight is the share of
steps that chose it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ..averaging.ensembles import AveragedBNC
from ..evaluation.metrics import LOG_LOSS_EPS


def ensemble_selection(true_class_proba: np.ndarray, n_steps: int) -> np.ndarray:
    """Weights of the greedy ensemble of models, from each model's out-of-fold
    probability of every row's true class.

    Parameters
    ----------
    true_class_proba : ndarray of shape (n_models, n_rows)
        Model ``m``'s out-of-fold probability of row ``i``'s class.
    n_steps : int
        Additions (with replacement); the first is the model of least log-loss.

    Returns
    -------
    ndarray of shape (n_models,)
        Non-negative weights that sum to one (the share of steps that chose each
        model); one model takes all when no addition lowers the log-loss.

    Examples
    --------
    Two models that err on different rows average to a better log-loss than either:

    >>> p = np.array([[0.9, 0.9, 0.2, 0.9], [0.2, 0.9, 0.9, 0.9], [0.5, 0.5, 0.5, 0.5]])
    >>> ensemble_selection(p, n_steps=4).tolist()
    [0.5, 0.5, 0.0]
    """
    p = np.clip(np.asarray(true_class_proba, dtype=np.float64), LOG_LOSS_EPS, 1.0)
    counts = np.zeros(p.shape[0], dtype=np.int64)
    first = int(np.argmin(-np.log(p).mean(axis=1)))
    counts[first], total, loss = 1, p[first].copy(), -np.log(p[first]).mean()
    for step in range(1, int(n_steps)):
        trial = -np.log((total[None, :] + p) / (step + 1)).mean(axis=1)
        best = int(np.argmin(trial))
        if not trial[best] < loss:
            break
        counts[best] += 1
        total += p[best]
        loss = trial[best]
    return counts / counts.sum()


def ensemble_candidate(results: dict, candidates: list, y_codes: np.ndarray, folds: list, n_steps: int):
    """The greedy ensemble of the cross-validated ``candidates`` as one more candidate, with
    its per-fold scores from their out-of-fold probabilities; None when it is one of them.

    ``results[name]["proba"]`` holds each candidate's out-of-fold probabilities (None if it
    failed). The ensemble's scores are read on the folds its weights were chosen on, so they
    flatter it; it ranks as the most complex candidate, so that the one-standard-error rule
    takes it only when every single candidate is worse by more than one standard error.

    Returns
    -------
    (Candidate, dict) or None
        The candidate (an unfitted :class:`AveragedBNC` of the members with weight) and its
        ``results`` entry.
    """
    from .candidates import Candidate

    scored = [c for c in candidates if results[c.name].get("proba") is not None]
    if len(scored) < 2:
        return None
    rows = np.arange(y_codes.size)
    true_class = np.array([results[c.name]["proba"][rows, y_codes] for c in scored])
    weights = ensemble_selection(true_class, n_steps)
    kept = np.flatnonzero(weights > 0)
    if kept.size < 2:
        return None
    proba = sum(weights[i] * results[scored[i].name]["proba"] for i in kept)
    p_true = np.clip(proba[rows, y_codes], LOG_LOSS_EPS, 1.0)
    scores = {"log_loss": np.array([-np.log(p_true[test]).mean() for _, test in folds]),
              "accuracy": np.array([(proba[test].argmax(axis=1) == y_codes[test]).mean() for _, test in folds])}
    members = [scored[i] for i in kept]
    name = "ensemble: " + " + ".join(f"{weights[i]:.2f} {scored[i].name}" for i in kept)
    estimator = AveragedBNC([clone(c.estimator) for c in members], weights=[float(weights[i]) for i in kept])
    candidate = Candidate(name, estimator, max(c.complexity for c in candidates) + 1.0, round=3)
    entry = {"candidate": candidate, "scores": scores, "proba": proba, "status": "ok",
             "fit_time": float(sum(results[c.name]["fit_time"] for c in members))}
    return candidate, entry
