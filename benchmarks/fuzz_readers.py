"""Fuzz the readers: seeded mutations of tables and model files, and what each reader does.

Tables (``pybnc.io.read_table``, what ``--file`` and the web page use): ``--tables``
mutations of car.data, car.arff and a CSV with a header (``_mutations.py``). Model
files (``pybnc.load``): ``--models`` mutations of a saved TAN and ESKDB. Each case is
judged: read (and, for tables, agreeing cell by cell with an independent second
reading), a clear error (a ``ValueError`` naming the file), a raw exception, a
misread, or a hang (over 10 s). Printed: the counts by outcome and by mutation, the
slowest case, and every raw exception, misread and hang.

Run: ``python benchmarks/fuzz_readers.py`` (1,500 tables and 1,000 model files: a few
minutes on 2 cores); ``--all-classifiers 1500`` adds model files of every classifier.
``--hostile`` reads the hostile files of ``_hostile.py`` at the issue's sizes (bombs,
huge sheets, hostile XML, a wide header line, a model file whose header is 264 MB)
with the default bounds: each one's outcome, time and peak memory.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import tempfile
import time
from pathlib import Path

import warnings

import numpy as np
import pandas as pd

from _mutations import Case, Outcome, check_model, check_table, model_cases, table_cases


def resident_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field)) / 1024


def reset_peak() -> float:
    """Start measuring the peak resident memory afresh (Linux); the memory now."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return resident_mb()


def report(title: str, cases: list, outcomes: list) -> None:
    counts = collections.Counter(o.kind for o in outcomes)
    print(f"\n{title}: {len(cases)} cases; " + ", ".join(f"{k} {counts.get(k, 0)}" for k in
                                                       ("read", "error", "raw", "misread", "hang")))
    by_kind = collections.defaultdict(collections.Counter)
    for case, outcome in zip(cases, outcomes):
        what = re.sub(r"\d+", "N", case.how.split(": ", 1)[-1].split(";")[0])[:58]
        by_kind[what][outcome.kind] += 1
    print(f"  {'mutation':<60}{'read':>6}{'error':>7}{'raw':>5}{'misread':>9}{'hang':>6}")
    for what in sorted(by_kind):
        c = by_kind[what]
        print(f"  {what:<60}{c['read']:>6}{c['error']:>7}{c['raw']:>5}{c['misread']:>9}{c['hang']:>6}")
    slowest = max(range(len(cases)), key=lambda i: outcomes[i].seconds)
    print(f"  slowest: {outcomes[slowest].seconds:.2f} s, {cases[slowest].how[:100]} ({outcomes[slowest].kind})")
    for case, outcome in zip(cases, outcomes):
        if outcome.kind in ("raw", "misread", "hang"):
            print(f"  {outcome.kind.upper()} {case.name}: {case.how[:90]}\n      {outcome.detail[:240]}")


# -- numbers as people write them ---------------------------------------------------------
def number_cases(n: int, seed: int = 0) -> list:
    """``(case, the numbers meant)``: tables of a column of numbers written as spreadsheets
    of either convention write them (a decimal point or comma, thousands separators or
    not, some cells missing as ``?``, ``NA`` or empty), a text column, a random delimiter
    (quoted where the delimiter is a comma), and sometimes a second column that says the
    decimal mark."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        k = int(rng.integers(3, 60))
        values = np.round(rng.choice([-1, 1], k) * 10 ** rng.uniform(-2, 7, k), int(rng.integers(0, 4)))
        mark, grouped = str(rng.choice([".", ","])), bool(rng.random() < 0.5)
        sep = str(rng.choice([",", ";", "\t", "|"]))
        digits = int(rng.integers(0, 4))
        written = [f"{v:{',' if grouped else ''}.{digits}f}" for v in values]
        exact = np.array([float(w.replace(",", "")) for w in written])
        if mark == ",":
            written = [w.translate(str.maketrans(",.", ".,")) for w in written]
        quote = '"' if sep == "," and (mark == "," or grouped) else ""
        missing = rng.random(k) < 0.1
        cells = [str(rng.choice(["?", "NA", ""])) if m else f"{quote}{w}{quote}" for w, m in zip(written, missing)]
        meant = np.where(missing, np.nan, exact)
        words = rng.choice(["Paris", "Lyon", "Nice"], k)
        if rng.random() < 0.5:  # a second column of decimals says the mark
            rate = [f"{quote}{r:.2f}{quote}".replace(".", mark) for r in rng.uniform(0, 1, k)]
            rows = [sep.join(t) for t in zip(cells, words, rate)]
            head = sep.join(["x", "city", "rate"])
        else:
            rows = [sep.join(t) for t in zip(cells, words)]
            head = sep.join(["x", "city"])
        how = f"{k} numbers, decimal {mark!r}, {'grouped' if grouped else 'plain'}, {digits} digits, sep {sep!r}"
        cases.append((Case(f"num{i}.csv", ("\n".join([head, *rows]) + "\n").encode(), how), meant))
    return cases


def check_number_case(case, meant) -> Outcome:
    """``read`` when the column comes out as the numbers meant, ``error`` for a
    ``ValueError`` naming the file and saying ``decimal=``, else ``misread`` or ``raw``."""
    from pybnc.io import read_table

    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = read_table(case.data, name=case.name)
    except ValueError as exc:
        kind = "error" if case.name in str(exc) and "decimal=" in str(exc) else "raw"
        return Outcome(kind, time.perf_counter() - start, str(exc)[:240])
    except Exception as exc:  # noqa: BLE001 - what the fuzz is looking for
        return Outcome("raw", time.perf_counter() - start, f"{type(exc).__name__}: {str(exc)[:240]}")
    seconds = time.perf_counter() - start
    got = frame["x"]
    if not pd.api.types.is_numeric_dtype(got):
        return Outcome("misread", seconds, f"read as text: {got.head(3).tolist()}")
    wrong = np.flatnonzero(~np.isclose(got.to_numpy(dtype=float), meant, rtol=1e-12, atol=0, equal_nan=True))
    if wrong.size:
        return Outcome("misread", seconds, f"row {wrong[0]}: {got.iloc[wrong[0]]} for {meant[wrong[0]]}")
    return Outcome("read", seconds)


def hostile() -> None:
    """Each hostile file read with the default bounds: outcome, seconds, peak memory."""
    import io

    import pybnc
    from _hostile import FULL, model_with_huge_header
    from pybnc.io import read_table

    makers = dict(FULL, **{"model file, 264 MB header": model_with_huge_header})
    print(f"\n{'hostile file':<28}{'MB':>7}{'s':>7}{'peak MiB':>10}  outcome")
    for what, make in makers.items():
        name, data = make()
        before = reset_peak()
        start = time.perf_counter()
        try:
            if name.endswith(".pybnc"):
                pybnc.load(io.BytesIO(data))
            else:
                read_table(data, name=name)
            outcome = "READ (not refused)"
        except ValueError as exc:
            outcome = f"ValueError: {' '.join(str(exc).split())[:150]}"
        except Exception as exc:  # noqa: BLE001 - a raw exception is what this looks for
            outcome = f"RAW {type(exc).__name__}: {str(exc)[:150]}"
        seconds, grown = time.perf_counter() - start, resident_mb("VmHWM") - before
        print(f"{what:<28}{len(data) / 1e6:>7.2f}{seconds:>7.2f}{grown:>+10.0f}  {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1500)
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--all-classifiers", type=int, default=0, metavar="N",
                        help="also N model-file mutations spread over every pybnc classifier")
    parser.add_argument("--numbers", type=int, default=500, help="tables of numbers as people write them")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hostile", action="store_true", help="also the hostile files of _hostile.py")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
    if args.hostile:
        hostile()
    if args.tables:
        start = time.perf_counter()
        cases = table_cases(args.tables, args.seed)
        before = reset_peak()
        outcomes = [check_table(case) for case in cases]
        grown = resident_mb("VmHWM") - before
        report(f"read_table ({time.perf_counter() - start:.0f} s; peak memory {grown:+.0f} MiB over the "
               f"{before:.0f} MiB before)", cases, outcomes)
    if args.models:
        start = time.perf_counter()
        cases = model_cases(args.models, args.seed)
        before = reset_peak()
        with tempfile.TemporaryDirectory() as folder:
            outcomes = [check_model(case, Path(folder)) for case in cases]
        grown = resident_mb("VmHWM") - before
        report(f"pybnc.load ({time.perf_counter() - start:.0f} s; peak memory {grown:+.0f} MiB over "
               f"the {before:.0f} MiB before)", cases, outcomes)
    if args.numbers:
        start = time.perf_counter()
        pairs = number_cases(args.numbers, args.seed)
        outcomes = [check_number_case(case, meant) for case, meant in pairs]
        report(f"read_table on numbers as people write them ({time.perf_counter() - start:.0f} s)",
               [case for case, _ in pairs], outcomes)
    if args.all_classifiers:
        start = time.perf_counter()
        cases = model_cases(args.all_classifiers, args.seed, every=True)
        with tempfile.TemporaryDirectory() as folder:
            outcomes = [check_model(case, Path(folder)) for case in cases]
        report(f"pybnc.load, every classifier ({time.perf_counter() - start:.0f} s)", cases, outcomes)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
