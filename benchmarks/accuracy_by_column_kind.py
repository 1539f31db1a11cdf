"""Where AutoBNC meets the forest and where it does not, by the kind of the table's columns.

Reads ``accuracy_vs_forest_nested.csv`` (the nested 5-fold runs of
``accuracy_vs_forest.py``) and, for every table it can load, takes AutoBNC's latest
kept run on all five folds and the forest's, and the share of the table's columns that
pybnc discretises (``Encoder().kinds_``: numbers of many values, as a user's
DataFrame gives them). It prints each table and then, for tables whose columns are
mostly categorical and mostly numeric, how many meet issue 20's two bars (AutoBNC's
accuracy at least the forest's less 0.5 point, its log-loss at most the forest's).

AutoBNC's kept runs: codes on main, not those marked as not kept, run beside another, under
another rule or before a change. The tables are seen and unseen ones alike, each on the
code its latest run had: a description of where the gap lies, not an unseen-table score.

Run: ``python benchmarks/accuracy_by_column_kind.py [--arff-dir DIR ...]`` (the ARFF
folders of ``accuracy_vs_forest.py``; without them, the shared tables only).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from accuracy_vs_forest import arff_tables, shared_tables
from pybnc.datasets import list_datasets
from pybnc.encode import Encoder

CSV = Path(__file__).with_name("accuracy_vs_forest_nested.csv")
#: Words of the ``code`` column that mark a run as not the table's current result.
NOT_CURRENT = ("not kept", "averaging ensemble only", "rule=", "before")
FOLDS = 5
ACCURACY_GAP, LOG_LOSS_EXCESS = "accuracy - forest's", "log-loss - forest's"


def _latest(rows: pd.DataFrame, kept_only: bool = True) -> pd.DataFrame | None:
    """The last code's five folds among ``rows`` (with ``kept_only``, of kept codes on
    main), or None."""
    codes = [c for c in rows["code"].unique() if (rows["code"] == c).sum() == FOLDS and (
        not kept_only or c.startswith("main ") and not any(w in c for w in NOT_CURRENT))]
    return rows[rows["code"] == codes[-1]] if codes else None


def numeric_share(X, y) -> float:
    """The share of ``X``'s columns that pybnc's encoder discretises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kinds = np.asarray(Encoder().fit(X, y).kinds_)
    return float((kinds == "discretised").mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arff-dir", type=Path, action="append", default=[],
                        help="an ARFF folder of accuracy_vs_forest.py (may be repeated)")
    args = parser.parse_args()
    tables = shared_tables(list_datasets())
    for folder in args.arff_dir:
        tables.update(arff_tables(folder))
    results = pd.read_csv(CSV)
    rows = []
    for name, load in tables.items():
        of_table = results[results["dataset"] == name]
        auto = _latest(of_table[of_table["model"] == "AutoBNC"])
        # the forest's settings are fixed: any run of it will do
        forest = _latest(of_table[of_table["model"].str.startswith("RandomForest")], kept_only=False)
        if auto is None or forest is None:
            continue
        gap = 100 * (auto["accuracy"].mean() - forest["accuracy"].mean())
        excess = auto["log_loss"].mean() - forest["log_loss"].mean()
        rows.append({"table": name, "numeric share": round(numeric_share(*load()), 2),
                     ACCURACY_GAP: round(gap, 2), LOG_LOSS_EXCESS: round(excess, 4),
                     "both bars": bool(gap >= -0.5 and excess <= 0), "AutoBNC's code": auto["code"].iloc[0]})
    table = pd.DataFrame(rows).sort_values(["numeric share", "table"])
    print("| " + " | ".join(table.columns) + " |\n" + "|---" * len(table.columns) + "|")
    for values in table.itertuples(index=False):
        print("| " + " | ".join(str(v) for v in values) + " |")
    print()
    print("| columns | tables | both bars | accuracy bar | log-loss bar |")
    print("|---|---|---|---|---|")
    for label, part in (("mostly categorical (numeric share < 0.5)", table[table["numeric share"] < 0.5]),
                        ("mostly numeric (numeric share >= 0.5)", table[table["numeric share"] >= 0.5])):
        print(f"| {label} | {len(part)} | {int(part['both bars'].sum())} | "
              f"{int((part[ACCURACY_GAP] >= -0.5).sum())} | {int((part[LOG_LOSS_EXCESS] <= 0).sum())} |")


if __name__ == "__main__":
    main()
