"""AutoBNC's fit time against RandomForestClassifier(300)'s, both with n_jobs=2, on every
table of accuracy_vs_forest.py.

Each repeat fits the forest (the pipeline of accuracy_vs_forest.py) and then
``AutoBNC(n_jobs=2, random_state=0)`` on all the rows of the table, back to back, so
that both see the same load; the table gives the least wall time of each over the
repeats, their ratio (the issue's bar: at most 10) and the load average at the start
and end of the table's repeats, and the commit measured. Rows go to the CSV (``--csv``) as each table is done.

``--wide`` adds a synthetic wide numeric table (200 rows x 2,000 normal columns, two
classes, 2 % of the columns shifted by the class): the shape where AutoBNC is furthest
from the forest (benchmarks/accuracy_vs_forest.md, "What is left"). ``--many-levelled`` adds a
synthetic table of many rare levels (600 rows: six text columns of 300 levels, three of
them shifted by the class, and one number): the shape AutoBNC groups the rare levels of
(``min_frequency``, docs/encoding.md).

``--fresh N`` fits each table in ``N`` new processes instead, one after another: each
fits the forest and then ``AutoBNC()`` with its defaults (``random_state=None``), and
the table gives the forest's least time, AutoBNC's fastest and slowest, and the
issue's bars (slowest within 10 times the forest's and 3 times the fastest).
``--mixed`` adds a synthetic 600-row table of numbers, categories and missing values.

``--n-jobs`` fits ``AutoBNC(random_state=0)`` in new processes with ``n_jobs=1``,
``n_jobs=2``, and ``n_jobs=2`` with an idle thread alive in the process (a notebook's,
a server's), taking turns, ``--repeats`` times each, and gives the least time of each,
their ratios (bars: n_jobs=2 at most 1.1 times n_jobs=1, the idle thread at most 15 %
more) and whether every fit made the same choice with the same probabilities.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_auto_time.py [--datasets car,chess]
[--arff-dir DIR] [--wide] [--many-levelled] [--mixed] [--repeats 3] [--fresh 4 | --n-jobs]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
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


MIXED = "600 x 9 mixed, missing values (synthetic)"


def _mixed(n_rows=600, seed=0):
    """Numbers, categories and missing values, the class shifting some of each."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    X = pd.DataFrame({f"n{i}": rng.normal(size=n_rows) + 0.5 * y * (i < 3) for i in range(5)})
    for i in range(4):
        levels = np.array([f"c{v}" for v in range(3 + 2 * i)], dtype=object)
        X[f"c{i}"] = levels[(rng.integers(0, levels.size, n_rows) + y * (i % 2)) % levels.size]
    for column, share in (("n3", 0.1), ("c1", 0.15), ("n0", 0.05)):
        X.loc[rng.random(n_rows) < share, column] = np.nan
    return X, y


def add_synthetic_arguments(parser) -> None:
    """``--wide`` and ``--many-levelled``, read by :func:`with_synthetic`."""
    parser.add_argument("--wide", action="store_true", help="add a synthetic 200 x 2,000 numeric table")
    parser.add_argument("--many-levelled", action="store_true", help="add a synthetic table of many rare levels")
    parser.add_argument("--mixed", action="store_true", help="add a synthetic 600-row table of mixed columns")


def with_synthetic(tables: dict, args) -> dict:
    """``tables`` (name -> loader) with the synthetic tables ``args`` asks for added."""
    if args.wide:
        tables[WIDE] = _wide
    if args.many_levelled:
        tables[MANY_LEVELLED] = _many_levelled
    if getattr(args, "mixed", False):
        tables[MIXED] = _mixed
    return tables


def _seconds(make, X, y) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        make().fit(X, y)
        return time.perf_counter() - start


def _in_a_new_process(args, table: str, *options) -> dict:
    """One ``--one`` run of this script in a new interpreter: its printed results."""
    command = [sys.executable, __file__, "--one", table, "--datasets", args.datasets, *options]
    if args.mixed:
        command.append("--mixed")
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=Path(__file__).parent).stdout
    return json.loads(out.strip().splitlines()[-1])


def _one(args, tables) -> None:
    """Fit the forest and then AutoBNC on ``args.one`` here, and print the times as JSON."""
    X, y = tables[args.one]()
    if args.idle_thread:
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    forest = _seconds(lambda: _forest(X), X, y) if args.forest else float("nan")
    seed = None if args.seed < 0 else args.seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = pybnc.AutoBNC(n_jobs=args.jobs, random_state=seed, verbose=0).fit(X, y)
        auto = time.perf_counter() - start
    proba = model.predict_proba(X)
    print(json.dumps({"forest": forest, "auto": auto, "choice": model.best_candidate_,
                      "proba": hashlib.sha1(proba.tobytes()).hexdigest()}))


def _fresh(args, tables) -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; {args.fresh} new processes per table, one after another\n")
    print("| table | rows | forest (s) | AutoBNC fastest (s) | slowest (s) | slowest / forest | slowest / fastest |"
          "\n|---|---|---|---|---|---|---|", flush=True)
    for name in tables:
        runs = [_in_a_new_process(args, name, "--forest") for _ in range(args.fresh)]
        forest, auto = min(r["forest"] for r in runs), [r["auto"] for r in runs]
        print(f"| {name} | {len(tables[name]()[1])} | {forest:.2f} | {min(auto):.2f} | {max(auto):.2f} | "
              f"{max(auto) / forest:.1f} | {max(auto) / min(auto):.1f} |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


def _n_jobs(args, tables) -> None:
    ways = {"n_jobs=1": ("--jobs", "1"), "n_jobs=2": ("--jobs", "2"), "n_jobs=2, idle thread": ("--jobs", "2", "--idle-thread")}
    print(f"load average {os.getloadavg()[0]:.1f}; random_state=0, new processes taking turns, least of {args.repeats}\n")
    print("| table | n_jobs=1 (s) | n_jobs=2 (s) | n_jobs=2, idle thread (s) | 2 / 1 | idle / 2 | same model |"
          "\n|---|---|---|---|---|---|---|", flush=True)
    for name in tables:
        seconds, models = {way: [] for way in ways}, set()
        for r in range(args.repeats):
            for way in (list(ways) if r % 2 == 0 else list(ways)[::-1]):
                run = _in_a_new_process(args, name, "--seed", "0", *ways[way])
                seconds[way].append(run["auto"])
                models.add((run["choice"], run["proba"]))
        one, two, idle = (min(seconds[way]) for way in ways)
        print(f"| {name} | {one:.2f} | {two:.2f} | {idle:.2f} | {two / one:.2f} | {idle / two:.2f} | "
              f"{'yes' if len(models) == 1 else 'NO'} |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/bench_auto_time.csv"))
    parser.add_argument("--fresh", type=int, default=0, help="fit each table in this many new processes")
    parser.add_argument("--n-jobs", action="store_true", help="n_jobs=1, 2 and 2 with an idle thread, new processes")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=-1, help=argparse.SUPPRESS)
    parser.add_argument("--forest", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--idle-thread", action="store_true", help=argparse.SUPPRESS)
    add_synthetic_arguments(parser)
    args = parser.parse_args()
    tables = with_synthetic(chosen_tables(args.datasets, args.arff_dir, args.arff_tables), args)
    if args.one:
        return _one(args, tables)
    if args.fresh:
        return _fresh(args, tables)
    if args.n_jobs:
        return _n_jobs(args, tables)
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
