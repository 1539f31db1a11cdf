"""``pybnc.io.read_table`` (which detects the delimiter, the header and decimal commas)
against ``pandas.read_csv`` told the delimiter and the decimal mark, in the same run.

Tables: a tall one (200,000 rows: five columns of numbers, five of words) written
comma-separated with decimal points and semicolon-separated with decimal commas (a
European spreadsheet's export), and a wide one (200 rows x 2,000 numbers) written both
ways. Each reader's least of ``--repeats`` seconds, taking turns.

Run: ``python benchmarks/bench_read.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import io

import numpy as np
import pandas as pd

import bench_auto_time
from _turns import taking_turns, timed
from pybnc.io import read_table


def _tall(n_rows=200_000, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    numbers = {f"x{i}": rng.normal(size=n_rows).round(4) for i in range(5)}
    words = {f"w{i}": rng.choice(["Paris", "Lyon", "Nice, FR", "Lille", "Metz"], n_rows) for i in range(5)}
    return pd.DataFrame({**numbers, **words})


def _wide() -> pd.DataFrame:
    return bench_auto_time._wide()[0].round(4)  # the benchmarks' wide table, written to four decimals


def _written(frame: pd.DataFrame, sep: str, decimal: str) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep=sep, decimal=decimal, index=False)
    return buffer.getvalue().encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cases = [("200,000 x 10, comma, decimal points", _tall(), ",", "."),
             ("200,000 x 10, semicolon, decimal commas", _tall(), ";", ","),
             ("200 x 2,000, comma, decimal points", _wide(), ",", "."),
             ("200 x 2,000, semicolon, decimal commas", _wide(), ";", ",")]
    print("| table | read_table (s) | pandas.read_csv (s) | ratio | columns of numbers, read_table |")
    print("|---|---|---|---|---|")
    for name, frame, sep, decimal in cases:
        data = _written(frame, sep, decimal)
        ours, theirs, read, _ = taking_turns(args.repeats, timed(lambda: read_table(data)),
                                             timed(lambda: pd.read_csv(io.BytesIO(data), sep=sep, decimal=decimal)))
        numbers = int(sum(pd.api.types.is_float_dtype(t) for t in read.dtypes))
        print(f"| {name} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} | {numbers} of "
              f"{int(sum(pd.api.types.is_float_dtype(t) for t in frame.dtypes))} |", flush=True)


if __name__ == "__main__":
    main()
