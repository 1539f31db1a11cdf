"""Does any learner collapse on a small table? Every classifier beside naive Bayes.

Issue 20's bar: no learner falls more than 5 points below naive Bayes on a small
table. By default this runs every registered classifier (:mod:`pybnc.registry`) with
its defaults, except AutoBNC and ESKDB (minutes per table here; name them with
``--models auto,eskdb``), on the shared UCI tables under ~1,000 rows (glass,
hepatitis, iris, cleve, crx, breast, votes, pima, soybean, flare) and on public UCI
ARFF tables of that size (``--arff-dir``, default ``/work/data/uci-extra``; lymph is
the issue's 148-row medical table), read with :func:`pybnc.io.read_arff`, the class
the last attribute. ``--sampled`` adds 150-row random samples (seed 1, the same for
every model) of the larger shared tables (car, chess, nursery, mushroom, adult,
letter): at 150 rows a kDB's family of two parents has far more cells than rows.
Named variants (``kdb1``, ``kdb3``, ``kdbhc``, the ``+d`` discriminative ones) run
when listed in ``--models``.

Every model of a table is scored on the same ``StratifiedKFold(5, shuffle=True,
random_state=1)`` folds (raw DataFrames in, each model's own encoding). Results go
to a CSV (``--csv``) as each model of a table is done, so a run can be continued;
``--tag`` names the code state (before/after a change) so both sit in one file.

Usage::

    OMP_NUM_THREADS=1 nice python benchmarks/small_tables.py --tag after [--tables glass,lymph] [--models kdb,tan]
    python benchmarks/small_tables.py --report --csv benchmarks/small_tables.csv

The report gives, per tag, each model's accuracy, then per table each model's
accuracy minus naive Bayes's with ``!`` on gaps below -5 points.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

import pybnc
from pybnc.datasets import load_dataset
from pybnc.io import read_arff
from pybnc.registry import MODELS as REGISTRY

SEED = 1
SMALL = ("glass", "hepatitis", "iris", "cleve", "crx", "breast", "votes", "pima", "soybean", "flare")
# Public UCI ARFF tables under ~1,000 rows (Weka's copies): file stems in --arff-dir.
EXTRA = ("lymph", "breast.cancer", "heart.statlog", "colic", "sonar", "zoo", "labor", "primary.tumor",
         "audiology", "vehicle", "credit.g")
SAMPLED = ("car", "chess", "nursery", "mushroom", "adult", "letter")
SAMPLE_ROWS = 150
SLOW = ("auto", "eskdb")  # left out by default: minutes per table on a shared 2-core machine


def _defaults(cls):
    """A registered class with its defaults, silent and seeded where it takes those."""
    names = cls().get_params()
    return cls(**{k: v for k, v in (("verbose", 0), ("random_state", 0)) if k in names})


MODELS = {entry.short_name: (lambda cls=entry.cls: _defaults(cls)) for entry in REGISTRY}
MODELS |= {
    "kdb1": lambda: pybnc.KDB(k=1, verbose=0),
    "kdb3": lambda: pybnc.KDB(k=3, verbose=0),
    "kdbhc": lambda: pybnc.KDB(k=2, search="hc", random_state=0, verbose=0),
    # weighting="discriminative" (issue 20)
    "nb+d": lambda: pybnc.NaiveBayes(weighting="discriminative"),
    "tan+d": lambda: pybnc.TAN(weighting="discriminative"),
    "kdb1+d": lambda: pybnc.KDB(k=1, weighting="discriminative", verbose=0),
    "kdb2+d": lambda: pybnc.KDB(k=2, weighting="discriminative", verbose=0),
    "skdb+d": lambda: pybnc.SKDB(weighting="discriminative", verbose=0),
    "aode+d": lambda: pybnc.AODE(weighting="discriminative"),
    "a2de+d": lambda: pybnc.AnDE(n=2, weighting="discriminative"),
}


def table(name: str, arff_dir: Path):
    if name not in SMALL + SAMPLED and (arff_dir / f"{name}.arff").exists():
        frame = read_arff(arff_dir / f"{name}.arff")
        return name, frame.iloc[:, :-1], np.asarray(frame.iloc[:, -1].astype(str))
    X, y = load_dataset(name)
    if name in SAMPLED:
        rows = np.random.default_rng(SEED).choice(len(y), SAMPLE_ROWS, replace=False)
        X, y = X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
        name = f"{name}[{SAMPLE_ROWS}]"
    return name, X, np.asarray(y)


def score(make, X, y) -> tuple[float, float]:
    accuracy, seconds = [], 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a stratified fold of a rare class warns
        folds = list(StratifiedKFold(5, shuffle=True, random_state=SEED).split(X, y))
        for train, test in folds:
            model = clone(make())
            start = time.perf_counter()
            model.fit(X.iloc[train], y[train])
            seconds += time.perf_counter() - start
            accuracy.append(np.mean(model.predict(X.iloc[test]) == y[test]))
    return 100 * float(np.mean(accuracy)), seconds


def run(tables, models, csv: Path, tag: str, arff_dir: Path) -> pd.DataFrame:
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=["tag", "table", "model", "accuracy",
                                                                       "fit_seconds"])
    for source in tables:
        name, X, y = table(source, arff_dir)
        for model in models:
            if ((done["tag"] == tag) & (done["table"] == name) & (done["model"] == model)).any():
                continue
            accuracy, seconds = score(MODELS[model], X, y)
            print(f"{tag:8s} {name:16s} {model:10s} {accuracy:6.2f}  ({seconds:5.1f} s)", flush=True)
            done = pd.concat([done, pd.DataFrame([{"tag": tag, "table": name, "model": model,
                                                    "accuracy": accuracy, "fit_seconds": seconds}])])
            done.to_csv(csv, index=False)
    return done


def report(results: pd.DataFrame) -> str:
    """Per tag: each model's accuracy; then per table each model's accuracy minus naive
    Bayes's (``!`` where it is more than 5 points below), the worst gap and the number of
    tables more than 5 points below."""
    lines = []
    for tag, part in results.groupby("tag", sort=False):
        wide = part.pivot_table(index="table", columns="model", values="accuracy")
        wide = wide.loc[[t for t in dict.fromkeys(part["table"])]]  # the order they ran in
        models = [m for m in MODELS if m in wide.columns]
        gap = wide[models].sub(wide["nb"], axis=0)
        header = ["| table | " + " | ".join(models) + " |", "|---" * (len(models) + 1) + "|"]
        lines += [f"### {tag}: accuracy (%)", ""] + header
        for name in wide.index:
            lines.append(f"| {name} | " + " | ".join(f"{wide.loc[name, m]:.1f}" for m in models) + " |")
        lines += ["", f"### {tag}: accuracy minus naive Bayes's (points; ! more than 5 below)", ""] + header
        for name in wide.index:
            lines.append(f"| {name} | " + " | ".join(
                "" if np.isnan(g) else f"{g:+.1f}" + ("!" if g < -5 else "") for g in gap.loc[name]) + " |")
        lines.append("| **worst gap** | " + " | ".join(f"{gap[m].min():+.1f}" for m in models) + " |")
        lines.append("| **tables > 5 below** | " + " | ".join(str(int((gap[m] < -5).sum())) for m in models) + " |")
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(SMALL + EXTRA))
    parser.add_argument("--sampled", action="store_true", help="add 150-row samples of the larger tables")
    parser.add_argument("--models", default=",".join(m.short_name for m in REGISTRY if m.short_name not in SLOW))
    parser.add_argument("--arff-dir", type=Path, default=Path("/work/data/uci-extra"))
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/small_tables.csv"))
    parser.add_argument("--tag", default="current")
    parser.add_argument("--report", action="store_true", help="only print the table of the CSV")
    args = parser.parse_args()
    if not args.report:
        tables = args.tables.split(",") + (list(SAMPLED) if args.sampled else [])
        run(tables, args.models.split(","), args.csv, args.tag, args.arff_dir)
    print(report(pd.read_csv(args.csv)))


if __name__ == "__main__":
    main()
