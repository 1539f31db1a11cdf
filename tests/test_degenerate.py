"""Degenerate data is data: every registered classifier fits and predicts, through every
path, when a column is never observed (overall, in a block, in a fold, within a class),
a declared level is never seen, a class has one row or a column is constant. A column
never observed contributes nothing (available-case analysis)."""

import numpy as np
import pandas as pd
import dask.dataframe as dd
import pytest

from pybnc.cli._common import model_class
from pybnc.registry import BY_SHORT_NAME
from pybnc.evaluation import cross_validate
from pybnc.streaming import fit_blocks, fit_dask



CLASSES = ["p", "q", "r"]
# Searches that keep their start on these small tables say so; that is not under test.
# The one-row class is fewer than the folds, which scikit-learn's splitter points out.
pytestmark = [pytest.mark.filterwarnings("ignore::pybnc.search.StartModelWarning"),
              pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")]


def _model(name):
    model = model_class(name)()
    params = model.get_params()
    model.set_params(**{k: v for k, v in (("random_state", 0), ("verbose", 0)) if k in params})
    return model


def _table(n=48, seed=0):
    """Rows of class q first (one block of them leaves ``late`` all missing), then p,
    then one row of class r."""
    rng = np.random.default_rng(seed)
    y = np.array(["q"] * 16 + ["p"] * (n - 17) + ["r"])
    X = pd.DataFrame({
        "never": pd.Series([None] * n, dtype=object),  # first column: a would-be tree root
        "colour": rng.choice(["red", "green", "blue"], n).astype(object),
        "size": rng.integers(0, 3, n),
        "late": np.where(y == "q", None, rng.choice(["a", "b"], n)).astype(object),  # missing in class q
        "grade": pd.Categorical(rng.choice(["lo", "hi"], n), categories=["lo", "mid", "hi"]),  # "mid" unseen
        "same": "k",  # constant
    })
    X.loc[[5, 30], "colour"] = None
    return X, y


def _check_probabilities(model, X):
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)])
    return proba


NAMES = list(BY_SHORT_NAME)
# AutoBNC cross-validates its candidates on each of these tables: the edit loop leaves it out.
CASES = [pytest.param(n, marks=pytest.mark.slow) if n == "auto" else n for n in NAMES]


@pytest.mark.parametrize("name", CASES)
def test_a_column_never_observed_contributes_nothing(name):
    X, y = _table()
    with_it = _model(name).fit(X, y)
    without = _model(name).fit(X.drop(columns="never"), y)
    np.testing.assert_allclose(_check_probabilities(with_it, X), without.predict_proba(X.drop(columns="never")),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_a_table_of_nothing_observed_predicts_the_class_prior(name):
    X = pd.DataFrame({"a": [np.nan] * 6, "b": [None] * 6})
    y = ["p", "q", "q", "p", "q", "q"]
    model = _model(name)
    if name in ("tanhc", "tanhcsp", "fssj", "bsej"):
        model.set_params(cv=2)  # inner folds need two rows of each class
    proba = _check_probabilities(model.fit(X, y), X)
    assert np.allclose(proba, proba[0])  # every row alike: nothing tells them apart
    assert proba[0, 1] > proba[0, 0]


@pytest.mark.parametrize("name", [n for n in NAMES if hasattr(_model(n), "partial_fit")])
def test_blocks_where_a_column_is_first_all_missing_equal_the_whole(name):
    X, y = _table()
    whole = _model(name).fit(X, y)
    blocks = [(X[i:i + 12], y[i:i + 12]) for i in range(0, len(y), 12)]  # block 1: class q only
    streamed = fit_blocks(_model(name), blocks, classes=CLASSES)
    np.testing.assert_allclose(_check_probabilities(streamed, X), whole.predict_proba(X), rtol=1e-9, atol=1e-12)
    frame = X.assign(target=y)
    dask_fit = fit_dask(_model(name), dd.from_pandas(frame, npartitions=4, sort=False), "target",
                        scheduler="synchronous")
    np.testing.assert_allclose(_check_probabilities(dask_fit, X), whole.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_cross_validation_with_columns_missing_in_a_fold(name):
    X, y = _table()
    model = {name: _model(name)}
    fast = cross_validate(model, X, y, cv=3, verbose=0)
    refit = cross_validate(model, X, y, cv=3, verbose=0, fast=False)
    scores = ["accuracy", "log_loss", "log_score", "brier"]
    pd.testing.assert_frame_equal(fast[scores], refit[scores])
