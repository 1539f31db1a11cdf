"""Write the documentation's Benchmarks pages from the benchmarks' CSVs.

One page per question, each a table computed from its CSV, with the command that wrote
the CSV, the machine it ran on and the date of the CSV:

* ``docs/bench-accuracy.md``: AutoBNC beside a random forest and gradient boosting,
  nested 5-fold cross-validation (``accuracy_vs_forest_nested.csv``);
* ``docs/bench-speed.md``: fit times beside peers, AutoBNC beside the forest on every
  table (``bench_auto_time.csv``) and the single networks beside scikit-learn, pyAgrum
  and pgmpy (``bench_core.csv``).

The CSVs keep every run (each row says which code ran); a page shows each table's
latest current run. Run: ``python benchmarks/make_pages.py [--check]`` (``--check``
fails when a page differs from what its CSV gives, as ``tests/test_benchmark_pages.py``
does).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs"
#: Words of a ``code`` cell that mark a run as not a table's current result (as
#: accuracy_by_column_kind.py reads them): variants run beside the current code.
NOT_CURRENT = ("not kept", "averaging ensemble only", "rule=", "before", "taking turns")
FOLDS = 5
#: How the accuracy CSV names the public UCI tables that are not bundled.
EXTRA = "uci-extra/"
#: The machine the CSVs without a ``machine`` column were written on.
RECORDED_MACHINE = "x86_64, 2 cores (AMD EPYC), shared with other work: the CSV's load columns say how much"
GENERATED = "<!-- written by benchmarks/make_pages.py from {csv}: edit the script, not this page -->"


def csv_date(path: Path) -> str:
    """The date of the CSV's last commit (or of the file, outside a git checkout)."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cs", "--", path.name], cwd=path.parent,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    if out:
        return out
    return pd.Timestamp(path.stat().st_mtime, unit="s").strftime("%Y-%m-%d")


def _current(rows: pd.DataFrame, folds: int | None = FOLDS, kept_only: bool = True) -> pd.DataFrame | None:
    """The rows of the last code among ``rows`` that ran all ``folds`` (with ``kept_only``,
    the last current code of the main branch), or None."""
    codes = [c for c in rows["code"].astype(str).unique()
             if (not kept_only or c.startswith("main ") and not any(word in c for word in NOT_CURRENT))
             and (folds is None or (rows["code"] == c).sum() == folds)]
    return rows[rows["code"] == codes[-1]] if codes else None


def _markdown(frame: pd.DataFrame) -> str:
    # names on the left, numbers on the right
    head = "| " + " | ".join(frame.columns) + " |\n|" + "|".join(
        "---" if i == 0 or c in ("model", "both bars") else "---:" for i, c in enumerate(frame.columns)) + "|\n"
    return head + "".join("| " + " | ".join(str(v) for v in row) + " |\n" for row in frame.itertuples(index=False))


def _provenance(csv: Path, command: str, machine: str, data: str = "every run", date: str | None = None) -> str:
    return (f"- **Command:** `{command}`\n- **Machine:** {machine}\n- **Date:** {date or csv_date(csv)}\n"
            f"- **Data:** `benchmarks/{csv.name}` ({data})\n")


def accuracy_page(csv: Path = HERE / "accuracy_vs_forest_nested.csv") -> str:
    results = pd.read_csv(csv)
    rows = []
    for table, of_table in results.groupby("dataset", sort=True):
        auto = _current(of_table[of_table["model"] == "AutoBNC"])
        # the peers' settings are fixed: their latest run will do, beside whichever code it was
        forest = _current(of_table[of_table["model"].str.startswith("RandomForest")], kept_only=False)
        boosting = _current(of_table[of_table["model"] == "HistGradientBoosting"], kept_only=False)
        if auto is None or forest is None:
            continue
        gap = 100 * (auto["accuracy"].mean() - forest["accuracy"].mean())
        both = gap >= -0.5 and auto["log_loss"].mean() <= forest["log_loss"].mean()
        boosted = "—" if boosting is None else f"{100 * boosting['accuracy'].mean():.2f}"
        rows.append({"table": table.removeprefix(EXTRA), "rows": f"{int(auto['n_rows'].iloc[0]):,}",
                     "accuracy %: AutoBNC / forest / boosting":
                         f"{100 * auto['accuracy'].mean():.2f} / {100 * forest['accuracy'].mean():.2f} / {boosted}",
                     "log-loss: AutoBNC / forest": f"{auto['log_loss'].mean():.3f} / {forest['log_loss'].mean():.3f}",
                     "fit s: AutoBNC / forest":
                         f"{auto['fit_seconds'].mean():.1f} / {forest['fit_seconds'].mean():.1f}",
                     "both bars": "yes" if both else "no", "_gap": gap, "_bundled": not table.startswith(EXTRA)})
    table = pd.DataFrame(rows).sort_values(["_bundled", "table"], ascending=[False, True], kind="stable")
    met = int((table["both bars"] == "yes").sum())
    within = int((table["_gap"] >= -0.5).sum())
    summary = (f"On {len(table)} tables AutoBNC is within half a point of the forest's accuracy on {within}, "
               f"and also at most its log-loss on {met} (\"both bars\"). The median difference in accuracy is "
               f"{table['_gap'].median():+.2f} points (AutoBNC minus forest).")
    return (GENERATED.format(csv=csv.name) + "\n\n# Accuracy beside a random forest\n\n"
            "How accurate is pybnc's automatic choice beside the usual strong baselines? Five-fold stratified\n"
            "cross-validation, the same folds for every model of a table. AutoBNC chooses its classifier, "
            "encoding\nand smoothing on the training rows of each fold alone (nested), so no test fold is seen; "
            "the random\nforest (300 trees) and scikit-learn's histogram gradient boosting get the same raw "
            "table,\nordinal-coded, at their defaults. Scores are means over the five folds.\n\n"
            + _provenance(csv, "OMP_NUM_THREADS=1 python benchmarks/accuracy_vs_forest.py", RECORDED_MACHINE,
                          "every run, fold by fold")
            + f"\n{summary} The first {int(table['_bundled'].sum())} tables are bundled with pybnc "
            "(`pybnc.datasets`), the others public UCI tables read from their ARFF and KEEL files.\n\n"
            + _markdown(table.drop(columns=["_gap", "_bundled"]))
            + "\nWhere AutoBNC falls short it is on tables of measurements (mostly numeric columns); on tables of\n"
            "categories it meets both bars on most. The per-kind counts are printed by\n"
            "`benchmarks/accuracy_by_column_kind.py`; the history of these runs is in\n"
            "`benchmarks/accuracy_vs_forest.md`.\n")


def _peers(csv: Path) -> str:
    if not csv.is_file():
        return ("\n## The single networks beside scikit-learn, pyAgrum and pgmpy\n\n"
                f"Run `python benchmarks/bench_core.py --no-shapes --csv benchmarks/{csv.name}` to add this table.\n")
    runs = pd.read_csv(csv)
    last = runs[runs["date"] == runs["date"].iloc[-1]]
    def seconds(column):
        return last[column].map(lambda v: "—" if pd.isna(v) else f"{v:.4f}")

    shown = pd.DataFrame({"shape (rows x features)": last["shape"], "model": last["model"],
                          "fit s": seconds("fit s"), "predict_proba s": seconds("predict_proba s")})
    return ("\n## The single networks beside scikit-learn, pyAgrum and pgmpy\n\n"
            "Median seconds over repeats on synthetic data drawn from a random TAN (2 classes, 2 to 4 levels a\n"
            "feature); scikit-learn's CategoricalNB is naive Bayes, pyAgrum's and pgmpy's models are TANs. "
            "Every\nmodel runs in the same process and the same run.\n\n"
            + _provenance(csv, str(last["command"].iloc[0]),
                          f"{last['machine'].iloc[0]}; load average {last['load'].iloc[0]:.1f} at the start",
                          date=str(last["date"].iloc[0])) + "\n" + _markdown(shown))


def speed_page(csv: Path = HERE / "bench_auto_time.csv", peers: Path = HERE / "bench_core.csv") -> str:
    runs = pd.read_csv(csv)
    rows = []
    for table, of_table in runs.groupby("dataset", sort=False):
        current = _current(of_table, folds=None)
        if current is None:
            continue
        row = current.iloc[-1]
        rows.append({"table": table.removeprefix(EXTRA), "rows": f"{int(row['n_rows']):,}",
                     "forest s": f"{row['forest_seconds']:.2f}",
                     "AutoBNC s": f"{row['auto_seconds']:.2f}", "AutoBNC / forest": f"{row['ratio']:.1f}",
                     "load average": f"{row['load_before']:.1f}–{row['load_after']:.1f}", "_ratio": row["ratio"]})
    table = pd.DataFrame(rows).sort_values("_ratio", kind="stable")
    ratio = table["_ratio"]
    summary = (f"On {len(table)} tables AutoBNC's fit takes a median {ratio.median():.1f} times the forest's "
               f"(from {ratio.min():.1f} to {ratio.max():.1f}); it is at most 10 times the forest's on "
               f"{int((ratio <= 10).sum())}.")
    return (GENERATED.format(csv=f"{csv.name} and {peers.name}") + "\n\n# Speed beside peers\n\n"
            "How long does a fit take beside a random forest? AutoBNC cross-validates some twenty candidates on\n"
            "the training rows before it refits its choice, so it is the slowest thing pybnc does; a single\n"
            "network (naive Bayes, TAN) is a few passes over the counts. Both are timed here next to peers "
            "in the\nsame run.\n\n## AutoBNC beside a random forest\n\n"
            "Each repeat fits `RandomForestClassifier(300)` and then `AutoBNC(n_jobs=2)` on all the rows of the "
            "table,\nback to back so that both see the same load; the least wall time of each over the repeats.\n\n"
            + _provenance(csv, "OMP_NUM_THREADS=1 python benchmarks/bench_auto_time.py", RECORDED_MACHINE,
                          "every run, table by table")
            + f"\n{summary}\n\n" + _markdown(table.drop(columns="_ratio")) + _peers(peers)
            + "\nThe history of these measurements, and of every kernel's speed-up, is in `benchmarks/speed.md`.\n")


PAGES = {DOCS / "bench-accuracy.md": accuracy_page, DOCS / "bench-speed.md": speed_page}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a page differs from its CSV's")
    args = parser.parse_args(argv)
    stale = []
    for path, build in PAGES.items():
        text = build()
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    if stale:
        print(f"stale: {', '.join(stale)}; run python benchmarks/make_pages.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
