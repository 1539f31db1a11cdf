"""``pybnc.save`` at the zlib level it writes (``pybnc.io.model_file.COMPRESS_LEVEL``)
against zlib's default level 6, in the same run: seconds to save, the file's size, its
largest member's compression ratio, and whether ``pybnc.load`` takes the file with its
default caps (it refuses a member above 500:1 as a zip bomb).

The models: a bagged AODE on movement_libras (ten members' ``K x W^2`` tables), AutoBNC's
choice there, and an SKDB on six text columns of 300 levels and a number (kDB tables of mostly unseen
parent configurations, long runs of one value).

Run: ``python benchmarks/bench_save.py [--arff-dir DIR] [--repeats 3]`` (movement_libras
from ``DIR/movement.libras.arff``; without it, only the synthetic table).
"""

from __future__ import annotations

import argparse
import io
import os
import warnings
import zipfile
from pathlib import Path

from _turns import swapped, taking_turns, timed
from bench_auto_time import _many_levelled
import pybnc
from pybnc.averaging import AODE, BaggedBNC
from pybnc.io import model_file
from pybnc.io.arff import parse_arff


def _saved(model) -> bytes:
    buffer = io.BytesIO()
    pybnc.save(model, buffer)
    return buffer.getvalue()


def _largest_ratio(blob: bytes) -> float:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        return max((i.file_size / max(i.compress_size, 1) for i in archive.infolist() if i.file_size > 1 << 20),
                   default=1.0)


def _loads(blob: bytes, X) -> bool:
    try:
        pybnc.load(io.BytesIO(blob)).predict_proba(X[:5])
        return True
    except ValueError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arff-dir", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    models = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.arff_dir is not None:
            path = args.arff_dir / "movement.libras.arff"
            frame = parse_arff(path.read_text(), str(path))
            X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
            models.append(("movement_libras", "BaggedBNC(AODE(), 10)",
                           BaggedBNC(AODE(), n_estimators=10, random_state=0).fit(X, y), X))
            models.append(("movement_libras", "AutoBNC", pybnc.AutoBNC(n_jobs=2, random_state=0, verbose=0).fit(X, y), X))
        X, y = _many_levelled()
        models.append(("6 x 300 levels + 1 number (synthetic)", "SKDB", pybnc.SKDB(verbose=0).fit(X, y), X))
    print(f"load average {os.getloadavg()[0]:.1f}; least of {args.repeats}, taking turns\n")
    print("| table | model | level | save (s) | file (MB) | largest ratio | loads | level 6: save (s) | file (MB) "
          "| largest ratio | loads |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for table, name, model, X in models:
        def default_level():
            with swapped(model_file, "COMPRESS_LEVEL", 6):
                return _saved(model)

        ours, theirs, blob, blob6 = taking_turns(args.repeats, timed(lambda: _saved(model)), timed(default_level))
        print(f"| {table} | {name} | {model_file.COMPRESS_LEVEL} | {ours:.2f} | {len(blob) / 1e6:.1f} | "
              f"{_largest_ratio(blob):.0f}:1 | {_loads(blob, X)} | {theirs:.2f} | {len(blob6) / 1e6:.1f} | "
              f"{_largest_ratio(blob6):.0f}:1 | {_loads(blob6, X)} |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
