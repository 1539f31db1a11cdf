"""pybnc's hand-written pieces against the library's, in the same run, on realistic fits.

Each row fits (or fits and predicts) one learner with pybnc's piece and with the
library's in its place, taking turns (``benchmarks/_turns.py``), and prints the least
wall time of each and their ratio: a hand-written piece stays only where it makes the
fit 1.5 times faster or more.

* forest: TAN's maximum spanning forest, pybnc's Prim
  (:func:`pybnc.structure.maximum_spanning_forest`, compiled where built) against
  scipy's ``minimum_spanning_tree`` of the edges' ranks under the same strict order
  (:func:`_scipy_forest`: the same forest);
* logsumexp: ``pybnc._utils.logsumexp.logsumexp`` against ``scipy.special.logsumexp``
  in every module that sums out a variable (exact inference on rows with missing
  values, the wrappers' supernodes, kDB's hill climbing, TBMATAN, explanations).

The results, and the pieces that fell below the bar and were replaced by the
library's (L-BFGS, softmax), are in ``benchmarks/library.md``.

Run: ``python benchmarks/bench_library.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import warnings

import numpy as np
import pandas as pd
import scipy.sparse
import scipy.special
from scipy.sparse.csgraph import minimum_spanning_tree

from _turns import swapped, taking_turns, timed
from pybnc import KDB, TAN, TBMATAN
from pybnc.datasets import load_dataset
from pybnc.search.tan_hc import TANHC
chow_liu = importlib.import_module("pybnc.structure.chow_liu")  # the package exports a function of that name


LOGSUMEXP_USERS = ("pybnc.averaging.tbmatan", "pybnc.averaging._laplacian", "pybnc.search.joins",
                   "pybnc.inference.forest", "pybnc.inference.elimination", "pybnc.estimators.explain")


def _scipy_logsumexp(a, axis=-1):
    if a.shape[axis] == 0:  # pybnc's convention: an empty axis sums to log 1
        return np.zeros(np.delete(a.shape, axis))
    with np.errstate(divide="ignore"):
        return scipy.special.logsumexp(a, axis=axis)


def _scipy_forest(weights, positive_only):
    """:func:`pybnc.structure.maximum_spanning_forest` by scipy: the minimum spanning tree
    of the edges' ranks under the strict order "heavier, then smaller (i, j)" (unique,
    so Kruskal's), in Kruskal's order of acceptance."""
    weights = np.asarray(weights, dtype=np.float64)
    n = weights.shape[0]
    rows, cols = np.triu_indices(n, 1)  # lexicographic (i, j): a stable sort keeps ties in that order
    w = weights[rows, cols]
    usable = np.flatnonzero(w > 0.0 if positive_only else w > -np.inf)
    order = usable[np.argsort(-w[usable], kind="stable")]
    rank = np.empty(w.size)
    rank[order] = np.arange(1, order.size + 1)  # distinct and positive: scipy reads 0 as no edge
    tree = minimum_spanning_tree(scipy.sparse.csr_matrix((rank[usable], (rows[usable], cols[usable])),
                                                         shape=(n, n))).tocoo()
    accepted = np.argsort(tree.data)
    return [(int(min(i, j)), int(max(i, j))) for i, j in zip(tree.row[accepted], tree.col[accepted])]


def _wide(n_rows, n_columns, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    codes = rng.integers(0, 3, (n_rows, n_columns)) + y[:, None] * (rng.random(n_columns) < 0.05)
    return pd.DataFrame(codes.astype(str), columns=[f"x{i}" for i in range(n_columns)]), y


def _rows(repeats):
    soybean, chess, votes = load_dataset("soybean"), load_dataset("chess"), load_dataset("house-votes-84")
    soybean_250 = soybean[0][:250], soybean[1][:250]
    wide_279, wide_2000 = _wide(452, 279), _wide(200, 2000)
    fit_predict = {
        "KDB(k=2) fit + predict, soybean (missing values)": (lambda: KDB(k=2, verbose=0), soybean),
        "TAN fit + predict, soybean (missing values)": (lambda: TAN(), soybean),
        "TANHC fit, soybean": (lambda: TANHC(verbose=0, random_state=0), soybean),
        "TBMATAN fit + predict, chess": (lambda: TBMATAN(), chess),
        "KDB(k=2, search='hc') fit, votes (missing values)":
            (lambda: KDB(k=2, search="hc", epsilon=0, random_state=0, verbose=0), votes),
        "KDB(k=2, search='hc') fit, 250 soybean rows (missing values)":
            (lambda: KDB(k=2, search="hc", epsilon=0, random_state=0, verbose=0), soybean_250),
    }
    for name, (make, (X, y)) in fit_predict.items():
        def run(make=make, X=X, y=y):
            model = make().fit(X, y)
            return model.predict_proba(X) if "predict" in name else None

        def theirs(run=run):
            with _everywhere(_scipy_logsumexp):
                return timed(run)()
        ours_s, theirs_s, a, b = taking_turns(repeats, timed(run), theirs)
        same = "yes" if a is None or np.allclose(a, b, rtol=0, atol=1e-10) else "NO"
        yield "logsumexp", name, ours_s, theirs_s, same
    for name, (X, y) in {"TAN fit, chess (36 columns)": chess, "TAN fit, 452 x 279 categorical": wide_279,
                         "TAN fit, 200 x 2,000 categorical": wide_2000}.items():
        def run(X=X, y=y):
            return TAN().fit(X, y).structure_.parents

        def with_scipy(run=run):
            with swapped(chow_liu, "maximum_spanning_forest", _scipy_forest):
                return timed(run)()
        ours_s, scipy_s, a, b = taking_turns(repeats, timed(run), with_scipy)
        yield "forest", name, ours_s, scipy_s, "yes" if a == b else "NO"


class _everywhere:
    """``logsumexp`` replaced in every module that imports pybnc's."""

    def __init__(self, function, attribute="logsumexp", users=LOGSUMEXP_USERS):
        self.function, self.attribute, self.users, self.kept = function, attribute, users, {}

    def __enter__(self):
        for name in self.users:
            module = importlib.import_module(name)
            self.kept[name] = getattr(module, self.attribute)
            setattr(module, self.attribute, self.function)

    def __exit__(self, *exc):
        for name, function in self.kept.items():
            setattr(importlib.import_module(name), self.attribute, function)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; least of {args.repeats}, taking turns\n")
    print("| piece | fit | pybnc's (s) | scipy's (s) | scipy / pybnc | same model |\n|---|---|---|---|---|---|")
    for piece, name, ours, theirs, same in _rows(args.repeats):
        print(f"| {piece} | {name} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.2f} | {same} |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
