"""AWNB / WANBIA accuracy and timing, and variable-elimination throughput.

Run: ``python benchmarks/bench_weighting.py [--quick]``. Prints three tables:

1. 10-fold stratified CV (same folds for every model) of naive Bayes, NB + AWNB
   and NB + WANBIA on car, votes and chess: mean accuracy and log-loss.
2. WANBIA fit time (whole ``fit``, and the L-BFGS-B weight search alone) on chess,
   a splice-shaped synthetic set (3190 rows, 60 features of 4 levels, 3 classes;
   bnclassify's WANBIA took 114-190 s on splice) and larger synthetic sets.
3. Exact missing-value inference on a random kDB (k = 2, 3): rows per second of
   :func:`pybnc.inference.elimination.eliminate_rows_jll`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from pybnc import NaiveBayes
from pybnc.counts.tables import count
from pybnc.datasets import load_dataset
from pybnc.evaluation import cross_validate
from pybnc.inference.elimination import eliminate_rows_jll
from pybnc.parameters.learn import learn_parameters
from pybnc.structure import Structure
from pybnc.parameters.weighting import wanbia_weights

try:
    from _synthetic import sample_tan
except ImportError:  # run from the repository root
    from benchmarks._synthetic import sample_tan


def cv_table(datasets, folds):
    models = {
        "NB": NaiveBayes(),
        "NB+AWNB": NaiveBayes(weighting="awnb", random_state=0),
        "NB+WANBIA": NaiveBayes(weighting="wanbia"),
        "NB(mle)": NaiveBayes(smoothing="mle"),
        "NB(mle)+WANBIA": NaiveBayes(smoothing="mle", weighting="wanbia"),
    }
    rows = []
    for name in datasets:
        X, y = load_dataset(name)
        res = cross_validate(models, X, y, cv=folds, random_state=0, dataset=name, verbose=0)
        summary = res.groupby("model", sort=False)[["accuracy", "log_loss", "fit_time"]].mean()
        for model, r in summary.iterrows():
            rows.append({"dataset": name, "model": model, "accuracy": r.accuracy,
                         "log_loss": r.log_loss, "fit_s": r.fit_time})
    return pd.DataFrame(rows)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def wanbia_timing(sets):
    rows = []
    for name, (X, y) in sets.items():
        model, fit_s = timed(lambda: NaiveBayes(weighting="wanbia").fit(X, y))
        codes = model.encoder_.transform(X)
        y_codes = np.searchsorted(model.classes_, np.asarray(y))
        s = Structure.naive_bayes(codes.shape[1])
        t = learn_parameters(s, count(codes, y_codes, model.encoder_.cardinalities_, len(model.classes_)))
        (w, res), opt_s = timed(lambda: wanbia_weights(codes, y_codes, s, t.class_log_prior, t.log_cpts,
                                                       model.encoder_.cardinalities_))
        rows.append({"data": name, "rows": codes.shape[0], "features": codes.shape[1],
                     "fit_s": fit_s, "weights_s": opt_s, "iterations": res.nit,
                     "evaluations": res.nfev, "mean_w": float(w.mean())})
    return pd.DataFrame(rows)


def random_kdb(rng, d, k):
    parents = [()]
    for v in range(1, d):
        n_par = int(rng.integers(1, min(k, v) + 1))
        parents.append(tuple(sorted(rng.choice(v, size=n_par, replace=False).tolist())))
    return Structure(tuple(parents))


def ve_timing(n_rows, d, missing_rate):
    rows = []
    for k in (2, 3):
        rng = np.random.default_rng(k)
        s = random_kdb(rng, d, k)
        cards = rng.integers(2, 5, d)
        tables = [np.log(rng.dirichlet(np.ones(cards[i]), size=(2, int(np.prod(cards[list(p)])) if p else 1)))
                  for i, p in enumerate(s.parents)]
        codes = np.column_stack([rng.integers(0, c, n_rows) for c in cards]).astype(np.int32)
        codes[rng.random(codes.shape) < missing_rate] = -1
        codes = codes[(codes < 0).any(axis=1)]
        patterns = np.unique(codes < 0, axis=0).shape[0]
        _, secs = timed(lambda: eliminate_rows_jll(codes, s, np.log([0.5, 0.5]), tables, cards))
        rows.append({"k": k, "features": d, "rows_with_missing": codes.shape[0],
                     "patterns": patterns, "seconds": secs, "rows_per_s": codes.shape[0] / secs})
    return pd.DataFrame(rows)


def synthetic(n_rows, n_features, n_classes, card, seed):
    codes, y = sample_tan(n_rows, n_features, n_classes=n_classes, cardinalities=(card, card), seed=seed)
    return pd.DataFrame(codes.astype(str), columns=[f"x{i}" for i in range(n_features)]), y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller synthetic sets")
    args = parser.parse_args()
    pd.set_option("display.width", 140)
    print("10-fold CV (mean over folds)")
    print(cv_table(["car", "votes", "chess"], 10).to_string(index=False, float_format="%.4f"))
    sets = {"chess": load_dataset("chess"), "splice-shaped": synthetic(3190, 60, 3, 4, 1)}
    sets["synthetic 100k x 50"] = synthetic(20_000 if args.quick else 100_000, 50, 3, 4, 2)
    if not args.quick:
        sets["synthetic 500k x 20"] = synthetic(500_000, 20, 2, 3, 3)
    print("\nWANBIA fit time (seconds)")
    print(wanbia_timing(sets).to_string(index=False, float_format="%.3f"))
    print("\nExact missing-value inference by variable elimination (random kDB, 2 classes)")
    print(ve_timing(20_000 if args.quick else 100_000, 20, 0.15).to_string(index=False, float_format="%.3f"))


if __name__ == "__main__":
    main()
