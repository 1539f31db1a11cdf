import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import pybnc
from pybnc import TAN
from pybnc.cli import cli, main
from pybnc.datasets import load_dataset
from pybnc.datasets._uci import data_home_candidates

pytestmark = pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = load_dataset("car")
    frame = X.copy()
    frame["class"] = y
    frame.to_csv("car.csv", index=False)
    frame.drop(columns="class").head(7).to_parquet("new.parquet")
    return tmp_path


def test_compare_prints_scores_and_tan_arcs():
    res = run("compare", "--dataset", "car", "--folds", "3", "--quiet")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert any(line.split()[:1] == ["tan"] and "±" in line for line in lines)
    assert {"nb", "fan"} <= {line.split()[0] for line in lines if "±" in line}
    assert "TAN arcs" in res.output
    for u, v in TAN().fit(*load_dataset("car")).arcs_:
        assert f"{u} → {v}" in res.output
    assert "Traceback" not in res.output


def test_compare_from_csv_with_hyperparameters(workdir):
    res = run("compare", "--csv", "car.csv", "--target", "class", "--models", "nb,tan",
              "--folds", "3", "--smoothing", "ms", "--alpha", "5", "--set", "criterion=bic", "-q")
    assert res.exit_code == 0, res.output
    assert "car: 1728 rows, 6 features, 4 classes" in res.output


def test_cv_writes_the_long_results(workdir):
    res = run("cv", "--csv", "car.csv", "--target", "class", "--models", "nb,tan", "--folds", "4",
              "--fractions", "0.5,1", "-o", "out.csv", "-q")
    assert res.exit_code == 0, res.output
    out = pd.read_csv("out.csv")
    assert len(out) == 2 * 4 * 2
    assert list(out.columns[:10]) == ["dataset", "model", "fold", "train_fraction", "accuracy",
                                      "log_loss", "log_score", "brier", "fit_time", "predict_time"]
    # same seed, same folds: the same numbers as the library call
    again = run("cv", "--dataset", "car", "--models", "nb,tan", "--folds", "4", "--fractions",
                "0.5,1", "-o", "again.csv", "-q")
    assert again.exit_code == 0
    np.testing.assert_array_equal(pd.read_csv("again.csv").accuracy, out.accuracy)


def test_experiment_writes_results_and_win_tie_loss(workdir):
    res = run("experiment", "--datasets", "car,votes", "--models", "nb,tan", "--folds", "3",
              "--fractions", "0.5,1", "-o", "results.csv", "-q")
    assert res.exit_code == 0, res.output
    out = pd.read_csv("results.csv")
    assert len(out) == 2 * 2 * 3 * 2 and set(out.dataset) == {"car", "votes"}
    assert "wins / ties / losses against nb" in res.output


def test_fit_predict_info_roundtrip(workdir):
    res = run("fit", "--csv", "car.csv", "--target", "class", "--model", "tan", "--smoothing", "ms",
              "--alpha", "10", "-o", "model.pbnc")
    assert res.exit_code == 0, res.output
    assert "5 arcs" in res.output
    res = run("predict", "model.pbnc", "--parquet", "new.parquet", "-o", "pred.csv")
    assert res.exit_code == 0, res.output
    pred = pd.read_csv("pred.csv")
    X, y = load_dataset("car")
    ref = TAN(smoothing="ms", alpha=10).fit(X, y)
    assert pred.prediction.tolist() == ref.predict(X.head(7)).tolist()
    np.testing.assert_allclose(pred.filter(like="P(").to_numpy(), ref.predict_proba(X.head(7)))
    res = run("predict", "model.pbnc", "--csv", "car.csv")  # extra class column ignored; stdout
    assert res.exit_code == 0 and len(res.stdout.splitlines()) == 1 + 1728
    res = run("info", "model.pbnc", "--dataset", "car")
    assert res.exit_code == 0, res.output
    assert f"{ref.n_parameters()}" in res.output
    assert f"{ref.bic(X, y):.4f}" in res.output and "smoothing='ms'" in res.output


def test_a_workbook_in_and_predictions_out_as_a_workbook(workdir):
    X, y = load_dataset("car")
    X.assign(verdict=y).head(400).to_excel("car.xlsx", index=False, engine="openpyxl")
    res = run("fit", "--file", "car.xlsx", "--target", "verdict", "--model", "nb", "-o", "nb.pbnc")
    assert res.exit_code == 0 and "Excel workbook, sheet 'Sheet1'; 400 rows, 7 columns" in res.output, res.output
    res = run("predict", "nb.pbnc", "--file", "car.xlsx", "-o", "pred.xlsx")
    assert res.exit_code == 0, res.output
    pred = pd.read_excel("pred.xlsx", engine="openpyxl")
    rows = X.head(400).astype(str)  # the sheet holds text, not the categories' unused levels
    ref = pybnc.NaiveBayes().fit(rows, y.head(400))
    assert pred["prediction"].tolist() == ref.predict(rows).tolist()
    np.testing.assert_allclose(pred.filter(like="P(").to_numpy(), ref.predict_proba(rows), rtol=1e-12)


def test_plot_writes_an_image(workdir):
    res = run("plot", "--dataset", "car", "--model", "tan", "-o", "car-tan.png")
    assert res.exit_code == 0, res.output
    assert (workdir / "car-tan.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["compare", "--csv", "missing.csv", "--target", "class"], "does not exist"),
    (["compare", "--csv", "car.csv", "--target", "nope"], "column 'nope' is not in car.csv"),
    (["compare", "--csv", "car.csv"], "--target COLUMN is needed"),
    (["compare", "--dataset", "car", "--models", "nb,xyz"], "unknown model 'xyz'"),
    (["compare", "--dataset", "atlantis"], "Unknown dataset 'atlantis'"),
    (["compare"], "give the data"),
    (["compare", "--dataset", "car", "--csv", "car.csv", "--target", "class"], "only one of"),
    (["compare", "--dataset", "car", "--set", "k"], "KEY=VALUE"),
    (["compare", "--dataset", "car", "--set", "nonsense=1"], "nonsense"),
    (["compare", "--dataset", "car", "--bogus"], "No such option"),
    (["cv", "--dataset", "car", "--fractions", "0,1", "-o", "x.csv"], "(0, 1]"),
    (["experiment", "--datasets", "car,atlantis", "-o", "x.csv"], "Unknown dataset"),
    (["predict", "nothing.pbnc", "--csv", "car.csv"], "does not exist"),
    (["predict", "car.csv", "--csv", "car.csv"], ""),  # not a model file
    (["info", "car.csv"], ""),
])
def test_bad_input_is_one_line_on_stderr_with_exit_code_2(workdir, args, message):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("Error: ")
    assert message in res.stderr
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_an_unknown_model_is_named_with_the_known_ones():
    res = CliRunner().invoke(cli, ["compare", "--dataset", "car", "--models", "nb,future"])
    assert res.exit_code == 2 and "unknown model 'future'; known models: nb, tan" in res.stderr


@pytest.mark.parametrize("command", ["compare", "cv", "experiment", "fit", "predict", "info",
                                     "plot", "datasets"])
def test_every_command_has_a_help(command):
    res = run(command, "--help")
    assert res.exit_code == 0 and "Usage: pybnc " + command in res.output
    assert len(res.output.splitlines()) > 5


def test_main_entry_point_exits_with_the_code(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--dataset", "atlantis"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("Error: Unknown dataset")


def test_randomised_learners_are_seeded_by_seed(workdir):
    args = ["cv", "--dataset", "votes", "--models", "tanhc,aode,kdb", "--folds", "3", "-q", "-o"]
    assert run(*args, "a.csv").exit_code == 0
    assert run(*args, "b.csv").exit_code == 0
    a, b = pd.read_csv("a.csv"), pd.read_csv("b.csv")
    np.testing.assert_array_equal(a[["accuracy", "log_loss"]], b[["accuracy", "log_loss"]])


def test_models_with_n_jobs_use_every_core_unless_told():
    from pybnc.cli._common import build_models

    models = build_models("auto,eskdb,tan")
    assert models["auto"].n_jobs == -1 and models["eskdb"].n_jobs == -1 and "n_jobs" not in models["tan"].get_params()
    assert build_models("auto", options=("n_jobs=1",))["auto"].n_jobs == 1


# -- files as users have them: headerless text, ARFF ---------------------------------------------
def _write_arff(frame, path):
    lines = ["% car, written for the test", "@relation car"]
    for column in frame.columns:
        lines.append(f"@attribute '{column}' {{{', '.join(frame[column].cat.categories)}}}")
    lines.append("@data")
    lines += [",".join(f"'{v}'" for v in row) for row in frame.astype(str).to_numpy()]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def files(workdir):
    X, y = load_dataset("car")
    frame = X.copy()
    frame["class"] = y
    frame.to_csv("car.data", index=False, header=False)
    _write_arff(frame, workdir / "car.arff")
    return workdir


def _rows_used(path):
    out = pd.read_csv(path)
    return set(out.n_train + out.n_test)


def test_a_headerless_file_keeps_its_first_row_and_says_so(files):
    res = run("cv", "--file", "car.data", "--target", "col7", "--models", "nb", "--folds", "3", "-q", "-o", "a.csv")
    assert res.exit_code == 0, res.output
    assert "no header row (detected): columns named col1 ... col7; 1728 rows" in res.stderr
    assert "(--header if it holds the names)" in res.stderr
    assert _rows_used("a.csv") == {1728}
    res = run("cv", "--csv", "car.csv", "--target", "class", "--models", "nb", "--folds", "3", "-q", "-o", "b.csv")
    assert "first row taken as column names (detected); 1728 rows" in res.stderr
    np.testing.assert_array_equal(pd.read_csv("a.csv").accuracy, pd.read_csv("b.csv").accuracy)
    res = run("cv", "--file", "car.csv", "--no-header", "--target", "col7", "--models", "nb", "--folds", "3",
              "-q", "-o", "c.csv")
    assert "no header row (as told)" in res.stderr and _rows_used("c.csv") == {1729}
    res = run("cv", "--file", "car.data", "--header", "--target", "col7", "-q", "-o", "d.csv")
    assert res.exit_code == 2 and "column 'col7' is not in car.data; columns: vhigh, vhigh.1" in res.stderr


def test_arff_through_cv_fit_predict_and_info(files):
    res = run("cv", "--file", "car.arff", "--target", "class", "--models", "nb", "--folds", "3", "-q", "-o", "a.csv")
    assert res.exit_code == 0, res.output
    assert "car.arff: ARFF (UTF-8); 1728 rows, 7 columns" in res.stderr and _rows_used("a.csv") == {1728}
    run("cv", "--file", "car.csv", "--target", "class", "--models", "nb", "--folds", "3", "-q", "-o", "b.csv")
    np.testing.assert_array_equal(pd.read_csv("a.csv").accuracy, pd.read_csv("b.csv").accuracy)
    assert run("fit", "--file", "car.arff", "--target", "class", "-o", "m.pybnc").exit_code == 0
    res = run("predict", "m.pybnc", "--file", "car.arff")
    assert res.exit_code == 0 and len(res.stdout.splitlines()) == 1 + 1728
    res = run("info", "m.pybnc", "--file", "car.arff", "--target", "class")
    assert res.exit_code == 0 and "log-likelihood on car" in res.stdout


def test_rows_without_a_class_are_left_out_and_said(workdir):
    frame = pd.read_csv("car.csv")
    frame.loc[[3, 10], "class"] = None
    frame.to_csv("unlabeled.csv", index=False)
    res = run("fit", "--file", "unlabeled.csv", "--target", "class", "--model", "nb", "-o", "m.pybnc")
    assert res.exit_code == 0, res.stderr
    assert "2 row(s) of unlabeled.csv have no class in 'class' (first: data row 4); they are left out" in res.stderr
    assert "1726 rows" in res.stdout
    # a warning of every fold and model of a cross-validation is said once
    frame.assign(ref=[f"r{i}" for i in range(len(frame))]).to_csv("with_id.csv", index=False)
    res = run("compare", "--file", "with_id.csv", "--target", "class", "--models", "nb,tan", "--folds", "3", "-q")
    assert res.exit_code == 0 and res.stderr.count("row identifiers") == 1, res.stderr


def test_feature_lists_are_given_comma_separated(workdir):
    for given in ("buying,doors", "[buying, doors]"):
        res = run("fit", "--file", "car.csv", "--target", "class", "--model", "nb", "--set",
                  f"categorical_features={given}", "-o", "m.pybnc")
        assert res.exit_code == 0, res.stderr
        assert pybnc.load("m.pybnc").encoder.categorical_features == ["buying", "doors"]


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"a": ["x"], "class": ["p"]}).iloc[:0], "has column names but no rows"),
    (pd.DataFrame({"class": ["p", "q"]}), "no column besides the class column 'class'"),
    (pd.DataFrame({"a": ["x", "y"], "class": [None, None]}), "'class' of t.csv is empty in every row"),
])
def test_tables_without_rows_features_or_classes_are_named(workdir, frame, message):
    frame.to_csv("t.csv", index=False)
    res = CliRunner().invoke(cli, ["fit", "--file", "t.csv", "--target", "class", "-o", "m.pybnc"])
    assert res.exit_code == 2 and message in res.stderr, res.stderr


@pytest.mark.parametrize("data, message", [
    (b"a,b\n\x00\x00\x01", "binary file (a NUL byte at byte 4)"),
    ("a,b\nü,1\n".encode("latin-1"), "not UTF-8 text: byte 4"),
    (b"a,b\n1,2\n3,4,5\n", "line 3 has 3 fields where the rows above have 2"),
    (b"@relation r\n@attribute a {x}\n@attribute b {p,q}\n@data\nx,p\ny,q\n", "line 6: attribute 'a' holds 'y'"),
])
def test_unreadable_files_are_one_line_naming_the_file(workdir, data, message):
    (workdir / "bad.csv").write_bytes(data)
    extra = ["--encoding", "utf-8"] if b"\xfc" in data else []
    res = CliRunner().invoke(cli, ["cv", "--file", "bad.csv", "--target", "b", "-o", "x.csv", *extra])
    assert res.exit_code == 2 and res.stderr.startswith("Error: bad.csv") and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


UCI = next((p for p in data_home_candidates(None) if p.is_dir()), None)  # as the pima tests look


@pytest.mark.skipif(UCI is None, reason="the UCI folder ../shared/datasets/uci is not there")
def test_uci_arff_and_headerless_data_give_the_same_cross_validation(workdir):
    res = run("cv", "--file", str(UCI / "car" / "car.data"), "--target", "col7", "--folds", "5", "-q", "-o", "a.csv")
    assert res.exit_code == 0 and "no header row (detected)" in res.stderr
    res = run("cv", "--file", str(UCI / "car" / "car.arff"), "--target", "class", "--folds", "5", "-q", "-o", "b.csv")
    assert res.exit_code == 0 and "ARFF" in res.stderr
    a, b = pd.read_csv("a.csv"), pd.read_csv("b.csv")
    assert _rows_used("a.csv") == {1728}
    np.testing.assert_array_equal(a.accuracy, b.accuracy)
    np.testing.assert_allclose(a.log_loss, b.log_loss, rtol=1e-12)


def test_model_auto_fits_chooses_and_info_shows_the_choice(workdir):
    res = run("fit", "--dataset", "votes", "--model", "auto", "--set", "cv=3", "-o", "auto.pbnc")
    assert res.exit_code == 0, res.output
    model = pybnc.load("auto.pbnc")
    assert isinstance(model, pybnc.AutoBNC) and model.n_splits_ == 3
    res = run("info", "auto.pbnc")
    assert res.exit_code == 0, res.output
    assert f"the choice: {type(model.best_estimator_).__name__}(" in res.output
    assert f"inner cross-validation: {model.best_candidate_}\n" in res.output
    assert "candidates cross-validated" in res.output


def test_predict_carries_id_columns_and_headers_count_the_features_used(workdir):
    X, y = load_dataset("car")
    frame = X.assign(customerID=[f"C{i:05d}" for i in range(len(X))], **{"class": y})
    frame.to_csv("ids.csv", index=False)
    res = run("fit", "--csv", "ids.csv", "--target", "class", "--model", "nb", "-o", "m.pbnc")
    assert res.exit_code == 0, res.output
    assert "(1728 rows, 6 features (left out: 'customerID'), 0 arcs) to m.pbnc" in res.output
    res = run("predict", "m.pbnc", "--csv", "ids.csv", "--id-column", "customerID", "-o", "p.csv")
    assert res.exit_code == 0, res.output
    pred = pd.read_csv("p.csv")
    assert list(pred.columns[:2]) == ["customerID", "prediction"]
    assert pred["customerID"].tolist() == frame["customerID"].tolist()
    assert pred["prediction"].tolist() == pybnc.NaiveBayes().fit(X, y).predict(X).tolist()
    res = run("predict", "m.pbnc", "--csv", "ids.csv", "--id-column", "customer")
    assert res.exit_code != 0 and "has no column 'customer'" in res.output
    res = run("info", "m.pbnc")
    assert "features: 6 (left out: 'customerID')" in res.output
    res = run("compare", "--csv", "ids.csv", "--target", "class", "--models", "nb,tan", "--folds", "3", "-q")
    assert res.exit_code == 0, res.output
    assert "ids: 1728 rows, 6 features (left out: 'customerID'), 4 classes" in res.output


def test_decimal_says_how_the_numbers_of_a_file_are_written(workdir):
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], 200)
    amount = rng.integers(1, 900, 200) * 1000 + rng.integers(100, 999, 200) + 30_000 * (y == "a")
    text = "amount;class\n" + "".join(f"{v // 1000}.{v % 1000:03d};{c}\n" for v, c in zip(amount, y))
    with open("eu.csv", "w") as handle:
        handle.write(text)
    res = CliRunner().invoke(cli, ["fit", "--file", "eu.csv", "--target", "class", "-o", "m.pbnc"])
    assert res.exit_code != 0 and "say which with decimal='.' or decimal=','" in res.output
    res = run("fit", "--file", "eu.csv", "--target", "class", "--decimal", ",", "--model", "nb", "-o", "m.pbnc")
    assert res.exit_code == 0, res.output
    assert "thousands separators read as numbers in 1 column" in res.output
    res = run("predict", "m.pbnc", "--file", "eu.csv", "--decimal", ",", "-o", "p.csv")
    assert res.exit_code == 0, res.output
    frame = pd.DataFrame({"amount": amount})
    expected = pybnc.NaiveBayes().fit(frame, y).predict(frame)
    assert pd.read_csv("p.csv")["prediction"].tolist() == expected.tolist()
