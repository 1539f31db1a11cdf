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
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import tempfile
import time
from pathlib import Path

from _mutations import check_model, check_table, model_cases, table_cases


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1500)
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--all-classifiers", type=int, default=0, metavar="N",
                        help="also N model-file mutations spread over every pybnc classifier")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
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
    if args.all_classifiers:
        start = time.perf_counter()
        cases = model_cases(args.all_classifiers, args.seed, every=True)
        with tempfile.TemporaryDirectory() as folder:
            outcomes = [check_model(case, Path(folder)) for case in cases]
        report(f"pybnc.load, every classifier ({time.perf_counter() - start:.0f} s)", cases, outcomes)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
