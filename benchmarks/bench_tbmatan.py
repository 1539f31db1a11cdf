"""TBMATAN learning time and classification throughput, next to TAN in the same run.

Usage::

    python benchmarks/bench_tbmatan.py            # chess and a 200,000 x 50 synthetic set
    python benchmarks/bench_tbmatan.py --rows 50000
    python benchmarks/bench_tbmatan.py --only-chess --repeats 7

Prints one table: fit seconds (encoding + counting + the model's own learning),
the model's own learning from the counts (``_fit_encoded``), and predict_proba
throughput in rows per second (the least time of ``--repeats``), for TBMATAN (the
compiled kernels, and the numpy engine), SSTBMATAN and TAN.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from pybnc import SSTBMATAN, TAN, TBMATAN
from pybnc.averaging import _laplacian
from pybnc.datasets import load_dataset


def synthetic(n_rows: int, n_features: int, seed: int = 0):
    """Class-dependent chain of categorical features with cardinalities 2-4."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 5, n_features)
    y = rng.integers(0, 2, n_rows)
    codes = np.empty((n_rows, n_features), dtype=np.int64)
    for i, r in enumerate(cards):
        signal = (y + (codes[:, i - 1] if i else 0)) % r
        codes[:, i] = np.where(rng.random(n_rows) < 0.6, signal, rng.integers(0, r, n_rows))
    X = pd.DataFrame({f"x{i}": pd.Categorical(codes[:, i], categories=range(int(r))) for i, r in enumerate(cards)})
    return X, y


def measure(name, model, X, y, n_predict, repeats=1):
    start = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - start
    codes, y_codes, counts = model._encode_fit(X, y)
    start = time.perf_counter()
    model._fit_encoded(codes, y_codes, counts)
    learn = time.perf_counter() - start
    X_test = X.iloc[:n_predict]
    model.predict_proba(X_test.iloc[:50])  # compile / warm up
    predict = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        proba = model.predict_proba(X_test)
        predict = min(predict, time.perf_counter() - start)
    assert np.isfinite(proba).all()
    return {"data": name, "model": model_label(model), "fit s": fit, "learn-from-counts s": learn,
            "predict rows/s": len(X_test) / predict}


def model_label(model):
    label = type(model).__name__
    if isinstance(model, TAN):
        label += f"({model.smoothing})"
    return label


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--only-chess", action="store_true")
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--predict-rows", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5, help="predictions timed; the least is reported")
    args = parser.parse_args(argv)
    sets = {"chess (3196 x 36)": load_dataset("chess")}
    if not args.only_chess:
        sets[f"synthetic ({args.rows} x {args.features})"] = synthetic(args.rows, args.features)
    results = []
    for name, (X, y) in sets.items():
        for model in (TBMATAN(), SSTBMATAN(), TAN(smoothing="ms")):
            results.append(measure(name, model, X, y, args.predict_rows, args.repeats))
        if _laplacian._native is not None:  # the same TBMATAN without the compiled kernels
            native, _laplacian._native = _laplacian._native, None
            try:
                row = measure(name, TBMATAN(), X, y, min(args.predict_rows, 1000))
                row["model"] = "TBMATAN (numpy engine)"
                results.append(row)
            finally:
                _laplacian._native = native
    table = pd.DataFrame(results)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with pd.option_context("display.width", 200, "display.float_format", "{:,.3f}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
