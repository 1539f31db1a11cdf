"""benchmarks/accuracy_vs_forest.py on a small table: every fold scored, a rerun resumes
from the CSV instead of refitting, the summary counts the issue's bar, and an ARFF
folder's tables are read with their class (the first attribute for spect's halves)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import accuracy_vs_forest as bench  # noqa: E402

# Refits the benchmark's models: the edit loop (-m 'not slow') leaves it out.
pytestmark = pytest.mark.slow

MODELS = [bench.AUTO_SINGLE, "NaiveBayes", bench.FOREST]


@pytest.fixture(scope="module")
def iris_run(tmp_path_factory):
    csv = tmp_path_factory.mktemp("bench") / "folds.csv"
    tables = bench.shared_tables(["iris"])
    return csv, tables, bench.run(tables, MODELS, csv, time_limit=600, verbose=False)


def test_every_fold_of_every_model_is_scored(iris_run):
    _, _, results = iris_run
    for model in MODELS:
        rows = results[results["model"] == model]
        assert sorted(rows["fold"]) == list(range(bench.N_FOLDS)), model
        assert rows["accuracy"].between(0.5, 1).all() and np.isfinite(rows["log_loss"]).all()
        assert np.isfinite(rows["load"]).all()
    # AutoBNC's choice in each fold is recorded
    assert (results.loc[results["model"] == bench.AUTO_SINGLE, "choice"].str.len() > 0).all()


def test_a_rerun_resumes_from_the_csv(iris_run, monkeypatch):
    csv, tables, results = iris_run

    def refuse(X):
        raise AssertionError("a model was refitted on a fold already in the CSV")

    monkeypatch.setattr(bench, "model_factories", lambda *budget: dict.fromkeys(MODELS, refuse))
    again = bench.run(tables, MODELS, csv, time_limit=600, verbose=False)
    assert len(again) == len(results)


def test_a_csv_of_another_protocol_is_refused(tmp_path):
    csv = tmp_path / "ten_folds.csv"
    pd.DataFrame({"dataset": ["iris"], "model": ["NaiveBayes"], "fold": [9]}).to_csv(csv, index=False)
    with pytest.raises(SystemExit, match="another protocol"):
        bench.run(bench.shared_tables(["iris"]), ["NaiveBayes"], csv, time_limit=600, verbose=False)


def test_summary_counts_the_bar(iris_run):
    _, _, results = iris_run
    results = results.copy()
    results.loc[results["model"] == bench.AUTO_SINGLE, "model"] = bench.AUTO
    text = bench.summarize(results, ["iris"])
    auto = results[results["model"] == bench.AUTO][["accuracy", "log_loss"]].mean()
    forest = results[results["model"] == bench.FOREST][["accuracy", "log_loss"]].mean()
    both = int(100 * auto["accuracy"] >= 100 * forest["accuracy"] - 0.5 and auto["log_loss"] <= forest["log_loss"])
    assert f"both on {both} of 1 (the bar: 1)" in text
    assert f"| iris | 150 | {100 * auto['accuracy']:.2f} | {100 * forest['accuracy']:.2f} |" in text


def test_arff_folder(tmp_path):
    header = "@relation t\n@attribute a {x,y}\n@attribute class {p,q}\n@data\n"
    (tmp_path / "small.arff").write_text(header + "x,p\ny,q\n" * 40)
    (tmp_path / "tiny.arff").write_text(header + "x,p\n")  # kept: only ARFF_LEFT_OUT's names are left out
    (tmp_path / "iris.arff").write_text(header + "x,p\n")  # a shared table's twin: left out
    first = "@relation s\n@attribute class {0,1}\n@attribute f {a,b}\n@data\n"
    (tmp_path / "spect.train.arff").write_text(first + "0,a\n1,b\n")
    (tmp_path / "spect.test.arff").write_text(first + "1,a\n")
    tables = bench.arff_tables(tmp_path)
    assert sorted(tables) == ["uci-extra/small", "uci-extra/spect", "uci-extra/tiny"]
    X, y = tables["uci-extra/small"]()
    assert list(X.columns) == ["a"] and y.tolist()[:2] == ["p", "q"]
    X, y = tables["uci-extra/spect"]()
    assert list(X.columns) == ["f"] and y.tolist() == ["0", "1", "1"]
