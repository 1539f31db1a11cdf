"""10-fold cross-validated accuracy and time of AODE and MANB against naive Bayes.

Run: ``python benchmarks/aode_manb_cv.py [dataset ...]`` (default: car chess votes).
Prints one table: mean accuracy (standard deviation over folds), log loss and mean
fit + predict time per fold, on the same stratified folds for every model.
"""

from __future__ import annotations

import sys

import pandas as pd

from pybnc import AODE, MANB, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import cross_validate

MODELS = {
    "NaiveBayes": NaiveBayes(),
    "MANB": MANB(),
    "AODE m=30": AODE(min_count=30),
    "AODE m=1": AODE(min_count=1),
    "AODE m=30 mle": AODE(min_count=30, smoothing="mle"),
}


def main(names) -> pd.DataFrame:
    frames = []
    for name in names:
        X, y = load_dataset(name)
        frames.append(cross_validate(MODELS, X, y, cv=10, random_state=0, dataset=name, verbose=0))
    results = pd.concat(frames)
    results["time"] = results["fit_time"] + results["predict_time"]
    table = results.groupby(["dataset", "model"], sort=False).agg(
        accuracy=("accuracy", "mean"), sd=("accuracy", "std"), log_loss=("log_loss", "mean"),
        time_ms=("time", lambda t: 1000 * t.mean()),
    )
    with pd.option_context("display.float_format", "{:.4f}".format, "display.width", 120):
        print(table)
    return table


if __name__ == "__main__":
    main(sys.argv[1:] or ["car", "chess", "votes"])
