"""10-fold cross-validation of every classifier on every UCI table; writes docs/uci_cv.md.

Every classifier of the command line's registry plus the weighted variants (AWNB,
WANBIA), on every table of :func:`pybnc.datasets.list_datasets` (the sixteen of
``/work/shared/datasets/uci/INDEX.tsv``; pima is read from the UCI folder), through
:func:`pybnc.evaluation.cross_validate` with the same seeded stratified folds for all
classifiers of a table. The slow learners (the inner-CV wrappers and the TBMATAN
family) run on a stratified sample of ``--heavy-rows`` rows of the tables larger
than that; the table marks those cells and says how many rows they used.

Results are kept in a CSV (``--csv``) and pairs already there are not rerun, so a
time-boxed run can be continued. Usage::

    nice python benchmarks/uci_cv.py                 # all tables, all classifiers
    nice python benchmarks/uci_cv.py --tables car,iris --heavy-rows 1000
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from pybnc.cli._common import model_class
from pybnc.registry import BY_SHORT_NAME
from pybnc.datasets import list_datasets, load_dataset
from pybnc.evaluation import cross_validate

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"tanhc", "tanhcsp", "fssj", "bsej", "tbmatan", "sstbmatan"}


def classifiers() -> dict:
    models = {}
    for key in BY_SHORT_NAME:
        model = model_class(key)()
        params = model.get_params()
        model.set_params(**{k: v for k, v in (("random_state", 0), ("verbose", 0)) if k in params})
        models[key] = model
    models["awnb"] = model_class("nb")(weighting="awnb", random_state=0)
    models["wanbia"] = model_class("tan")(weighting="wanbia")
    return models


def stratified_rows(X, y, n_rows: int, seed: int = 0):
    if len(y) <= n_rows:
        return X, y
    X_s, _, y_s, _ = train_test_split(X, y, train_size=n_rows, stratify=y, random_state=seed)
    return X_s.reset_index(drop=True), y_s.reset_index(drop=True)


def run(tables, models, heavy_rows: int, csv: Path, data_home) -> pd.DataFrame:
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=["dataset", "model"])
    seen = set(zip(done["dataset"], done["model"]))
    for name in tables:
        X, y = load_dataset(name, data_home=data_home)
        for key, model in models.items():
            if (name, key) in seen:
                continue
            Xr, yr = stratified_rows(X, y, heavy_rows) if key in HEAVY else (X, y)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = cross_validate({key: model}, Xr, yr, cv=10, random_state=0, dataset=name, verbose=0)
            seconds = time.perf_counter() - start
            row = pd.DataFrame([{
                "dataset": name, "model": key, "rows": len(yr), "full_rows": len(y),
                "accuracy_mean": result["accuracy"].mean(), "accuracy_sd": result["accuracy"].std(ddof=1),
                "log_loss_mean": result["log_loss"].mean(), "seconds": seconds,
            }])
            row.to_csv(csv, mode="a", header=not csv.exists() or csv.stat().st_size == 0, index=False)
            print(f"{name:10s} {key:9s} rows={len(yr):6d} acc={row.accuracy_mean[0]:.4f} {seconds:8.1f}s", flush=True)
    return pd.read_csv(csv)


def markdown(results: pd.DataFrame, models, tables, heavy_rows: int, elapsed: float) -> str:
    keys = [k for k in models if k in set(results["model"])]
    lines = ["| table | rows | " + " | ".join(keys) + " |", "|---|---:|" + "---:|" * len(keys)]
    for name in tables:
        part = results[results["dataset"] == name].set_index("model")
        if part.empty:
            continue
        cells = []
        for key in keys:
            if key not in part.index:
                cells.append("not run")
                continue
            r = part.loc[key]
            mark = f" ({int(r['rows'])} rows)" if r["rows"] < r["full_rows"] else ""
            cells.append(f"{100 * r['accuracy_mean']:.1f} ± {100 * r['accuracy_sd']:.1f}{mark}")
        lines.append(f"| {name} | {int(part['full_rows'].iloc[0])} | " + " | ".join(cells) + " |")
    machine = f"{platform.machine()}, Python {platform.python_version()}"
    return f"""# 10-fold cross-validation on the UCI tables

Written by `benchmarks/uci_cv.py` (do not edit by hand). Accuracy in percent, mean ±
standard deviation over 10 stratified folds (seed 0, the same folds for every
classifier of a table), default hyperparameters (wrappers and AWNB seeded with
`random_state=0`). Every classifier of the command line's registry plus AWNB
(`NaiveBayes(weighting="awnb")`) and WANBIA (`TAN(weighting="wanbia")`).

**Subsamples:** the inner-CV wrappers (tanhc, tanhcsp, fssj, bsej) and the TBMATAN
family (tbmatan, sstbmatan) ran on a stratified sample of {heavy_rows} rows (seed 0)
of the tables larger than that; those cells say how many rows they used. Every
other cell is the full table. A cell "not run" is a pair the time-boxed run did
not reach (rerun the script: it continues from its CSV). The default test suite runs the same classifiers on
every table, capped at 100 rows (`tests/test_uci_cv.py`), to check that nothing
fails; this table is for the accuracies.

{chr(10).join(lines)}

Run time of this table: {elapsed / 60:.0f} min on {machine}, 2 cores shared with other
work (times are noisy; per-pair seconds are in the script's CSV, `out/uci_cv.csv`).
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(list_datasets()))
    parser.add_argument("--models", default=None, help="comma-separated keys (default: all)")
    parser.add_argument("--heavy-rows", type=int, default=3000)
    parser.add_argument("--csv", type=Path, default=ROOT / "out" / "uci_cv.csv")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "uci_cv.md")
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--report-only", action="store_true",
                        help="write the table from the CSV without running anything (after a time-boxed run)")
    args = parser.parse_args(argv)
    models = classifiers()
    if args.models:
        models = {k: models[k] for k in args.models.split(",")}
    tables = args.tables.split(",")
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results = (pd.read_csv(args.csv) if args.report_only
               else run(tables, models, args.heavy_rows, args.csv, args.data_home))
    elapsed = float(results["seconds"].sum()) if "seconds" in results else time.perf_counter() - start
    args.out.write_text(markdown(results, models, tables, args.heavy_rows, elapsed))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
