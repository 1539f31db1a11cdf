"""Scores of probabilistic classifiers computed from a probability matrix.

Every function takes the true classes ``y_true``, the matrix ``proba`` of
predicted class probabilities (one row per instance, one column per class,
rows summing to one, as returned by ``predict_proba``) and optionally
``classes``, the class label of each column (an estimator's ``classes_``).
Without ``classes``, ``y_true`` must hold integer column indices
``0..K-1``. Each takes ``sample_weight`` too: the mean (the sum for
:func:`log_score`) weighs each instance by it, as scikit-learn's metrics do.
"""

from __future__ import annotations

import numpy as np

__all__ = ["accuracy", "error_rate", "log_loss", "log_score", "brier_score"]

#: Lower clip of the true-class probability in :func:`log_loss`.
LOG_LOSS_EPS = 1e-15


def _prepare(y_true, proba, classes):
    """Validate inputs; return the column index of each true class and proba."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2:
        raise ValueError(f"proba must be 2-D (n_samples, n_classes), got shape {proba.shape}")
    if not np.all(np.isfinite(proba)) or np.any(proba < 0) or np.any(proba > 1):
        raise ValueError("proba must hold finite probabilities in [0, 1]")
    # Catches log-probabilities or unnormalised scores passed by mistake.
    if not np.allclose(proba.sum(axis=1), 1.0, rtol=0.0, atol=1e-4):
        raise ValueError("each row of proba must sum to 1")
    y_true = np.asarray(y_true)
    if y_true.ndim != 1 or y_true.shape[0] != proba.shape[0]:
        raise ValueError(
            f"y_true must be 1-D with {proba.shape[0]} entries, got shape {y_true.shape}"
        )
    if y_true.shape[0] == 0:
        raise ValueError("cannot score an empty set of predictions")
    if classes is None:
        if not np.issubdtype(y_true.dtype, np.integer):
            raise ValueError("without classes, y_true must hold integer column indices")
        idx = y_true.astype(np.intp)
        if idx.min() < 0 or idx.max() >= proba.shape[1]:
            raise ValueError(f"class codes must lie in 0..{proba.shape[1] - 1}")
        return idx, proba
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] != proba.shape[1]:
        raise ValueError(f"classes must name the {proba.shape[1]} columns of proba")
    order = np.argsort(classes, kind="stable")
    pos = np.searchsorted(classes[order], y_true)
    pos = np.clip(pos, 0, classes.shape[0] - 1)
    idx = order[pos]
    unknown = classes[idx] != y_true
    if np.any(unknown):
        raise ValueError(f"y_true holds labels not in classes: {np.unique(y_true[unknown])!r}")
    return idx, proba


def _weighted_mean(values: np.ndarray, sample_weight) -> float:
    """The mean of ``values``, weighted by ``sample_weight`` (NaN when every weight is 0)."""
    if sample_weight is None:
        return float(np.mean(values))
    weights = _weights(sample_weight, values.shape[0])
    if not weights.sum() > 0:
        return float("nan")
    kept = weights > 0  # a row of weight 0 is absent, whatever its value (an infinite loss)
    return float(np.average(values[kept], weights=weights[kept]))


def _weights(sample_weight, n: int) -> np.ndarray:
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != (n,) or not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError(f"sample_weight must be {n} finite non-negative numbers, one per instance.")
    return weights


def _true_class_proba(y_true, proba, classes):
    idx, proba = _prepare(y_true, proba, classes)
    return proba[np.arange(idx.shape[0]), idx]


def accuracy(y_true, proba, classes=None, sample_weight=None) -> float:
    """Fraction of instances whose most probable class is the true class.

    Ties between classes go to the first column, as ``numpy.argmax`` does.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    proba : array-like of shape (n, K)
    classes : array-like of shape (K,), optional

    Returns
    -------
    float

    Examples
    --------
    >>> accuracy([0, 1, 1], [[0.8, 0.2], [0.4, 0.6], [0.7, 0.3]])
    0.6666666666666666
    >>> accuracy([0, 1, 1], [[0.8, 0.2], [0.4, 0.6], [0.7, 0.3]], sample_weight=[1, 1, 2])
    0.5
    """
    idx, proba = _prepare(y_true, proba, classes)
    return _weighted_mean(np.argmax(proba, axis=1) == idx, sample_weight)


def error_rate(y_true, proba, classes=None, sample_weight=None) -> float:
    """Fraction of misclassified instances, ``1 - accuracy``.

    Examples
    --------
    >>> error_rate(["a", "b"], [[0.8, 0.2], [0.9, 0.1]], classes=["a", "b"])
    0.5
    """
    return 1.0 - accuracy(y_true, proba, classes, sample_weight)


def log_loss(y_true, proba, classes=None, sample_weight=None) -> float:
    """Mean negative natural log of the probability of the true class.

    ``mean(-ln(max(p_true, 1e-15)))``: the probability given to the true class
    is clipped below at ``LOG_LOSS_EPS = 1e-15`` so that a confident mistake
    costs about 34.5 nats instead of infinity.  Rows are not renormalised.

    Examples
    --------
    >>> round(log_loss([0, 1], [[0.5, 0.5], [0.75, 0.25]]), 6)
    1.039721
    """
    p = _true_class_proba(y_true, proba, classes)
    return _weighted_mean(-np.log(np.maximum(p, LOG_LOSS_EPS)), sample_weight)


def log_score(y_true, proba, classes=None, base=np.e, sample_weight=None) -> float:
    """LogScore of Cerquides & Lopez de Mantaras (2003), equation 30.

    ``LogScore(M, D') = sum over (S, s_C) in D' of -log P(C = s_C | V = S, M)``:
    the *sum* (not the mean) over the test set of minus the log probability
    of the correct class, so smaller is better and the value grows with the
    test set size.  The paper does not state the base of the logarithm;
    natural log is the default, ``base=2`` gives bits.  As in the paper,
    nothing is clipped: a zero probability for a true class gives ``inf``
    (use :func:`log_loss` for a clipped, size-independent mean).

    Parameters
    ----------
    y_true : array-like of shape (n,)
    proba : array-like of shape (n, K)
    classes : array-like of shape (K,), optional
    base : float, default=e
        Base of the logarithm.

    Returns
    -------
    float

    Examples
    --------
    >>> log_score([0, 1], [[0.5, 0.5], [0.75, 0.25]], base=2)
    3.0
    """
    if not base > 0 or base == 1:
        raise ValueError(f"base must be positive and not 1, got {base!r}")
    p = _true_class_proba(y_true, proba, classes)
    weights = np.ones(p.shape[0]) if sample_weight is None else _weights(sample_weight, p.shape[0])
    kept = weights > 0
    with np.errstate(divide="ignore"):
        return float(-np.sum(weights[kept] * np.log(p[kept])) / np.log(base)) if sample_weight is not None \
            else float(-np.sum(np.log(p)) / np.log(base))


def brier_score(y_true, proba, classes=None, sample_weight=None) -> float:
    """Multi-class Brier score.

    Mean over instances of ``sum_k (p_k - [k == true class])^2``; it lies in
    ``[0, 2]`` and smaller is better.

    Examples
    --------
    >>> round(brier_score([0, 1], [[0.8, 0.2], [0.5, 0.5]]), 6)
    0.29
    """
    idx, proba = _prepare(y_true, proba, classes)
    onehot = np.zeros_like(proba)
    onehot[np.arange(idx.shape[0]), idx] = 1.0
    return _weighted_mean(np.sum((proba - onehot) ** 2, axis=1), sample_weight)
