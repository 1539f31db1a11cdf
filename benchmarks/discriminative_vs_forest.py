"""The discriminative learners beside their generative selves and a random forest, every UCI table.

Issue 20: a discriminative learner (``weighting="discriminative"``) is never more
than 2 points below its generative self. Every model of a table is scored on the same
``StratifiedKFold(5, shuffle=True, random_state=1)`` folds, raw DataFrames in (the
forest gets ordinal codes, as in ``accuracy_vs_forest.py``); accuracy, log-loss and
fit time (seconds, mean per fold, one process, one BLAS thread; the forest with
``n_jobs=2``, as issue 21 compares). Each (table, model) goes to a CSV as soon as its
five folds are done, so a run can be continued. A model that takes more than
``--time-limit`` seconds on a fold is skipped on that table and marked so; one that
refuses a table (too many weights) is marked with its error.

Usage::

    OMP_NUM_THREADS=1 nice python benchmarks/discriminative_vs_forest.py [--tables car,glass] [--models ...]
    python benchmarks/discriminative_vs_forest.py --report [--markdown benchmarks/discriminative.md]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import pybnc
from pybnc.datasets import list_datasets, load_dataset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accuracy_vs_forest import _forest  # noqa: E402  (the forest exactly as the other table runs it)

SEED = 1
FOREST = "RandomForest(300)"
D = "discriminative"
PAIRS = {  # generative model -> its discriminative self
    "NaiveBayes": ("NaiveBayes+d", lambda **kw: pybnc.NaiveBayes(**kw)),
    "TAN": ("TAN+d", lambda **kw: pybnc.TAN(**kw)),
    "KDB(k=1)": ("KDB(k=1)+d", lambda **kw: pybnc.KDB(k=1, verbose=0, **kw)),
    "KDB(k=2)": ("KDB(k=2)+d", lambda **kw: pybnc.KDB(k=2, verbose=0, **kw)),
    "SKDB(k=5)": ("SKDB(k=5)+d", lambda **kw: pybnc.SKDB(verbose=0, **kw)),
    "AODE": ("AODE+d", lambda **kw: pybnc.AODE(**kw)),
    "A2DE": ("A2DE+d", lambda **kw: pybnc.AnDE(n=2, **kw)),
}
MODELS = {}
for generative, (discriminative, make) in PAIRS.items():
    MODELS[generative] = (lambda make=make: lambda X: make())()
    MODELS[discriminative] = (lambda make=make: lambda X: make(weighting=D))()


def _forest_two_jobs(X):
    model = _forest(X)
    model.set_params(randomforestclassifier__n_jobs=2)
    return model


MODELS[FOREST] = _forest_two_jobs


def run(tables, models, csv: Path, time_limit: float) -> pd.DataFrame:
    columns = ["table", "model", "accuracy", "log_loss", "fit_seconds", "note"]
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=columns)
    for name in tables:
        X, y = load_dataset(name)
        y = np.asarray(y)
        labels = np.unique(y)
        folds = list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(X, y))
        for model in models:
            if ((done["table"] == name) & (done["model"] == model)).any():
                continue
            accuracy, losses, seconds, note = [], [], [], ""
            for train, test in folds:
                estimator = clone(MODELS[model](X))
                start = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        estimator.fit(X.iloc[train], y[train])
                except (MemoryError, ValueError) as exc:
                    note = f"refused: {type(exc).__name__}: {str(exc)[:80]}"
                    break
                seconds.append(time.perf_counter() - start)
                proba = estimator.predict_proba(X.iloc[test])
                accuracy.append(np.mean(estimator.classes_[proba.argmax(axis=1)] == y[test]))
                full = np.zeros((len(test), labels.size))
                full[:, np.searchsorted(labels, estimator.classes_)] = proba
                losses.append(log_loss(y[test], np.clip(full, 1e-15, 1), labels=labels))
                if seconds[-1] > time_limit and len(seconds) < len(folds):
                    note = f"skipped: a fold took {seconds[-1]:.0f} s"
                    break
            row = {"table": name, "model": model, "note": note,
                   "accuracy": 100 * np.mean(accuracy) if not note else np.nan,
                   "log_loss": np.mean(losses) if not note else np.nan,
                   "fit_seconds": np.mean(seconds) if seconds else np.nan}
            print(f"{name:10s} {model:14s} {row['accuracy']:6.2f} {row['log_loss']:7.4f} {row['fit_seconds']:8.2f} s "
                  f"{note}", flush=True)
            done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
            done.to_csv(csv, index=False)
    return done


def report(results: pd.DataFrame) -> str:
    acc = results.pivot_table(index="table", columns="model", values="accuracy", aggfunc="first")
    loss = results.pivot_table(index="table", columns="model", values="log_loss", aggfunc="first")
    secs = results.pivot_table(index="table", columns="model", values="fit_seconds", aggfunc="first")
    lines = ["Accuracy (%) / log-loss / mean fit seconds per fold; `+d` is `weighting=\"discriminative\"`; "
             "**bold**: the discriminative model more than 2 points below its generative self.", ""]
    for generative, (discriminative, _) in PAIRS.items():
        if generative not in acc.columns:
            continue
        lines += [f"### {generative}", "", f"| table | {generative} | {discriminative} | {FOREST} | "
                  f"fit s ({generative} / {discriminative} / forest) |", "|---|---|---|---|---|"]
        worst = np.inf
        for name in acc.index:
            def cell(model):
                if model not in acc.columns or np.isnan(acc.loc[name, model]):
                    note = results[(results.table == name) & (results.model == model)]["note"]
                    return "—" if note.empty or not isinstance(note.iloc[0], str) else note.iloc[0].split(":")[0]
                return f"{acc.loc[name, model]:.2f} / {loss.loc[name, model]:.3f}"

            gap = acc.loc[name].get(discriminative, np.nan) - acc.loc[name].get(generative, np.nan)
            worst = min(worst, gap) if not np.isnan(gap) else worst
            shown = cell(discriminative)
            if not np.isnan(gap) and gap < -2:
                shown = f"**{shown}**"
            times = " / ".join("—" if m not in secs.columns or np.isnan(secs.loc[name, m]) else f"{secs.loc[name, m]:.2f}"
                               for m in (generative, discriminative, FOREST))
            lines.append(f"| {name} | {cell(generative)} | {shown} | {cell(FOREST)} | {times} |")
        lines += ["", f"Worst gap {discriminative} − {generative}: {worst:+.2f} points.", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(list_datasets()))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/discriminative_vs_forest.csv"))
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds one fold's fit may take")
    parser.add_argument("--report", action="store_true", help="only print the table of the CSV")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    if not args.report:
        run(args.tables.split(","), args.models.split(","), args.csv, args.time_limit)
    table = report(pd.read_csv(args.csv))
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
