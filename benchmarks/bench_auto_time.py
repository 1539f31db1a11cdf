"""AutoBNC's fit time against RandomForestClassifier(300)'s, both with n_jobs=2, on every
table of accuracy_vs_forest.py.

Each repeat fits the forest (the pipeline of accuracy_vs_forest.py) and then
``AutoBNC(n_jobs=2, random_state=0)`` on all the rows of the table, back to back, so
that both see the same load; the table gives the least wall time of each over the
repeats, their ratio (the issue's bar: at most 10) and the load average at the start
and end of the table's repeats, and the commit measured. Rows go to the CSV (``--csv``) as each table is done.

``--wide`` adds a synthetic wide numeric table (200 rows x 2,000 normal columns, two
classes, 2 % of the columns shifted by the class): the shape where AutoBNC is furthest
from the forest (docs/accuracy_vs_forest.md, "What is left"). ``--many-levelled`` adds a
synthetic table of many rare levels (600 rows: six text columns of 300 levels, three of
them shifted by the class, and one number): the shape AutoBNC groups the rare levels of
(``min_frequency``, docs/encoding.md).

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_auto_time.py [--datasets car,chess]
[--arff-dir DIR] [--wide] [--many-levelled] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import pybnc
from accuracy_vs_forest import _forest, add_table_arguments, chosen_tables


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


WIDE = "200 x 2,000 numeric (synthetic)"


def _wide(n_rows=200, n_columns=2000, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    shifted = rng.random(n_columns) < 0.02
    X = pd.DataFrame(rng.normal(size=(n_rows, n_columns)) + 0.6 * y[:, None] * shifted,
                     columns=[f"x{i}" for i in range(n_columns)])
    return X, y


MANY_LEVELLED = "600 x (6 x 300 levels + 1 number) (synthetic)"


def _many_levelled(n_rows=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    X = pd.DataFrame({f"m{i}": [f"v{v}" for v in rng.integers(0, 300, n_rows) + y * (i % 2)] for i in range(6)})
    X["n"] = rng.normal(size=n_rows) + y
    return X, y


def add_synthetic_arguments(parser) -> None:
    """``--wide`` and ``--many-levelled``, read by :func:`with_synthetic`."""
    parser.add_argument("--wide", action="store_true", help="add a synthetic 200 x 2,000 numeric table")
    parser.add_argument("--many-levelled", action="store_true", help="add a synthetic table of many rare levels")


def with_synthetic(tables: dict, args) -> dict:
    """``tables`` (name -> loader) with the synthetic tables ``args`` asks for added."""
    if args.wide:
        tables[WIDE] = _wide
    if args.many_levelled:
        tables[MANY_LEVELLED] = _many_levelled
    return tables


def _seconds(make, X, y) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        make().fit(X, y)
        return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/bench_auto_time.csv"))
    add_synthetic_arguments(parser)
    args = parser.parse_args()
    tables = with_synthetic(chosen_tables(args.datasets, args.arff_dir, args.arff_tables), args)
    done = pd.read_csv(args.csv) if args.csv.exists() else pd.DataFrame()
    print("| table | rows | forest (s) | AutoBNC (s) | ratio | load |\n|---|---|---|---|---|---|", flush=True)
    for name, load in tables.items():
        if not done.empty and name in set(done["dataset"]):
            continue
        X, y = load()
        load_before = os.getloadavg()[0]
        forest, auto = [], []
        for _ in range(args.repeats):
            forest.append(_seconds(lambda: _forest(X), X, y))
            auto.append(_seconds(lambda: pybnc.AutoBNC(n_jobs=2, random_state=0, verbose=0), X, y))
        row = {"dataset": name, "n_rows": len(y), "forest_seconds": min(forest), "auto_seconds": min(auto),
               "ratio": min(auto) / min(forest), "load_before": load_before, "load_after": os.getloadavg()[0], "code": _commit()}
        done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
        done.to_csv(args.csv, index=False)
        print(f"| {name} | {len(y)} | {row['forest_seconds']:.2f} | {row['auto_seconds']:.2f} | {row['ratio']:.1f} | "
              f"{load_before:.1f}-{row['load_after']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
