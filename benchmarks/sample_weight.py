"""Sample weights on real tables: integer weights against the repeated rows, and what
weighing costs next to the unweighted fit.

For every UCI table (``--tables`` to choose), a wide synthetic table (``--wide`` columns)
and a many-levelled one (``--levels`` levels per column): weights drawn in 0..3, the
weighted fit compared with the fit on the rows repeated by their weights (largest
difference of ``predict_proba`` over the table, same structure), and the weighted fit's
time over the unweighted fit's (least of ``--repeats`` runs, the two alternating in one
process; ``uptime``'s load printed with the table).

    python benchmarks/sample_weight.py --models nb,tan,aode,kdb --repeats 3
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from pybnc.datasets import load_dataset
from pybnc.registry import BY_SHORT_NAME

UCI = ("adult", "breast", "car", "chess", "cleve", "crx", "flare", "glass", "hepatitis", "iris", "letter",
       "mushroom", "nursery", "pima", "soybean", "votes")


def _synthetic(n_rows, n_columns, levels, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    codes = (rng.integers(0, levels, (n_rows, n_columns)) + y[:, None] * (np.arange(n_columns) % 3 == 0)) % levels
    return pd.DataFrame(codes.astype(str), columns=[f"c{j}" for j in range(n_columns)]), y


def _least(fit, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(UCI))
    parser.add_argument("--models", default="nb,tan,aode,kdb")
    parser.add_argument("--wide", type=int, default=2000)
    parser.add_argument("--levels", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-rows", type=int, default=20000, help="rows kept of a larger table")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    tables = [(name, None) for name in args.tables.split(",") if name]
    if args.wide:
        tables.append((f"wide-{args.wide}", _synthetic(400, args.wide, 3, 0)))
    if args.levels:
        tables.append((f"levels-{args.levels}", _synthetic(3000, 6, args.levels, 1)))
    print(f"load average {os.getloadavg()}")
    print(f"{'table':14s} {'model':6s} {'rows':>7s} {'max |dp|':>9s} {'same':>5s} {'weighted s':>10s} {'ratio':>6s}")
    for name, data in tables:
        X, y = load_dataset(name) if data is None else data
        X, y = X.iloc[: args.max_rows], np.asarray(y)[: args.max_rows]
        w = np.random.default_rng(2).integers(0, 4, len(y))
        rows = np.repeat(np.arange(len(y)), w)
        for short in args.models.split(","):
            model = BY_SHORT_NAME[short].cls()
            if "verbose" in model.get_params():
                model.set_params(verbose=0)
            try:
                weighted = clone(model).fit(X, y, sample_weight=w)
                repeated = clone(model).fit(X.iloc[rows], y[rows])
            except (MemoryError, ValueError) as exc:
                print(f"{name:14s} {short:6s} refused: {str(exc)[:80]}")
                continue
            diff = np.abs(weighted.predict_proba(X) - repeated.predict_proba(X)).max()
            same = getattr(weighted, "structure_", None) == getattr(repeated, "structure_", None)
            plain_s = _least(lambda: clone(model).fit(X, y), args.repeats)
            weighted_s = _least(lambda: clone(model).fit(X, y, sample_weight=w), args.repeats)
            print(f"{name:14s} {short:6s} {len(y):7d} {diff:9.1e} {str(same):>5s} {weighted_s:10.3f} "
                  f"{weighted_s / plain_s:6.2f}", flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
