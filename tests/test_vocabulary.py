"""pybnc's 1.0 vocabulary, across every registered classifier: one encoder, one word per
meaning (``smoothing``, ``alpha``, ``k`` for parents, ``cv`` for folds), literal docstrings;
the encoder reached as scikit-learn reaches nested estimators; a column the encoder left
out is not asked for at predict time."""

import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit, StratifiedKFold

import pybnc
from pybnc import KDB, SKDB, ESKDB, TAN, TANHC, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.encode import Encoder
from pybnc.registry import MODELS

CLASSES = [entry.cls for entry in MODELS]
ENCODING_OPTIONS = set(Encoder().get_params())
#: The learners whose ``k`` is a number of feature parents.
PARENT_COUNT = {KDB, SKDB, ESKDB}
#: The learners with no choice of parameter learner: a fixed Dirichlet prior of strength ``alpha``.
FIXED_PRIOR = {pybnc.MANB, pybnc.TBMATAN, pybnc.SSTBMATAN}


def _parameters(cls) -> list:
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_one_vocabulary(cls):
    names = set(_parameters(cls))
    assert "encoder" in names and pybnc.Encoder is Encoder
    assert not names & ENCODING_OPTIONS, "the encoding options are the encoder's"
    assert not names & {"params", "n_folds", "ess", "folds", "n_splits"}
    assert ("k" in names) == (cls in PARENT_COUNT)
    cross_validates = pybnc.capabilities(cls).searches_by_cv or cls in (KDB, pybnc.AutoBNC)
    assert ("cv" in names) == cross_validates
    if cls is not pybnc.AutoBNC:  # it chooses its learners' smoothing
        assert ("smoothing" in names) == (cls not in FIXED_PRIOR)
        assert "alpha" in names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_docstrings_are_literal_and_document_every_parameter(cls):
    source = inspect.getsource(inspect.getmodule(cls))
    assert not re.search(r"__doc__\s*=", source) and not re.search(r"__init__\s*=", source)
    documented = set()
    for line in cls.__doc__.splitlines():
        match = re.match(r"    ([a-z_][a-z0-9_, ]*) :", line)
        if match:
            documented |= {name.strip() for name in match.group(1).split(",")}
    assert set(_parameters(cls)) <= documented, sorted(set(_parameters(cls)) - documented)


def test_the_smoothing_defaults_follow_the_user_guide_rule():
    # backoff where the structure gives features parents whatever the data say; hdp: ESKDB's definition
    defaults = {cls: inspect.signature(cls).parameters["smoothing"].default for cls in CLASSES
                if "smoothing" in inspect.signature(cls).parameters}
    assert {cls.__name__ for cls, d in defaults.items() if d == "backoff"} == {"TAN", "KDB"}
    assert {cls.__name__ for cls, d in defaults.items() if d == "hdp"} == {"ESKDB"}
    assert {d for d in defaults.values()} == {"backoff", "hdp", "bayes"}


def test_grid_search_reaches_the_encoder_options():
    X, y = load_dataset("iris")
    search = GridSearchCV(TAN(), {"encoder__n_bins": [3, 5], "encoder__discretizer": ["quantile"]}, cv=3).fit(X, y)
    assert len(search.cv_results_["params"]) == 2
    best = search.best_estimator_
    assert best.encoder_.n_bins == search.best_params_["encoder__n_bins"]
    assert set(best.encoder_.cardinalities_) == {search.best_params_["encoder__n_bins"]}
    assert TAN().encoder is None and clone(TAN()).set_params(encoder__n_bins=3).encoder.n_bins == 3


def test_the_encoder_is_cloned_at_fit_and_codes_arrays_whatever_its_output():
    X, y = load_dataset("car")
    given = Encoder().set_output(transform="pandas")
    model = NaiveBayes(encoder=given).fit(X, y)
    assert model.encoder_ is not given and not hasattr(given, "columns_")
    assert isinstance(given.fit(X).transform(X.head()), pd.DataFrame)
    assert list(given.get_feature_names_out()) == list(X.columns)
    assert model.predict_proba(X.head()).shape == (5, len(model.classes_))


def test_encoder_is_a_validated_transformer():
    X = pd.DataFrame({"t": np.linspace(0, 1, 30), "c": ["a", "b", "c"] * 10})
    with pytest.raises(ValueError, match=r"The 'n_bins' parameter of Encoder must be an int"):
        Encoder(n_bins=1).fit(X, [0, 1] * 15)
    with pytest.raises(ValueError, match=r'discretizer="mdl"\) cuts numeric columns by the class: pass y'):
        Encoder().fit(X)
    codes = Encoder(discretizer="uniform", n_bins=3).fit_transform(X)
    assert codes.dtype == np.int32 and codes[:, 0].tolist() == [0] * 10 + [1] * 10 + [2] * 10


def _with_identifier():
    X, y = load_dataset("car")
    X = X.assign(**{"patient id": [f"p{i:05d}" for i in range(len(X))]})
    return X[["patient id", *X.columns[:-1]]], y


@pytest.mark.parametrize("cls", [NaiveBayes, TAN, pybnc.AODE, pybnc.TBMATAN], ids=lambda c: c.__name__)
def test_a_dropped_identifier_is_not_needed_at_predict_nor_explained(cls):
    X, y = _with_identifier()
    with pytest.warns(pybnc.encode.EncodingWarning, match="patient id"):
        model = cls().fit(X, y)
    assert model.encoder_.dropped_columns_ == ["patient id"]
    rows = X.head(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about the absent column either
        without = model.predict_proba(rows.drop(columns="patient id"))
    np.testing.assert_array_equal(without, model.predict_proba(rows))
    values = model.explain(rows.drop(columns="patient id").head(2), verbose=0)
    assert "patient id" not in values.columns and list(values.columns[:-1]) == model.feature_names_
    with pytest.raises(ValueError, match=r"X lacks the column\(s\) \['buying'\]"):
        model.predict(rows.drop(columns=["patient id", "buying"]))


def test_the_command_line_predicts_rows_without_a_dropped_identifier(tmp_path):
    from click.testing import CliRunner

    from pybnc.cli import cli

    X, y = _with_identifier()
    X.assign(label=y).to_csv(tmp_path / "train.csv", index=False)
    X.drop(columns="patient id").head(30).to_csv(tmp_path / "new.csv", index=False)
    runner = CliRunner()
    fitted = runner.invoke(cli, ["fit", "--file", str(tmp_path / "train.csv"), "--target", "label", "--model", "tan",
                                 "--set", "n_bins=3", "-o", str(tmp_path / "m.pybnc")])
    assert fitted.exit_code == 0, fitted.output
    assert pybnc.load(tmp_path / "m.pybnc").encoder_.n_bins == 3  # --set of an encoding option: the encoder's
    predicted = runner.invoke(cli, ["predict", str(tmp_path / "m.pybnc"), "--file", str(tmp_path / "new.csv")])
    assert predicted.exit_code == 0, predicted.output
    assert len(pd.read_csv(__import__("io").StringIO(predicted.stdout))) == 30


def test_cv_takes_a_splitter_and_scores_its_folds_exactly():
    X, y = load_dataset("car")
    folds = KFold(4, shuffle=True, random_state=1)
    model = TANHC(cv=folds, smoothing="bayes", verbose=0, random_state=0).fit(X, y)
    # the start (naive Bayes) is scored on exactly the splitter's folds: brute force
    codes = np.asarray(y)
    accuracy = [NaiveBayes(smoothing="bayes").fit(X.iloc[tr], codes[tr]).score(X.iloc[te], codes[te])
                for tr, te in folds.split(X, y)]
    assert model.search_trace_[0]["cv_accuracy"] == pytest.approx(np.mean(accuracy), abs=1e-12)
    assert TANHC(cv=StratifiedKFold(3), verbose=0).fit(X, y).search_trace_[-1]["move"] == "stop"
    with pytest.raises(ValueError, match="more than one test set"):
        TANHC(cv=ShuffleSplit(3, test_size=0.5, random_state=0), verbose=0).fit(X, y)
    with pytest.raises(ValueError, match=r"'cv' parameter of KDB must be"):
        KDB(search="hc", cv=1, verbose=0).fit(X, y)


def test_a_model_whose_cv_is_a_splitter_is_refused_by_save_naming_the_fix(tmp_path):
    X, y = load_dataset("iris")
    model = TANHC(cv=KFold(3), verbose=0).fit(X, y)
    with pytest.raises(TypeError, match=r"Cannot save TANHC.cv: it is a splitter .*set_params\(cv=list"):
        pybnc.save(model, tmp_path / "m.pybnc")
    pybnc.save(model.set_params(cv=list(KFold(3).split(X, y))), tmp_path / "m.pybnc")
    again = pybnc.load(tmp_path / "m.pybnc")
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_the_web_page_contributions_skip_a_dropped_identifier():
    pytest.importorskip("flask")
    from pybnc.web.network import evidence_domains
    from pybnc.web.pages.contributions import contributions

    X, y = _with_identifier()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = TAN().fit(X, y)
    domains = evidence_domains(model)
    answer = contributions(model, domains, {0: 1, 5: 0})  # buying and safety, by the encoder's columns
    row = pd.DataFrame([{"buying": domains[0][2][1], "safety": domains[5][2][0]}]).reindex(columns=X.columns)
    expected = model.explain(row, random_state=0, verbose=0)
    assert {m["feature"]: m["value"] for m in answer["values"]} == pytest.approx(
        {0: expected["buying"].iloc[0], 5: expected["safety"].iloc[0]}, abs=1e-12)


def test_the_web_page_posterior_skips_a_dropped_identifier():
    from pybnc.web.network import evidence_domains, posterior

    X, y = _with_identifier()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = TAN().fit(X, y)
    domains = evidence_domains(model)
    answer = posterior(model, domains, {0: 1, 5: 0})
    row = pd.DataFrame([{"buying": domains[0][2][1], "safety": domains[5][2][0]}]).reindex(columns=X.columns)
    assert answer["proba"] == pytest.approx(model.predict_proba(row)[0].tolist(), abs=1e-15)
