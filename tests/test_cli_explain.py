"""``pybnc explain``: a saved model's Shapley values of a table file, as CSV."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import pybnc
from pybnc import TAN
from pybnc.cli import cli
from pybnc.datasets import load_dataset


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = load_dataset("votes")
    pybnc.save(TAN().fit(X, y), "votes.pbnc")
    rows = X.iloc[[0, 1, 2, 40, 183]].copy()
    rows.insert(3, "party", y[[0, 1, 2, 40, 183]])  # an extra column: ignored, as by predict
    rows.to_csv("rows.csv", index=False)
    return X, y


def test_explain_writes_the_csv_of_the_api(workdir):
    X, y = workdir
    res = run("explain", "votes.pbnc", "--file", "rows.csv", "-o", "out.csv", "--errors")
    assert res.exit_code == 0, res.output
    out = pd.read_csv("out.csv")
    expected = TAN().fit(X, y).explain(X.iloc[[0, 1, 2, 40, 183]], random_state=0)
    assert list(out.columns[:18]) == ["class", *X.columns, "base_value"]
    assert out["class"].tolist() == expected.target.tolist()
    np.testing.assert_allclose(out[list(expected.columns)].to_numpy(), expected.to_numpy(), atol=1e-12)
    np.testing.assert_allclose(out[[f"se({c})" for c in X.columns]].to_numpy(),
                               expected.standard_error.iloc[:, :-1].to_numpy(), atol=1e-12)
    assert "mean |value|: " in res.stderr and "Wrote the exact+sampling explanations of 5 rows" in res.stderr


def test_explain_one_class_in_probabilities_to_stdout_with_a_picture(workdir):
    X, y = workdir
    res = run("explain", "votes.pbnc", "--csv", "rows.csv", "--class", "republican", "--scale", "probability",
              "--max-evals", "64", "--seed", "3", "--plot", "why.png")
    assert res.exit_code == 0, res.output
    out = pd.read_csv(pd.io.common.StringIO(res.stdout))
    assert (out["class"] == "republican").all() and len(out) == 5
    proba = TAN().fit(X, y).predict_proba(X.iloc[[0, 1, 2, 40, 183]])[:, 1]
    np.testing.assert_allclose(out.iloc[:, 1:].sum(axis=1), proba, atol=1e-9)
    with open("why.png", "rb") as handle:
        assert handle.read(4) == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["--file", "rows.csv", "--class", "whig"], "'whig' is not a class of the model"),
    ([], "give the rows to explain with --file"),
    (["--file", "rows.csv", "--max-evals", "2"], "--max-evals"),
])
def test_explain_errors_are_one_line(workdir, args, message):
    res = CliRunner().invoke(cli, ["explain", "votes.pbnc", *args])
    assert res.exit_code == 2 and message in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_explain_has_a_help():
    res = run("explain", "--help")
    assert res.exit_code == 0 and "Usage: pybnc explain" in res.output and "--class" in res.output
