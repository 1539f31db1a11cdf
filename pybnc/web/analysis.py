"""What the web page computes: read a table, fit and cross-validate the chosen
classifiers, and describe each for the page.

Nothing here knows about HTTP. Every problem caused by the user's table or choices is
raised as :class:`UserError`, whose message is shown on the page as it is.
:func:`learn` is the job the page runs in a worker process (:mod:`pybnc.web.jobs`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._utils.progress import report_progress
from ..encode import Encoder
from ..estimators.capabilities import capabilities
from ..registry import BY_SHORT_NAME, MODELS, configured
from . import columns, compare, network

#: Folds of the cross-validation table (fewer when the largest class is smaller).
N_FOLDS = 10
#: Memory allowed for the pairwise counts, ``n_classes * W**2 * 8`` bytes (W: levels in all).
MAX_COUNT_BYTES = 1e9
#: Conditional tables listed on the page (the model file has them all).
MAX_TABLES = 200
#: Learners that search by an inner cross-validation: slow on big tables.
SLOW_MODELS = tuple(entry.short_name for entry in MODELS if entry.capabilities.searches_by_cv)
#: The model every other one is tested against.
BASELINE = "nb"
#: The file of a run's folder that keeps its rows (features and class) for the in-sample
#: predictions; written by the job itself into the server's private run folder.
ROWS = "rows.pkl"
#: How float columns can be cut (the estimators' ``discretizer``).
DISCRETIZERS = {"quantile": "equal-frequency bins", "uniform": "equal-width bins",
                "mdl": "Fayyad-Irani MDL cuts (supervised)"}


class UserError(ValueError):
    """A problem with the uploaded table or the chosen options, worded for the page."""


def model_choices() -> list:
    """``[(short name, description), ...]`` of the model registry."""
    return [(entry.short_name, entry.description) for entry in MODELS]


def dataset_choices() -> list:
    """Names of the bundled datasets that load without a download."""
    from ..datasets import describe, list_datasets

    return [name for name in list_datasets() if describe(name).get("bundled", True)]


# -- input ------------------------------------------------------------------------------------
def read_csv(data: bytes, name: str = "The file", return_report: bool = False, limits: dict | None = None):
    """The uploaded bytes as a table, read by :func:`pybnc.io.read_table` (the command
    line's reader): delimiter, encoding and header row detected; ARFF, Parquet and gzip
    too. With ``return_report``, also one sentence saying how the file was read.
    ``limits``: ``max_bytes`` and ``max_rows`` of ``read_table``."""
    from ..io import read_table
    from ..io._limits import TooLarge

    try:
        frame, report = read_table(data, name=name, return_report=True, **(limits or {}))
    except TooLarge as exc:
        option = "--max-upload-mb (the limit is twice it)" if exc.limit == "max_bytes" else "--max-rows"
        raise UserError(f"{str(exc).split('; if you trust it')[0]}. pybnc serve {option} raises it.") from None
    except (ValueError, ImportError) as exc:
        raise UserError(f"Could not read the file as a table: {' '.join(str(exc).split())}") from None
    if frame.shape[1] < 1 or len(frame) < 1:
        raise UserError("The file holds no table (no rows under its header).")
    return (frame, report.describe()) if return_report else frame


def split_target(frame: pd.DataFrame, target: str | None):
    """``(X, y, target, notes)``; the last column is the class when ``target`` is empty."""
    if frame.shape[1] < 2:
        raise UserError(f"The table has {frame.shape[1]} column(s); it needs at least one feature "
                        "column and a class column.")
    if len(frame) < 2:
        raise UserError("The table has fewer than two rows.")
    target = (target or "").strip() or frame.columns[-1]
    if target not in frame.columns:
        raise UserError(f"There is no column {target!r}; the columns are: {', '.join(frame.columns)}.")
    notes = []
    y = frame[target]
    unlabeled = y.isna()
    if unlabeled.all():
        raise UserError(f"The class column {target!r} is empty.")
    if unlabeled.any():
        notes.append(f"{int(unlabeled.sum())} row(s) without a class value were left out.")
        frame, y = frame[~unlabeled], y[~unlabeled]
    if y.nunique() < 2:
        raise UserError(f"The class column {target!r} has a single value ({y.iloc[0]!r}); "
                        "a classifier needs at least two classes.")
    if pd.api.types.is_float_dtype(y) and (y % 1 != 0).any():
        raise UserError(f"The class column {target!r} holds continuous numbers; choose a column of "
                        "categories (the class to predict).")
    X = frame.drop(columns=[target]).reset_index(drop=True)
    return X, y.reset_index(drop=True), target, notes


def load_bundled(name: str):
    """``(X, y)`` of a bundled dataset, as a :class:`UserError` when it is not there."""
    from ..datasets import load_dataset

    try:
        X, y = load_dataset(name)
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None
    return X, pd.Series(y, name=getattr(y, "name", None) or "class")


def model_keys(chosen) -> list:
    """The chosen short names, checked, with the naive Bayes baseline first."""
    keys = [k.strip().lower() for k in chosen if k and k.strip()]
    unknown = [k for k in keys if k not in BY_SHORT_NAME]
    if unknown:
        raise UserError(f"unknown model {unknown[0]!r}; known models: {', '.join(BY_SHORT_NAME)}.")
    if not keys:
        raise UserError("Choose at least one model.")
    return list(dict.fromkeys([BASELINE, *keys]))


def build(model_key: str, discretizer: str | None = None, n_bins: int | None = None):
    """A fresh estimator from a command-line short name, quiet and seeded, its encoder
    cutting float columns as asked."""
    encoding = {k: v for k, v in {"discretizer": discretizer, "n_bins": n_bins}.items() if v}
    try:
        return configured(model_key, encoding, seed=0, quiet=True)
    except KeyError as exc:
        raise UserError(exc.args[0]) from None


# -- the job ------------------------------------------------------------------------------------
@dataclass
class Learned:
    """What one job hands back to the server: the fitted models and what the page shows."""

    source: str
    target: str
    classes: list
    n_rows: int
    features: list
    n_folds: int
    keys: list
    models: dict
    compare: dict
    views: dict
    notes: list = field(default_factory=list)
    columns: list = field(default_factory=list)


class _Progress:
    """Turns the bars of pybnc (folds of cross-validation, steps of a search) into the
    job's progress: ``1 + folds`` steps per model (its fit on all rows, then each fold)."""

    def __init__(self, report, total):
        self.report, self.total, self.done, self.folds, self.stage = report, total, 0, 0, ""

    def begin(self, stage: str) -> None:
        self.stage, self.folds = stage, 0
        self.report(self.done, self.total, stage)

    def advance(self, steps: int) -> None:
        self.done, self.folds = self.done + steps, 0
        self.report(self.done, self.total, self.stage)

    def __call__(self, desc, n, total, postfix):
        if desc.startswith("cv") and total:
            self.folds = n
            text = f"{self.stage}: {n} of {total} folds done"
        else:  # a search inside a fit: its steps have no known total
            text = f"{self.stage}: {desc} search step {n}" + (f" ({postfix})" if postfix else "")
        self.report(self.done + self.folds, self.total, text)


def upload_payload(task: dict, report=None) -> dict:
    """The table of an upload, read (within ``task["limits"]``, see :func:`read_csv`) and
    split into features and class, so that problems surface before any work starts.

    ``task``: ``data`` (the bytes), ``name``, ``target`` and ``limits``. A job of the
    server's reader processes (:func:`pybnc.web.pages._common.in_reader`), where a file
    that is slow or big to parse meets a time and a memory limit; ``report`` is unused.
    """
    frame, how = read_csv(task["data"], name=task["name"], return_report=True, limits=task.get("limits"))
    X, y, target, notes = split_target(frame, task.get("target"))
    return {"X": X, "y": y, "target": target, "notes": [how, *notes], "source": task["name"],
            "columns": [str(c) for c in frame.columns]}


def upload_frame(task: dict, report=None):
    """The table of an upload as it is (for predictions): a reader job like :func:`upload_payload`."""
    return read_csv(task["data"], name=task["name"], limits=task.get("limits"))


def table_payload(upload, dataset: str, target: str, limits: dict | None = None, read=upload_payload) -> dict:
    """The table of a job: an uploaded file (``werkzeug.FileStorage``), read by
    ``read(task)`` (:func:`upload_payload`, or the same in a reader process), or the name
    of a bundled dataset (loaded by the job)."""
    if upload is not None and upload.filename:
        return read({"data": upload.read(), "name": Path(upload.filename).name, "target": target, "limits": limits})
    if dataset:
        if dataset not in dataset_choices():
            raise UserError(f"Unknown dataset {dataset!r}; the bundled ones are: {', '.join(dataset_choices())}.")
        return {"dataset": dataset, "source": dataset}
    raise UserError("Choose a CSV file to upload, or a bundled dataset.")


def load_input(payload: dict):
    """``(X, y, source, target, notes)`` of a job's table."""
    if "X" in payload:
        return payload["X"], payload["y"], payload["source"], payload["target"], list(payload["notes"])
    X, y = load_bundled(payload["dataset"])
    payload["columns"] = [*map(str, X.columns), str(y.name)]
    return X, y, payload["dataset"], str(y.name), []


def learn(payload: dict, report=lambda done, total, text: None) -> Learned:
    """Fit every chosen model on all rows, cross-validate each on the same folds, and
    describe each for the page; the rows the in-sample predictions are made from
    (:data:`ROWS`) are written to ``payload["folder"]``.

    Parameters
    ----------
    payload : dict
        The table (:func:`table_payload`); ``models`` (short names); ``discretizer``
        and ``n_bins`` (optional); ``folder`` (where the downloads go).
    report : callable
        ``report(done, total, text)``, called as the work advances.

    Returns
    -------
    Learned
    """
    from ..evaluation import cross_validate

    keys = model_keys(payload.get("models") or ["tan"])
    encoding = dict(discretizer=payload.get("discretizer") or None, n_bins=payload.get("n_bins") or None)
    X, y, source, target, notes = load_input(payload)
    column_report = report_columns(X, y, encoding["discretizer"], encoding["n_bins"])
    X, notes = _fit_in_memory(X, y, notes, column_report)
    classes, y_codes = np.unique(y.to_numpy(), return_inverse=True)
    n_folds = min(N_FOLDS, int(np.bincount(y_codes).max()))
    if n_folds < 2:
        raise UserError("Too few rows for cross-validation: every class has a single row.")
    progress = _Progress(report, len(keys) * (1 + n_folds))
    models, results, out_of_fold, views = {}, [], {}, {}
    folder = Path(payload["folder"])
    # Warnings (few rows of a class, unseen levels) become notes on the page, not log noise.
    with warnings.catch_warnings(record=True) as caught, report_progress(progress):
        warnings.simplefilter("always")
        for key in keys:
            try:
                progress.begin(f"{key}: fitting on all {len(X)} rows")
                model = models[key] = build(key, **encoding).fit(X, y)
                progress.advance(1)
                progress.begin(f"{key}: {n_folds}-fold cross-validation")
                res, proba = cross_validate({key: build(key, **encoding)}, X, y, cv=n_folds, random_state=0,
                                            dataset=source, verbose=0, return_proba=True)
                progress.advance(n_folds)
            except (ValueError, TypeError, KeyError) as exc:
                raise UserError(f"Fitting {key} failed: {' '.join(str(exc).split())}") from None
            results.append(res)
            out_of_fold.update(proba)
            views[key] = describe(model, X, y_codes)
    # The rows, for the in-sample predictions a download asks for (pages/download.py). Those,
    # and the model files, are written when first asked for: most runs never want them, and
    # writing them for every model was a third of a small job (TAN on car).
    X.assign(**{target: y}).to_pickle(folder / ROWS)
    notes += list(dict.fromkeys(" ".join(str(w.message).split()) for w in caught))
    summary = compare.summarise(pd.concat(results, ignore_index=True), out_of_fold, y_codes, classes.size)
    return Learned(source, str(target), [str(c) for c in classes], len(X), [str(c) for c in X.columns],
                   n_folds, keys, models, summary, views, notes, column_report["columns"])


def describe(model, X: pd.DataFrame, y_codes: np.ndarray) -> dict:
    """What the page shows of one fitted model besides its scores (for AutoBNC, of the
    learner it chose, and what it chose)."""
    chosen = getattr(model, "best_estimator_", None)
    if chosen is not None:
        view = describe(chosen, X, y_codes)
        table = model.cv_results_
        at = list(table["candidate"]).index(model.best_candidate_)
        tried = int(sum(status == "ok" for status in table["status"]))
        view["chosen"] = (f"AutoBNC chose {model.best_candidate_} among {tried} candidates by a "
                          f"{model.n_splits_}-fold cross-validation of the training rows (mean log-loss "
                          f"{table['mean_test_log_loss'][at]:.4f}, accuracy {table['mean_test_accuracy'][at]:.4f}) "
                          f"and tempers its probabilities by T = {getattr(model, 'temperature_', 1.0):.2f} "
                          "(learned from the same folds); what is shown here is that learner.")
        return view
    codes = model._encode(X) if hasattr(model, "encoder_") else None
    view = {"name": type(model).__name__,
            "arcs": [(str(u), str(v)) for u, v in model.arcs_] if hasattr(model, "arcs_") else None,
            "supernodes": ([tuple(map(str, node)) for node in model.supernodes_]
                           if hasattr(model, "supernodes_") else None),
            "drawing": network.drawing(model, codes, y_codes) if codes is not None else None,
            "domains": network.evidence_domains(model),
            "tables": network.conditional_tables(model)[:MAX_TABLES]}
    view["tables_cut"] = max(0, len(view["domains"]) - MAX_TABLES) if view["tables"] else 0
    if view["drawing"] is None:
        why = ("joins features into compound nodes (listed below)" if view["supernodes"] is not None
               else "averages many networks")
        view["why_no_drawing"] = f"{view['name']} {why}: there is no single network of the features to draw."
    return view


def report_columns(X: pd.DataFrame, y, discretizer: str | None = None, n_bins: int | None = None) -> dict:
    """:func:`pybnc.web.columns.column_report` with naive Bayes's encoding parameters,
    and the discretiser and bin count chosen on the form."""
    encoder = build(BASELINE, discretizer, n_bins).get_params()["encoder"] or Encoder()
    return columns.column_report(X, y, **encoder.get_params())


def _fit_in_memory(X: pd.DataFrame, y: pd.Series, notes: list, report: dict):
    """Leave out the columns the report flags (identifiers, constants, free text) and
    refuse tables whose pairwise counts would not fit in memory: one upload must not
    take the server down."""
    if report["note"]:
        notes.append(report["note"])
    X = X[[c for c in X.columns if str(c) in set(report["kept"])]]
    if X.shape[1] == 0:
        raise UserError(" ".join(["No feature column is left to learn from.", report["note"] or ""]).strip())
    width = sum(len(r["cuts"]) + 1 if r["cuts"] is not None else r["levels"]
                for r in report["columns"] if r["flag"] is None) + X.shape[1]
    if y.nunique() * width**2 * 8 > MAX_COUNT_BYTES:
        raise UserError(f"The table is too wide for this page: {X.shape[1]} features with {width} "
                        f"values in all and {y.nunique()} classes. Use fewer columns or values.")
    return X, notes
