"""Fit and predict times of ESKDB with per-member bins (``member_bins="sampled"``) next to
the same ensemble sharing the encoder's bins (``"shared"``), in the same run.

With ``"sampled"`` every member but the first cuts the numeric columns its own way;
the categorical columns are the same for all. The gap between the two rows of a table
is what the per-member bins cost (drawing the cuts, coding the numeric columns,
recounting the pairs that involve them), at fit and at predict.

Tables: adult (48842 rows, 6 numeric and 8 categorical columns), letter (20000 rows,
16 numeric columns, 26 classes), a wide numeric table (``--wide-rows`` x
``--wide-columns`` normal floats, 2 classes) and a many-levelled mixed table (5000
rows, 20 categorical columns of 300 levels and 5 numeric ones). Each model is fitted on
the whole table and predicts the whole table; the times are CPU seconds of this
process (steadier than wall time on a shared machine; everything runs in one thread),
the median of ``--repeats`` runs. "Members' preparation" is the fit less the members'
kDB fits (``eskdb._fit_member``) and less the encoder's fit and shared counts: drawing
the cuts, coding and counting for each member, the part that differs with the bins.

The Gibbs sampler of the HDP tables costs the same with either kind of bins, so by
default the members learn Dirichlet tables (``--params bayes``) and the times show the
encoding and counting; ``--params hdp --iterations 1000`` gives the paper's settings.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_eskdb.py [--tables adult,letter,wide,levels]
[--members 20] [--params bayes|hdp] [--iterations N]``. Results: the earlier accuracy table,
``git show 01750ec:benchmarks/accuracy_vs_forest.md``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from pybnc import ESKDB
from pybnc.averaging import eskdb
from pybnc.datasets import load_dataset


def wide_table(n_rows: int, n_columns: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n_rows, n_columns)), columns=[f"x{i}" for i in range(n_columns)])
    signal = X.iloc[:, :10].to_numpy() @ rng.normal(size=10)
    return X, np.where(signal + rng.normal(size=n_rows) > 0, "p", "q")


def many_levels_table(n_rows: int = 5000, seed: int = 0):
    rng = np.random.default_rng(seed)
    columns = {f"c{i}": pd.Categorical(rng.integers(0, 300, n_rows).astype(str)) for i in range(20)}
    columns.update({f"x{i}": rng.normal(size=n_rows) for i in range(5)})
    X = pd.DataFrame(columns)
    signal = X["x0"] + X["x1"] + (X["c0"].cat.codes % 2)
    return X, np.where(signal + rng.normal(size=n_rows) > 0.5, "p", "q")


def tables(names, wide_rows: int, wide_columns: int):
    for name in names:
        if name == "wide":
            yield f"wide {wide_rows} x {wide_columns} floats", *wide_table(wide_rows, wide_columns)
        elif name == "levels":
            yield "5000 x (20 x 300 levels + 5 floats)", *many_levels_table()
        else:
            X, y = load_dataset(name)
            yield name, X, np.asarray(y)


class MemberFits:
    """CPU seconds spent in the members' kDB fits (wraps ``eskdb._fit_member``)."""

    def __init__(self):
        self.seconds, self.inner = 0.0, eskdb._fit_member

    def __call__(self, *args):
        start = time.process_time()
        try:
            return self.inner(*args)
        finally:
            self.seconds += time.process_time() - start


def timed(call, repeats: int):
    """Median CPU seconds of ``call`` and of the members' kDB fits within it."""
    runs = []
    for _ in range(repeats):
        eskdb._fit_member = member_fits = MemberFits()
        try:
            start = time.process_time()
            call()
            runs.append((time.process_time() - start, member_fits.seconds))
        finally:
            eskdb._fit_member = member_fits.inner
    return tuple(np.median(runs, axis=0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="adult,letter,wide,levels")
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--params", default="bayes")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--wide-rows", type=int, default=2000)
    parser.add_argument("--wide-columns", type=int, default=500)
    args = parser.parse_args()
    print(f"ESKDB(n_estimators={args.members}, k={args.k}, smoothing={args.params!r}"
          + (f", hdp_iterations={args.iterations}" if args.params == "hdp" else "") + ", random_state=0); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| table | member_bins | fit (CPU s) | members' preparation (CPU s) | predict_proba (CPU s) |\n"
          "|---|---|---|---|---|")
    for name, X, y in tables(args.tables.split(","), args.wide_rows, args.wide_columns):
        kw = dict(n_estimators=args.members, k=args.k, smoothing=args.params, hdp_iterations=args.iterations,
                  random_state=0, verbose=0)
        shared_fit = None
        for bins in ("shared", "sampled"):
            model = ESKDB(member_bins=bins, **kw)
            fit, kdb_fits = timed(lambda: model.fit(X, y), args.repeats)
            predict = timed(lambda: model.predict_proba(X), args.repeats)[0]
            if bins == "shared":  # its fit is the encoder, the shared counts and the kDBs
                shared_fit = fit - kdb_fits
            print(f"| {name} | {bins} | {fit:.2f} | {max(fit - kdb_fits - shared_fit, 0.0):.2f} | {predict:.2f} |",
                  flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
