"""Is the forest's lead on numeric tables in the cut points or in the model? The forest
on the raw columns beside the same forest on the codes pybnc's encoder makes of them
(MDL and equal-frequency 10 bins, fitted on each training fold), accuracy % and
log-loss, the benchmark's folds (``StratifiedKFold(5, shuffle=True, random_state=1)``).

Beside them, on the same ten bins, kDB with back-off smoothing and k = 1 and 3 parents
besides the class. Where the forest on ten bins a column stays as accurate as on the
raw numbers, and ahead of the networks learned on those bins, what the networks lack
is not a finer cut but the forest's conjunctions of many columns' intervals.

Run: ``python benchmarks/forest_on_bins.py [--datasets glass,letter] [--arff-dir DIR
--arff-tables sonar,vehicle]`` (``accuracy_vs_forest.py``'s table arguments).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from accuracy_vs_forest import N_FOLDS, SEED, add_table_arguments, chosen_tables
from pybnc import KDB
from pybnc.encode import Encoder

BINS = "10 equal-frequency bins"
ENCODINGS = {"MDL bins": dict(discretizer="mdl"), BINS: dict(discretizer="quantile", n_bins=10)}
KDB_PARENTS = (1, 3)


def _as_numbers(X: pd.DataFrame) -> np.ndarray:
    # the raw columns as the forest of accuracy_vs_forest.py reads numbers; text as NaN -> -1
    return X.apply(pd.to_numeric, errors="coerce").fillna(-1).to_numpy()


def scores(X, y) -> dict:
    """Each way's mean accuracy % and log-loss over the folds."""
    y = np.asarray(y)
    found = {}
    for train, test in StratifiedKFold(N_FOLDS, shuffle=True, random_state=SEED).split(X, y):
        ways = {"raw": (_as_numbers(X.iloc[train]), _as_numbers(X.iloc[test]))}
        for name, params in ENCODINGS.items():
            encoder = Encoder(**params)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ways[name] = (encoder.fit_transform(X.iloc[train], y[train]), encoder.transform(X.iloc[test]))
        models = {f"forest on {name}": (RandomForestClassifier(300, n_jobs=2, random_state=0), rows)
                  for name, rows in ways.items()}
        for k in KDB_PARENTS:  # the networks read the raw table and cut it as the forest's bins
            models[f"kDB(k={k}) on {BINS}"] = (KDB(k=k, smoothing="backoff", verbose=0, encoder=Encoder(**ENCODINGS[BINS])),
                                               (X.iloc[train], X.iloc[test]))
        for name, (model, (fit_rows, test_rows)) in models.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(fit_rows, y[train])
            proba = model.predict_proba(test_rows)
            found.setdefault(name, []).append((np.mean(model.classes_[proba.argmax(1)] == y[test]),
                                               log_loss(y[test], proba, labels=model.classes_)))
    return {name: (100 * np.mean([a for a, _ in folds]), np.mean([l for _, l in folds])) for name, folds in found.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser, "glass,letter")
    args = parser.parse_args()
    columns = [f"forest on {w}" for w in ("raw", *ENCODINGS)] + [f"kDB(k={k}) on {BINS}" for k in KDB_PARENTS]
    print("| table | " + " | ".join(columns) + " |\n|---" + "|---" * len(columns) + "|")
    for name, load in chosen_tables(args.datasets, args.arff_dir, args.arff_tables).items():
        found = scores(*load())
        print(f"| {name} | " + " | ".join(f"{found[c][0]:.2f} / {found[c][1]:.4f}" for c in columns) + " |",
              flush=True)


if __name__ == "__main__":
    main()
