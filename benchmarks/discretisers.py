"""Which discretiser should be the default? 10-fold CV of naive Bayes and TAN with each.

Run: ``python benchmarks/discretisers.py [--seeds 0 1 2] [--out results.csv]``.

Every table with continuous columns (``pybnc.datasets``: the bundled ones and those
under ``../shared/datasets/uci``) is cross-validated on the same stratified folds
for each fold seed, with each discretiser of :func:`pybnc.encode.discretize.cut_points`:
equal frequency (5 and 10 bins), equal width (5 bins) and Fayyad-Irani MDL.
Prints per table and model the mean accuracy and log-loss over folds and seeds,
then wins/ties/losses of each discretiser against the current default (5 equal-
frequency bins) by the paired t-test over folds, per seed. ``docs/discretisation.md``
records one run.
"""

from __future__ import annotations

import argparse
import warnings

import pandas as pd

from pybnc import TAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.encode import Encoder
from pybnc.evaluation import compare_to_baseline, cross_validate

DATASETS = ["breast", "cleve", "crx", "glass", "hepatitis", "iris", "pima", "letter", "adult"]
DISCRETISERS = {"quantile5": dict(discretizer="quantile", n_bins=5),
                "quantile10": dict(discretizer="quantile", n_bins=10),
                "uniform5": dict(discretizer="uniform", n_bins=5),
                "mdl": dict(discretizer="mdl")}
MODELS = {"nb": NaiveBayes, "tan": TAN}


def run(datasets, seeds) -> pd.DataFrame:
    parts = []
    for name in datasets:
        try:
            X, y = load_dataset(name)
        except FileNotFoundError as err:
            print(f"skipped {name}: {err}")
            continue
        models = {f"{m}/{d}": Model(encoder=Encoder(**params)) for m, Model in MODELS.items() for d, params in DISCRETISERS.items()}
        for seed in seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = cross_validate(models, X, y, cv=10, random_state=seed, dataset=name, verbose=0)
            parts.append(res.assign(seed=seed))
            print(f"{name} seed {seed}: done", flush=True)
    return pd.concat(parts, ignore_index=True)


def summarise(results: pd.DataFrame):
    split = results["model"].str.split("/", expand=True)
    results = results.assign(learner=split[0], discretiser=split[1])
    means = results.groupby(["dataset", "learner", "discretiser"])[["accuracy", "log_loss"]].mean().unstack()
    wtl = []
    for (learner, seed), part in results.groupby(["learner", "seed"]):
        table = compare_to_baseline(part.assign(model=part["discretiser"]), baseline="quantile5")
        wtl.append(table.assign(learner=learner, seed=seed))
    wtl = pd.concat(wtl).groupby(["learner", "metric", "model"])[["wins", "ties", "losses"]].agg(
        lambda s: f"{s.mean():.1f} [{s.min()}-{s.max()}]")
    return means, wtl


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--out", default=None, help="also write every fold's result to this CSV")
    args = parser.parse_args()
    results = run(args.datasets, args.seeds)
    if args.out:
        results.to_csv(args.out, index=False)
    means, wtl = summarise(results)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.4f}".format):
        print("\nMean accuracy and log-loss over folds and seeds")
        print(means.to_string())
        print("\nAgainst 5 equal-frequency bins: wins/ties/losses over tables, mean [min-max] over seeds")
        print(wtl.to_string())


if __name__ == "__main__":
    main()
