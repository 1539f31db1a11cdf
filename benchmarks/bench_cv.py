"""Cross-validation from per-fold counts next to refitting every fold, in one run.

pybnc's ``cross_validate`` learns each fold's count-based models from ``total -
fold`` counts (``fast=True``); ``fast=False`` refits each fold from its rows, and
scikit-learn's ``cross_val_score`` does the same through the estimator API. All three
use the same stratified folds; the table shows their times and that the accuracies
agree. Prediction is the same work in all three, so the gain shows where fitting
dominates (many features, few rows) and fades where predicting does (adult).

Run: ``python benchmarks/bench_cv.py`` (about half a minute on 2 cores).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score

from pybnc import TAN, TBMATAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import cross_validate

MODELS = {"NaiveBayes": NaiveBayes, "TAN": TAN, "TBMATAN": TBMATAN}


def _timed(run):
    start = time.perf_counter()
    result = run()
    return result, time.perf_counter() - start


def main(datasets=("chess", "adult")) -> None:
    print(f"{'dataset':<9}{'model':<12}{'counts s':>10}{'refit s':>10}{'sklearn s':>11}{'speed-up':>10}"
          f"{'accuracy':>10}{'agree':>7}")
    for ds in datasets:
        X, y = load_dataset(ds)
        folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
        for name, make in MODELS.items():
            make().fit(X, y).predict_proba(X.iloc[:50])  # warm-up: TBMATAN's compiled kernel loads once
            runs = {}
            for fast in (True, False):
                table, seconds = _timed(lambda: cross_validate({name: make()}, X, y, cv=folds, verbose=0, fast=fast))
                runs[fast] = (table.sort_values("fold")["accuracy"].to_numpy(), seconds)
            sk_scores, sk_seconds = _timed(lambda: cross_val_score(make(), X, y, cv=folds, scoring="accuracy"))
            agree = np.allclose(runs[True][0], runs[False][0], rtol=0, atol=1e-12) and np.isclose(
                runs[True][0].mean(), sk_scores.mean(), rtol=0, atol=1e-12)
            print(f"{ds:<9}{name:<12}{runs[True][1]:>10.2f}{runs[False][1]:>10.2f}{sk_seconds:>11.2f}"
                  f"{runs[False][1] / runs[True][1]:>9.1f}x{runs[True][0].mean():>10.4f}{str(agree):>7}", flush=True)


if __name__ == "__main__":
    # adult has rows with more missing combinations than TBMATAN sums exactly; the
    # estimator warns once per fold and approximates them (the same in all three runs).
    warnings.filterwarnings("ignore", message=".*max_missing_combinations")
    main()
