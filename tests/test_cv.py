import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from pybnc import FAN, TAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import compare_to_baseline, cross_validate, learning_curve, summarize
from pybnc.evaluation import cv as cv_module
from pybnc.encode import Encoder

pytestmark = pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")

SCORES = ["accuracy", "log_loss", "log_score", "brier"]


def _awkward_table(n=120, seed=3):
    """Categorical data where folds lose levels and a class: the hard case of the fast path."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n)
    y[7] = "rare"  # one row: absent from the training side of one fold
    X = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], size=n).astype(object),
        "size": rng.integers(0, 4, size=n),
        "flag": rng.random(n) < 0.5,
        "grade": pd.Categorical(rng.choice(["lo", "hi"], size=n), categories=["lo", "mid", "hi"]),
        "level": rng.choice([1.0, 2.0, 3.0], size=n),  # float, few values: categorical
    })
    X.loc[5, "colour"] = "purple"  # a level seen in a single row
    X.loc[11, "size"] = 9
    X.loc[[3, 20, 40], "colour"] = None  # missing values
    X.loc[[4, 21], "level"] = np.nan
    return X, pd.Series(y, name="class")


MODELS = {
    "nb": NaiveBayes(smoothing="friedman"),
    "tan": TAN(smoothing="ms"),
    "tan-bic": TAN(criterion="bic"),
    "fan": FAN(),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_fast_path_equals_plain_refit_fold_by_fold(name):
    X, y = _awkward_table()
    model = MODELS[name]
    yv = np.asarray(y)
    classes, y_codes = np.unique(yv, return_inverse=True)
    encoded = cv_module._encodings({name: model}, X, y_codes, classes.size)[name]
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y_codes))
    hard = 0
    for fold, (train, test) in enumerate(folds):
        ref = clone(model).fit(X.iloc[train], yv[train])
        expected = ref.predict_proba(X.iloc[test])
        # the fold must exercise what the whole-data encoder knows and the fold's does not
        hard += len(ref.classes_) < classes.size or any(
            len(c) < len(w) for c, w in zip(ref.encoder_.categories_, encoded.encoder.categories_))
        proba, _, _ = cv_module._fit_from_counts(model, X, classes, encoded, fold, train, test)
        cols = np.searchsorted(classes, ref.classes_)
        assert np.array_equal(proba[:, cols], expected)
        assert np.all(np.delete(proba, cols, axis=1) == 0)
    assert hard >= 2


def test_cross_validate_fast_equals_refit_and_really_is_fast(monkeypatch):
    X, y = _awkward_table()
    refit = cross_validate(MODELS, X, y, cv=5, verbose=0, fast=False)

    def no_refit(*args):
        raise AssertionError("the fast path fell back to a refit")

    monkeypatch.setattr(cv_module, "_refit", no_refit)
    fast = cross_validate(MODELS, X, y, cv=5, verbose=0, train_fractions=(0.5, 1.0))
    fast = fast[fast.train_fraction == 1.0].reset_index(drop=True)
    pd.testing.assert_frame_equal(fast[SCORES], refit[SCORES])
    assert np.isinf(fast["log_score"]).any()  # the rare class's fold: probability 0 for it


def test_declared_categories_outnumbering_a_folds_rows_take_the_fast_path(monkeypatch):
    # The encoder accepts more declared categories than rows, so a fold needs no refit.
    rng = np.random.default_rng(0)
    months = [f"m{i}" for i in range(12)]
    X = pd.DataFrame({"month": pd.Categorical(rng.choice(months[:3], 10), categories=months),
                      "b": rng.choice(list("xyz"), 10)})
    y = np.array(["p", "q"] * 5)
    refit = cross_validate(MODELS, X, y, cv=5, verbose=0, fast=False)
    monkeypatch.setattr(cv_module, "_refit", lambda *args: pytest.fail("fell back to a refit"))
    fast = cross_validate(MODELS, X, y, cv=5, verbose=0)
    pd.testing.assert_frame_equal(fast[SCORES], refit[SCORES])


def test_discretised_columns_are_encoded_once_per_training_fold_and_encoder(monkeypatch):
    X, y = load_dataset("iris")
    assert cv_module._encodings({"nb": NaiveBayes()}, X, np.unique(y, return_inverse=True)[1], 3) == {}
    models = {"nb": NaiveBayes(), "tan": TAN(), "nb5": NaiveBayes(encoder=Encoder(discretizer="quantile", n_bins=5))}
    refit = cross_validate(models, X, y, cv=3, verbose=0, fast=False)
    encoded = []
    original = NaiveBayes._encode_fit
    monkeypatch.setattr(NaiveBayes, "_encode_fit", lambda self, *a: encoded.append(1) or original(self, *a))
    monkeypatch.setattr(cv_module, "_refit", lambda *args: pytest.fail("refitted from the raw rows"))
    res = cross_validate(models, X, y, cv=3, verbose=0)
    assert len(encoded) == 3 * 2  # each fold: MDL once for naive Bayes and TAN, 5 quantiles once
    pd.testing.assert_frame_equal(res[SCORES], refit[SCORES])
    assert res.loc[res.model == "tan", "fit_time"].gt(0).all()


def test_the_structure_learners_of_a_fold_share_its_pairwise_information(monkeypatch):
    from pybnc import KDB
    from pybnc.scores import information

    X, y = load_dataset("iris")
    models = {"tan": TAN(), "kdb1": KDB(k=1, verbose=0), "kdb2": KDB(k=2, verbose=0)}
    refit = cross_validate(models, X, y, cv=3, verbose=0, fast=False, return_proba=True)
    computed = []
    original = information._pairwise_cmi
    monkeypatch.setattr(information, "_pairwise_cmi", lambda counts: computed.append(1) or original(counts))
    shared = cross_validate(models, X, y, cv=3, verbose=0, return_proba=True)
    assert len(computed) == 3  # once per training fold, not once per model
    for name in models:
        assert np.array_equal(shared[1][name], refit[1][name]), name


def _numeric_table_with_gaps(n=150, seed=5):
    """Float columns (cut at each training fold's own points), a categorical column and missing values."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n)
    shift = (y == "a") * 1.5 - (y == "c")
    X = pd.DataFrame({"u": rng.normal(size=n) + shift, "v": rng.normal(size=n) * (1 + (y == "b")),
                      "w": rng.exponential(size=n) + shift, "colour": rng.choice(["red", "green", "blue"], n)})
    X.loc[[2, 30, 77], "u"] = np.nan
    X.loc[[5, 31], "colour"] = None
    return X, pd.Series(y, name="class")


def test_models_sharing_a_folds_encoding_equal_their_refits():
    # every registered classifier in one run: those of one encoder share its codes and counts,
    # so a model that changed what it was given would change the others' results
    X, y = _numeric_table_with_gaps()
    models = {**_registry_models(), "nb-q10": NaiveBayes(encoder=Encoder(discretizer="quantile", n_bins=10)),
              "tan-missing-level": TAN(encoder=Encoder(missing="category"))}
    shared = cross_validate(models, X, y, cv=4, verbose=0, return_proba=True)
    refit = cross_validate(models, X, y, cv=4, verbose=0, fast=False, return_proba=True)
    pd.testing.assert_frame_equal(shared[0][SCORES], refit[0][SCORES])
    for name in models:
        assert np.array_equal(shared[1][name], refit[1][name]), name


def test_estimators_with_their_own_fit_are_refitted():
    class Custom(NaiveBayes):
        def fit(self, X, y):
            self.seen_rows_ = len(X)
            return super().fit(X, y)

    X, y = load_dataset("car")
    assert cv_module._encodings({"c": Custom()}, X, np.zeros(len(y), int), 1) == {}
    res = cross_validate({"c": Custom(), "nb": NaiveBayes()}, X, y, cv=3, verbose=0)
    a, b = (res[res.model == m][SCORES].to_numpy() for m in ("c", "nb"))
    assert np.array_equal(a, b)


def test_reproducible_from_the_seed():
    X, y = load_dataset("car")
    kw = dict(cv=4, verbose=0, train_fractions=(0.2, 1.0))
    models = {"nb": NaiveBayes(), "tan": TAN()}
    a = cross_validate(models, X, y, random_state=7, **kw)
    b = cross_validate(models, X, y, random_state=7, **kw)
    c = cross_validate(models, X, y, random_state=8, **kw)
    cols = ["dataset", "model", "fold", "train_fraction", *SCORES, "n_train", "n_test"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not np.array_equal(a["accuracy"], c["accuracy"])
    assert list(a.columns[:10]) == ["dataset", "model", "fold", "train_fraction", "accuracy",
                                    "log_loss", "log_score", "brier", "fit_time", "predict_time"]


def test_train_fractions_subsample_each_training_fold_stratified():
    X, y = load_dataset("car")
    res = learning_curve({"nb": NaiveBayes()}, X, y, cv=5, verbose=0, dataset="car")
    assert sorted(res.train_fraction.unique()) == [0.1, 0.5, 1.0]
    full = res[res.train_fraction == 1.0].n_train.to_numpy()
    tenth = res[res.train_fraction == 0.1].n_train.to_numpy()
    assert np.all(np.abs(tenth - 0.1 * full) <= 4)  # per-class rounding only
    rng = np.random.default_rng(0)
    rows = np.arange(1000)
    labels = np.repeat([0, 1], [900, 100])
    sub = cv_module._subsample(rows, labels, 0.1, rng)
    assert np.bincount(labels[sub]).tolist() == [90, 10]


def test_summaries():
    X, y = load_dataset("car")
    parts = [cross_validate({"nb": NaiveBayes(), "tan": TAN()}, X, y, cv=3, verbose=0, dataset=d,
                            random_state=s) for d, s in (("car", 0), ("car-again", 1))]
    res = pd.concat(parts, ignore_index=True)
    summary = summarize(res)
    assert summary.shape == (4, 8)
    assert summary.loc[("car", "tan", 1.0), ("accuracy", "mean")] == pytest.approx(
        res[(res.dataset == "car") & (res.model == "tan")].accuracy.mean())
    wtl = compare_to_baseline(res)
    assert wtl[["metric", "model", "wins", "ties", "losses", "datasets"]].values.tolist() == [
        ["accuracy", "tan", 2, 0, 0, 2], ["log_loss", "tan", 2, 0, 0, 2]]


@pytest.mark.parametrize("kwargs, message", [
    (dict(models={}), "non-empty dict"),
    (dict(train_fractions=(0.0, 1.0)), "train_fractions"),
    (dict(cv=1), "at least 2 folds"),
    (dict(cv=5000), "largest class"),
])
def test_bad_arguments(kwargs, message):
    X, y = load_dataset("car")
    args = dict(models={"nb": NaiveBayes()}, cv=3, verbose=0)
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=message):
        cross_validate(args.pop("models"), X, y, **args)


def _registry_models():
    from pybnc.registry import MODELS

    models = {}
    for entry in MODELS:
        name, model = entry.short_name, entry.cls()
        if "random_state" in model.get_params():
            model.set_params(random_state=0)  # wrappers' inner folds: seeded to compare
        if name == "eskdb":  # the paper's 20 members of 1000 iterations: seconds a fit
            model.set_params(n_estimators=3, hdp_iterations=100)
        if name == "auto":  # some twenty candidates by default
            model.set_params(candidates=[NaiveBayes(), TAN()], cv=3)
        models[name] = model
    return models


@pytest.mark.parametrize("name", list(_registry_models()))
def test_fast_path_equals_refit_for_every_registered_classifier(name):
    X, y = _awkward_table()
    model = {name: _registry_models()[name]}
    fast = cross_validate(model, X, y, cv=5, verbose=0)
    refit = cross_validate(model, X, y, cv=5, verbose=0, fast=False)
    # ESKDB's members draw their own bins from the raw rows, AutoBNC's candidates encode
    # the rows their own ways: both always refit
    assert cv_module._uses_fast_path(model[name]) != (name in ("eskdb", "auto"))
    pd.testing.assert_frame_equal(fast[SCORES], refit[SCORES])


class _FailsOnFit(NaiveBayes):
    def fit(self, X, y):
        raise RuntimeError("this learner always breaks")


def test_error_score_turns_a_failing_fold_into_nan_scores():
    X, y = load_dataset("car")
    broken = _FailsOnFit()
    with pytest.raises(RuntimeError, match="always breaks"):
        cross_validate({"nb": NaiveBayes(), "broken": broken}, X, y, cv=3, verbose=0)
    with pytest.warns(Warning, match="broken failed on fold 0 .*always breaks"):
        res = cross_validate({"nb": NaiveBayes(), "broken": broken}, X, y, cv=3, verbose=0, error_score=np.nan)
    assert res[res["model"] == "broken"][["accuracy", "log_loss", "fit_time"]].isna().all().all()
    assert res[res["model"] == "nb"]["accuracy"].notna().all()
    with pytest.raises(ValueError, match="error_score must be 'raise' or a number"):
        cross_validate({"nb": NaiveBayes()}, X, y, cv=3, verbose=0, error_score="ignore")


def test_a_pyarrow_table_is_cross_validated_as_its_pandas_form():
    pa = pytest.importorskip("pyarrow")
    X, y = load_dataset("iris")  # float columns: each fold encodes its own rows
    models = {"nb": NaiveBayes(), "tan": TAN()}
    expected = cross_validate(models, X, y, cv=3, verbose=0)
    got = cross_validate(models, pa.Table.from_pandas(X, preserve_index=False), y, cv=3, verbose=0)
    pd.testing.assert_frame_equal(got[SCORES], expected[SCORES])
