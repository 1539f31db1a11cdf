"""Comparing classifiers on the same folds, and scoring predictions of new rows.

Everything here reads the long results table and the out-of-fold probabilities of
:func:`pybnc.evaluation.cross_validate` (``return_proba=True``): the CV table with
the corrected resampled t-test against naive Bayes, per-class precision and recall,
confusion matrices and a reliability (calibration) curve per model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluation import corrected_resampled_t_test

#: Bins of the reliability curve (equal width on [0, 1]).
CALIBRATION_BINS = 10


def mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.4f} ± {values.std(ddof=1) if values.size > 1 else 0.0:.4f}"


def cv_table(results: pd.DataFrame, baseline: str = "nb") -> list:
    """One row per model: accuracy, log-loss, Brier score (mean ± sd over folds), mean
    fit time, and the corrected resampled t-test (Nadeau & Bengio 2003) of its fold
    accuracies against ``baseline`` on the same folds.

    Returns
    -------
    list of dict
        Keys ``model, accuracy, log_loss, brier, fit_time, t, p, verdict`` (``t``,
        ``p`` and ``verdict`` are ``None`` for the baseline itself).
    """
    rows = []
    base = results[results["model"] == baseline].sort_values("fold")
    for name, folds in results.groupby("model", sort=False):
        folds = folds.sort_values("fold")
        row = {"model": name, "accuracy": mean_std(folds["accuracy"]),
               "log_loss": mean_std(folds["log_loss"]), "brier": mean_std(folds["brier"]),
               "fit_time": float(folds["fit_time"].mean()), "t": None, "p": None, "verdict": None}
        if name != baseline and len(base) == len(folds) > 1:
            test = corrected_resampled_t_test(folds["accuracy"].to_numpy(), base["accuracy"].to_numpy(),
                                              folds["n_train"].mean(), folds["n_test"].mean())
            row.update(t=test.statistic, p=test.p_value, verdict=test.verdict)
        rows.append(row)
    return rows


def class_report(y_codes: np.ndarray, proba: np.ndarray, n_classes: int) -> dict:
    """Precision, recall and support per class, and the confusion matrix (rows: true
    class, columns: predicted), of the predictions ``argmax(proba)``."""
    predicted = np.argmax(proba, axis=1)
    confusion = _confusion(y_codes, predicted, n_classes)
    right, support, called = np.diag(confusion), confusion.sum(axis=1), confusion.sum(axis=0)
    # 0 where a class is never predicted (precision) or never present (recall), as sklearn's zero_division=0
    precision = np.divide(right, called, out=np.zeros(n_classes), where=called > 0)
    recall = np.divide(right, support, out=np.zeros(n_classes), where=support > 0)
    return {"precision": precision.tolist(), "recall": recall.tolist(), "support": support.tolist(),
            "confusion": confusion.tolist(), "accuracy": float(np.mean(predicted == y_codes))}


def _confusion(truth: np.ndarray, predicted: np.ndarray, n_labels: int) -> np.ndarray:
    """Counts of (true, predicted) code pairs: rows true, columns predicted."""
    return np.bincount(truth * n_labels + predicted, minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def reliability(y_codes: np.ndarray, proba: np.ndarray, n_bins: int = CALIBRATION_BINS) -> dict:
    """The top-label reliability curve: rows binned by the probability of their
    predicted class; per non-empty bin the mean of that probability (``confidence``),
    the share of rows predicted right (``accuracy``) and the row count.

    A calibrated model has ``accuracy == confidence`` in every bin. ``ece`` is the
    expected calibration error, the row-weighted mean of ``|accuracy - confidence|``.
    """
    confidence = proba.max(axis=1)
    correct = (np.argmax(proba, axis=1) == y_codes).astype(np.float64)
    # As sklearn's calibration_curve: bin i holds [i/n, (i+1)/n), the last bin also 1.
    bins = np.minimum((confidence * n_bins).astype(np.int64), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    seen = count > 0
    mean_conf = np.bincount(bins, confidence, n_bins)[seen] / count[seen]
    mean_acc = np.bincount(bins, correct, n_bins)[seen] / count[seen]
    ece = float(np.sum(count[seen] * np.abs(mean_acc - mean_conf)) / max(len(y_codes), 1))
    return {"confidence": mean_conf.tolist(), "accuracy": mean_acc.tolist(),
            "count": count[seen].tolist(), "ece": ece}


def summarise(results: pd.DataFrame, out_of_fold: dict, y_codes: np.ndarray, n_classes: int,
              baseline: str = "nb") -> dict:
    """Everything the comparison section shows, from one :func:`cross_validate` run."""
    return {"table": cv_table(results, baseline),
            "classes": {name: class_report(y_codes, proba, n_classes) for name, proba in out_of_fold.items()},
            "calibration": {name: reliability(y_codes, proba) for name, proba in out_of_fold.items()}}


# -- a second file --------------------------------------------------------------------
def predict_table(model, frame: pd.DataFrame, target: str | None) -> tuple:
    """Predictions of ``model`` for the rows of ``frame``.

    Feature columns missing from ``frame`` are treated as missing values (summed out)
    and extra columns are ignored, each with a note; when ``frame`` holds the class
    column ``target``, the rows with a class value are also scored.

    Returns
    -------
    predictions : DataFrame
        The class column (when present), ``prediction`` and one ``P(<class>)`` column
        per class, as ``pybnc predict`` writes them.
    score : dict or None
        ``accuracy``, ``n``, ``labels`` (true labels, rows of ``confusion``) and
        ``confusion`` (columns: the model's classes), when the class is present.
    notes : list of str
    """
    names = list(getattr(model, "feature_names_in_", model.feature_names_))
    notes = []
    dropped = set(getattr(model.encoder_, "dropped_columns_", ()))  # never read: absent says nothing
    absent = [c for c in names if c not in frame.columns and c not in dropped]
    extra = [c for c in frame.columns if c not in names and c != target]
    if len(absent) == len(names) - len(dropped):
        raise ValueError(f"The file has none of the model's feature columns ({_few(names)}); its "
                         f"columns are {_few(list(frame.columns))}.")
    if absent:
        notes.append(f"{len(absent)} feature column(s) are not in the file and were treated as "
                     f"missing (summed out): {_few(absent)}.")
    if extra:
        notes.append(f"{len(extra)} column(s) the model does not know were ignored: {_few(extra)}.")
    X = frame.reindex(columns=names)
    proba = model.predict_proba(X)
    classes = model.classes_
    out = pd.DataFrame({"prediction": classes[np.argmax(proba, axis=1)]})
    for k, label in enumerate(classes):
        out[f"P({label})"] = proba[:, k]
    score = None
    if target and target in frame.columns:
        truth = frame[target].reset_index(drop=True)
        out.insert(0, str(target), truth)
        labelled = truth.notna().to_numpy()
        if labelled.any():
            known = list(_labels(pd.Series(classes)))
            score = _score(_labels(truth[labelled]), _labels(out["prediction"][labelled]), known)
            unknown = score["labels"][len(known):]
            if unknown:
                notes.append(f"Class value(s) the model never saw, always counted as errors: {_few(unknown)}.")
    return out, score, notes


def _labels(values: pd.Series) -> np.ndarray:
    """Labels as text, with whole floats as integers (a class column of 0/1 with a gap
    reads as floats, and "1.0" must still match the class 1)."""
    if pd.api.types.is_float_dtype(values) and (values % 1 == 0).all():
        values = values.astype("int64")
    return values.astype(str).to_numpy()


def _score(truth: np.ndarray, predicted: np.ndarray, classes: list) -> dict:
    labels = classes + sorted(set(truth) - set(classes))
    index = pd.Index(labels)
    matrix = _confusion(index.get_indexer(truth), index.get_indexer(predicted), len(labels))[:, : len(classes)]
    return {"accuracy": float(np.mean(truth == predicted)), "n": int(truth.size),
            "labels": labels, "confusion": matrix.tolist()}


def _few(names, limit=8) -> str:
    names = [str(n) for n in names]
    return ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")
