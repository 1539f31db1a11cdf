"""AutoBNC and pybnc's learners next to random forest and gradient boosting: nested
cross-validation on every UCI table of ../shared/datasets/uci (and the ARFF tables of
a folder).

Protocol: ``StratifiedKFold(5, shuffle=True, random_state=1)``, the same folds for every
model of a table; each model gets the raw training DataFrame of a fold and scores the
test fold (accuracy, log-loss with the true class's probability clipped at 1e-15, as
``pybnc.evaluation.log_loss`` and scikit-learn do; a class missing from a training fold
has probability 0 for every model). ``AutoBNC`` makes its choice inside each training
fold by its own inner cross-validation of the training rows: the outer test fold is
never seen by the choice (nested CV). Its choice in every fold goes to the CSV.

Models: ``AutoBNC(n_jobs=2, random_state=0)`` with its defaults, and with
``ensemble=0`` (one learner, no average of candidates); pybnc's learners
alone at their defaults (naive Bayes, TAN, AODE, kDB k = 2, SKDB) and their
discriminative variants where this pybnc has them; ``RandomForestClassifier(300,
n_jobs=2)`` and ``HistGradientBoostingClassifier`` (no early stopping,
``l2_regularization=1``: with 0 its leaves fitted to a class of one or two training
rows swing nursery's accuracy to 75-83 % on some folds). The scikit-learn models get
the table as numbers: categorical columns ordinal-coded (missing its own code for the
forest, NaN in numeric columns imputed by the median; HistGradientBoosting takes the
coded columns as categorical features and handles NaN itself).

Each fold's row is appended to the CSV (``--csv``) as soon as it is done, so an
interrupted run resumes where it stopped. Fit times are wall seconds on a shared
machine; the CSV keeps the load average at each fold.

``--arff-dir DIR`` adds the ARFF tables of ``DIR`` (e.g. the ``classification`` folder
of github.com/renatopp/arff-datasets, UCI tables in Weka's format); the class is the
attribute named ``class`` when there is one, else the last (spect and spectf: the
first; their train and test files are one table), and tables the shared folder
already holds, near-copies of another file, and tables under 50 rows are left out
(``ARFF_LEFT_OUT``).

Run (one BLAS/OpenMP thread per process): ``OMP_NUM_THREADS=1 python
benchmarks/accuracy_vs_forest.py [--datasets car,chess] [--arff-dir DIR] [--models ...]
[--csv FILE] [--markdown FILE]``; the folds go to
``benchmarks/accuracy_vs_forest_nested.csv`` by default.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

import pybnc
from pybnc.datasets import list_datasets, load_dataset
from pybnc.evaluation import accuracy, log_loss
from pybnc.io import read_arff
from pybnc.selection.candidates import discriminative

SEED = 1
N_FOLDS = 5
N_JOBS = 2
AUTO = "AutoBNC"
AUTO_SINGLE = "AutoBNC(ensemble=0)"
AUTO_BEST = "AutoBNC(rule='best')"
FOREST = "RandomForest(300)"
BOOSTING = "HistGradientBoosting"
#: ARFF files left out: twins of the shared tables, near-copies, and tables under 50 rows.
ARFF_LEFT_OUT = {
    "shared table": ("breast.w", "car", "kr.vs.kp", "heart.c", "credit.a", "solar.flare2", "glass", "hepatitis",
                     "iris", "letter", "mushroom", "nursery", "diabetes", "soybean", "vote"),
    "near-copy of another file": ("anneal.orig", "colic.orig", "bridges.version2"),
    "class is a row name (531 classes for 531 rows)": ("spectrometer",),
    "under 50 rows": ("trains", "shuttle.landing.control"),
}
#: Tables whose train and test files are one UCI table, and whose class is the first attribute.
ARFF_MERGED = {"spect": ("spect.train", "spect.test"), "spectf": ("spectf.train", "spectf.test")}


def _forest(X):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    coder = make_column_transformer(
        (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2),
         categorical), remainder="passthrough")
    return make_pipeline(coder, SimpleImputer(strategy="median", keep_empty_features=True),
                         RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=N_JOBS))


def _boosting(X):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    coder = make_column_transformer(  # categorical columns first, missing and unseen as NaN
        (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan, encoded_missing_value=np.nan),
         categorical), remainder="passthrough")
    # it takes at most 255 levels as categories; a column with more goes in as its ordinal codes
    is_categorical = np.array([X[c].nunique() <= 255 for c in categorical] + [False] * (X.shape[1] - len(categorical)))
    return make_pipeline(coder, HistGradientBoostingClassifier(
        early_stopping=False, l2_regularization=1.0, categorical_features=is_categorical, random_state=0))


def _generative():
    return {"NaiveBayes": pybnc.NaiveBayes(), "TAN": pybnc.TAN(), "AODE": pybnc.AODE(),
            "KDB(k=2)": pybnc.KDB(k=2, verbose=0), "SKDB(k=5)": pybnc.SKDB(k=5, verbose=0)}


def model_factories(auto_time_budget=None) -> dict:
    """Name -> function of the training table giving an unfitted model (``auto_time_budget``:
    AutoBNC's ``time_budget``, None by default)."""
    models = {AUTO: lambda X: pybnc.AutoBNC(time_budget=auto_time_budget, n_jobs=N_JOBS, random_state=0, verbose=0),
              # the same without the ensemble of candidates: what the ensemble adds
              AUTO_SINGLE: lambda X: pybnc.AutoBNC(ensemble=0, time_budget=auto_time_budget, n_jobs=N_JOBS,
                                                   random_state=0, verbose=0),
              # the best inner mean instead of the one-standard-error rule (on request: --models)
              AUTO_BEST: lambda X: pybnc.AutoBNC(rule="best", time_budget=auto_time_budget, n_jobs=N_JOBS,
                                                 random_state=0, verbose=0)}
    for name, estimator in _generative().items():
        models[name] = lambda X, e=estimator: clone(e)
        variant = discriminative(estimator)
        if variant is not None:
            models[f"{name} discriminative"] = lambda X, e=variant: clone(e)
    models[FOREST] = _forest
    models[BOOSTING] = _boosting
    return models


# -- tables ------------------------------------------------------------------------------------
def _arff_table(paths, class_first: bool):
    frame = pd.concat([read_arff(p) for p in paths], ignore_index=True)
    names = [c for c in frame.columns if str(c).lower() == "class"]
    target = frame.columns[0] if class_first else (names[0] if names else frame.columns[-1])
    frame = frame[frame[target].notna()]
    y = frame[target].astype(str).to_numpy(dtype=object)
    return frame.drop(columns=[target]).reset_index(drop=True), y


def arff_tables(folder: Path) -> dict:
    """``"uci-extra/<name>" -> loader`` for the ARFF files of ``folder`` (see module doc)."""
    left_out = {name for names in ARFF_LEFT_OUT.values() for name in names}
    merged = {part for parts in ARFF_MERGED.values() for part in parts}
    tables = {}
    for path in sorted(folder.glob("*.arff")):
        stem = path.stem
        if stem not in left_out and stem not in merged:
            tables[f"uci-extra/{stem}"] = lambda p=path: _arff_table([p], class_first=False)
    for name, parts in ARFF_MERGED.items():
        paths = [folder / f"{part}.arff" for part in parts]
        if all(p.exists() for p in paths):
            tables[f"uci-extra/{name}"] = lambda ps=paths: _arff_table(ps, class_first=True)
    return dict(sorted(tables.items()))


def add_table_arguments(parser, datasets: str | None = None, arff_names: str | None = None) -> None:
    """``--datasets``, ``--arff-dir`` and ``--arff-tables``, read by :func:`chosen_tables`
    (defaults: every shared table; every table of the ARFF folder)."""
    parser.add_argument("--datasets", default=datasets or ",".join(list_datasets()),
                        help="shared tables (pybnc.datasets names); 'none' for none")
    parser.add_argument("--arff-dir", type=Path, help="add the ARFF tables of this folder (see the module doc)")
    parser.add_argument("--arff-tables", default=arff_names,
                        help="only these ARFF tables (file names without .arff), in this order")


def chosen_tables(datasets: str, arff_dir=None, arff_names=None) -> dict:
    """The tables a benchmark's ``--datasets`` (shared names, comma-separated, or
    "none"), ``--arff-dir`` and ``--arff-tables`` (file names without .arff, in the order
    given; default every table of the folder) name: ``name -> loader``."""
    tables = {} if datasets == "none" else shared_tables(datasets.split(","))
    if arff_dir is not None:
        extra = arff_tables(Path(arff_dir))
        if arff_names:
            wanted = [f"uci-extra/{t}" for t in arff_names.split(",")]
            unknown = [w for w in wanted if w not in extra]
            if unknown:
                raise SystemExit(f"--arff-tables: no such table in {arff_dir}: {unknown}")
            extra = {k: extra[k] for k in wanted}
        tables.update(extra)
    return tables


def shared_tables(names) -> dict:
    def load(name):
        X, y = load_dataset(name)
        return X, np.asarray(y)
    return {name: (lambda n=name: load(n)) for name in names}


# -- running -------------------------------------------------------------------------------------
def _choice(model) -> str:
    """AutoBNC's choice, and what its time budget left out."""
    if not hasattr(model, "best_candidate_"):
        return ""
    skipped = int(np.sum(model.cv_results_["status"] == "skipped: time budget"))
    return model.best_candidate_ + (f" [time_budget {model.time_budget:g} s: {skipped} candidates skipped]"
                                    if model.time_budget is not None else "")


def _full_proba(model, X_test, classes) -> np.ndarray:
    """``predict_proba`` over all the table's classes (0 for a class the fold lacked)."""
    proba = model.predict_proba(X_test)
    full = np.zeros((len(X_test), classes.size))
    full[:, np.searchsorted(classes, model.classes_)] = proba
    return full


def run(tables: dict, models: list, csv: Path, time_limit: float, verbose: bool,
        auto_time_budget=None) -> pd.DataFrame:
    columns = ["dataset", "n_rows", "model", "fold", "accuracy", "log_loss", "fit_seconds", "predict_seconds",
               "choice", "load"]
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=columns)
    if not done.empty and done["fold"].max() >= N_FOLDS:
        raise SystemExit(f"{csv} holds folds of another protocol (fold {done['fold'].max()} of a {N_FOLDS}-fold run): "
                         "give another --csv.")
    factories = model_factories(auto_time_budget)
    for dataset, load in tables.items():
        X = y = folds = None
        for model in models:
            have = set(done.loc[(done["dataset"] == dataset) & (done["model"] == model), "fold"])
            if -1 in have or len(have) == N_FOLDS:
                continue
            if X is None:
                X, y = load()
                classes = np.unique(y)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # classes with fewer rows than folds
                    folds = list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=SEED).split(X, y))
            start = time.perf_counter()
            for fold, (train, test) in enumerate(folds):
                if fold in have:
                    continue
                estimator = factories[model](X.iloc[train])
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0 = time.perf_counter()
                        estimator.fit(X.iloc[train], y[train])
                        fit_seconds = time.perf_counter() - t0
                        t0 = time.perf_counter()
                        proba = _full_proba(estimator, X.iloc[test], classes)
                        predict_seconds = time.perf_counter() - t0
                except Exception as exc:  # reported in the CSV and the page, not a stop of the run
                    row = {"dataset": dataset, "n_rows": len(y), "model": model, "fold": -1, "accuracy": np.nan,
                           "log_loss": np.nan, "fit_seconds": np.nan, "predict_seconds": np.nan,
                           "choice": f"failed: {type(exc).__name__}: {str(exc)[:200]}", "load": os.getloadavg()[0]}
                    done = pd.concat([done, pd.DataFrame([row], columns=columns)], ignore_index=True)
                    done.to_csv(csv, index=False)
                    print(f"{dataset:28s} {model:32s} {row['choice']}", flush=True)
                    break
                row = {"dataset": dataset, "n_rows": len(y), "model": model, "fold": fold,
                       "accuracy": accuracy(y[test], proba, classes), "log_loss": log_loss(y[test], proba, classes),
                       "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
                       "choice": _choice(estimator), "load": os.getloadavg()[0]}
                if time.perf_counter() - start > time_limit and fold < N_FOLDS - 1:
                    row = {**row, "fold": -1, "accuracy": np.nan, "log_loss": np.nan,
                           "choice": f"over the time limit ({time_limit:.0f} s) after {fold + 1} folds"}
                done = pd.concat([done, pd.DataFrame([row], columns=columns)], ignore_index=True)
                done.to_csv(csv, index=False)
                if verbose:
                    print(f"  {dataset} {model} fold {fold}: {100 * row['accuracy']:.2f} {row['log_loss']:.4f} "
                          f"(fit {fit_seconds:.1f} s) {row['choice']}", flush=True)
                if row["fold"] == -1:
                    break
            ok = done[(done["dataset"] == dataset) & (done["model"] == model) & (done["fold"] >= 0)]
            if ok.empty:
                continue
            print(f"{dataset:28s} {model:32s} {100 * ok['accuracy'].mean():6.2f} {ok['log_loss'].mean():.4f} "
                  f"({time.perf_counter() - start:6.1f} s)", flush=True)
    return done.infer_objects()


# -- the tables of the docs page ---------------------------------------------------------------
def _choices(results, dataset) -> str:
    chosen = results[(results["dataset"] == dataset) & (results["model"] == AUTO)]["choice"]
    # an ensemble's name lists its members and weights: count it by its heaviest member
    budgets = sorted({str(c).partition(" [")[2].rstrip("]") for c in chosen if " [" in str(c)})
    chosen = [str(c).partition(" [")[0] for c in chosen]
    short = [_ensemble(c) if " ensemble: " in f" {c}" else c for c in chosen]
    text = "; ".join(f"{name} x{n}" if n > 1 else name for name, n in Counter(short).most_common())
    return text + "".join(f" [{b}]" for b in budgets)


def _ensemble(name: str) -> str:
    kind, _, listed = name.partition(": ")  # "ensemble" or "log-pooled ensemble"
    members = [part.split(" ", 1) for part in listed.split(" + ")]
    weight, heaviest = max(members, key=lambda m: float(m[0]))
    return f"{kind} of {len(members)} (most weight: {heaviest})"


def summarize(results: pd.DataFrame, datasets) -> str:
    """Per table: AutoBNC against the forest (the issue's bars, the fit times and the load
    average of their folds); the counts of the bars; every model's mean accuracy, log-loss
    and fit time."""
    results = results[results["dataset"].isin(datasets)]
    complete = results[results["fold"] >= 0].groupby(["dataset", "model"]).filter(lambda g: len(g) == N_FOLDS)
    means = complete.groupby(["dataset", "model"])[["accuracy", "log_loss", "fit_seconds"]].mean()
    lines = ["| table | rows | AutoBNC acc. | RF acc. | HGB acc. | AutoBNC log-loss | RF log-loss | HGB log-loss | "
             "acc. >= RF - 0.5 | log-loss <= RF | AutoBNC fit (s) | RF fit (s) | ratio | load | "
             "AutoBNC's choices |", "|---" * 15 + "|"]
    tally = Counter()
    scored = results[results["fold"] >= 0]
    for name in datasets:
        # AutoBNC against the others on the folds it completed (all five but where a run was cut short)
        folds = set(scored.loc[(scored["dataset"] == name) & (scored["model"] == AUTO), "fold"])
        same = scored[(scored["dataset"] == name) & scored["fold"].isin(folds)]
        fold_means = same.groupby("model")[["accuracy", "log_loss", "fit_seconds"]].mean()
        forest_folds = set(same.loc[same["model"] == FOREST, "fold"])
        if not folds or forest_folds != folds:  # not run, or the forest not on the same folds yet
            continue
        auto, forest = fold_means.loc[AUTO], fold_means.loc[FOREST]
        complete_hgb = set(same.loc[same["model"] == BOOSTING, "fold"]) == folds
        hgb = fold_means.loc[BOOSTING] if complete_hgb else pd.Series(np.nan, fold_means.columns)
        cut = "" if len(folds) == N_FOLDS else (f" (fold{'s' if len(folds) > 1 else ''} "
                                                f"{', '.join(str(int(f)) for f in sorted(folds))} only)")
        acc_ok = 100 * auto["accuracy"] >= 100 * forest["accuracy"] - 0.5
        ll_ok = auto["log_loss"] <= forest["log_loss"]
        tally["tables"] += 1
        tally["accuracy"] += acc_ok
        tally["log_loss"] += ll_ok
        tally["both"] += acc_ok and ll_ok
        ratio = auto["fit_seconds"] / forest["fit_seconds"]
        tally["time"] += ratio <= 10
        load = same.loc[same["model"].isin([AUTO, FOREST]), "load"]
        lines.append(f"| {name}{cut} | {_n_rows(results, name)} | {100 * auto['accuracy']:.2f} | "
                     f"{100 * forest['accuracy']:.2f} | {100 * hgb['accuracy']:.2f} | {auto['log_loss']:.4f} | "
                     f"{forest['log_loss']:.4f} | {hgb['log_loss']:.4f} | {'yes' if acc_ok else '**no**'} | "
                     f"{'yes' if ll_ok else '**no**'} | {auto['fit_seconds']:.1f} | {forest['fit_seconds']:.1f} | "
                     f"{ratio:.1f}{'' if ratio <= 10 else ' (**over 10**)'} | {load.min():.0f}-{load.max():.0f} | "
                     f"{_choices(results, name)} |")
    n = tally["tables"]
    lines += ["", f"AutoBNC's accuracy >= the forest's - 0.5 pt on {tally['accuracy']} of {n} tables, its log-loss "
              f"<= the forest's on {tally['log_loss']} of {n}, both on {tally['both']} of {n} (the bar: "
              f"{int(np.ceil(2 * n / 3))}); its fit within 10x the forest's on {tally['time']} of {n}."]
    present = set(complete["model"])
    # each learner beside its discriminative variant, whether or not this pybnc has it
    canonical = [AUTO, AUTO_SINGLE, AUTO_BEST] + [n for g in _generative() for n in (g, f"{g} discriminative")] + [FOREST, BOOSTING]
    models = [m for m in canonical if m in present] + sorted(present - set(canonical))
    for metric, scale, fmt, what in (("accuracy", 100, "{:.2f}", "accuracy (%)"), ("log_loss", 1, "{:.4f}", "log-loss"),
                                     ("fit_seconds", 1, "{:.2f}", "fit time (s, wall, per fold)")):
        lines += ["", f"Mean {what} of every model over the {N_FOLDS} folds (blank: not run or over the time "
                  "limit):", "", "| table | " + " | ".join(models) + " |", "|---" * (len(models) + 1) + "|"]
        for name in datasets:
            if name not in means.index.get_level_values(0):
                continue
            cells = [fmt.format(scale * means.loc[(name, m), metric]) if (name, m) in means.index else ""
                     for m in models]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _n_rows(results, name) -> int:
    return int(results.loc[results["dataset"] == name, "n_rows"].max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser)
    parser.add_argument("--models", default=None, help="comma-separated (default: all)")
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/accuracy_vs_forest_nested.csv"))
    parser.add_argument("--time-limit", type=float, default=3600.0,
                        help="seconds one model may take on one table before it is stopped")
    parser.add_argument("--auto-time-budget", type=float, default=None,
                        help="AutoBNC's time_budget (seconds of its choice), for the largest tables; default none")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print each fold as it is done")
    args = parser.parse_args()
    tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
    models = [m for m in model_factories() if m != AUTO_BEST] if args.models is None else args.models.split(",")
    results = run(tables, models, args.csv, args.time_limit, args.verbose, args.auto_time_budget)
    table = summarize(results, list(tables))
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
