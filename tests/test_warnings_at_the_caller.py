"""A warning names the user's line: the file that called pybnc (here, this test file),
whether pybnc was called directly, through scikit-learn or through another pybnc model."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score

from pybnc import TAN, TANHC, NaiveBayes
from pybnc.encode import EncodingWarning
from pybnc.search._greedy import StartModelWarning
from pybnc.streaming import fit_blocks


@pytest.fixture(scope="module")
def with_identifier():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"visit": [f"v{i:04d}" for i in range(300)], "a": rng.choice(list("xyz"), 300),
                      "b": rng.choice(list("pq"), 300)})
    y = np.where((X["a"] == "x") ^ (rng.random(300) < 0.2), "yes", "no")
    return X, y


def _caught(call, category):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = [w for w in caught if issubclass(w.category, category)]
    assert found, [str(w.message) for w in caught]
    return found


@pytest.mark.parametrize("how", ["fit", "cross_val_score", "fit_blocks"])
def test_an_encoding_warning_names_the_callers_file(with_identifier, how):
    X, y = with_identifier
    calls = {"fit": lambda: NaiveBayes().fit(X, y),
             "cross_val_score": lambda: cross_val_score(NaiveBayes(), X, y, cv=2),
             "fit_blocks": lambda: fit_blocks(NaiveBayes(), [(X, y)], classes=np.unique(y))}
    for w in _caught(calls[how], EncodingWarning):
        assert w.filename == __file__, (w.filename, str(w.message))


def test_a_search_and_an_optimiser_warn_at_the_callers_line(with_identifier):
    X, y = with_identifier
    X = X[["a", "b"]]
    for w in _caught(lambda: TANHC(epsilon=0.5).fit(X, y), StartModelWarning):
        assert w.filename == __file__
    for w in _caught(lambda: TAN(weighting="discriminative", discriminative_max_iter=1,
                                 discriminative_penalty=0.0).fit(X, y), ConvergenceWarning):
        assert w.filename == __file__
