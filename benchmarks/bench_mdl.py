"""Fayyad & Irani's MDL cut points of a table's numeric columns: the compiled recursion
(``pybnc.encode._mdl_c``) against the numpy one it replaced, in the same run.

Each table's numeric columns are cut by ``mdl_cut_points_of_columns`` both ways, taking
turns, once on the rows as they are and once with the whole weights of a bootstrap
sample (what a bagged member cuts); the table gives the least time of each, their ratio,
the cuts found and whether both ways found the same cuts. With ``--wide`` a synthetic
200 x 2,000 numeric table is added.

Run: ``python benchmarks/bench_mdl.py [--datasets ...] [--arff-dir DIR
--arff-tables movement.libras,satellite] [--wide] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

from _turns import swapped, taking_turns, timed
from accuracy_vs_forest import add_table_arguments, chosen_tables
from pybnc.encode import mdl_columns


def _wide():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    return pd.DataFrame(rng.normal(size=(200, 2000)) + y[:, None] * rng.random(2000) * 0.5), y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_table_arguments(parser)
    parser.add_argument("--wide", action="store_true", help="add a synthetic 200 x 2,000 numeric table")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if mdl_columns._native is None:
        raise SystemExit("the compiled kernels are not built: python setup.py build_ext --inplace")
    tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
    if args.wide:
        tables["wide 200 x 2,000"] = _wide
    print(f"load average {os.getloadavg()[0]:.1f}; least of {args.repeats}, taking turns\n")
    print("| table | rows | numeric columns | weights | compiled (ms) | numpy (ms) | numpy / compiled | cuts | same cuts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, load in tables.items():
        X, y = load()
        values = X.select_dtypes("number").to_numpy(dtype=np.float64)
        if values.shape[1] == 0:
            continue
        codes = pd.factorize(pd.Series(np.asarray(y)).astype(str))[0]
        bootstrap = np.random.default_rng(1).multinomial(codes.size, np.full(codes.size, 1.0 / codes.size))
        for label, weights in (("none", None), ("bootstrap", bootstrap.astype(np.float64))):
            def compiled():
                return mdl_columns.mdl_cut_points_of_columns(values, codes, weights)

            def numpy_only():
                with swapped(mdl_columns, "_native", None):
                    return mdl_columns.mdl_cut_points_of_columns(values, codes, weights)

            a, b, ours, theirs = taking_turns(args.repeats, timed(compiled), timed(numpy_only))
            same = all(np.array_equal(c, d) for c, d in zip(ours, theirs))
            print(f"| {name} | {values.shape[0]:,} | {values.shape[1]:,} | {label} | {1e3 * a:.1f} | {1e3 * b:.1f} | "
                  f"{b / a:.2f} | {sum(len(c) for c in ours):,} | {same} |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
