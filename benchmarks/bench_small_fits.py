"""The fixed costs of the many small fits a model selection makes, each with the way it
replaced, in the same run: the Chow-Liu spanning forest (compiled against numpy), a
bootstrap member's pairwise information (from its repeated rows against its weighted
counts) and the coding of a test fold's levels (a dict and numpy against pandas' index).

Each table gives five rows, taking turns, the least time of each way, and whether both
gave the same result:

* ``spanning forest``: TAN's maximum spanning forest over the table's pairwise
  information (the same edges);
* ``TAN fit``: a whole TAN fit, spanning forest compiled or in numpy (the same arcs and
  probabilities);
* ``member information``: the pairwise information of one stratified bootstrap
  sample's weighted counts, with and without the rows repeated by the draws (within
  one step of the ``1e-12`` nats both round to);
* ``bagged TAN fit``: ``BaggedBNC(TAN(), 10)`` with and without those rows (the same
  probabilities to ``1e-12``);
* ``transform``: the fitted encoder coding the held-out fifth of the rows, with the
  shortcuts and with pandas' index for every lookup (the same codes).

``--wide`` adds a synthetic 200 x 2,000 numeric table, ``--many-levelled`` one of six
text columns of 300 levels.

Run: ``python benchmarks/bench_small_fits.py [--datasets ...] [--arff-dir DIR
--arff-tables movement.libras,arrhythmia,audiology] [--wide] [--many-levelled]
[--repeats 5]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import warnings

import numpy as np
import pandas as pd

from _turns import swapped, taking_turns, timed
from accuracy_vs_forest import add_table_arguments, chosen_tables
from bench_auto_time import add_synthetic_arguments, with_synthetic
from pybnc import TAN
from pybnc.averaging import BaggedBNC
from pybnc.averaging.ensembles import stratified_bootstrap
from pybnc.counts import tables
from pybnc.encode import _levels
from pybnc.scores.information import pairwise_cmi

forest = importlib.import_module("pybnc.structure.chow_liu")  # the package exports a function of that name


def _pandas_match(levels, values):
    return pd.Index(levels, dtype=object).get_indexer(values)


def _row(table, rows, work, ours, theirs, same):
    print(f"| {table} | {rows:,} | {work} | {1e3 * ours:.2f} | {1e3 * theirs:.2f} | {theirs / ours:.2f} | {same} |",
          flush=True)


def _one_table(name, X, y, repeats):
    y = np.asarray(y)
    n = len(y)
    test = np.arange(n) % 5 == 0
    X_train, y_train = X[~test], y[~test]
    tan = TAN().fit(X_train, y_train)
    codes = tan.encoder_.transform(X_train)
    y_codes = np.searchsorted(tan.classes_, y_train)
    counts = tables.count(codes, y_codes, tan.encoder_.cardinalities_, len(tan.classes_))
    weights = pairwise_cmi(counts)[0]

    def compiled_forest():
        return forest.maximum_spanning_forest(weights, True)

    def numpy_forest():
        with swapped(forest, "_native", None):
            return forest.maximum_spanning_forest(weights, True)

    a, b, ours, theirs = taking_turns(repeats, timed(compiled_forest), timed(numpy_forest))
    _row(name, n, f"spanning forest ({weights.shape[0]} features)", a, b, ours == theirs)

    def tan_fit():
        return TAN().fit(X_train, y_train)

    def tan_fit_numpy():
        with swapped(forest, "_native", None):
            return TAN().fit(X_train, y_train)

    a, b, ours, theirs = taking_turns(repeats, timed(tan_fit), timed(tan_fit_numpy))
    same = ours.structure_ == theirs.structure_ and np.array_equal(ours.predict_proba(X[test]),
                                                                   theirs.predict_proba(X[test]))
    _row(name, n, "TAN fit", a, b, same)

    draws = stratified_bootstrap(y_codes, np.random.RandomState(0)).astype(np.float64)
    drawn = draws > 0
    member = tables.count(codes[drawn], y_codes[drawn], tan.encoder_.cardinalities_, len(tan.classes_),
                          weights=draws[drawn])

    def from_rows():
        return pairwise_cmi(member)[0]

    def from_counts():
        return pairwise_cmi(member.to_keep())[0]

    a, b, ours, theirs = taking_turns(repeats, timed(from_rows), timed(from_counts))
    # both ways round to 1e-12 nats: sums a few ulps apart may round one step apart
    _row(name, n, "member information", a, b, bool(np.abs(ours - theirs).max() <= 1.5e-12))

    def bagged():
        return BaggedBNC(TAN(), n_estimators=10, random_state=0).fit(X_train, y_train)

    def bagged_counts():
        with swapped(tables, "_repeatable", lambda weights, n_rows: False):
            return bagged()

    a, b, ours, theirs = taking_turns(max(1, repeats // 2), timed(bagged), timed(bagged_counts))
    same = bool(np.abs(ours.predict_proba(X[test]) - theirs.predict_proba(X[test])).max() < 1e-12)
    _row(name, n, "bagged TAN fit (10 members)", a, b, same)

    held_out = X[test]

    def shortcuts():
        return tan.encoder_.transform(held_out)

    def pandas_index():
        with swapped(_levels, "match_levels", _pandas_match), swapped(_levels, "_float_lookup", lambda v, l: None), \
                swapped(_levels, "_float_codes", lambda col: None):
            return tan.encoder_.transform(held_out)

    a, b, ours, theirs = taking_turns(repeats, timed(shortcuts), timed(pandas_index))
    _row(name, n, f"transform ({held_out.shape[0]} rows)", a, b, bool(np.array_equal(ours, theirs)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_table_arguments(parser)
    add_synthetic_arguments(parser)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if forest._native is None:
        raise SystemExit("the compiled kernels are not built: python setup.py build_ext --inplace")
    chosen = with_synthetic(chosen_tables(args.datasets, args.arff_dir, args.arff_tables), args)
    print(f"load average {os.getloadavg()[0]:.1f}; least of {args.repeats} (bagged fits: of "
          f"{max(1, args.repeats // 2)}), taking turns\n")
    print("| table | rows | work | now (ms) | before (ms) | before / now | same result |")
    print("|---|---|---|---|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, load in chosen.items():
            X, y = load()
            if not isinstance(X, pd.DataFrame):
                X = pd.DataFrame(X)
            _one_table(name, X, y, args.repeats)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
