"""SKDB(k=5)'s fit with its large family tables summed from their occupied cells (the
default) against summing every cell (``pybnc.counts.families.SPARSE_CELLS`` raised past
every table), in the same run.

Fits take turns, the least of ``--repeats`` each; the table gives both times, their
ratio, whether the probabilities are the same to the bit, the family tables' cells and
non-zero cells, and the load average.

Run: ``python benchmarks/bench_family_tables.py [--datasets soybean,letter,chess]
[--arff-dir DIR --arff-tables audiology,splice] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import pybnc.counts.families as families
from _turns import swapped, taking_turns, timed_fit
from accuracy_vs_forest import add_table_arguments, chosen_tables
from pybnc import SKDB


def _fit(X, y, dense: bool):
    with swapped(families, "SPARSE_CELLS", 1 << 62 if dense else families.SPARSE_CELLS):
        return timed_fit(SKDB(k=5, verbose=0), X, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser, "soybean,letter,chess", "audiology,splice")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
    print("| table | every cell (s) | occupied cells (s) | ratio | same probabilities | cells | non-zero | load |\n"
          "|---|---|---|---|---|---|---|---|", flush=True)
    for name, load in tables.items():
        X, y = load()
        _fit(X, y, False)  # warm-up
        every, occupied, dense_model, model = taking_turns(args.repeats, lambda: _fit(X, y, True),
                                                           lambda: _fit(X, y, False))
        same = np.array_equal(dense_model.predict_proba(X), model.predict_proba(X))
        tables_ = model.family_counts_.tables
        cells, nonzero = sum(t.size for t in tables_), sum(int(np.count_nonzero(t)) for t in tables_)
        print(f"| {name} | {every:.3f} | {occupied:.3f} | "
              f"{every / occupied:.2f} | {same} | {cells:,} | {nonzero:,} | "
              f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
