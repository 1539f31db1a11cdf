"""pybnc's learners at a forest's speed (issue 21): fit and predict times, accuracy and
log-loss beside RandomForestClassifier(300) and HistGradientBoosting, and what the first
use of a learner costs in a fresh process, in one run.

Three tables, each printed as it is done:

1. **First use** (``--first-use``). Every learner in its own fresh Python process (the
   interpreter of ``--python``, e.g. a venv just installed): the time of ``import
   pybnc``, the first use (fit on car, predict_proba of 200 rows) and a second, identical
   use in the same process. The difference is what the first use pays beyond the work
   (loading or compiling kernels, warming caches); the bar: at most 0.15 s in a later
   fresh process, at most 2 s right after install (the interpreter's first process for
   that learner: run it first thing after ``pip install``). Then a ``pybnc fit`` command-line call,
   start to result, beside the same fit in a warm process. Least of ``--repeats``
   processes.
   Last, the same uses with the compiled kernels hidden: what the numpy versions (a
   checkout whose kernels are not built) cost.
2. **Against the forest** (``--tables``: glass, car, chess, letter and adult by default,
   214 to 48,842 rows; ``sk_digits``, ``sk_breast_cancer`` and ``sk_wine`` are the
   numeric tables scikit-learn ships). A stratified 70/30 split (seed 0) of each table; every model is
   fitted on the 70% and predicts the 30%, in the same run, least time of ``--repeats``
   (``--big-repeats`` on tables of 10,000 rows or more): fit and predict_proba seconds, their ratio to the forest's (both
   ``n_jobs=2``), accuracy and log-loss. pybnc gets the raw table; scikit-learn's models
   the ordinal-coded one (``accuracy_vs_forest.py``'s pipelines).
3. **TBMATAN's predictions**: rows per second of TBMATAN's and TAN's predict_proba on
   chess (the whole table, least of repeats); the bar: TBMATAN at least TAN's / 5.

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_vs_forest.py [--tables glass,car,chess]
[--models ESKDB,SKDB,...] [--repeats 3] [--big-repeats 1] [--python /path/to/venv/bin/python] [--first-use-only]``.
To take the first-use rows right after an install, run the script with that
environment's interpreter and without PYTHONPATH (the fresh processes inherit the
environment). Results: benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).parent))
from accuracy_vs_forest import _boosting, _forest  # noqa: E402  (the same pipelines as the accuracy table)
from bench_explain import timed  # noqa: E402  (least time of repeats)

import pybnc  # noqa: E402
from pybnc.datasets import load_dataset  # noqa: E402

FOREST = "RandomForest(300)"
#: Tables of this many rows or more (letter, adult) are timed ``--big-repeats`` times.
BIG_ROWS = 10_000


def _forest2(X):
    return _forest(X).set_params(randomforestclassifier__n_jobs=2)


MODELS = {
    # the paper's settings, pybnc's defaults: 20 members, k = 5, 1,000 Gibbs iterations
    "ESKDB": lambda X: pybnc.ESKDB(random_state=0, n_jobs=2, verbose=0),
    "ESKDB(hgs)": lambda X: pybnc.ESKDB(smoothing="hgs", random_state=0, n_jobs=2, verbose=0),
    "SKDB": lambda X: pybnc.SKDB(verbose=0),
    "KDB(k=2)": lambda X: pybnc.KDB(k=2, verbose=0),
    "TAN": lambda X: pybnc.TAN(),
    "TAN discriminative": lambda X: pybnc.TAN(weighting="discriminative"),
    "TBMATAN": lambda X: pybnc.TBMATAN(),
    "AutoBNC": lambda X: pybnc.AutoBNC(n_jobs=2, random_state=0),
    FOREST: _forest2,
    "HistGradientBoosting": _boosting,
}
DEFAULT_MODELS = ["ESKDB", "SKDB", "KDB(k=2)", "TAN", "TBMATAN", FOREST, "HistGradientBoosting"]

# One learner's first and second use in a fresh process; prints a JSON line.
FIRST_USE = """
import json, sys, time, warnings
start = time.perf_counter()
import pybnc
from pybnc.datasets import load_dataset
imported = time.perf_counter() - start
warnings.simplefilter("ignore")
X, y = load_dataset("car")
make = {"TANHC": lambda: pybnc.TANHC(random_state=0, verbose=0), "KDB": lambda: pybnc.KDB(k=2, verbose=0),
        "ESKDB": lambda: pybnc.ESKDB(n_estimators=5, hdp_iterations=200, random_state=0, verbose=0),
        "TBMATAN": lambda: pybnc.TBMATAN()}[sys.argv[1]]
times = []
for _ in range(2):
    t = time.perf_counter()
    make().fit(X, y).predict_proba(X[:200])
    times.append(time.perf_counter() - t)
print(json.dumps({"import": imported, "first": times[0], "second": times[1]}))
"""
FIRST_USE_LEARNERS = ["TANHC", "KDB", "ESKDB", "TBMATAN"]

WARM_FIT = """
import sys, time, warnings
import pybnc
from pybnc.datasets import load_dataset
warnings.simplefilter("ignore")
X, y = load_dataset("car")
pybnc.TANHC(random_state=0, verbose=0).fit(X, y)
t = time.perf_counter()
pybnc.TANHC(random_state=0, verbose=0).fit(X, y)
print(time.perf_counter() - t)
"""


# The same uses with the compiled kernels hidden (as in a checkout where they were not
# built): what the numpy versions cost. Prints a JSON line.
WITHOUT_KERNELS = """
import json, sys, time, warnings
if sys.argv[1] == "numpy":
    for name in ("pybnc.averaging._laplacian_c", "pybnc.parameters._hdp_c", "pybnc.search._rows_c"):
        sys.modules[name] = None
warnings.simplefilter("ignore")
import pybnc
from pybnc.datasets import load_dataset
X, y = load_dataset("car")
chess_X, chess_y = load_dataset("chess")
uses = {"ESKDB(5 members, 200 iterations) fit, car":
            lambda: pybnc.ESKDB(n_estimators=5, hdp_iterations=200, random_state=0, verbose=0).fit(X, y),
        "TANHC fit, car": lambda: pybnc.TANHC(random_state=0, verbose=0).fit(X, y),
        "TBMATAN predict_proba, chess": lambda model=pybnc.TBMATAN().fit(chess_X, chess_y): model.predict_proba(chess_X)}
out = {}
for name, use in uses.items():
    use()
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        use()
        best = min(best, time.perf_counter() - t)
    out[name] = best
print(json.dumps(out))
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def first_use(python: str, repeats: int) -> None:
    env = {**os.environ, "PYBNC_PROGRESS": "0"}
    print(f"\nFirst use in a fresh process ({python}; car; use = fit + predict_proba of 200 rows; "
          f"least of {repeats} later processes; {load()})")
    print("| learner | import pybnc (s) | first use (s) | second use (s) | first - second, this interpreter's "
          "first process (s) | first - second, later processes (s) |")
    print("|---|---|---|---|---|---|")
    for name in FIRST_USE_LEARNERS:
        runs = [json.loads(subprocess.run([python, "-c", FIRST_USE, name], capture_output=True, text=True,
                                          check=True, env=env).stdout.strip().splitlines()[-1])
                for _ in range(repeats + 1)]
        best = {key: min(run[key] for run in runs[1:]) for key in runs[0]}
        later = min(run["first"] - run["second"] for run in runs[1:])
        print(f"| {name} | {best['import']:.2f} | {best['first']:.2f} | {best['second']:.2f} | "
              f"{runs[0]['first'] - runs[0]['second']:+.2f} | {later:+.2f} |", flush=True)
    # the command line, start to result, beside the same fit in a warm process
    cli = Path(python).with_name("pybnc")
    command = [str(cli)] if cli.exists() else [python, "-m", "pybnc"]
    with tempfile.TemporaryDirectory() as folder:
        walls = []
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run([*command, "fit", "--dataset", "car", "--model", "tanhc", "-o", f"{folder}/m.pbnc"],
                           capture_output=True, check=True, env=env)
            walls.append(time.perf_counter() - t)
    warm = min(float(subprocess.run([python, "-c", WARM_FIT], capture_output=True, text=True, check=True,
                                    env=env).stdout) for _ in range(repeats))
    bare = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([python, "-c", "import pybnc, pybnc.cli"], check=True, env=env)
        bare.append(time.perf_counter() - t)
    print(f"\n`pybnc fit --dataset car --model tanhc`: {min(walls):.2f} s start to result; the interpreter "
          f"starting and importing pybnc and its command line {min(bare):.2f} s; the fit in a warm process "
          f"{warm:.2f} s; the rest (reading, first fit, saving) {min(walls) - min(bare) - warm:.2f} s")


def without_kernels(python: str) -> None:
    """The compiled kernels against the numpy versions, alternately in fresh processes."""
    env = {**os.environ, "PYBNC_PROGRESS": "0"}
    runs = {"compiled": [], "numpy": []}
    for _ in range(2):
        for mode in runs:
            runs[mode].append(json.loads(subprocess.run([python, "-c", WITHOUT_KERNELS, mode], capture_output=True,
                                                        text=True, check=True, env=env).stdout.splitlines()[-1]))
    print(f"\nWithout the compiled kernels (numpy versions; least of 4, second use on; {load()})")
    print("| use | compiled (s) | numpy (s) | numpy / compiled |")
    print("|---|---|---|---|")
    for name in runs["compiled"][0]:
        fast, slow = (min(run[name] for run in runs[mode]) for mode in ("compiled", "numpy"))
        print(f"| {name} | {fast:.3f} | {slow:.3f} | {slow / fast:.1f} |", flush=True)


def _load(table: str):
    """A bundled table, or one scikit-learn ships (``sk_digits``, ``sk_breast_cancer``, ``sk_wine``)."""
    if table.startswith("sk_"):
        import sklearn.datasets

        data = getattr(sklearn.datasets, f"load_{table[3:]}")(as_frame=True)
        return data.data, data.target.astype(str).to_numpy()
    X, y = load_dataset(table)
    return X, np.asarray(y)


def against_forest(tables, models, repeats: int, big_repeats: int) -> None:
    print(f"\nAgainst the forest: 70/30 stratified split (seed 0), least of {repeats} (of {big_repeats} on tables "
          f"of {BIG_ROWS:,} rows or more); ratios to {FOREST} (n_jobs=2) in the same run")
    print("| table | rows | model | fit (s) | fit / forest | predict_proba (s) | predict / forest | accuracy "
          "| log-loss | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for table in tables:
        X, y = _load(table)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        table_repeats = big_repeats if len(X) >= BIG_ROWS else repeats
        results = {}
        for name in [FOREST] + [m for m in models if m != FOREST]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit_s, model = timed(lambda: MODELS[name](X_train).fit(X_train, y_train), table_repeats)
                predict_s, proba = timed(lambda: model.predict_proba(X_test), table_repeats)
            classes = list(model.classes_)
            accuracy = float(np.mean(np.asarray(classes)[proba.argmax(axis=1)] == y_test))
            loss = log_loss(y_test, np.clip(proba, 1e-15, 1), labels=classes)
            results[name] = fit_s, predict_s
            forest_fit, forest_predict = results[FOREST]
            print(f"| {table} | {len(X)} | {name} | {fit_s:.2f} | {fit_s / forest_fit:.2f} | {predict_s:.3f} | "
                  f"{predict_s / forest_predict:.2f} | {100 * accuracy:.1f} | {loss:.3f} | "
                  f"{os.getloadavg()[0]:.1f} |", flush=True)


def tbmatan_predict(repeats: int) -> None:
    X, y = load_dataset("chess")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tan, tbmatan = pybnc.TAN().fit(X, y), pybnc.TBMATAN().fit(X, y)
        rates = {}
        for name, model in (("TAN", tan), ("TBMATAN", tbmatan)):
            seconds, _ = timed(lambda: model.predict_proba(X), repeats)
            rates[name] = len(X) / seconds
    print(f"\npredict_proba on chess ({len(X)} rows, least of {repeats}; {load()}): TAN {rates['TAN']:,.0f} rows/s, "
          f"TBMATAN {rates['TBMATAN']:,.0f} rows/s: TAN / TBMATAN = {rates['TAN'] / rates['TBMATAN']:.1f} (bar: <= 5)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="glass,car,chess,letter,adult")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS), help=f"among {', '.join(MODELS)}")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--big-repeats", type=int, default=1, help=f"repeats on tables of {BIG_ROWS:,} rows or more")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the first-use rows")
    parser.add_argument("--first-use-only", action="store_true")
    parser.add_argument("--skip-first-use", action="store_true")
    parser.add_argument("--tbmatan-only", action="store_true", help="only TBMATAN's and TAN's predictions on chess")
    args = parser.parse_args()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}: choose among {list(MODELS)}")
    print(f"pybnc {pybnc.__file__}; {load()}")
    if args.tbmatan_only:
        tbmatan_predict(args.repeats)
        return
    if not args.skip_first_use:
        first_use(args.python, args.repeats)
        without_kernels(args.python)
    if args.first_use_only:
        return
    against_forest([t.strip() for t in args.tables.split(",") if t.strip()], models, args.repeats, args.big_repeats)
    tbmatan_predict(args.repeats)


if __name__ == "__main__":
    main()
