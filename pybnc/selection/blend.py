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
from sklearn.base import _fit_context, clone
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from ..estimators._fitted_state import InconsistentState, fitted_array
from ..estimators.base import BaseBNC, _check_labels, _check_table, log_posterior
from ..estimators.capabilities import Capabilities, capabilities
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


class AveragedBNC(BaseBNC):
    """The weighted average of the class posteriors of several pybnc classifiers.

    ``fit`` fits a clone of each estimator on all the rows; the posterior is
    ``sum_m weights[m] * P_m(c | x)``. :class:`pybnc.AutoBNC` builds one when an
    ensemble of its candidates beats its best single candidate.

    Parameters
    ----------
    estimators : list of pybnc classifiers, default=None
        The members (None: naive Bayes and TAN).
    weights : array-like of shape (n_estimators,), default=None
        Non-negative, normalised to sum to one (None: equal weights).

    Attributes
    ----------
    estimators_ : list
        The fitted members.
    weights_ : ndarray of shape (n_estimators,)
        The normalised weights.

    Examples
    --------
    >>> from pybnc import KDB, NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = AveragedBNC([NaiveBayes(), KDB(k=2, verbose=0)], weights=[1, 3]).fit(X, y)
    >>> model.weights_.tolist()
    [0.25, 0.75]
    >>> bool(abs(model.predict_proba(X[:1]).sum() - 1) < 1e-12)
    True
    """

    _capabilities = Capabilities(learns_from_counts=False, passes=0, pair_counts=False, learns_from_codes=False,
                                 sums_missing_exactly=False, averages_structures=True,
                                 tables_are_probabilities=False)
    _parameter_constraints = {"estimators": [list, tuple, None], "weights": ["array-like", None]}

    def __init__(self, estimators=None, weights=None):
        self.estimators = estimators
        self.weights = weights

    @_fit_context(prefer_skip_nested_validation=False)
    def _refine_capabilities(self, declared):
        # the members learn the weights, each its own way: exactly if every one weighs its counts
        members = self.estimators if self.estimators is not None else []
        exact = bool(members) and all(isinstance(m, BaseBNC) and capabilities(m).sample_weight == "counts"
                                      for m in members)
        return declared.replace(sample_weight="counts" if exact or self.estimators is None else "repeats")

    def fit(self, X, y, sample_weight=None):
        """Fit every member on ``X`` and ``y`` (with ``sample_weight``, passed to each); returns ``self``."""
        from ..estimators import TAN, NaiveBayes

        X = _check_table(X)
        y = _check_labels(y, X.shape[0])
        members = [NaiveBayes(), TAN()] if self.estimators is None else list(self.estimators)
        if not members or not all(isinstance(m, BaseBNC) for m in members):
            raise ValueError(f"estimators must be a non-empty list of pybnc classifiers, got {self.estimators!r}.")
        weights = np.ones(len(members)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        if weights.shape != (len(members),) or not np.isfinite(weights).all() or (weights < 0).any() \
                or not weights.sum() > 0:
            raise ValueError(f"weights must be {len(members)} non-negative numbers, not all zero, got "
                             f"{self.weights!r}.")
        _check_feature_names(self, X, reset=True)
        self.estimators_ = [clone(m).fit(X, y, sample_weight=sample_weight) for m in members]
        self.weights_ = weights / weights.sum()
        self.classes_ = self.estimators_[0].classes_
        self.n_features_in_ = X.shape[1]
        return self

    @property
    def encoder_(self):
        """The first member's encoder (what the columns became for it)."""
        check_is_fitted(self)
        return self.estimators_[0].encoder_

    def predict_proba(self, X) -> np.ndarray:
        """The weighted average of the members' posteriors, shape ``(n_samples, n_classes)``."""
        X = self._align(X)
        return sum(w * m.predict_proba(X) for w, m in zip(self.weights_, self.estimators_) if w > 0)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of :meth:`predict_proba` (floored at ``log(1e-300)``)."""
        return np.log(np.maximum(self.predict_proba(X), 1e-300))

    def predict(self, X) -> np.ndarray:
        """The class of highest averaged posterior (ties: the first in ``classes_``)."""
        proba = self.predict_proba(X)  # first: it raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self.predict_log_proba(X)

    # explain(): the value of a set of features is the log of the weighted mean of the
    # members' posteriors with the other features left out, each member summing them out its own way
    def _explain_rows(self, X):
        X = self._align(X)
        rows = [member._explain_rows(X) for member in self.estimators_]
        return [coded for coded, _ in rows], rows[0][1]

    def _masked_jll(self, coded, rows, keep) -> np.ndarray:
        posterior = sum(w * np.exp(log_posterior(member._masked_jll(c, rows, keep)))
                        for w, member, c in zip(self.weights_, self.estimators_, coded) if w > 0)
        return np.log(np.maximum(posterior, 1e-300))

    def _fit_encoded(self, codes, y, counts):
        raise TypeError("AveragedBNC fits its members on the raw table: call fit(X, y).")

    def _jll_encoded(self, codes):
        raise TypeError("AveragedBNC's members may encode the table their own ways: call predict_proba(X).")

    def _check_fitted_state(self) -> None:
        members = getattr(self, "estimators_", None)
        if not isinstance(members, list) or not members or not all(isinstance(m, BaseBNC) for m in members):
            raise InconsistentState("estimators_", "not a non-empty list of pybnc classifiers")
        weights = fitted_array(self, "weights_", (len(members),))
        if (weights < 0).any() or not np.isclose(weights.sum(), 1.0):
            raise InconsistentState("weights_", "not non-negative weights that sum to one")
        for i, member in enumerate(members):
            try:
                member._check_fitted_state()
            except InconsistentState as exc:
                raise InconsistentState(f"estimators_[{i}].{exc.field}", str(exc).split(": ", 1)[1]) from None
            for name in ("classes_", "n_features_in_", "feature_names_in_"):
                if not np.array_equal(np.asarray(getattr(self, name, None), dtype=object),
                                      np.asarray(getattr(member, name, None), dtype=object)):
                    raise InconsistentState(f"estimators_[{i}].{name}", f"differs from the average's {name}")


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
