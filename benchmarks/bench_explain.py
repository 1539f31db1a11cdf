"""Time and accuracy of ``explain()`` on the UCI tables, a wide and a many-levelled table,
next to pyAgrum's ``ConditionalShapValues`` (same game, exact) in the same run.

For each table and model: the rows explained, the features, how (exact / sampled), wall
seconds (the minimum of ``--repeats`` runs), the largest standard error of a sampled
value, and the largest efficiency gap ``|base_value + sum(values) - logit P(t | x)|``.
The issue's target is the chess line: TAN, 36 features, 200 rows in at most 30 s.

Two references in the same run put the times in proportion:

* ``masked rows``: the same number of model evaluations as explain made, done by one
  ``predict_proba`` call on rows with random features missing: what the inference alone
  costs (explain's own work is the rest);
* ``pyAgrum``: ``ConditionalShapValues(bn, class, logit=True)`` on the exported network,
  row by row (its cache is per call), for the tables where it finishes (car: 6 features).

Run: ``python benchmarks/bench_explain.py [--tables all|chess,car,...] [--rows 50]
[--repeats 3] [--models NB,TAN,AODE]`` (``wide1000``: the wide table's first 1,000 columns,
whose AODE pair tables fit the dense bound); it prints ``uptime``'s load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd

from pybnc import AODE, TAN, NaiveBayes
from pybnc.datasets import load_dataset

#: TAN and AODE rows explained on the tables where one masked row is costly (26 classes; 300 levels; 2000 columns).
FEW_ROWS = {"letter": 5, "levels": 3, "wide": 2, "wide1000": 2}
MODELS = {"NB": NaiveBayes, "TAN": TAN, "AODE": AODE}
UCI = ["adult", "breast", "car", "chess", "cleve", "crx", "flare", "glass", "hepatitis", "iris", "letter",
       "mushroom", "nursery", "soybean", "votes"]


def wide_table(n_rows=500, n_columns=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, (n_rows, n_columns)).astype(str), columns=[f"c{i}" for i in range(n_columns)])
    signal = (X.iloc[:, :10] == "0").sum(axis=1).to_numpy()
    return X, np.where(signal + rng.normal(size=n_rows) > 3.5, "p", "q")


def many_levels_table(n_rows=5000, n_columns=20, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"c{i}": rng.integers(0, 300, n_rows).astype(str) for i in range(n_columns)})
    signal = X["c0"].astype(int) % 2 + X["c1"].astype(int) % 3
    return X, np.where(signal + rng.normal(size=n_rows) > 1.5, "p", "q")


def load(name):
    if name == "wide":
        return "wide 500 x 2000", *wide_table()
    if name == "wide1000":
        return "wide 500 x 1000", *wide_table(n_columns=1000)
    if name == "levels":
        return "levels 5000 x 20 (300 levels)", *many_levels_table()
    return name, *load_dataset(name)


def log_odds(model, X, targets):
    log_proba = model.predict_log_proba(X)
    at, t = np.arange(len(X)), pd.Index(model.classes_).get_indexer(targets)
    own = log_proba[at, t]
    log_proba[at, t] = -np.inf
    return own - np.log(np.exp(log_proba).sum(axis=1))


def timed(run, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def masked_rows_time(model, X, n_evals, rng, repeats):
    """One predict_proba over n_evals rows drawn from X with about half the values missing."""
    rows = X.iloc[rng.integers(0, len(X), n_evals)].reset_index(drop=True).astype(object)
    rows = rows.mask(rng.random(rows.shape) < 0.5)
    return timed(lambda: model.predict_proba(rows), repeats)[0]


def pyagrum_time(model, X, repeats):
    import pyagrum as gum
    from pyagrum.explain import ConditionalShapValues

    from pybnc.io.bif import bif_names, to_bif

    path = "/tmp/bench_explain.bif"
    to_bif(model, path)
    bn = gum.loadBN(path)
    names = bif_names(model)
    rows = [{names["variables"][j]: names["states"][j][list(model.encoder_.categories_[j]).index(v)]
             for j, v in enumerate(X.iloc[r])} for r in range(len(X))]

    def run():
        explainer = ConditionalShapValues(bn, names["class"], logit=True)
        return [explainer.compute((pd.DataFrame([row]), True)) for row in rows]

    return timed(run, repeats)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", default="all")
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default="NB,TAN", help=f"some of {','.join(MODELS)}")
    args = parser.parse_args()
    names = [*UCI, "wide", "levels"] if args.tables == "all" else args.tables.split(",")
    rng = np.random.default_rng(0)
    print(f"load average before: {os.getloadavg()}")
    header = (f"{'table':<30} {'model':<5} {'rows':>5} {'feat':>5} {'how':<15} {'seconds':>8} "
              f"{'masked rows s':>13} {'pyAgrum s':>9} {'max se':>8} {'eff. gap':>9}")
    print(header)
    print("-" * len(header))
    for name in names:
        label, X, y = load(name)
        for short in args.models.split(","):
            model_class = MODELS[short]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    model = model_class().fit(X, y)
                except MemoryError as error:  # AODE's pair tables past the bound on the wide table
                    print(f"{label:<30} {short:<5} refused: {str(error)[:80]}", flush=True)
                    continue
            n_rows = 200 if name == "chess" and model_class is TAN else min(args.rows, len(X))
            if model_class is not NaiveBayes and name in FEW_ROWS:  # a masked row costs K q r per missing feature
                n_rows = FEW_ROWS[name]
            rows = X.sample(n_rows, random_state=0)
            calls = []
            original = model._masked_jll

            def counting(coded, r, keep, original=original):
                calls.append(len(r))
                return original(coded, r, keep)

            model._masked_jll = counting
            seconds, explanation = timed(lambda: model.explain(rows, random_state=0), args.repeats)
            del model._masked_jll
            n_evals = sum(calls) // args.repeats
            masked = masked_rows_time(model, X, n_evals, rng, 1)
            peer = pyagrum_time(model, rows, 1) if name == "car" and short != "AODE" else float("nan")
            se = explanation.standard_error.to_numpy().max()
            gap = np.abs(explanation.sum(axis=1) - log_odds(model, rows, explanation.target)).max()
            print(f"{label:<30} {short:<5} {n_rows:>5} "
                  f"{X.shape[1]:>5} {explanation.method:<15} {seconds:>8.2f} {masked:>13.2f} {peer:>9.2f} "
                  f"{se:>8.4f} {gap:>9.1e}", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
