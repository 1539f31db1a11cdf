"""Time one fit of each greedy wrapper next to R bnclassify 0.4.8.

Each learner is fitted once, or, when a fit takes under half a second, ten more
times with the median reported (``epsilon=0``, so the search runs until no move improves; 5
folds unless stated) on car, nursery (issue 10's target: TAN-HC and BSEJ at least 20
times faster than bnclassify's 1.02 s and 1.09 s), chess and soybean, and on votes and
mushroom, which have missing values (bnclassify's wrappers stop with an error on
those). The R figures are the reference timings of the issue (bnclassify 0.4.8;
"tan_hc soybean" is from its documentation).

A second table times, in the same run, the first TAN-HC step both ways: pybnc's
cached scorer and refitting every candidate on every fold from the raw rows (the
method of bnclassify, which cannot run here: it is neither on PyPI nor in Debian).

A third table, when R bnclassify is installed (``R_LIBS``), times TAN-HC and BSEJ on
nursery in the same run as bnclassify's own ``tan_hc`` and ``bsej``: wall and CPU
seconds per fit after a warm-up, the minimum and the median of seven R fits and of
fifteen pybnc fits (the machine is shared: the minimum is the least disturbed fit, and
the load average is printed).

Run: ``python benchmarks/bench_search.py`` (about two minutes on 2 cores, most of it
kDB hill climbing on soybean, once with ``n_jobs=1`` and once with ``n_jobs=2``: its
incomplete rows miss 11-30 features each and are scored by exact variable elimination); ``python benchmarks/bench_search.py
--nursery [--arff-dir DIR]`` for the same-run nursery table alone (``DIR`` holds
nursery.arff: ``../shared/datasets/uci/nursery``).
"""

from __future__ import annotations

import time

import numpy as np

from pybnc import BSEJ, FSSJ, KDB, TANHC, TANHCSP
from pybnc.counts.tables import count
from pybnc.datasets import load_dataset
from pybnc.encode import Encoder
from pybnc.inference.forest import joint_log_likelihood
from pybnc.parameters.learn import learn_parameters
from pybnc.search._engine import CVScorer
from pybnc.search.tan_hc import addable_arcs
from pybnc.structure import Structure

LEARNERS = {
    "tan_hc": lambda k: TANHC(cv=k, epsilon=0, random_state=0, verbose=0),
    "tan_hcsp": lambda k: TANHCSP(cv=k, epsilon=0, random_state=0, verbose=0),
    "fssj": lambda k: FSSJ(cv=k, epsilon=0, stopping="epsilon", random_state=0, verbose=0),  # bnclassify's rule
    "bsej": lambda k: BSEJ(cv=k, epsilon=0, stopping="epsilon", random_state=0, verbose=0),
    "kdb (kdbk=2)": lambda k: KDB(k=2, search="hc", cv=k, epsilon=0, random_state=0, verbose=0),
    # the same search, its moves scored on two processes (the same model)
    "kdb n_jobs=2": lambda k: KDB(k=2, search="hc", cv=k, epsilon=0, random_state=0, verbose=0, n_jobs=2),
}

# (learner, dataset, folds) -> R bnclassify 0.4.8 seconds
R_REFERENCE = {
    ("tan_hc", "car", 5): "0.16-0.22",
    ("tan_hc", "nursery", 5): "1.02",
    ("bsej", "nursery", 5): "1.09",
    ("tan_hc", "chess", 5): "346",
    ("kdb (kdbk=2)", "chess", 5): "> 600 (did not finish)",
    ("bsej", "chess", 5): "115",
    ("fssj", "chess", 5): "13-40",
    ("tan_hc", "soybean", 5): "~80 (docs)",
    ("bsej", "soybean", 10): "570",
}

RUNS = [(name, ds, 5) for ds in ("car", "nursery", "chess", "soybean", "votes", "mushroom") for name in LEARNERS
        if name != "kdb n_jobs=2" or ds == "soybean"]
RUNS.insert(RUNS.index(("bsej", "soybean", 5)) + 1, ("bsej", "soybean", 10))


def _fit_seconds(model, X, y) -> float:
    """Seconds of one fit. A fit under half a second is repeated: the median of ten
    more fits is reported (a single short fit mostly measures the machine's noise and
    the first call's warm-up)."""
    start = time.perf_counter()
    model.fit(X, y)
    first = time.perf_counter() - start
    if first >= 0.5:
        return first
    times = []
    for _ in range(10):
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    data = {}
    print(f"{'learner':<14}{'dataset':<10}{'folds':>6}{'pybnc s':>10}{'R s':>24}{'speed-up':>10}"
          f"{'arcs/joins':>12}{'CV acc':>9}")
    for name, ds, folds in RUNS:
        if ds not in data:
            data[ds] = load_dataset(ds)
        X, y = data[ds]
        model = LEARNERS[name](folds)
        seconds = _fit_seconds(model, X, y)
        ref = R_REFERENCE.get((name, ds, folds), "error (NA)" if ds in ("votes", "mushroom") else "")
        speedup = ""
        if ref and ref.lstrip("~")[0].isdigit():
            low = float(ref.lstrip("~").split("-")[0].split(" ")[0])
            speedup = f"{low / seconds:.0f}x"
        elif ref.startswith(">"):
            speedup = f">{600 / seconds:.0f}x"
        size = len(model.joins_) if hasattr(model, "joins_") else len(model.arcs_)
        print(f"{name:<14}{ds:<10}{folds:>6}{seconds:>10.3f}{ref:>24}{speedup:>10}{size:>12}"
              f"{model.search_trace_[-1]['cv_accuracy']:>9.4f}", flush=True)


def _refit_accuracy(codes, y, cards, n_classes, fold, structure) -> float:
    """CV accuracy the way bnclassify scores a candidate: refit every fold from its rows."""
    correct = []
    for f in range(fold.max() + 1):
        train, test = fold != f, fold == f
        tables = learn_parameters(structure, count(codes[train], y[train], cards, n_classes), "bayes",
                                  codes=codes[train], y=y[train])
        jll = joint_log_likelihood(codes[test], structure, tables.class_log_prior, tables.log_cpts, cards)
        correct.append(np.mean(np.argmax(jll, axis=1) == y[test]))
    return float(np.mean(correct))


def step_table(datasets=("car", "chess", "soybean", "votes")) -> None:
    """The first TAN-HC step (every arc scored once) in this run, two ways: pybnc's cached
    scorer, and refitting each candidate on each fold from the raw rows (bnclassify's
    method, with pybnc's own counting and inference, so only the method differs)."""
    print(f"\n{'first TAN-HC step':<18}{'dataset':<10}{'candidates':>11}{'cached s':>10}{'refit s':>10}"
          f"{'speed-up':>10}{'same scores':>13}")
    for ds in datasets:
        X, y = load_dataset(ds)
        encoder = Encoder().fit(X)
        codes = encoder.transform(X)
        classes, y_codes = np.unique(np.asarray(y), return_inverse=True)
        cards = np.array([len(c) for c in encoder.categories_])
        start = time.perf_counter()
        scorer = CVScorer(codes, y_codes, cards, classes.size, 5, np.random.RandomState(0), "bayes", None)
        nb = Structure.naive_bayes(codes.shape[1])
        total = scorer.total_for(nb)
        arcs = addable_arcs(nb, 1)
        cached = [scorer.accuracy(scorer.change_parents(total, nb, {i: (j,)})) for j, i in arcs]
        cached_s = time.perf_counter() - start
        start = time.perf_counter()
        refit = [_refit_accuracy(codes, y_codes, cards, classes.size, scorer.fold,
                                 Structure.from_arcs(codes.shape[1], [(j, i)])) for j, i in arcs]
        refit_s = time.perf_counter() - start
        same = np.allclose(cached, refit, rtol=0, atol=1e-12)
        print(f"{'':<18}{ds:<10}{len(arcs):>11}{cached_s:>10.3f}{refit_s:>10.2f}"
              f"{refit_s / cached_s:>9.0f}x{str(same):>13}", flush=True)


_R_TIMING = """
suppressPackageStartupMessages(library(bnclassify))
d <- foreign::read.arff(file.path(commandArgs(TRUE)[1], "nursery.arff"))
for (name in c("tan_hc", "bsej")) {
  learner <- get(name)
  learner(names(d)[ncol(d)], d, k = 5, epsilon = 0, smooth = 1)  # warm-up
  for (r in seq_len(as.integer(commandArgs(TRUE)[2]))) {
    set.seed(r)
    before <- proc.time()
    learner(names(d)[ncol(d)], d, k = 5, epsilon = 0, smooth = 1)
    spent <- proc.time() - before
    cat(name, spent[["elapsed"]], spent[["user.self"]] + spent[["sys.self"]], "\n")
  }
}
"""


def same_run_table(repeats: int = 7, arff_dir: str = "/work/search-data") -> None:
    """TAN-HC and BSEJ (k = 5, epsilon = 0) on nursery next to R bnclassify in the same run,
    when ``Rscript`` finds bnclassify (``R_LIBS``; see benchmarks/bnclassify_reference.R for
    the install) and ``arff_dir`` holds nursery.arff: minimum and median of wall and of CPU
    seconds per fit after one warm-up fit each (CPU time is less disturbed by a busy
    machine), ``repeats`` R fits and ``2 * repeats + 1`` pybnc fits."""
    import os
    import shutil
    import subprocess

    if not shutil.which("Rscript") or not os.path.exists(os.path.join(arff_dir, "nursery.arff")):
        print("\n(R bnclassify or nursery.arff not found: no same-run comparison)")
        return
    run = subprocess.run(["Rscript", "-e", _R_TIMING, arff_dir, str(repeats)], capture_output=True, text=True)
    if run.returncode:
        print(f"\n(R bnclassify failed: {run.stderr.strip().splitlines()[-1:]})")
        return
    r_times = {}
    for line in run.stdout.split("\n"):
        if line.strip():
            name, wall, cpu = line.split()
            r_times.setdefault(name, []).append((float(wall), float(cpu)))
    X, y = load_dataset("nursery")
    print(f"\nsame run, nursery (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"{'':<8}{'':<8}{'pybnc wall s':>13}{'R wall s':>10}{'ratio':>8}{'pybnc CPU s':>13}{'R CPU s':>10}"
          f"{'ratio':>8}")
    for name, learner in (("tan_hc", "tan_hc"), ("bsej", "bsej")):
        LEARNERS[learner](5).fit(X, y)  # warm-up, as R's
        ours = []
        for _ in range(2 * repeats + 1):
            start, start_cpu = time.perf_counter(), time.process_time()
            LEARNERS[learner](5).fit(X, y)
            ours.append((time.perf_counter() - start, time.process_time() - start_cpu))
        for stat, reduce in (("min", np.min), ("median", np.median)):
            (wall, cpu), (r_wall, r_cpu) = reduce(ours, axis=0), reduce(r_times[name], axis=0)
            print(f"{name:<8}{stat:<8}{wall:>13.3f}{r_wall:>10.3f}{r_wall / wall:>7.1f}x{cpu:>13.3f}{r_cpu:>10.3f}"
                  f"{r_cpu / cpu:>7.1f}x", flush=True)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nursery", action="store_true", help="only the same-run nursery table")
    parser.add_argument("--arff-dir", default="/work/search-data",
                        help="the folder of nursery.arff for R (e.g. ../shared/datasets/uci/nursery)")
    args = parser.parse_args()
    if not args.nursery:
        main()
        step_table()
    same_run_table(arff_dir=args.arff_dir)
