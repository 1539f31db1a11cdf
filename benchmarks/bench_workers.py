"""Forked workers against a new pool of joblib's workers, in the same run.

For each table, ``AutoBNC(n_jobs=2, random_state=0)`` is fitted on all rows with its
workers forked from this process (``pybnc._utils.workers``) and with forking off
(``PYBNC_FORK=0``: a new pool of joblib's workers, as in a new process; the pool a fit
leaves is stopped before the next), taking turns, the least of ``--repeats``; then
``AveragedBNC([NaiveBayes(), SKDB(k=5)], n_jobs=2)`` on adult's first 5,000 rows the same
two ways and in this process alone. The table gives both times, their ratio, whether
the two fits chose the same and the load average. Last, the command line's
``pybnc fit --model auto`` on soybean with one core and with its default, every core.

Run: ``python benchmarks/bench_workers.py [--datasets soybean,glass,car,iris]
[--arff-dir DIR --arff-tables audiology,sonar] [--repeats 2]``.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import warnings
from pathlib import Path

import numpy as np

from _turns import taking_turns, timed
from accuracy_vs_forest import add_table_arguments, chosen_tables
from pybnc import SKDB, AutoBNC, NaiveBayes
from pybnc.averaging import AveragedBNC
from pybnc.datasets import load_dataset
from pybnc.selection.race import shutdown_pool


def _fit(make, X, y, fork: bool):
    """Seconds of one fit, and the fitted model; every joblib pool stopped before and after."""
    shutdown_pool()  # a new pool, as in a new process; and no pool's threads left to stop a fork
    os.environ["PYBNC_FORK"] = "1" if fork else "0"
    try:
        if fork and threading.active_count() > 1:
            raise RuntimeError(f"threads left running, no fork possible: {threading.enumerate()}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            model = make().fit(X, y)
            return time.perf_counter() - start, model
    finally:
        os.environ.pop("PYBNC_FORK")
        shutdown_pool()


def _both(make, X, y, repeats: int):
    """Least seconds with joblib's new pool and forked, and the last model of each."""
    return taking_turns(repeats, lambda: _fit(make, X, y, False), lambda: _fit(make, X, y, True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser, "soybean,glass,car,iris", "audiology,sonar")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
    print("| fit | joblib's new pool (s) | forked (s) | joblib / forked | same choice | load |\n|---|---|---|---|---|---|",
          flush=True)
    for name, load in tables.items():
        X, y = load()
        joblib_s, forked_s, joblib_model, forked_model = _both(lambda: AutoBNC(n_jobs=2, random_state=0, verbose=0),
                                                               X, y, args.repeats)
        same = forked_model.best_candidate_ == joblib_model.best_candidate_
        print(f"| AutoBNC, {name} | {joblib_s:.2f} | {forked_s:.2f} | {joblib_s / forked_s:.2f} | {same} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)
    X, y = load_dataset("adult")
    X, y = X[:5000], np.asarray(y)[:5000]
    make = lambda: AveragedBNC([NaiveBayes(), SKDB(k=5, verbose=0)], n_jobs=2)  # noqa: E731
    joblib_s, forked_s, joblib_model, forked_model = _both(make, X, y, args.repeats)
    same = np.array_equal(forked_model.predict_proba(X[:500]), joblib_model.predict_proba(X[:500]))
    alone = min(_fit(lambda: AveragedBNC([NaiveBayes(), SKDB(k=5, verbose=0)]), X, y, False)[0] for _ in range(3))
    print(f"| AveragedBNC(NB, SKDB), adult's first 5,000 rows (in this process alone: {alone:.2f} s) | "
          f"{joblib_s:.2f} | {forked_s:.2f} | {joblib_s / forked_s:.2f} | {same} | {os.getloadavg()[0]:.1f} |")
    _command_line(args.repeats)


def _command_line(repeats: int) -> None:
    """``pybnc fit --dataset soybean --model auto`` start to result: one core (``--set
    n_jobs=1``) against the command line's default (every core), taking turns."""
    import subprocess
    import sys
    import tempfile

    command = [str(Path(sys.executable).with_name("pybnc")), "fit", "--dataset", "soybean", "--model", "auto"]
    with tempfile.TemporaryDirectory() as folder:
        def run(extra):
            return timed(lambda: subprocess.run(command + extra + ["-o", str(Path(folder) / "model.pbnc")],
                                                check=True, capture_output=True))
        one, every, _, _ = taking_turns(repeats, run(["--set", "n_jobs=1"]), run([]))
    print(f"\n`pybnc fit --dataset soybean --model auto`, start to result, least of {repeats}: {one:.2f} s with "
          f"--set n_jobs=1, {every:.2f} s with every core (the default) ({one / every:.2f}; load "
          f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
