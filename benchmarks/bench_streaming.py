"""Out-of-core fitting: TAN on 10 million rows read from Parquet in blocks.

Run: ``python benchmarks/bench_streaming.py [--rows 10000000] [--block 1000000] [--dask]
[--all-in-memory]``.

Writes a Parquet file of synthetic rows drawn from one random TAN (20 features,
cardinalities 2-4, 2 classes), block by block so that the writer never holds the
whole table, then fits ``TAN()`` three ways, each in a fresh child process so
that its peak resident memory (``resource.getrusage``) is its own:

* ``in-memory``: ``fit`` on the first block (one million rows by default), read whole;
* ``in-memory, all rows`` (with ``--all-in-memory``): ``fit`` on the whole file,
  for contrast;
* ``fit_blocks``: :func:`pybnc.streaming.fit_blocks` over every row, one
  Parquet batch of ``--block`` rows at a time;
* ``fit_dask`` (with ``--dask``): :func:`pybnc.streaming.fit_dask` over
  ``dask.dataframe.read_parquet`` with the threaded scheduler.

Prints rows per second (read + encode + count + learn) and peak RSS per run.

``--dask-wide 400 2000`` instead times ``fit_dask(NaiveBayes())`` on 500 rows x that
many float columns (MDL cut points, 4 partitions, synchronous scheduler) next to
``fit`` on the same table in the same process: median and range of ``--repeats``
fits after one warm-up, and checks that both give the same probabilities.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

N_FEATURES = 20


def write_parquet(path, n_rows, block, seed=0):
    """Rows of one random TAN (a random tree over the features, Dirichlet tables)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 5, N_FEATURES)
    parent = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, N_FEATURES)])
    cdfs = [np.cumsum(rng.dirichlet(np.full(cards[i], 0.5), size=(2, cards[parent[i]] if i else 1)), axis=-1)
            for i in range(N_FEATURES)]
    writer = None
    for start in range(0, n_rows, block):
        n = min(block, n_rows - start)
        y = rng.integers(0, 2, n)
        codes = np.empty((n, N_FEATURES), dtype=np.int8)
        for i in range(N_FEATURES):
            row_cdf = cdfs[i][y, codes[:, parent[i]] if i else 0]
            codes[:, i] = np.minimum((rng.random(n)[:, None] > row_cdf).sum(axis=1), cards[i] - 1)
        columns = {f"f{i}": codes[:, i] for i in range(N_FEATURES)} | {"y": y.astype(np.int8)}
        table = pa.table(columns)
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=block)
    writer.close()


def run(mode, path, block):
    """One measurement, in this (child) process; returns a JSON-able dict."""
    import pyarrow.parquet as pq

    from pybnc import TAN
    from pybnc.streaming import fit_blocks, fit_dask

    start = time.perf_counter()
    if mode == "in-memory":
        frame = pq.ParquetFile(path).read_row_group(0).to_pandas()
        model = TAN().fit(frame.drop(columns=["y"]), frame["y"])
    elif mode == "in-memory, all rows":
        frame = pq.read_table(path).to_pandas()
        model = TAN().fit(frame.drop(columns=["y"]), frame["y"])
    elif mode == "fit_blocks":
        batches = pq.ParquetFile(path).iter_batches(batch_size=block)
        model = fit_blocks(TAN(), batches, target="y", classes=[0, 1])
    else:
        import dask.dataframe as dd

        ddf = dd.read_parquet(path, split_row_groups=True)
        model = fit_dask(TAN(), ddf, "y", classes=[0, 1], scheduler="threads", num_workers=2)
    seconds = time.perf_counter() - start
    rows = int(model.counts_.n_rows)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # Linux: kilobytes
    return {"mode": mode, "rows": rows, "seconds": seconds, "rows_per_s": rows / seconds,
            "peak_rss_mb": peak_kb / 1024, "arcs": len(model.arcs_)}


def dask_wide(widths, repeats, n_rows=500):
    """fit_dask next to fit on wide float tables; the encoding pass used to grow faster
    than the number of columns (500 x 2,000: about 18 minutes)."""
    import dask.dataframe as dd
    import pandas as pd

    from pybnc import NaiveBayes
    from pybnc.streaming import fit_dask

    def table(n, w):
        rng = np.random.default_rng(0)
        frame = pd.DataFrame(rng.normal(size=(n, w)), columns=[f"f{i}" for i in range(w)])
        frame["y"] = np.where(frame["f0"] + rng.normal(size=n) > 0, "a", "b")
        return frame

    fit_dask(NaiveBayes(), dd.from_pandas(table(100, 5), npartitions=2), "y", scheduler="synchronous")
    print(f"{'shape':<14} {'fit_dask s (median, range)':>28} {'fit s (median)':>15} {'ratio':>6}")
    for width in widths:
        frame = table(n_rows, width)
        X, ddf = frame.drop(columns="y"), dd.from_pandas(frame, npartitions=4)
        dask_s, fit_s = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            model = fit_dask(NaiveBayes(), ddf, "y", scheduler="synchronous")
            dask_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            reference = NaiveBayes().fit(X, frame["y"])
            fit_s.append(time.perf_counter() - start)
        assert np.array_equal(model.predict_proba(X), reference.predict_proba(X))
        print(f"{n_rows} x {width:<8,} {np.median(dask_s):>10.2f} ({min(dask_s):.2f}-{max(dask_s):.2f})"
              f"{'':>8} {np.median(fit_s):>15.2f} {np.median(dask_s) / np.median(fit_s):>6.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--block", type=int, default=1_000_000)
    parser.add_argument("--dask", action="store_true", help="also time fit_dask (needs dask[dataframe])")
    parser.add_argument("--all-in-memory", action="store_true", help="also time fit on the whole file")
    parser.add_argument("--dask-wide", type=int, nargs="+", metavar="COLUMNS",
                        help="only time fit_dask on 500 rows x COLUMNS floats (e.g. 400 2000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dask_wide:
        return dask_wide(args.dask_wide, args.repeats)
    if args.child:
        print(json.dumps(run(args.child[0], args.child[1], args.block)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.parquet")
        start = time.perf_counter()
        write_parquet(path, args.rows, args.block)
        print(f"wrote {args.rows:,} rows x {N_FEATURES} features to Parquet "
              f"({os.path.getsize(path) / 2**20:.0f} MiB) in {time.perf_counter() - start:.1f} s")
        modes = (["in-memory"] + (["in-memory, all rows"] if args.all_in_memory else []) + ["fit_blocks"]
                 + (["fit_dask"] if args.dask else []))
        print(f"{'mode':<20} {'rows':>12} {'seconds':>8} {'rows/s':>12} {'peak RSS MiB':>13}")
        for mode in modes:
            out = subprocess.run([sys.executable, __file__, "--block", str(args.block), "--child", mode, path],
                                 check=True, capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            print(f"{r['mode']:<20} {r['rows']:>12,} {r['seconds']:>8.2f} {r['rows_per_s']:>12,.0f} "
                  f"{r['peak_rss_mb']:>13.0f}")


if __name__ == "__main__":
    main()
