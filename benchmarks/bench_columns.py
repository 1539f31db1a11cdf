"""Fit time with the column-batched encoder and back-off against the one-column paths,
in the same process.

The codes and cut points of a table's float columns (``pybnc.encode.numeric_block``:
one conversion and sort for all, the quantile cuts together, the MDL cuts by
``pybnc.encode.mdl_columns``; at predict the discretised columns converted together;
the first row of each table times the encoder alone), the back-off tables of its
one-parent families (``back_off_log_tables_one_parent``) and the Dirichlet tables of one
shape (``learn.conditional_log_tables``) are computed for all columns at once; the
one-column paths they replace (``discretize.cut_points`` per column,
``learn.back_off_family`` and ``learn.conditional_log_table`` per family) give the
same results and are still in the package. This script switches between the two in one
process, the variants taking turns within every repeat, and prints the least fit time of
each: a wide numeric table, narrow UCI tables, and sonar, audiology and arrhythmia when
an ARFF folder is given.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_columns.py [--repeats 10]
[--arff-dir DIR]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from pybnc import KDB, TAN, NaiveBayes
from pybnc.averaging import BaggedBNC
from pybnc.datasets import load_dataset
from pybnc.encode.table import Encoder
from pybnc.parameters import learn

BATCHED = {"floats": Encoder._float_block, "transform": Encoder._discretised_block,
           "back_off": learn._back_off_tables, "tables": learn.conditional_log_tables}


def _one_table_at_a_time(tables, method, alpha):
    return [learn.conditional_log_table(table, method, alpha) for table in tables]


def _back_off_one_family_at_a_time(structure, counts, alpha, codes, y, families):
    return [learn.back_off_family(learn.family_counts(counts, structure, i, codes, y, families), parents,
                                  counts.cardinalities, alpha, counts.feature(i))
            for i, parents in enumerate(structure.parents)]


def use(batched: bool) -> None:
    """The batched paths, or the one-column ones (every column cut by cut_points)."""
    Encoder._float_block = BATCHED["floats"] if batched else (lambda self, *args: {})
    Encoder._discretised_block = BATCHED["transform"] if batched else (lambda self, *args: {})
    learn._back_off_tables = BATCHED["back_off"] if batched else _back_off_one_family_at_a_time
    learn.conditional_log_tables = BATCHED["tables"] if batched else _one_table_at_a_time


class _Encoding:
    """The encoder alone, as AutoBNC's folds use it: learn on the rows, then code them."""

    def fit(self, X, y):
        encoder = Encoder(discretizer="quantile", n_bins=10)
        encoder.fit_transform(X, y)
        encoder.transform(X)
        return self


def tables(arff_dir) -> dict:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    wide = pd.DataFrame(rng.normal(size=(300, 2000)) + y[:, None] * (rng.random(2000) < 0.05),
                        columns=[f"x{i}" for i in range(2000)])
    out = {"wide 300 x 2,000 numeric": (wide, y)}
    for name in ("iris", "glass", "chess"):
        X, target = load_dataset(name)
        out[name] = (X, np.asarray(target))
    if arff_dir is not None:
        from accuracy_vs_forest import arff_tables

        found = arff_tables(Path(arff_dir))
        for name in ("uci-extra/sonar", "uci-extra/audiology", "uci-extra/arrhythmia"):
            if name in found:
                out[name] = found[name]()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--arff-dir", type=Path)
    args = parser.parse_args()
    models = {"encoding: fit + transform, quantile(10)": _Encoding, "NB": NaiveBayes, "TAN": TAN,
              "KDB(k=2)": lambda: KDB(k=2, verbose=0),
              "BaggedBNC(TAN, 10)": lambda: BaggedBNC(TAN(), n_estimators=10, random_state=0)}
    print(f"load average {os.getloadavg()[0]:.1f}; least of {args.repeats} (3 on the wide table and for bagging)")
    print("| table | model | one column at a time (ms) | batched (ms) | batched / one at a time |")
    print("|---|---|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for table, (X, y) in tables(args.arff_dir).items():
            for name, make in models.items():
                if name.startswith("Bagged") and X.shape[1] > 100:
                    continue
                repeats = 3 if X.shape[1] > 100 or name.startswith("Bagged") else args.repeats
                best = {False: np.inf, True: np.inf}
                for _ in range(repeats):
                    for batched in (False, True):
                        use(batched)
                        start = time.perf_counter()
                        make().fit(X, y)
                        best[batched] = min(best[batched], time.perf_counter() - start)
                print(f"| {table} | {name} | {best[False] * 1e3:.1f} | {best[True] * 1e3:.1f} | "
                      f"{best[True] / best[False]:.2f} |", flush=True)
    use(True)


if __name__ == "__main__":
    main()
