"""AODE's fit with its child tables written in place (the default under a Dirichlet
pseudo-count, ``pybnc.averaging.aode._child_log_dirichlet``) against the general
estimate (``log_estimate`` over the totals spread to every cell), in the same run.

Fits take turns, the least of ``--repeats`` each; the table gives both times, their
ratio, whether the probabilities are the same to the bit, the cells of the child tables
and the load average. ``movement_libras``-like shapes (many numeric columns, many
classes) are where the tables are largest.

Run: ``python benchmarks/bench_aode_tables.py [--datasets soybean,letter,chess]
[--arff-dir DIR --arff-tables movement.libras] [--repeats 5] [--quantile-bins 10]``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import pybnc.averaging.aode as aode
from _turns import swapped, taking_turns, timed_fit
from accuracy_vs_forest import add_table_arguments, chosen_tables
from pybnc import AODE


def _general(n, starts, run, r, a, step, out):
    """The general path for the same pseudo-count: the totals spread to every cell."""
    for start in range(0, n.shape[1], step):
        block = n[:, start : start + step]
        total = np.add.reduceat(block, starts, axis=-1)[..., run]
        out[:, start : start + step] = aode.log_estimate(block, total, r, "bayes", a)
    return out


def _fit(X, y, general: bool, params: dict):
    with swapped(aode, "_child_log_dirichlet", _general if general else aode._child_log_dirichlet):
        return timed_fit(AODE(**params), X, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser, "soybean,letter,chess", "movement.libras")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quantile-bins", type=int, default=None,
                        help="equal-frequency bins instead of MDL's (larger tables on numeric columns)")
    args = parser.parse_args()
    tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
    params = {} if args.quantile_bins is None else {"discretizer": "quantile", "n_bins": args.quantile_bins}
    print("| table | general (s) | in place (s) | ratio | same probabilities | child cells | load |\n"
          "|---|---|---|---|---|---|---|", flush=True)
    for name, load in tables.items():
        X, y = load()
        _fit(X, y, False, params)  # warm-up
        general, in_place, general_model, model = taking_turns(args.repeats, lambda: _fit(X, y, True, params),
                                                               lambda: _fit(X, y, False, params))
        same = np.array_equal(general_model.predict_proba(X), model.predict_proba(X))
        print(f"| {name} | {general:.3f} | {in_place:.3f} | {general / in_place:.2f} | {same} | "
              f"{model.log_child_.size:,} | {os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
