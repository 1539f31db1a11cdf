"""Encoding policies every classifier shares: predict agrees with predict_proba,
warnings for silent surprises, identifier columns, missing as a category, integer
columns taken as numbers."""

import warnings

import numpy as np
import pandas as pd
import pytest

import pybnc
from pybnc.estimators.base import BaseBNC

CLASSIFIERS = [getattr(pybnc, name) for name in pybnc.__all__
               if isinstance(getattr(pybnc, name), type) and issubclass(getattr(pybnc, name), BaseBNC)]


def quiet(Model, **params):
    """The estimator with its progress silenced where it has a ``verbose``."""
    if "verbose" in Model().get_params():
        params.setdefault("verbose", 0)
    return Model(**params)


@pytest.mark.parametrize("Model", CLASSIFIERS, ids=lambda m: m.__name__)
def test_predict_is_argmax_of_predict_proba_on_exact_ties(Model):
    # Issue 9: p and r tie exactly when x0 is missing, but their joint log-likelihoods
    # differ by one ulp; predict must follow predict_proba and give the first class.
    X = pd.DataFrame({"x0": ["a"] * 26 + ["b"] * 2 + ["c"] * 2})
    y = np.array(["p"] * 12 + ["q"] * 6 + ["r"] * 12)
    query = pd.DataFrame({"x0": [None, "a", "b", "c"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = quiet(Model).fit(X, y)
    proba = model.predict_proba(query)
    assert proba[0, 0] == proba[0, 2]
    np.testing.assert_array_equal(model.predict(query), model.classes_[np.argmax(proba, axis=1)])
    assert model.predict(query)[0] == "p"
