"""A weighted average of the class posteriors of several pybnc classifiers, and the
greedy choice of its weights from out-of-fold predictions.

Averaging the posteriors of a few different Bayesian network classifiers (a naive
Bayes, a TAN, a kDB, their discriminative variants) evens out their separate
overconfidence; it is what AODE and ESKDB do within one family. :func:`ensemble_selection`
is Caruana et al.'s ensemble selection ("Ensemble selection from libraries of models",
ICML 2004): starting from the best single model, add (with replacement) the model whose
addition most lowers the log-loss of the average of the out-of-fold predictions, for a
fixed number of steps or until no addition helps; a model's weight is the share of
steps that chose it. :func:`log_pool_selection` makes the same choice for posteriors
pooled in log space (their weighted geometric mean, normalised), where the members'
log-odds add.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax
from sklearn.base import clone

from ..averaging.ensembles import AveragedBNC
from ..evaluation.metrics import LOG_LOSS_EPS


#: The ways :func:`ensemble_candidates` pools the chosen candidates' posteriors
#: (:class:`~pybnc.averaging.AveragedBNC`'s ``pooling``); each makes one candidate.
POOLINGS = ("linear", "log")
#: Cells of the candidates' pooled posteriors held at once by :func:`log_pool_selection`.
_POOL_BLOCK_CELLS = 1 << 23


def _greedy(losses_after_adding, first_losses: np.ndarray, n_steps: int) -> np.ndarray:
    """The share of ``n_steps`` greedy additions (with replacement) that chose each model:
    start from the model of least ``first_losses``, then add the model whose addition
    gives the least ``losses_after_adding(counts, step)`` while that lowers the loss."""
    counts = np.zeros(first_losses.shape[0], dtype=np.int64)
    first = int(np.argmin(first_losses))
    counts[first], loss = 1, first_losses[first]
    for step in range(1, int(n_steps)):
        trial = losses_after_adding(counts, step)
        best = int(np.argmin(trial))
        if not trial[best] < loss:
            break
        counts[best] += 1
        loss = trial[best]
    return counts / counts.sum()


def ensemble_selection(true_class_proba: np.ndarray, n_steps: int) -> np.ndarray:
    """Weights of the greedy ensemble of models (their posteriors averaged), from each
    model's out-of-fold probability of every row's true class.

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

    def after_adding(counts, step):
        return -np.log((counts @ p + p) / (step + 1)).mean(axis=1)

    return _greedy(after_adding, -np.log(p).mean(axis=1), n_steps)


def log_pool_selection(proba: np.ndarray, y_codes: np.ndarray, n_steps: int) -> np.ndarray:
    """Weights of the greedy ensemble of models whose posteriors are pooled in log space
    (``P(c | x) ∝ prod_m P_m(c | x)^{w_m}``), from their out-of-fold posteriors.

    Parameters
    ----------
    proba : ndarray of shape (n_models, n_rows, n_classes)
        Model ``m``'s out-of-fold posterior of each row.
    y_codes : ndarray of shape (n_rows,)
        Each row's class, a column of ``proba``.
    n_steps : int
        Additions (with replacement); the first is the model of least log-loss.

    Returns
    -------
    ndarray of shape (n_models,)
        As :func:`ensemble_selection`'s.

    Examples
    --------
    Each model is wrong on the row the other is sure of; pooled in log space, the sure
    one wins on both rows:

    >>> p = np.array([[[0.9, 0.1], [0.6, 0.4]], [[0.4, 0.6], [0.1, 0.9]]])
    >>> log_pool_selection(p, np.array([0, 1]), n_steps=4).tolist()
    [0.5, 0.5]
    """
    logs = np.log(np.clip(np.asarray(proba, dtype=np.float64), LOG_LOSS_EPS, 1.0))
    true_logs = logs[:, np.arange(logs.shape[1]), y_codes]  # (n_models, n_rows)
    per_block = max(1, _POOL_BLOCK_CELLS // max(logs[0].size, 1))  # models pooled at once

    def losses(total, total_true, scale):  # the log-loss of (total + each model's logs) * scale
        out = np.empty(logs.shape[0])
        for start in range(0, logs.shape[0], per_block):
            # a convex combination of logs in [log(eps), 0]: exp neither overflows nor
            # underflows to a zero sum, so no shift by the largest value is needed
            pooled = np.add(total, logs[start:start + per_block])
            pooled *= scale
            np.exp(pooled, out=pooled)
            true_class = (total_true + true_logs[start:start + per_block]) * scale
            out[start:start + per_block] = (np.log(pooled.sum(axis=-1)) - true_class).mean(axis=-1)
        return out

    def after_adding(counts, step):
        chosen = np.flatnonzero(counts)  # the few models chosen so far
        weights = counts[chosen].astype(np.float64)
        return losses(np.tensordot(weights, logs[chosen], axes=1), weights @ true_logs[chosen], 1.0 / (step + 1))

    return _greedy(after_adding, losses(0.0, 0.0, 1.0), n_steps)


def ensemble_candidates(results: dict, candidates: list, y_codes: np.ndarray, folds: list, n_steps: int) -> list:
    """The greedy ensembles of the cross-validated ``candidates``, one per way of pooling
    (:data:`POOLINGS`) whose choice holds two candidates or more, as more candidates with
    their per-fold scores from their out-of-fold probabilities.

    ``results[name]["proba"]`` holds each candidate's out-of-fold probabilities (None if it
    failed). An ensemble's scores are read on the folds its weights were chosen on, so they
    flatter it; it ranks as the most complex candidate, so that the one-standard-error rule
    takes it only when every single candidate is worse by more than one standard error.

    Returns
    -------
    list of (Candidate, dict)
        Each candidate (an unfitted :class:`AveragedBNC` of the members with weight) and
        its ``results`` entry.
    """
    from .candidates import Candidate

    scored = [c for c in candidates if results[c.name].get("proba") is not None]
    if len(scored) < 2:
        return []
    proba = np.array([results[c.name]["proba"] for c in scored])
    out = []
    for pooling in POOLINGS:
        if pooling == "log":
            weights = log_pool_selection(proba, y_codes, n_steps)
        else:
            weights = ensemble_selection(proba[:, np.arange(y_codes.size), y_codes], n_steps)
        kept = np.flatnonzero(weights > 0)
        if kept.size < 2:
            continue
        pooled = _pooled(proba, weights, pooling)
        p_true = np.clip(pooled[np.arange(y_codes.size), y_codes], LOG_LOSS_EPS, 1.0)
        scores = {"log_loss": np.array([-np.log(p_true[test]).mean() for _, test in folds]),
                  "accuracy": np.array([(pooled[test].argmax(axis=1) == y_codes[test]).mean() for _, test in folds])}
        members = [scored[i] for i in kept]
        kind = "ensemble" if pooling == "linear" else "log-pooled ensemble"
        name = f"{kind}: " + " + ".join(f"{weights[i]:.2f} {scored[i].name}" for i in kept)
        estimator = AveragedBNC([clone(c.estimator) for c in members], weights=[float(weights[i]) for i in kept],
                                pooling=pooling)
        candidate = Candidate(name, estimator, max(c.complexity for c in candidates) + 1.0, round=3)
        out.append((candidate, {"candidate": candidate, "scores": scores, "proba": pooled, "status": "ok",
                                "fit_time": float(sum(results[c.name]["fit_time"] for c in members))}))
    return out


def _pooled(proba: np.ndarray, weights: np.ndarray, pooling: str) -> np.ndarray:
    """The candidates' ``proba`` ``(n_models, n_rows, n_classes)`` pooled with ``weights``."""
    kept = np.flatnonzero(weights > 0)
    if pooling == "log":
        logs = np.log(np.clip(proba[kept], LOG_LOSS_EPS, 1.0))
        return np.exp(log_softmax(np.tensordot(weights[kept], logs, axes=1), axis=1))
    return np.tensordot(weights[kept], proba[kept], axes=1)
