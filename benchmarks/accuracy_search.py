"""10-fold cross-validated accuracy of the greedy wrappers next to naive Bayes and TAN.

Prints a Markdown table (used in ``docs/search_learners.md``). Same stratified
folds for every learner (``StratifiedKFold(10, shuffle=True, random_state=0)``);
wrappers with their defaults (``k=5`` inner folds, ``epsilon=0.01``,
``params="bayes"``, ``alpha=1``) and ``random_state=0``.

Run: ``python benchmarks/accuracy_search.py``.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score

from pybnc import BSEJ, FSSJ, KDB, TAN, TANHC, TANHCSP, NaiveBayes
from pybnc.datasets import load_dataset

LEARNERS = {
    "NaiveBayes": lambda: NaiveBayes(),
    "TAN (Chow-Liu)": lambda: TAN(),
    "TANHC": lambda: TANHC(random_state=0, verbose=0),
    "TANHCSP": lambda: TANHCSP(random_state=0, verbose=0),
    "FSSJ": lambda: FSSJ(random_state=0, verbose=0),
    "BSEJ": lambda: BSEJ(random_state=0, verbose=0),
    "KDB k=2 sahami": lambda: KDB(k=2),
    "KDB k=2 hc": lambda: KDB(k=2, search="hc", random_state=0, verbose=0),
}
DATASETS = ("car", "votes", "chess")


def main() -> None:
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    data = {name: load_dataset(name) for name in DATASETS}
    print("| learner | " + " | ".join(DATASETS) + " | seconds (all 30 fits) |")
    print("|---|" + "---|" * (len(DATASETS) + 1))
    for name, make in LEARNERS.items():
        cells, start = [], time.perf_counter()
        for ds in DATASETS:
            X, y = data[ds]
            scores = cross_val_score(make(), X, y, cv=folds)
            cells.append(f"{np.mean(scores):.4f} ± {np.std(scores):.4f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {time.perf_counter() - start:.1f} |", flush=True)


if __name__ == "__main__":
    main()
