"""pybnc's classifiers next to random forest and gradient boosting, 10-fold CV on every
UCI table bundled with pybnc (the tables of ../shared/datasets/uci).

Every model of a table is scored on the same ``StratifiedKFold(10, shuffle=True,
random_state=SEED)`` folds in the same run; each fold's accuracy goes to a CSV
(``--csv``) as soon as the model's ten folds are done, so an interrupted run resumes
where it stopped. The table compares pybnc's best classifier of each table (highest
mean accuracy) with ``RandomForestClassifier(n_estimators=300)`` by the corrected
resampled t-test (Nadeau & Bengio 2003, ``pybnc.evaluation.stats``, alpha 0.05), and
counts win/tie/loss of each pybnc classifier against the forest.

Scikit-learn's models get the table as numbers: categorical columns ordinal-coded
(for the forest missing is its own code and NaN in numeric columns is imputed by the
median; HistGradientBoosting takes the coded columns as categorical features and
handles NaN itself). pybnc gets the raw table.

HistGradientBoosting runs without early stopping (its inner stratified split fails on
nursery's class of two rows) and with ``l2_regularization=1``, XGBoost's default: with
scikit-learn's 0 the leaves fitted to a class of one or two training rows get huge
values and nursery's accuracy fell to 75-83% on some folds (99.9% with 1).

Run (one BLAS/OpenMP thread per process, as the table was made):
``OMP_NUM_THREADS=1 python benchmarks/accuracy_vs_forest.py [--datasets car,chess] [--models ...]
[--markdown docs/accuracy_vs_forest.md]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

import pybnc
from pybnc.datasets import list_datasets, load_dataset
from pybnc.evaluation.stats import corrected_resampled_t_test

SEED = 1
FOREST = "RandomForest(300)"
BOOSTING = "HistGradientBoosting(l2=1)"
ESKDB = "ESKDB(20 k=5)"
SMALL_ESKDB = "ESKDB(5 k=5 shared bins)"


def _forest(X):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    coder = make_column_transformer(
        (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-2),
         categorical), remainder="passthrough")
    return make_pipeline(coder, SimpleImputer(strategy="median"),
                         RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=1))


def _boosting(X):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    coder = make_column_transformer(  # categorical columns first, missing and unseen as NaN
        (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan, encoded_missing_value=np.nan),
         categorical), remainder="passthrough")
    is_categorical = np.arange(X.shape[1]) < len(categorical)
    return make_pipeline(coder, HistGradientBoostingClassifier(
        early_stopping=False, l2_regularization=1.0, categorical_features=is_categorical, random_state=0))


MODELS = {
    "NaiveBayes": lambda X: pybnc.NaiveBayes(),
    "TAN": lambda X: pybnc.TAN(),
    "AODE": lambda X: pybnc.AODE(),
    "KDB(k=2)": lambda X: pybnc.KDB(k=2, verbose=0),
    "SKDB(k=5)": lambda X: pybnc.SKDB(k=5, verbose=0),
    "A2DE": lambda X: pybnc.AnDE(n=2),
    "KDB(k=2 hdp)": lambda X: pybnc.KDB(k=2, params="hdp", random_state=0, verbose=0),
    "ESKDB(5 k=3)": lambda X: pybnc.ESKDB(n_estimators=5, k=3, hdp_iterations=100, random_state=0, verbose=0),
    # the paper's settings, pybnc's defaults: 20 members, k=5, 1000 Gibbs iterations
    ESKDB: lambda X: pybnc.ESKDB(random_state=0, verbose=0),
    # letter and adult only (20 members there take hours on this machine), the members
    # sharing the encoder's MDL bins (the run was started before members drew their own)
    SMALL_ESKDB: lambda X: pybnc.ESKDB(n_estimators=5, member_bins="shared", random_state=0, verbose=0),
    FOREST: _forest,
    BOOSTING: _boosting,
}
REFERENCES = (FOREST, BOOSTING)
ONLY_ON = {SMALL_ESKDB: ("letter", "adult")}
# letter: its HDP sampling alone takes about 40 s per member and fold on this machine
SKIPPED_ON = {ESKDB: ("letter",)}


def run(datasets, models, csv: Path, time_limit: float, verbose: bool = False) -> pd.DataFrame:
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=["dataset", "model", "fold", "accuracy",
                                                                       "fit_seconds"])
    for name in datasets:
        X, y = load_dataset(name)
        y = np.asarray(y)
        folds = list(StratifiedKFold(10, shuffle=True, random_state=SEED).split(X, y))
        for model in models:
            if ((done["dataset"] == name) & (done["model"] == model)).any() or name in SKIPPED_ON.get(model, ()) \
                    or name not in ONLY_ON.get(model, (name,)):
                continue
            rows, start = [], time.perf_counter()
            for fold, (train, test) in enumerate(folds):
                estimator = MODELS[model](X)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    estimator.fit(X.iloc[train], y[train])
                    fit_seconds = time.perf_counter() - t0
                    accuracy = float(np.mean(estimator.predict(X.iloc[test]) == y[test]))
                rows.append({"dataset": name, "model": model, "fold": fold, "accuracy": accuracy,
                             "fit_seconds": fit_seconds})
                if verbose:
                    print(f"  {name} {model} fold {fold}: {100 * accuracy:.2f} (fit {fit_seconds:.1f} s)", flush=True)
                if time.perf_counter() - start > time_limit and fold < 9:
                    print(f"{name:10s} {model:22s} skipped: {fold + 1} folds took more than {time_limit:.0f} s")
                    rows = [{"dataset": name, "model": model, "fold": -1, "accuracy": np.nan,
                             "fit_seconds": time.perf_counter() - start}]
                    break
            done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
            done.to_csv(csv, index=False)
            ok = [r["accuracy"] for r in rows if r["fold"] >= 0]
            if ok:
                print(f"{name:10s} {model:22s} {100 * np.mean(ok):6.2f}  ({time.perf_counter() - start:6.1f} s)")
    return done


def summarize(results: pd.DataFrame, datasets) -> str:
    results = results[results["dataset"].isin(datasets) & (results["fold"] >= 0)]
    means = results.pivot_table(index="dataset", columns="model", values="accuracy", aggfunc="mean") * 100
    pybnc_models = [m for m in MODELS if m not in REFERENCES and m in means.columns]
    lines = ["| dataset | rows | best pybnc | acc. | RF | HGB | best vs RF |", "|---|---|---|---|---|---|---|"]
    tally = {m: {"win": 0, "tie": 0, "loss": 0, "at_least": 0, "tables": 0} for m in pybnc_models}
    at_least_rf = not_worse = 0
    for name in datasets:
        if name not in means.index or FOREST not in means.columns or np.isnan(means.loc[name, FOREST]):
            continue
        row = means.loc[name]
        if row[pybnc_models].isna().all():
            continue
        n = len(load_dataset(name)[1])
        fold_acc = results[results["dataset"] == name].pivot(index="fold", columns="model", values="accuracy")
        verdicts = {}
        for m in pybnc_models:
            if m in fold_acc.columns and fold_acc[m].notna().all():
                verdicts[m] = corrected_resampled_t_test(fold_acc[m], fold_acc[FOREST], n_train=0.9 * n,
                                                         n_test=0.1 * n).verdict
                tally[m][verdicts[m]] += 1
                tally[m]["tables"] += 1
                tally[m]["at_least"] += bool(row[m] >= row[FOREST])
        best = row[pybnc_models].idxmax()
        at_least_rf += bool(row[best] >= row[FOREST])
        not_worse += verdicts.get(best) in ("win", "tie")
        lines.append(f"| {name} | {n} | {best} | {row[best]:.2f} | {row[FOREST]:.2f} | "
                     f"{row.get(BOOSTING, np.nan):.2f} | {verdicts.get(best, '?')} |")
    n_tables = len(lines) - 2
    lines += ["", f"Best pybnc classifier's mean accuracy at or above the forest's: {at_least_rf} of {n_tables} "
              f"tables; not significantly below it (win or tie): {not_worse} of {n_tables}.", "",
              "Win/tie/loss of each pybnc classifier against the forest (corrected resampled t-test, 0.05):", "",
              "| classifier | win | tie | loss | mean at or above the forest's | mean accuracy over its tables |",
              "|---|---|---|---|---|---|"]
    for m in pybnc_models:
        t = tally[m]
        lines.append(f"| {m} | {t['win']} | {t['tie']} | {t['loss']} | {t['at_least']} of {t['tables']} | "
                     f"{means[m].mean():.2f} |")
    models = [m for m in MODELS if m in means.columns]
    lines += ["", "Mean accuracy (%) of every model (blank: not run or over the time limit):", "",
              "| dataset | " + " | ".join(models) + " |", "|---" * (len(models) + 1) + "|"]
    for name in means.index:
        cells = ["" if np.isnan(means.loc[name, m]) else f"{means.loc[name, m]:.2f}" for m in models]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(list_datasets()))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/accuracy_vs_forest.csv"))
    parser.add_argument("--time-limit", type=float, default=900.0,
                        help="seconds one model may take on one table before it is skipped")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print each fold's accuracy as it is done")
    args = parser.parse_args()
    datasets = args.datasets.split(",")
    results = run(datasets, args.models.split(","), args.csv, args.time_limit, args.verbose)
    table = summarize(results, datasets)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
