"""Cross-validation of several classifiers on the same folds, in long format.

Every model sees the same stratified folds (``StratifiedKFold``, shuffled with
``random_state``), and, with ``train_fractions``, the same stratified subsample of
each training fold: the 10 % / 50 % / 100 % learning curves of Friedman et al.
(1997) and Cerquides & López de Màntaras (2003).

Fast path
---------
Counts are additive, so a model that learns from counts need not re-read its
training rows: the table is encoded once, each fold is counted once, and the
training counts are ``total - fold``. The result must be the model that
``clone(model).fit(X_train, y_train)`` gives, and three things could differ:

* a level absent from a training fold is unknown to the fold's own encoder (for
  every column kind except pandas ``category``, whose declared categories are kept);
* a class absent from a training fold is not in the refitted model's ``classes_``;
* a float column is cut at the training fold's own quantiles.

The first two are reproduced exactly: the whole-table codes and counts are
restricted to the levels and classes the training fold holds (codes of absent
levels become missing, as the fold's encoder would make them). The third cannot
be, so the fast path is used only when every column of the table is categorical
under the model's encoder, and only for estimators that learn from the coded table
alone (:attr:`Capabilities.learns_from_codes <pybnc.estimators.capabilities.Capabilities>`).
Every other model is refitted on the raw training rows.
``tests/test_cv.py`` checks that both paths give identical probabilities.

Timing: ``fit_time`` is the model's own learning from the fold's counts (fast
path) or the whole ``fit`` (refit); the encoding and counting shared by all
models of the fast path are not charged to any model.
"""

from __future__ import annotations

import copy
import time
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import StratifiedKFold

from .._utils.progress import progress
from ..counts.tables import count
from ..counts.weights import check_sample_weight
from ..encode import _as_frame
from ..estimators.base import BaseBNC, Encoding, _check_labels, _check_table, log_posterior
from ..estimators.capabilities import capabilities
from .metrics import accuracy, brier_score, log_loss, log_score
from .stats import win_tie_loss

__all__ = ["cross_validate", "learning_curve", "summarize", "compare_to_baseline"]

METRICS = ("accuracy", "log_loss", "log_score", "brier")
#: Direction of each result column, for significance tests.
HIGHER_IS_BETTER = {"accuracy": True, "log_loss": False, "log_score": False, "brier": False,
                    "fit_time": False, "predict_time": False}
COLUMNS = ["dataset", "model", "fold", "train_fraction", *METRICS, "fit_time", "predict_time",
           "n_train", "n_test"]


def _take(X, rows):
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def _scores(y_true, proba, classes, weights=None) -> dict:
    kw = {"sample_weight": weights}
    return {"accuracy": accuracy(y_true, proba, classes, **kw), "log_loss": log_loss(y_true, proba, classes, **kw),
            "log_score": log_score(y_true, proba, classes, **kw), "brier": brier_score(y_true, proba, classes, **kw)}


def _part(weights, rows):
    """The weights of ``rows`` (None when there are none, or all are 1: the unweighted path)."""
    if weights is None:
        return None
    part = weights[rows]
    return None if (part == 1).all() else part


def _subsample(train, y_codes, fraction, rng) -> np.ndarray:
    """A stratified subsample of the rows ``train``: ``round(fraction * n_c)`` rows of
    each class (at least one), in their original order."""
    if fraction == 1.0:
        return train
    keep = []
    for c in np.unique(y_codes[train]):
        rows = train[y_codes[train] == c]
        n = max(1, int(round(fraction * rows.size)))
        keep.append(rng.choice(rows, size=n, replace=False))
    return np.sort(np.concatenate(keep))


def _check_fractions(train_fractions) -> tuple:
    fractions = tuple(float(f) for f in np.atleast_1d(train_fractions))
    bad = [f for f in fractions if not 0.0 < f <= 1.0]
    if not fractions or bad:
        raise ValueError(f"train_fractions must be numbers in (0, 1], got {list(train_fractions)!r}; "
                         "e.g. (0.1, 0.5, 1.0).")
    return fractions


def _check_models(models) -> dict:
    if not isinstance(models, dict) or not models:
        raise TypeError("models must be a non-empty dict {name: estimator}, e.g. "
                        "{'nb': NaiveBayes(), 'tan': TAN()}.")
    for name, model in models.items():
        if not (hasattr(model, "fit") and hasattr(model, "predict_proba")):
            raise TypeError(f"models[{name!r}] = {model!r} has no fit/predict_proba; pass a classifier.")
        if isinstance(model, BaseBNC):
            model._validate_params()  # before any fold, and for the fast path, which calls no fit
    return models


# -- the fast path ---------------------------------------------------------------------
class _Encoded:
    """One table encoded and counted once, for all models sharing an encoder."""

    def __init__(self, encoder, X, y_codes, n_classes, categorical_dtype, pairs=True, weights=None):
        self.encoder = encoder
        self.codes = encoder.transform(X)
        self.y_codes = y_codes
        self.n_classes = n_classes
        self.cards = encoder.cardinalities_
        self.pairs = pairs
        self.weights = weights  # each row counts its weight (sample_weight)
        self.total = count(self.codes, y_codes, self.cards, n_classes, pairs=pairs, weights=weights)
        # pandas categories keep their declared levels in every fold's encoder.
        self.keeps_all_levels = categorical_dtype
        self.fold_counts = {}

    def training(self, fold, test, rows):
        """Codes, class codes, counts and weights (None: 1 each) of the training ``rows``."""
        codes, y = self.codes[rows], self.y_codes[rows]
        weights = _part(self.weights, rows)
        if rows.size + test.size == self.codes.shape[0]:
            if fold not in self.fold_counts:
                self.fold_counts[fold] = count(self.codes[test], self.y_codes[test], self.cards, self.n_classes,
                                               pairs=self.pairs, weights=None if self.weights is None
                                               else self.weights[test])
            counts = self.total - self.fold_counts[fold]
        else:
            counts = count(codes, y, self.cards, self.n_classes, pairs=self.pairs, weights=weights)
        return codes, y, counts, weights

    def restriction(self, counts, n_train):
        """Levels of each column and classes that a refit on these rows would know,
        or ``None`` where the fold's encoder would reject the column (refit instead)."""
        seen = [counts.feature(i).sum(axis=0) for i in range(self.cards.size)]
        present = [np.ones(r, dtype=bool) if keep else n > 0
                   for r, keep, n in zip(self.cards, self.keeps_all_levels, seen)]
        for j, m in enumerate(self.encoder.missing_codes_):
            if m >= 0:  # the missing level exists in a fold's encoder only if the fold has missing values
                present[j][m] = seen[j][m] > 0
        if any(p.sum() > self.encoder.max_levels for p in present):
            return None
        if any(self.encoder.drops_in_part(j, n) for j, n in enumerate(seen)):
            return None  # a column the fold's encoder would take for an identifier
        return present, counts.class_counts > 0


def _restrict_codes(codes, present):
    out = codes.copy()
    for j, keep in enumerate(present):
        if not keep.all():
            new = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
            col = codes[:, j]
            out[:, j] = np.where(col >= 0, new[np.maximum(col, 0)], -1)
    return out


def _restrict_counts(counts, present, class_present):
    if all(p.all() for p in present) and class_present.all():
        return counts
    cols = np.flatnonzero(np.concatenate(present))
    cls = np.flatnonzero(class_present)
    counts = counts.with_full_pairs()  # a feature's last level may be the one left out
    pairs = {}
    if counts.joint is not None:
        pairs["joint"] = counts.joint[np.ix_(cls, cols, cols)]
    elif counts.sparse is not None:
        pairs["sparse"] = [scipy.sparse.csr_array(counts.sparse[c][cols][:, cols]) for c in cls]
    return type(counts)(np.array([p.sum() for p in present], dtype=np.int64), counts.class_counts[cls],
                        levels=counts.levels[np.ix_(cls, cols)], **pairs)


def _fit_from_counts(model, X, classes, enc: _Encoded, fold, train, test):
    """A fitted clone of ``model`` and its test probabilities over ``classes``;
    ``None`` when the fold must be refitted from raw rows."""
    start = time.perf_counter()
    codes, y, counts, weights = enc.training(fold, test, train)
    restriction = enc.restriction(counts, train.size)
    if restriction is None:
        return None
    present, class_present = restriction
    encoder = copy.copy(enc.encoder)
    encoder.categories_ = [cats[keep] for cats, keep in zip(enc.encoder.categories_, present)]
    encoder.cardinalities_ = np.array([keep.sum() for keep in present], dtype=np.int64)
    class_rank = np.cumsum(class_present) - 1
    est = clone(model)._fit_coded(Encoding.of(X, classes[class_present], encoder), _restrict_codes(codes, present),
                                  class_rank[y], _restrict_counts(counts, present, class_present), weights)
    fit_time = time.perf_counter() - start
    start = time.perf_counter()
    jll = est._jll_encoded(_restrict_codes(enc.codes[test], present))
    # The same function as BaseBNC.predict_proba, so results match a refit bit for bit.
    proba = np.zeros((test.size, classes.size))
    proba[:, class_present] = np.exp(log_posterior(jll))
    return proba, fit_time, time.perf_counter() - start


def _uses_fast_path(model, weighted: bool = False) -> bool:
    # weighted rows: only a model that weighs its counts (one that repeats its rows refits)
    return isinstance(model, BaseBNC) and capabilities(model).learns_from_codes and (
        not weighted or capabilities(model).sample_weight == "counts")


def _encodings(models, X, y_codes, n_classes, weights=None) -> dict:
    """One shared encoding per distinct encoder, for the models that can use it."""
    out, by_key = {}, {}
    X = _as_frame(X)
    categorical_dtype = [isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns]
    for name, model in models.items():
        if not _uses_fast_path(model, weights is not None):
            continue
        encoder = model._encoder()
        # Models that need the pair counts get their own shared encoding with them.
        pairs = capabilities(model).pair_counts
        key = (type(encoder), repr(sorted(vars(encoder).items())), pairs)
        if key not in by_key:
            encoder.fit(X, y_codes)
            ok = all(kind == "categorical" for kind in encoder.kinds_) and not encoder.dropped_columns_
            by_key[key] = _Encoded(encoder, X, y_codes, n_classes, categorical_dtype, pairs, weights) if ok else None
        if by_key[key] is not None:
            out[name] = by_key[key]
    return out


# -- public API ---------------------------------------------------------------------------
def cross_validate(models, X, y, *, cv=10, random_state=0, train_fractions=(1.0,), dataset=None,
                   verbose=1, fast=True, return_proba=False, error_score="raise", sample_weight=None):
    """Stratified k-fold cross-validation of several classifiers on the same folds.

    Parameters
    ----------
    models : dict of {str: estimator}
        Classifiers with ``fit`` and ``predict_proba``; each fold fits a clone.
    X : DataFrame or array of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    cv : int or cross-validation splitter, default=10
        Number of stratified folds (shuffled with ``random_state``), or a scikit-learn
        splitter whose ``split(X, y)`` gives the folds.
    random_state : int, default=0
        Seeds the folds and the training subsamples: equal seeds, equal results.
    train_fractions : sequence of float, default=(1.0,)
        Fractions of each training fold to learn from (stratified subsample).
    dataset : str, optional
        Value of the ``dataset`` column (``"data"`` when omitted).
    verbose : int, default=1
        Progress bar convention of :func:`pybnc._utils.progress.progress`.
    fast : bool, default=True
        Learn from counts where that provably equals a refit (see module doc).
    return_proba : bool, default=False
        Also return the out-of-fold class probabilities (for confusion matrices and
        calibration plots).
    error_score : "raise" or float, default="raise"
        What a fold whose fit or prediction fails gets: ``"raise"`` raises the error;
        a number (``np.nan``) becomes that fold's scores (and its probabilities are
        uniform), with a ``FitFailedWarning`` naming the model, the fold and the error,
        as scikit-learn's ``cross_validate`` does.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row: every fold is fitted with its training rows' weights
        (``fit(..., sample_weight=)``; the fast path with weighted counts, for models
        that weigh their counts) and scored by its test rows' weights (weighted mean
        accuracy, log-loss and Brier score, weighted sum for the log score; NaN for a
        test fold whose weights are all 0). The folds are drawn from the rows as without weights.

    Returns
    -------
    DataFrame
        One row per (model, fold, train fraction): ``dataset, model, fold,
        train_fraction, accuracy, log_loss, log_score, brier, fit_time,
        predict_time, n_train, n_test`` (times in seconds; ``log_score`` is the sum
        over the test fold, Cerquides eq. 30).
    dict of {str: ndarray of shape (n_samples, n_classes)}
        Only with ``return_proba``: each model's probabilities for every row from
        the fold that held it out (largest train fraction), columns in the order of
        ``np.unique(y)``.

    Examples
    --------
    >>> from pybnc import NaiveBayes, TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> res = cross_validate({"nb": NaiveBayes(), "tan": TAN()}, X, y, cv=5, verbose=0)
    >>> res.shape
    (10, 12)
    >>> res.groupby("model")["accuracy"].mean().round(3).tolist()
    [0.849, 0.942]
    """
    models = _check_models(models)
    if not (isinstance(error_score, str) and error_score == "raise") and not isinstance(error_score, Real):
        raise ValueError(f"error_score must be 'raise' or a number (np.nan), got {error_score!r}.")
    if not verbose:  # silent means silent: also the models' own progress (wrappers' searches)
        models = {k: clone(m).set_params(verbose=0) if "verbose" in m.get_params() else m
                  for k, m in models.items()}
    fractions = _check_fractions(train_fractions)
    _check_table(X)
    y = _check_labels(y, len(X))
    weights = check_sample_weight(sample_weight, len(y))
    classes, y_codes = np.unique(y, return_inverse=True)
    if isinstance(cv, Integral):
        if cv < 2:
            raise ValueError(f"cv must be at least 2 folds, got {cv}.")
        largest = np.bincount(y_codes).max()
        if cv > largest:
            raise ValueError(f"cv={cv} folds but the largest class has only {largest} rows; "
                             f"use at most {largest} folds.")
        cv = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    folds = list(cv.split(np.zeros((len(y), 1)), y_codes))
    encodings = _encodings(models, X, y_codes, classes.size, weights) if fast else {}
    rows = []
    out_of_fold = {name: np.zeros((len(y), classes.size)) for name in models}
    steps = [(f, frac) for f in range(len(folds)) for frac in fractions]
    for fold, frac in progress(steps, desc=f"cv {dataset or ''}".strip(), verbose=verbose):
        train, test = folds[fold]
        rng = np.random.default_rng([random_state, fold, int(round(frac * 1e6))])
        train = _subsample(np.asarray(train), y_codes, frac, rng)
        test = np.asarray(test)
        for name, model in models.items():
            try:
                result = None
                if name in encodings:
                    result = _fit_from_counts(model, X, classes, encodings[name], fold, train, test)
                if result is None:
                    result = _refit(model, X, y, classes, train, test, weights)
            except Exception as exc:
                if isinstance(error_score, str):
                    raise
                warnings.warn(f"{name} failed on fold {fold} and scores error_score={error_score}: "
                              f"{type(exc).__name__}: {exc}", FitFailedWarning, stacklevel=2)
                proba = np.full((test.size, classes.size), 1.0 / classes.size)
                scores, fit_time, predict_time = dict.fromkeys(METRICS, error_score), np.nan, np.nan
            else:
                proba, fit_time, predict_time = result
                scores = _scores(y_codes[test], proba, None, None if weights is None else weights[test])
            if frac == max(fractions):
                out_of_fold[name][test] = proba
            rows.append({"dataset": dataset if dataset is not None else "data", "model": name,
                         "fold": fold, "train_fraction": frac, **scores,
                         "fit_time": fit_time, "predict_time": predict_time,
                         "n_train": train.size, "n_test": test.size})
    results = pd.DataFrame(rows, columns=COLUMNS)
    return (results, out_of_fold) if return_proba else results


def _refit(model, X, y, classes, train, test, weights=None):
    start = time.perf_counter()
    fit_weights = {} if weights is None else {"sample_weight": weights[train]}
    est = clone(model).fit(_take(X, train), y[train], **fit_weights)
    fit_time = time.perf_counter() - start
    start = time.perf_counter()
    fold_proba = est.predict_proba(_take(X, test))
    predict_time = time.perf_counter() - start
    proba = np.zeros((test.size, classes.size))
    proba[:, np.searchsorted(classes, est.classes_)] = fold_proba
    return proba, fit_time, predict_time


def learning_curve(models, X, y, *, train_fractions=(0.1, 0.5, 1.0), **kwargs) -> pd.DataFrame:
    """:func:`cross_validate` on growing stratified fractions of each training fold.

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> res = learning_curve({"nb": NaiveBayes()}, X, y, cv=5, verbose=0)
    >>> sorted(res["train_fraction"].unique().tolist())
    [0.1, 0.5, 1.0]
    """
    return cross_validate(models, X, y, train_fractions=train_fractions, **kwargs)


def summarize(results, metrics=("accuracy", "log_loss", "brier", "fit_time")) -> pd.DataFrame:
    """Mean and standard deviation over folds, per dataset, model and train fraction.

    Returns
    -------
    DataFrame
        Index ``(dataset, model, train_fraction)`` in order of appearance; columns a
        MultiIndex ``(metric, "mean" | "std")``.

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> res = cross_validate({"nb": NaiveBayes()}, X, y, cv=5, verbose=0)
    >>> float(round(summarize(res).loc[("data", "nb", 1.0), ("accuracy", "mean")], 3))
    0.849
    """
    missing = [m for m in metrics if m not in results.columns]
    if missing:
        raise ValueError(f"results has no column {missing}; available: {list(results.columns)}.")
    keys = ["dataset", "model", "train_fraction"]
    return results.groupby(keys, sort=False)[list(metrics)].agg(["mean", "std"])


def compare_to_baseline(results, baseline=None, metrics=("accuracy", "log_loss"), alpha=0.05):
    """Win/tie/loss counts of every model against ``baseline`` across datasets.

    A paired t-test at level ``alpha`` over the folds of each dataset decides
    (:func:`pybnc.evaluation.stats.win_tie_loss`); with several train fractions the
    counts are given per fraction.

    Parameters
    ----------
    results : DataFrame
        Output of :func:`cross_validate` (concatenated over datasets).
    baseline : str, optional
        Defaults to the first model of ``results``.
    metrics : sequence of str
        Result columns to test.

    Returns
    -------
    DataFrame
        Columns ``metric``, (``train_fraction``,) ``model``, ``wins``, ``ties``,
        ``losses``, ``datasets``.

    Examples
    --------
    >>> from pybnc import NaiveBayes, TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> res = cross_validate({"nb": NaiveBayes(), "tan": TAN()}, X, y, verbose=0, dataset="car")
    >>> compare_to_baseline(res, metrics=["accuracy"])[["model", "wins", "ties", "losses"]].values.tolist()
    [['tan', 1, 0, 0]]
    """
    models = list(pd.unique(results["model"]))
    baseline = models[0] if baseline is None else baseline
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not among the models {models}.")
    by = ["train_fraction"] if results["train_fraction"].nunique() > 1 else []
    tables = []
    for metric in metrics:
        table = win_tie_loss(results, baseline, metric, by=by, alpha=alpha,
                             higher_is_better=HIGHER_IS_BETTER.get(metric)).reset_index()
        table.insert(0, "metric", metric)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)
