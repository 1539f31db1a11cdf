"""Fit times of SKDB and A2DE next to TAN and KDB on chess, and SKDB out of core.

1. chess (3196 rows x 36 features): median of ``--repeats`` fits of each model, and
   the ratio to TAN (the issue's target: SKDB and A2DE within 10x of TAN).
2. SKDB(k=5) by ``fit_blocks`` on ``--rows`` synthetic rows x 20 features (5 levels,
   2 classes), generated block by block from a seed, so only one block of
   ``--block`` rows is ever in memory; the three passes read the blocks again.
   Prints the wall and CPU time and the peak resident memory of the process.
3. ``--loo``: SKDB(k=5)'s leave-one-out pass (the family counts given) in the compiled
   kernel beside its numpy twin (lookups and pass), on each table of ``--loo-tables``
   (``sk_digits`` is scikit-learn's), least of ``--repeats``, in the same run.

Run: ``python benchmarks/bench_skdb.py`` (chess and 10^6 rows), or
``python benchmarks/bench_skdb.py --skip-chess --rows 10000000``, or
``python benchmarks/bench_skdb.py --loo``. Results: docs/large-data.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pybnc import KDB, SKDB, TAN, AnDE
from pybnc.datasets import load_dataset
from pybnc.streaming import fit_blocks


def chess(repeats: int) -> None:
    X, y = load_dataset("chess")
    models = {"TAN": TAN(), "KDB(k=2)": KDB(k=2, verbose=0), "SKDB(k=5)": SKDB(k=5, verbose=0),
              "A2DE": AnDE(n=2)}
    cold, warm, predict = {}, {}, {}
    for name, model in models.items():
        runs = []
        for _ in range(repeats + 1):  # the first fit of each model is its cold fit
            start = time.perf_counter()
            model.fit(X, y)
            runs.append(time.perf_counter() - start)
        cold[name], warm[name] = runs[0], float(np.median(runs[1:]))
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            model.predict_proba(X)
            runs.append(time.perf_counter() - start)
        predict[name] = float(np.median(runs))
    print(f"chess, {len(X)} rows x {X.shape[1]} features; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores\n")
    print("| model | fit cold (s) | fit warm (s, median) | warm / TAN | predict_proba (s, median) |\n"
          "|---|---|---|---|---|")
    for name in models:
        print(f"| {name} | {cold[name]:.3f} | {warm[name]:.3f} | {warm[name] / warm['TAN']:.1f} | "
              f"{predict[name]:.3f} |")


def blocks(n_rows: int, block: int, n_features: int = 20, seed: int = 0):
    def read():
        for start in range(0, n_rows, block):
            rng = np.random.default_rng((seed, start))
            m = min(block, n_rows - start)
            y = rng.integers(0, 2, m)
            codes = np.empty((m, n_features), dtype=np.int64)
            for i in range(n_features):  # each feature depends on the class and the previous feature
                signal = (y + (codes[:, i - 1] if i else 0)) % 5
                codes[:, i] = np.where(rng.random(m) < 0.5, signal, rng.integers(0, 5, m))
            X = pd.DataFrame({f"x{i}": pd.Categorical.from_codes(codes[:, i], categories=list("abcde"))
                              for i in range(n_features)})
            yield X, y
    return read


def out_of_core(n_rows: int, block: int) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    model = fit_blocks(SKDB(k=5, verbose=0), blocks(n_rows, block), classes=[0, 1])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nSKDB(k=5) by fit_blocks, synthetic rows x 20 features (5 levels, 2 classes); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end\n")
    print("| rows | block | wall (s) | CPU (s) | peak RSS (MiB) | features kept | k' |\n|---|---|---|---|---|---|---|")
    print(f"| {n_rows:,} | {block:,} | {seconds:.1f} | {cpu:.1f} | {peak:.0f} | {model.n_selected_} | "
          f"{model.k_selected_} |")


def leave_one_out(tables, repeats: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_vs_forest import _load  # a bundled table or one scikit-learn ships

    from pybnc.search import leave_one_out as loo
    from pybnc.search import skdb

    print("\nSKDB(k=5)'s leave-one-out pass: compiled kernel against the numpy twin, least of "
          f"{repeats}, the same losses")
    print("| table | rows | features | kernel (s) | numpy (s) | numpy / kernel |")
    print("|---|---|---|---|---|---|")
    for table in tables:
        X, y = _load(table)
        seen = {}
        real = skdb.loo_losses
        skdb.loo_losses = lambda *a, **kw: seen.setdefault("args", a) and real(*a, **kw)
        try:
            SKDB(k=5, verbose=0).fit(X, y)
        finally:
            skdb.loo_losses = real
        fc, order, codes, y_codes, k, alpha, loss = seen["args"]
        kernel = loo._native

        def timed(use_kernel):
            loo._native = kernel if use_kernel else None
            try:
                best, out = np.inf, None
                for _ in range(repeats):
                    start = time.perf_counter()
                    out = real(fc, order, codes, y_codes, k, alpha, loss, lookups=loo.loo_lookups(fc, k, alpha))
                    best = min(best, time.perf_counter() - start)
                return best, out
            finally:
                loo._native = kernel

        (fast, a), (slow, b) = timed(True), timed(False)
        assert np.array_equal(a, b)
        print(f"| {table} | {codes.shape[0]} | {codes.shape[1]} | {fast:.4f} | {slow:.4f} | {slow / fast:.1f} |",
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--block", type=int, default=250_000)
    parser.add_argument("--skip-chess", action="store_true", help="only the out-of-core fit")
    parser.add_argument("--loo", action="store_true", help="only the leave-one-out pass, kernel against numpy")
    parser.add_argument("--loo-tables", default="sk_digits,chess,soybean,letter,adult")
    args = parser.parse_args()
    if args.loo:
        leave_one_out(args.loo_tables.split(","), args.repeats)
        return
    if not args.skip_chess:
        chess(args.repeats)
    out_of_core(args.rows, args.block)


if __name__ == "__main__":
    main()
