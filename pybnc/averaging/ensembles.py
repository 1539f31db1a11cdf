"""Averages of the class posteriors of several fitted pybnc classifiers.

:class:`AveragedBNC` averages given members with given weights (what
:class:`pybnc.AutoBNC` builds from its greedy ensemble of candidates);
:class:`BaggedBNC` averages copies of one learner, each fitted on a bootstrap sample
of the rows (Breiman, "Bagging predictors", Machine Learning 24, 1996). Both predict
``sum_m w_m P_m(c | x)`` (the linear pool) and explain it through each member's own
treatment of the features left out; :class:`AveragedBNC` also pools in log space,
``P(c | x) ∝ prod_m P_m(c | x)^{w_m}`` (the logarithmic pool, ``pooling="log"``; Genest &
Zidek, "Combining probability distributions", Statistical Science 1, 1986), where a class
that one member finds unlikely stays unlikely: the members' log-odds add, as the terms of
one network's joint log-likelihood do.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from joblib import delayed
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils.validation import HasMethods, Interval, StrOptions, fit_context
from .._utils.sample_weight import check_sample_weight, repeat_rows, take_rows
from .._utils.parallel import run_jobs
from ..encode.labels import class_codes
from ..estimators import TAN, NaiveBayes
from ..estimators._fitted_state import InconsistentState, fitted_array
from ..estimators.base import BaseBNC, _check_labels, _check_table, log_posterior
from ..estimators.capabilities import Capabilities, capabilities


class _PosteriorMean(BaseBNC):
    """What every average of members' posteriors shares once fitted: ``estimators_``
    (fitted pybnc classifiers with the same classes) and ``weights_`` (summing to one)."""

    _capabilities = Capabilities(learns_from_counts=False, passes=0, pair_counts=False, learns_from_codes=False,
                                 sums_missing_exactly=False, averages_structures=True,
                                 tables_are_probabilities=False)

    def _adopt(self, members: list, weights: np.ndarray, X) -> None:
        self.estimators_ = members
        self.weights_ = weights / weights.sum()
        self.classes_ = members[0].classes_
        self.n_features_in_ = X.shape[1]

    @property
    def encoder_(self):
        """The first member's encoder (what the columns became for it)."""
        check_is_fitted(self)
        return self.estimators_[0].encoder_

    def _pools_logs(self) -> bool:
        return getattr(self, "pooling", "linear") == "log"

    def predict_proba(self, X) -> np.ndarray:
        """The members' posteriors pooled with their weights, shape ``(n_samples, n_classes)``."""
        if self._pools_logs():
            return np.exp(self.predict_log_proba(X))
        X = self._align(X)
        return sum(w * m.predict_proba(X) for w, m in zip(self.weights_, self.estimators_) if w > 0)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of :meth:`predict_proba` (the linear pool's floored at ``log(1e-300)``)."""
        if self._pools_logs():
            X = self._align(X)
            return log_posterior(sum(w * m.predict_log_proba(X) for w, m in zip(self.weights_, self.estimators_)
                                     if w > 0))
        return np.log(np.maximum(self.predict_proba(X), 1e-300))

    def predict(self, X) -> np.ndarray:
        """The class of highest averaged posterior (ties: the first in ``classes_``)."""
        proba = self.predict_proba(X)  # first: it raises NotFittedError before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self.predict_log_proba(X)

    # explain(): the value of a set of features is the log of the pooled posteriors of the
    # members with the other features left out, each member summing them out its own way
    def _explain_rows(self, X):
        X = self._align(X)
        rows = [member._explain_rows(X) for member in self.estimators_]
        return [coded for coded, _ in rows], rows[0][1]

    def _masked_jll(self, coded, rows, keep) -> np.ndarray:
        if self._pools_logs():
            return sum(w * log_posterior(member._masked_jll(c, rows, keep))
                       for w, member, c in zip(self.weights_, self.estimators_, coded) if w > 0)
        posterior = sum(w * np.exp(log_posterior(member._masked_jll(c, rows, keep)))
                        for w, member, c in zip(self.weights_, self.estimators_, coded) if w > 0)
        return np.log(np.maximum(posterior, 1e-300))

    def _fit_encoded(self, codes, y, counts):
        raise TypeError(f"{type(self).__name__} fits its members on the raw table: call fit(X, y).")

    def _jll_encoded(self, codes):
        raise TypeError(f"{type(self).__name__}'s members may encode the table their own ways: call "
                        "predict_proba(X).")

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


class AveragedBNC(_PosteriorMean):
    """The weighted average of the class posteriors of several pybnc classifiers.

    ``fit`` fits a clone of each estimator on all the rows; the posterior is
    ``sum_m weights[m] * P_m(c | x)`` (``pooling="linear"``) or proportional to
    ``prod_m P_m(c | x)^weights[m]`` (``pooling="log"``). :class:`pybnc.AutoBNC` builds
    one when an ensemble of its candidates beats its best single candidate.

    Parameters
    ----------
    estimators : list of pybnc classifiers, default=None
        The members (None: naive Bayes and TAN).
    weights : array-like of shape (n_estimators,), default=None
        Non-negative, normalised to sum to one (None: equal weights).
    n_jobs : int, default=None
        Members fitted at once on joblib's threads (``-1``: all cores; None: one after
        another; ``joblib.parallel_config`` may choose processes,
        :mod:`pybnc._utils.parallel`). The members do not depend
        on it.
    pooling : {"linear", "log"}, default="linear"
        How the posteriors combine: their weighted mean, or their weighted geometric
        mean normalised over the classes (the members' log-posteriors add with the
        weights, so that a class one member rules out stays ruled out).

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
    >>> pooled = AveragedBNC([NaiveBayes(), KDB(k=2, verbose=0)], weights=[1, 3], pooling="log").fit(X, y)
    >>> bool(abs(pooled.predict_proba(X[:1]).sum() - 1) < 1e-12)
    True
    """

    _parameter_constraints = {"estimators": [list, tuple, None], "weights": ["array-like", None],
                              "n_jobs": [Integral, None], "pooling": [StrOptions({"linear", "log"})]}

    def __init__(self, estimators=None, weights=None, n_jobs=None, pooling="linear"):
        self.estimators = estimators
        self.weights = weights
        self.n_jobs = n_jobs
        self.pooling = pooling

    def _refine_capabilities(self, declared):
        # the members learn the weights, each its own way: exactly if every one weighs its counts
        members = self.estimators if self.estimators is not None else []
        exact = bool(members) and all(isinstance(m, BaseBNC) and capabilities(m).sample_weight == "counts"
                                      for m in members)
        return declared.replace(sample_weight="counts" if exact or self.estimators is None else "repeats")

    @fit_context(skip_nested_validation=False)  # the members check their own parameters
    def fit(self, X, y, sample_weight=None):
        """Fit every member on ``X`` and ``y`` (with ``sample_weight``, passed to each); returns ``self``."""
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
        validate_data(self, X, skip_check_array=True)  # feature_names_in_, n_features_in_
        fitted = run_jobs((delayed(_fitted_clone)(m, X, y, sample_weight) for m in members), self.n_jobs)
        self._adopt(fitted, weights, X)
        return self


def _fitted_clone(estimator, X, y, sample_weight):
    return clone(estimator).fit(X, y, sample_weight=sample_weight)


def stratified_bootstrap(y_codes: np.ndarray, rng) -> np.ndarray:
    """How many times each row is drawn by a bootstrap sample that draws, within each
    class, as many rows as the class has (so every class keeps its rows' count).

    Examples
    --------
    >>> draws = stratified_bootstrap(np.array([0, 0, 0, 1, 1]), np.random.RandomState(0))
    >>> int(draws.sum()), int(draws[:3].sum()), int(draws[3:].sum())
    (5, 3, 2)
    """
    draws = np.zeros(y_codes.shape[0], dtype=np.int64)
    for c in np.unique(y_codes):  # a loop over classes, not rows
        rows = np.flatnonzero(y_codes == c)
        draws[rows] = rng.multinomial(rows.size, np.full(rows.size, 1.0 / rows.size))
    return draws


class BaggedBNC(_PosteriorMean):
    """Bootstrap aggregation of a pybnc classifier: the mean posterior of copies of it,
    each fitted on its own bootstrap sample of the rows.

    Each member learns everything from its sample: its structure, its tables and the
    cut points of the numeric columns, so the average smooths what one fit on a small
    table gets by chance (a cut point, an arc, a sparse table's cell). The bootstrap is
    stratified (each class keeps its number of rows), so every member knows every
    class. A learner that weighs its counts
    (:attr:`Capabilities.sample_weight <pybnc.estimators.capabilities.Capabilities>`
    ``"counts"``) is fitted with the draws as weights; another on the drawn rows.

    Parameters
    ----------
    estimator : pybnc classifier, default=None
        The learner (None: ``TAN()``).
    n_estimators : int, default=25
        Members.
    random_state : int, RandomState or None, default=None
        Seeds the bootstrap samples and the members' own randomness.
    n_jobs : int, default=None
        Members fitted at once on joblib's threads (``-1``: all cores; None: one after
        another; ``joblib.parallel_config`` may choose processes,
        :mod:`pybnc._utils.parallel`). The samples are drawn
        before the members are fitted, so the members do not depend on it.

    Attributes
    ----------
    estimators_ : list
        The fitted members.
    weights_ : ndarray of shape (n_estimators,)
        Equal weights.

    Examples
    --------
    >>> from pybnc import TAN, Encoder
    >>> from pybnc.averaging import BaggedBNC
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("glass")
    >>> model = BaggedBNC(TAN(encoder=Encoder(discretizer="quantile")), n_estimators=10, random_state=0).fit(X, y)
    >>> len(model.estimators_), float(model.weights_[0])
    (10, 0.1)
    >>> bool(abs(model.predict_proba(X[:1]).sum() - 1) < 1e-12)
    True
    """

    _parameter_constraints = {"estimator": [HasMethods(["fit", "predict_proba"]), None],
                              "n_estimators": [Interval(Integral, 1, None, closed="left")],
                              "random_state": ["random_state"], "n_jobs": [Integral, None]}

    def __init__(self, estimator=None, n_estimators=25, random_state=None, n_jobs=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_context(skip_nested_validation=False)  # the members check their own parameters
    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` copies of ``estimator``, each on a stratified bootstrap
        sample of ``X`` and ``y``; returns ``self``.

        ``sample_weight``: integer weights, read as repeated rows before the sampling.
        """
        X = _check_table(X)
        y = _check_labels(y, X.shape[0])
        if sample_weight is not None:
            rows = repeat_rows(check_sample_weight(sample_weight, X.shape[0]), type(self).__name__)
            X, y = take_rows(X, rows), y[rows]
        base = TAN() if self.estimator is None else self.estimator
        if not isinstance(base, BaseBNC):
            raise ValueError(f"estimator must be a pybnc classifier, got {type(base).__name__}.")
        classes, y_codes = class_codes(y)
        if classes.shape[0] < 2:
            raise ValueError(f"y has one class only ({classes[0]!r}); a classifier needs at least 2 classes.")
        validate_data(self, X, skip_check_array=True)  # feature_names_in_, n_features_in_
        rng = check_random_state(self.random_state)
        weighs_counts = capabilities(base).sample_weight == "counts"
        seeded = "random_state" in base.get_params(deep=False)
        jobs = []
        for _ in range(self.n_estimators):  # every sample and seed drawn here, in order
            draws = stratified_bootstrap(y_codes, rng)
            member = clone(base)
            if seeded:
                member.set_params(random_state=int(rng.randint(2**31 - 1)))
            jobs.append(delayed(_fitted_member)(member, X, y, draws, weighs_counts))
        members = run_jobs(jobs, self.n_jobs)
        self._adopt(members, np.ones(len(members)), X)
        return self


def _fitted_member(member, X, y, draws: np.ndarray, weighs_counts: bool):
    """``member`` fitted on a bootstrap sample: ``draws`` as weights, or the drawn rows."""
    if weighs_counts:
        return member.fit(X, y, sample_weight=draws)
    rows = np.repeat(np.arange(draws.size), draws)
    return member.fit(take_rows(X, rows), y[rows])
