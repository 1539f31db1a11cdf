"""weighting="discriminative" on a wide table and a many-levelled one: time and memory.

Issue 20: the discriminative learners must fit a table of thousands of columns and one
of hundreds of levels per column without blowing up (or refuse it with a clear error
naming the remedy). Each fit runs in a fresh process (``multiprocessing``, spawn) so
that its peak resident memory (``ru_maxrss``) is its own; the generative model is
timed beside it in the same way. The tables are synthetic and seeded:

* ``wide``: 2,000 rows, 3,000 ternary categorical columns, 2 classes; 30 columns carry
  the class (the rest noise), with 1 % of the values missing;
* ``levels``: 20,000 rows, 12 columns of 300 levels each (Zipf-like frequencies),
  4 classes; the class depends on pairs of columns.

Usage::

    OMP_NUM_THREADS=1 nice python benchmarks/discriminative_large.py [--models nb,tan] [--tables wide]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
import warnings

import numpy as np
import pandas as pd

MODELS = {
    "NaiveBayes": ("NaiveBayes", {}),
    "TAN": ("TAN", {}),
    "KDB(k=1)": ("KDB", {"k": 1, "verbose": 0}),
    "KDB(k=2)": ("KDB", {"k": 2, "verbose": 0}),
    "AODE": ("AODE", {}),
}


def wide(seed: int = 0):
    rng = np.random.default_rng(seed)
    n, d, informative = 2000, 3000, 30
    y = rng.integers(0, 2, n)
    codes = rng.integers(0, 3, (n, d))
    flip = rng.random((n, informative)) < 0.3  # informative columns: the class's value 70 % of the time
    codes[:, :informative] = np.where(flip, codes[:, :informative], y[:, None] * 2)
    codes[rng.random((n, d)) < 0.01] = -1  # missing
    levels = pd.Index(["a", "b", "c"])
    return pd.DataFrame({f"c{i}": pd.Categorical.from_codes(codes[:, i], levels) for i in range(d)}), y


def levels(seed: int = 0):
    rng = np.random.default_rng(seed)
    n, d, r = 20000, 12, 300
    weights = 1.0 / np.arange(1, r + 1)
    codes = rng.choice(r, size=(n, d), p=weights / weights.sum())
    y = ((codes[:, 0] + codes[:, 1]) % 2) * 2 + (codes[:, 2] * codes[:, 3] % 3 == 0)
    y = np.where(rng.random(n) < 0.1, rng.integers(0, 4, n), y)
    frame = pd.DataFrame({f"c{i}": pd.Categorical(codes[:, i]) for i in range(d)})
    return frame, y


TABLES = {"wide": wide, "levels": levels}


def _fit(table: str, model: str, weighting, queue) -> None:
    import pybnc

    X, y = TABLES[table]()
    cls, params = MODELS[model]
    estimator = getattr(pybnc, cls)(**params, weighting=weighting)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator.fit(X, y)
        seconds = time.perf_counter() - start
        note = "; ".join(sorted({type(w.message).__name__ for w in caught}))
        accuracy = float(np.mean(estimator.predict(X) == y))
        fit = getattr(estimator, "discriminative_fit_", None)
        extra = "" if fit is None else (f"{fit.cells.size * fit.weights.shape[1]:,} weights, {fit.n_iter} it, "
                                        f"penalty {fit.penalty:g}, converged {fit.converged}")
    except (MemoryError, ValueError) as exc:
        seconds, accuracy, extra, note = time.perf_counter() - start, np.nan, "", f"{type(exc).__name__}: {exc}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put({"table": table, "model": model + ("+d" if weighting else ""), "fit_seconds": seconds,
               "peak_mib": peak / 1024, "loading_mib": before / 1024, "train_accuracy": accuracy,
               "weights": extra, "note": note[:160]})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    rows = []
    for table in args.tables.split(","):
        for model in args.models.split(","):
            for weighting in (None, "discriminative"):
                queue = context.Queue()
                process = context.Process(target=_fit, args=(table, model, weighting, queue))
                process.start()
                row = queue.get()
                process.join()
                rows.append(row)
                print(" | ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()), flush=True)
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".2f"))


if __name__ == "__main__":
    main()
