"""Fit and predict_proba times of pybnc's NaiveBayes, TAN and FAN next to peers.

Run: ``python benchmarks/bench_core.py [--repeats 5] [--large/--no-large] [--no-shapes]``.
The shapes table (wide and many-levelled tables) fits each case in a fresh
process (cold) and once more in it (warm), and reports its peak resident memory,
imports included, and the seconds ``import pybnc`` takes in a fresh process.
Prints one table: median seconds over repeats on synthetic data drawn from a random
TAN (cardinalities 2-4, 2 classes), for pybnc and, in the same run, scikit-learn's
CategoricalNB and, where installed, pyAgrum's and pgmpy's TAN.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from pybnc import FAN, TAN, NaiveBayes

try:
    from _machine import stamp
    from _synthetic import sample_tan
except ImportError:  # run from the repository root
    from benchmarks._machine import stamp
    from benchmarks._synthetic import sample_tan


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_pybnc(name, model, codes, y, test, repeats):
    fit = median_time(lambda: model.fit(codes, y), repeats)
    pred = median_time(lambda: model.predict_proba(test), repeats)
    return name, fit, pred


def bench_sklearn(codes, y, test, repeats):
    from sklearn.naive_bayes import CategoricalNB

    model = CategoricalNB()
    fit = median_time(lambda: model.fit(codes, y), repeats)
    pred = median_time(lambda: model.predict_proba(test), repeats)
    return "sklearn CategoricalNB", fit, pred


def bench_pyagrum(codes, y, test, repeats):
    from pyagrum.skbn import createBNClassifier

    frame = pd.DataFrame(codes.astype(str), columns=[f"x{i}" for i in range(codes.shape[1])])
    test_frame = pd.DataFrame(test.astype(str), columns=frame.columns)
    model = createBNClassifier(learningMethod="TAN")
    fit = median_time(lambda: model.fit(frame, y.astype(str)), 1)
    pred = median_time(lambda: model.predict_proba(test_frame), 1)
    return "pyAgrum TAN", fit, pred


def bench_pgmpy(codes, y, test, repeats):
    from pgmpy.estimators import TreeSearch
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.parameter_estimator import DiscreteBayesianEstimator

    frame = pd.DataFrame(codes, columns=[f"x{i}" for i in range(codes.shape[1])])
    frame["class"] = y

    def fit():
        dag = TreeSearch(frame, root_node="x0").estimate(estimator_type="tan", class_node="class", show_progress=False)
        model = DiscreteBayesianNetwork(dag.edges())
        model.fit(frame, estimator=DiscreteBayesianEstimator())
        return model

    return "pgmpy TAN", median_time(fit, 1), float("nan")


PEERS = [bench_sklearn, bench_pyagrum, bench_pgmpy]


def run(shapes, repeats, peers=True):
    rows = []
    for n_rows, n_features in shapes:
        both, y_both = sample_tan(2 * n_rows, n_features, seed=1)
        codes, y, test = both[:n_rows], y_both[:n_rows], both[n_rows:]
        models = [("pybnc NaiveBayes", NaiveBayes()), ("pybnc TAN", TAN()), ("pybnc FAN", FAN())]
        results = [bench_pybnc(name, m, codes, y, test, repeats) for name, m in models]
        for peer in PEERS if peers else []:
            if peer is not bench_sklearn and n_rows > 50_000:
                continue  # minutes per fit: the 20,000-row shape already tells the ratio
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    results.append(peer(codes, y, test, repeats))
            except ImportError:
                results.append((peer.__name__.replace("bench_", "") + " (not installed)", np.nan, np.nan))
            except Exception as err:  # a peer's API change must not hide the other rows
                results.append((f"{peer.__name__.replace('bench_', '')} (failed: {type(err).__name__})", np.nan, np.nan))
        for name, fit, pred in results:
            rows.append(
                {
                    "shape": f"{n_rows:,} x {n_features}",
                    "model": name,
                    "fit s": fit,
                    "predict_proba s": pred,
                    "predict rows/s": n_rows / pred if pred and np.isfinite(pred) else np.nan,
                }
            )
    return pd.DataFrame(rows)


# -- encoding: the same table as categoricals, strings, pyarrow strings, int arrays ----------
def encoding_tables(codes: np.ndarray) -> dict:
    """One coded table in the forms users have it: the levels are ``"v0", "v1", ...``."""
    labels = np.array([f"v{i}" for i in range(int(codes.max()) + 1)], dtype=object)
    as_text = {f"x{j}": labels[codes[:, j]] for j in range(codes.shape[1])}
    frames = {
        "pandas category": pd.DataFrame({k: pd.Categorical(v) for k, v in as_text.items()}),
        "pandas str (default)": pd.DataFrame(as_text),
        "object strings": pd.DataFrame(as_text).astype(object),
        "int ndarray": codes,
    }
    try:
        frames["pyarrow strings"] = pd.DataFrame(as_text).astype("string[pyarrow]")
    except ImportError:
        pass
    return frames


def run_encoding(n_rows: int, n_features: int, repeats: int) -> pd.DataFrame:
    """TAN fit and predict_proba from each form of one table, next to CategoricalNB's fit
    on the encoded ints (issue 10: strings <= 2x categoricals and <= 3x CategoricalNB;
    int ndarray <= 1.25x categoricals). The forms take turns within every repeat, so a
    change in the machine's load falls on all of them alike; medians of wall and CPU
    seconds (CPU time is less disturbed by other jobs on a shared machine)."""
    from sklearn.naive_bayes import CategoricalNB

    codes, y = sample_tan(n_rows, n_features, seed=3)
    tables = encoding_tables(codes)
    fits = {name: (lambda t=table: TAN().fit(t, y)) for name, table in tables.items()}
    fits["CategoricalNB on the ints"] = lambda: CategoricalNB().fit(codes, y)
    for fit in fits.values():  # warm-up: first calls and allocations are not what is compared
        fit()
    wall, cpu = {name: [] for name in fits}, {name: [] for name in fits}
    for _ in range(repeats):
        for name, fit in fits.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            fit()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    rows = []
    for name in fits:
        row = {"form": name, "fit s": statistics.median(wall[name]), "fit CPU s": statistics.median(cpu[name])}
        if name in tables:
            model = TAN().fit(tables[name], y)
            row["predict_proba s"] = median_time(lambda m=model, t=tables[name]: m.predict_proba(t), repeats)
        rows.append(row)
    out = pd.DataFrame(rows)
    for column in ("fit s", "fit CPU s"):
        base = out.loc[out["form"] == "pandas category", column].iloc[0]
        nb = out.loc[out["form"] == "CategoricalNB on the ints", column].iloc[0]
        out[column.replace(" s", "") + " / category"] = out[column] / base
        out[column.replace(" s", "") + " / CategoricalNB"] = out[column] / nb
    return out


# -- shapes: wide tables and many levels (issue 10), each fit in a fresh process ---------------
SHAPES = [  # (case, model, rows, columns, levels, input)
    ("wide", "NaiveBayes", 200, 5000, 2, "category"),
    ("wide", "TAN", 200, 2000, 2, "category"),
    # the script: int ndarray, rng(0), first fit in a fresh process
    ("wide, cold int", "TAN", 200, 2000, 2, "int"),
    ("wide", "TAN", 300, 3000, 2, "category"),
    ("wide", "TAN", 2000, 3000, 2, "category"),
    ("wide", "TAN", 200, 5000, 2, "category"),
    ("wide", "TAN", 300, 10_000, 2, "category"),
    ("many levels", "TAN", 20_000, 50, 500, "category"),
]


def _random_table(n_rows, n_features, levels, seed=0, form="category"):
    rng = np.random.default_rng(seed)
    if form == "int":  # as in issue 10's timing script
        return rng.integers(0, levels, (n_rows, n_features)), rng.integers(0, 2, n_rows)
    codes = rng.integers(0, levels, size=(n_rows, n_features))
    codes[:, 0] = levels - 1 - np.arange(n_rows) % levels  # every level present
    y = (codes[:, 1] % 2 ^ (rng.random(n_rows) < 0.2)).astype(int)
    return codes, y


def _fit_once(model_name, n_rows, n_features, levels, form="category"):
    """Seconds of one fit and this process's peak resident memory (MiB)."""
    import resource

    import pybnc
    from sklearn.naive_bayes import CategoricalNB

    codes, y = _random_table(n_rows, n_features, levels, form=form)
    if model_name == "CategoricalNB":
        model, table = CategoricalNB(), codes
    elif form == "int":
        model, table = getattr(pybnc, model_name)(), codes
    else:  # categorical columns: integers with hundreds of values would be taken as numbers
        model = getattr(pybnc, model_name)()
        table = pd.DataFrame({f"x{j}": pd.Categorical.from_codes(codes[:, j], range(levels))
                              for j in range(n_features)})
    start = time.perf_counter()
    model.fit(table, y)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the first fit's: a refit holds two models
    start = time.perf_counter()
    model.fit(table, y)  # warm: the same fit again in this process
    return seconds, time.perf_counter() - start, peak


def _pyagrum_once(n_rows, n_features, levels):
    import resource

    from pyagrum.skbn import createBNClassifier

    codes, y = _random_table(n_rows, n_features, levels)
    frame = pd.DataFrame(codes.astype(str), columns=[f"x{i}" for i in range(n_features)])
    start = time.perf_counter()
    createBNClassifier(learningMethod="TAN").fit(frame, y.astype(str))
    return time.perf_counter() - start, np.nan, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_shapes(timeout=600.0, peers=True) -> pd.DataFrame:
    """Each case and its peers, each fit in a fresh process (peak memory is per process)."""
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    rows = []
    for case, model, n_rows, n_features, levels, form in SHAPES:
        runs = [(f"pybnc {model}", _fit_once, (model, n_rows, n_features, levels, form)),
                ("sklearn CategoricalNB", _fit_once, ("CategoricalNB", n_rows, n_features, levels, form))]
        if model == "TAN" and peers and n_features <= 2000 and form == "category":
            runs.append(("pyAgrum TAN", _pyagrum_once, (n_rows, n_features, levels)))
        for name, fn, args in runs:
            with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
                try:
                    seconds, warm, peak = pool.submit(fn, *args).result(timeout=timeout)
                except ImportError:
                    name, seconds, warm, peak = name + " (not installed)", np.nan, np.nan, np.nan
                except concurrent.futures.TimeoutError:
                    name, seconds, warm, peak = name + f" (over {timeout:.0f} s)", np.nan, np.nan, np.nan
                    for process in pool._processes.values():
                        process.terminate()
            rows.append({"case": case, "shape": f"{n_rows:,} x {n_features:,} x {levels} levels, {form}",
                         "model": name, "fit s": seconds, "warm fit s": warm, "peak MiB": peak})
            print(*rows[-1].values(), sep=" | ", flush=True)  # as it goes: the whole table takes minutes
    table = pd.DataFrame(rows)
    reference = table[table["model"] == "sklearn CategoricalNB"].groupby("shape")["fit s"].first()
    table["fit / CategoricalNB"] = table["fit s"] / table["shape"].map(reference)
    table["warm / CategoricalNB"] = table["warm fit s"] / table["shape"].map(reference)
    return table


def import_seconds(repeats: int = 3) -> dict:
    """Wall seconds of ``import pybnc`` in a fresh ``python -c`` (median of ``repeats``), and
    of what it cannot avoid: scikit-learn's base (which imports scipy.stats), pandas and
    scipy.sparse."""
    import subprocess
    import sys

    def once(modules):
        code = f"import time; start = time.perf_counter(); import {modules}; print(time.perf_counter() - start)"
        return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)

    return {what: statistics.median(once(what) for _ in range(repeats))
            for what in ("pybnc", "sklearn.base, pandas, scipy.sparse")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-large", action="store_true", help="skip the 200,000 x 50 shape")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--no-shapes", action="store_true", help="skip the wide and many-levels table")
    parser.add_argument("--only-shapes", action="store_true", help="only the wide and many-levels table")
    parser.add_argument("--csv", default=None, help="append the fit/predict table to this CSV (with the machine, "
                        "load, date and command), as benchmarks/make_pages.py reads it")
    args = parser.parse_args()
    if not args.no_shapes:
        with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
            print(run_shapes(peers=not args.no_peers).to_string(index=False))
        imports = import_seconds()
        print("Each fit in a fresh process after import pybnc; warm: the same fit again in it. import pybnc in a "
              f"fresh python -c: {imports['pybnc']:.2f} s, of which scikit-learn's base, pandas and scipy.sparse "
              f"alone take {imports['sklearn.base, pandas, scipy.sparse']:.2f} s.")
        print("Targets: NaiveBayes 200 x 5,000 <= 3x CategoricalNB; TAN 200 x 2,000 <= 20x CategoricalNB and "
              "< 1 s (the cold int row: the first fit in a fresh process); TAN 300 x 3,000 and the other wide "
              "binary shapes dense (reduced counts), not the sparse path; TAN 20,000 x 50 x 500 levels < 1 GiB "
              "peak.\n")
        if args.only_shapes:
            return
    shapes = [(20_000, 20)] + ([] if args.no_large else [(200_000, 50)])
    table = run(shapes, args.repeats, peers=not args.no_peers)
    if args.csv:
        stamped = table.assign(**stamp())
        stamped.to_csv(args.csv, mode="a", index=False, header=not os.path.exists(args.csv))
    with pd.option_context("display.width", 120, "display.float_format", "{:,.4f}".format):
        print(table.to_string(index=False))
    print("Targets: TAN fit < 0.05 s on 20,000 x 20 and < 1 s on 200,000 x 50; predict_proba > 1e6 rows/s at 20 features.")
    encoding = run_encoding(*(shapes[-1]), args.repeats)
    with pd.option_context("display.width", 120, "display.float_format", "{:,.3f}".format):
        print(f"\nEncoding, {shapes[-1][0]:,} x {shapes[-1][1]} (TAN):")
        print(encoding.to_string(index=False))
    print("Targets: strings <= 2x category and <= 3x CategoricalNB; int ndarray <= 1.25x category.")


if __name__ == "__main__":
    main()
