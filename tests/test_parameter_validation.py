"""Every parameter of every classifier is checked by scikit-learn's machinery at fit: a
wrong value raises InvalidParameterError naming the parameter, before the table is read."""

import numpy as np
import pandas as pd
import pytest
from pybnc._utils.validation import InvalidParameterError, validate_parameter_constraints

from pybnc import TAN, TBMATAN
from pybnc.encode import ENCODING_CONSTRAINTS, Encoder
from pybnc.registry import MODELS
from pybnc.evaluation import cross_validate
from pybnc.streaming import fit_blocks

X = pd.DataFrame({"a": list("xyxyzx"), "b": [0, 1, 1, 0, 1, 0]})
y = np.array([0, 1, 1, 0, 1, 0])
CANDIDATES = ("nonsense", -7, 2.5, [1, 2], 10**9)


def _wrong_values(cls, name):
    """A value of a wrong type for every parameter, and the first of CANDIDATES that its
    constraints refuse (a string where a number is due, a number where a word is)."""
    constraints = {name: cls._parameter_constraints[name]}
    refused = []
    for value in CANDIDATES:
        try:
            validate_parameter_constraints(constraints, {name: value}, cls.__name__)
        except InvalidParameterError:
            refused.append(value)
    return [object(), *refused[:1]]


CASES = [(entry.cls, name, value) for entry in MODELS for name in entry.cls().get_params()
         for value in _wrong_values(entry.cls, name)]


@pytest.mark.parametrize("entry", MODELS, ids=lambda m: m.short_name)
def test_every_parameter_has_constraints(entry):
    assert set(entry.cls._parameter_constraints) == set(entry.cls().get_params())
    # the encoding options are declared once, the encoder's; every classifier takes one
    assert Encoder._parameter_constraints is ENCODING_CONSTRAINTS
    assert entry.cls._parameter_constraints["encoder"] == [Encoder, None]


@pytest.mark.parametrize("cls, name, value", CASES, ids=[f"{c.__name__}-{n}-{type(v).__name__}" for c, n, v in CASES])
def test_a_wrong_value_raises_invalid_parameter_error_at_fit(cls, name, value):
    model = cls(**{name: value})  # __init__ stores, never checks
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {cls.__name__} must be"):
        model.fit(X, y)
    assert not hasattr(model, "classes_")  # refused before anything was learned


def test_streaming_and_cross_validation_check_the_parameters_too():
    with pytest.raises(InvalidParameterError, match="'criterion' parameter of TAN"):
        TAN(criterion="gini").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of TBMATAN must be a float in the range"):
        fit_blocks(TBMATAN(alpha=-1.0), [(X, y)], classes=[0, 1])
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of TAN"):
        cross_validate({"tan": TAN(alpha="one")}, X, y, cv=2, verbose=0)


def test_the_encoder_checks_its_parameters_with_the_same_constraints():
    with pytest.raises(InvalidParameterError, match="'discretizer' parameter of Encoder"):
        Encoder(discretizer="kmeans").fit(X)
    with pytest.raises(InvalidParameterError, match="'n_bins' parameter of Encoder must be an int in the range"):
        TAN(encoder=Encoder(n_bins=1)).fit(X, y)
