"""pybnc's L-BFGS (:mod:`pybnc.parameters.lbfgs`) against scipy's L-BFGS-B on the
discriminative weights, in the same run.

Each row fits one discriminative learner on a whole table twice per repeat, once with
each optimiser (the same objective, start and stopping rules: ``ftol = 1e-7``,
``gtol = 1e-5``, the step pairs of :func:`pybnc.parameters.discriminative.lbfgs_history`
for both; scipy's through ``minimize(method="L-BFGS-B")`` as
pybnc did before), taking turns, and prints the least fit time of the repeats, the
iterations and the objective each reached. Tables from ``../shared/datasets/uci``
(``PYBNC_DATA_HOME``) and, with ``--arff-dir``, audiology and vehicle from a folder of
UCI ARFF files.

Run: ``python benchmarks/bench_lbfgs.py [--repeats 3] [--arff-dir DIR] [--quick]``
(``--quick`` leaves letter out).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

import pybnc.parameters.discriminative as discriminative
from pybnc import AODE, KDB, TAN, NaiveBayes
from pybnc.datasets import load_dataset


def _scipy_lbfgs(objective, start, max_iter, tol, history=discriminative.HISTORY):
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return minimize(objective, start.ravel(), jac=True, method="L-BFGS-B",
                        options={"maxiter": int(max_iter), "ftol": tol, "gtol": tol * 100, "maxcor": int(history)})


def _learners():
    d = {"weighting": "discriminative"}
    return {
        "AODE(0.01)": lambda: AODE(smoothing="bayes", discriminative_penalty=0.01, **d),
        "NB(0.01)": lambda: NaiveBayes(smoothing="bayes", discriminative_penalty=0.01, **d),
        "KDB(k=2)(0.01)": lambda: KDB(k=2, smoothing="bayes", discriminative_penalty=0.01, verbose=0, **d),
        "TAN(0.01)": lambda: TAN(smoothing="bayes", discriminative_penalty=0.01, **d),
        "TAN(1)": lambda: TAN(smoothing="bayes", discriminative_penalty=1.0, **d),
    }


def _tables(arff_dir, quick):
    runs = [("soybean", "AODE(0.01)"), ("chess", "KDB(k=2)(0.01)"), ("nursery", "TAN(0.01)"), ("glass", "TAN(1)")]
    if not quick:
        runs += [("letter", "NB(0.01)"), ("letter", "AODE(0.01)")]
    loaders = {name: (lambda n=name: load_dataset(n)) for name, _ in runs}
    if arff_dir is not None:
        sys.path.insert(0, str(Path(__file__).parent))
        from accuracy_vs_forest import arff_tables

        extra = arff_tables(Path(arff_dir))
        for name, learner in (("audiology", "AODE(0.01)"), ("vehicle", "KDB(k=2)(0.01)")):
            if f"uci-extra/{name}" in extra:
                runs.append((name, learner))
                loaders[name] = extra[f"uci-extra/{name}"]
    return runs, loaders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--arff-dir", help="a folder of UCI ARFF files (audiology, vehicle)")
    parser.add_argument("--quick", action="store_true", help="leave letter out")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ours, learners = discriminative._lbfgs, _learners()
    runs, loaders = _tables(args.arff_dir, args.quick)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; least of {args.repeats}, taking turns\n")
    print("| table | learner | weights | pybnc (s) | scipy (s) | scipy / pybnc | iterations pybnc / scipy "
          "| objective pybnc / scipy |")
    print("|---|---|---|---|---|---|---|---|")
    for table, learner in runs:
        X, y = loaders[table]()
        best = {"pybnc": np.inf, "scipy": np.inf}
        fits = {}
        for _ in range(args.repeats):
            for name, optimiser in (("pybnc", ours), ("scipy", _scipy_lbfgs)):
                discriminative._lbfgs = optimiser
                try:
                    start = time.perf_counter()
                    fits[name] = learners[learner]().fit(X, y).discriminative_fit_
                    best[name] = min(best[name], time.perf_counter() - start)
                finally:
                    discriminative._lbfgs = ours
        a, b = fits["pybnc"], fits["scipy"]
        print(f"| {table} | {learner} | {a.weights.size:,} | {best['pybnc']:.3f} | {best['scipy']:.3f} | "
              f"{best['scipy'] / best['pybnc']:.2f} | {a.n_iter} / {b.n_iter} | {a.objective:.6g} / {b.objective:.6g} |",
              flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
