"""AODE's explain with each row's cells gathered once (``AODE._masked_jll``, the default
from 32 one-hot columns on) against the masked rows evaluated as predictions (the
generic ``BaseBNC._masked_jll``), taking turns in one process, the least of two each.

Run: ``python benchmarks/bench_explain_aode.py [--tables car,hepatitis,soybean,chess,wide1000]``
(the tables of ``bench_explain.py``; 20 rows explained, 2 on the wide one).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from bench_explain import load
from pybnc import AODE
from pybnc.estimators.base import BaseBNC


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="car,hepatitis,soybean,chess,wide1000")
    args = parser.parse_args()
    gathered = AODE._masked_jll
    print("| table | one-hot columns | rows | generic (s) | gathered (s) | ratio | largest difference | load |\n"
          "|---|---|---|---|---|---|---|---|", flush=True)
    for name in args.tables.split(","):
        label, X, y = load(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = AODE().fit(X, y)
        rows = X.sample(2 if name.startswith("wide") else 20, random_state=0)
        best, values = {}, {}
        try:
            for turn in range(2):
                for side in (("generic", "gathered") if turn == 0 else ("gathered", "generic")):
                    AODE._masked_jll = BaseBNC._masked_jll if side == "generic" else gathered
                    start = time.perf_counter()
                    values[side] = model.explain(rows, random_state=0, verbose=0).to_numpy(dtype=float)
                    best[side] = min(best.get(side, np.inf), time.perf_counter() - start)
        finally:
            AODE._masked_jll = gathered
        gap = np.abs(values["generic"] - values["gathered"]).max()
        print(f"| {label} | {int(model.encoder_.cardinalities_.sum()):,} | {len(rows)} | {best['generic']:.2f} | "
              f"{best['gathered']:.2f} | {best['generic'] / best['gathered']:.1f} | {gap:.1e} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
