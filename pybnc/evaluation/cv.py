"""Cross-validation of several classifiers on the same folds, in long format.

Every model sees the same stratified folds (``StratifiedKFold``, shuffled with
``random_state``), and, with ``train_fractions``, the same stratified subsample of
each training fold: the 10 % / 50 % / 100 % learning curves of Friedman et al.
(1997) and Cerquides & López de Màntaras (2003).

Each fold's models are fitted by :mod:`pybnc.evaluation.fold_fits`: from the
counts of the whole table's codes where that equals a refit, else from the fold's
own encoding shared by the models of one encoder, else by a refit.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import delayed
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import StratifiedKFold

from .._utils.warn import warn
from .._utils.parallel import run_jobs
from .._utils.progress import progress
from .._utils.sample_weight import check_sample_weight
from ..estimators.base import BaseBNC, _check_labels, _check_table
from .fold_fits import _encodings, _fit_from_counts, _fit_sharing_encoding, _FoldEncodings, _refit, _uses_fast_path
from .metrics import accuracy, brier_score, log_loss, log_score
from .stats import win_tie_loss

__all__ = ["cross_validate", "learning_curve", "summarize", "compare_to_baseline"]

METRICS = ("accuracy", "log_loss", "log_score", "brier")
#: Direction of each result column, for significance tests.
HIGHER_IS_BETTER = {"accuracy": True, "log_loss": False, "log_score": False, "brier": False,
                    "fit_time": False, "predict_time": False}
COLUMNS = ["dataset", "model", "fold", "train_fraction", *METRICS, "fit_time", "predict_time",
           "n_train", "n_test"]


def _scores(y_true, proba, classes, weights=None) -> dict:
    kw = {"sample_weight": weights}
    return {"accuracy": accuracy(y_true, proba, classes, **kw), "log_loss": log_loss(y_true, proba, classes, **kw),
            "log_score": log_score(y_true, proba, classes, **kw), "brier": brier_score(y_true, proba, classes, **kw)}


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


# -- public API ---------------------------------------------------------------------------
def cross_validate(models, X, y, *, cv=10, random_state=0, train_fractions=(1.0,), dataset=None,
                   verbose=1, fast=True, return_proba=False, error_score="raise", sample_weight=None, n_jobs=None,
                   failures=None):
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
    n_jobs : int, default=None
        Folds (and train fractions) fitted at once on joblib's threads
        (:mod:`pybnc._utils.parallel`; ``-1``: all cores; None: one after another, or
        as ``joblib.parallel_config`` says). The results do not depend on it, the
        times aside.
    failures : dict, optional
        With a numeric ``error_score``, gets each failing model's first error
        (``name -> "TypeName: message"``), beside the warnings: Python's warning
        filters belong to the process, so a warning raised on one thread while a fit on
        another silences its own may not be seen.

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
    X = _check_table(X)
    if hasattr(X, "to_pandas") and not isinstance(X, pd.DataFrame):
        X = X.to_pandas()  # a pyarrow table or polars frame, as each model reads it: its rows can be taken
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
    out_of_fold = {name: np.zeros((len(y), classes.size)) for name in models}
    steps = [(f, frac) for f in range(len(folds)) for frac in fractions]
    jobs = (delayed(_fold_results)(models, X, y, y_codes, classes, weights, encodings, folds, fold, frac, random_state,
                                   fast, error_score, dataset, failures) for fold, frac in steps)
    rows = []
    for (fold, frac), (fold_rows, probas) in progress(zip(steps, run_jobs(jobs, n_jobs, return_as="generator")),
                                                      total=len(steps), desc=f"cv {dataset or ''}".strip(),
                                                      verbose=verbose):
        rows += fold_rows
        if frac == max(fractions):
            for name, proba in probas.items():
                out_of_fold[name][folds[fold][1]] = proba
    results = pd.DataFrame(rows, columns=COLUMNS)
    return (results, out_of_fold) if return_proba else results


def _fold_results(models, X, y, y_codes, classes, weights, encodings, folds, fold, frac, random_state, fast,
                  error_score, dataset, failures=None) -> tuple:
    """The result rows of every model on one fold and train fraction, and each model's
    probabilities of the fold's test rows."""
    train, test = folds[fold]
    rng = np.random.default_rng([random_state, fold, int(round(frac * 1e6))])
    train = _subsample(np.asarray(train), y_codes, frac, rng)
    test = np.asarray(test)
    fold_encodings = _FoldEncodings(X, y, train, test)
    rows, probas = [], {}
    for name, model in models.items():
        try:
            result = None
            if name in encodings:
                result = _fit_from_counts(model, X, classes, encodings[name], fold, train, test)
            if result is None and fast and weights is None and _uses_fast_path(model):
                result = _fit_sharing_encoding(model, classes, fold_encodings)
            if result is None:
                result = _refit(model, X, y, classes, train, test, weights)
        except Exception as exc:
            if isinstance(error_score, str):
                raise
            if failures is not None:
                failures.setdefault(name, f"{type(exc).__name__}: {exc}")
            warn(f"{name} failed on fold {fold} and scores error_score={error_score}: "
                 f"{type(exc).__name__}: {exc}", FitFailedWarning)
            proba = np.full((test.size, classes.size), 1.0 / classes.size)
            scores, fit_time, predict_time = dict.fromkeys(METRICS, error_score), np.nan, np.nan
        else:
            proba, fit_time, predict_time = result
            scores = _scores(y_codes[test], proba, None, None if weights is None else weights[test])
        probas[name] = proba
        rows.append({"dataset": dataset if dataset is not None else "data", "model": name,
                     "fold": fold, "train_fraction": frac, **scores,
                     "fit_time": fit_time, "predict_time": predict_time,
                     "n_train": train.size, "n_test": test.size})
    return rows, probas


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
