"""weighting="discriminative" in the estimators: fits, starts from the generative model, files, errors."""

import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import pybnc
from pybnc import AODE, FAN, KDB, SKDB, TAN, AnDE, NaiveBayes
from pybnc.datasets import load_dataset

DISCRIMINATIVE = {
    "nb": lambda **kw: NaiveBayes(weighting="discriminative", **kw),
    "tan": lambda **kw: TAN(weighting="discriminative", **kw),
    "fan": lambda **kw: FAN(weighting="discriminative", **kw),
    "kdb": lambda **kw: KDB(k=2, weighting="discriminative", verbose=0, **kw),
    "skdb": lambda **kw: SKDB(k=2, weighting="discriminative", verbose=0, **kw),
    "aode": lambda **kw: AODE(weighting="discriminative", **kw),
    "a2de": lambda **kw: AnDE(n=2, weighting="discriminative", **kw),
}


@pytest.fixture(scope="module")
def votes():
    X, y = load_dataset("votes")  # missing values in most columns
    return X, np.asarray(y)


@pytest.mark.parametrize("name", sorted(DISCRIMINATIVE))
def test_fits_better_than_its_generative_self_on_training_rows(name, votes):
    X, y = votes
    model = DISCRIMINATIVE[name](discriminative_penalty=0.1).fit(X, y)
    fit = model.discriminative_fit_
    assert model.n_iter_ == fit.n_iter >= 1 and fit.converged
    assert fit.objective < fit.initial_objective and fit.penalty == 0.1
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    loss = -np.mean(np.log(proba[np.arange(y.size), np.searchsorted(model.classes_, y)]))
    penalty = 0.5 * 0.1 * np.sum((fit.weights - 1) ** 2) / y.size
    assert loss + penalty == pytest.approx(fit.objective, rel=1e-6)  # the model scores what was fitted


@pytest.mark.parametrize("name", sorted(DISCRIMINATIVE))
def test_an_overwhelming_penalty_gives_the_generative_model(name, votes):
    """Every row, missing values and AnDE's arithmetic average included."""
    X, y = votes
    weighted = DISCRIMINATIVE[name](discriminative_penalty=1e12).fit(X, y)
    generative = clone(weighted).set_params(weighting=None).fit(X, y)
    np.testing.assert_allclose(weighted.predict_proba(X), generative.predict_proba(X), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(DISCRIMINATIVE))
def test_saved_and_loaded(name, votes):
    X, y = votes
    model = DISCRIMINATIVE[name]().fit(X, y)
    buffer = io.BytesIO()
    pybnc.save(model, buffer)
    again = pybnc.load(io.BytesIO(buffer.getvalue()))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    assert again.discriminative_fit_.objective == model.discriminative_fit_.objective


def test_discriminative_learns_what_the_generative_model_cannot():
    """Two copies of a feature: naive Bayes double-counts it; the weights undo that."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2000)
    x = np.where(rng.random(2000) < 0.75, y, 1 - y)
    z = np.where(rng.random(2000) < 0.6, y, 1 - y)
    X = pd.DataFrame({"a": x, "b": x, "c": x, "z": z}).astype(str)
    generative = NaiveBayes().fit(X, y)
    weighted = NaiveBayes(weighting="discriminative", discriminative_penalty=0.01).fit(X, y)

    def log_loss(model):
        return -np.mean(np.log(model.predict_proba(X)[np.arange(y.size), y]))

    assert log_loss(weighted) < log_loss(generative) - 0.05


@pytest.mark.parametrize("bad, message", [({"discriminative_penalty": -1.0}, "discriminative_penalty"),
                                          ({"discriminative_penalty": "big"}, "discriminative_penalty"),
                                          ({"discriminative_max_iter": 0}, "discriminative_max_iter")])
def test_bad_parameters_are_named(bad, message, votes):
    X, y = votes
    for make in (DISCRIMINATIVE["nb"], DISCRIMINATIVE["aode"]):
        with pytest.raises(ValueError, match=message):
            make(**bad).fit(X, y)


def test_unconverged_fit_warns(votes):
    X, y = votes
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = KDB(weighting="discriminative", discriminative_penalty=0.0, discriminative_max_iter=1,
                    verbose=0).fit(X, y)
    assert model.n_iter_ == 1 and not model.discriminative_fit_.converged
    assert np.isfinite(model.predict_proba(X)).all()


def test_no_partial_fit(votes):
    """One pass over the rows cannot fit the weights: they need every row at every step."""
    X, y = votes
    for model in (NaiveBayes(weighting="discriminative"), AODE(weighting="discriminative")):
        assert not hasattr(model, "partial_fit")
        with pytest.raises(AttributeError) as info:
            model.partial_fit(X, y, classes=np.unique(y))
        assert re.search("L-BFGS.*fit_blocks.*fit_dask", str(info.value.__cause__))


def test_refit_without_weighting_drops_the_weights(votes):
    X, y = votes
    model = TAN(weighting="discriminative").fit(X, y)
    model.set_params(weighting=None).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), TAN().fit(X, y).predict_proba(X))
    assert not hasattr(model, "back_off_log_cpts_")


def test_no_warning_on_a_plain_fit(votes):
    X, y = votes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes(weighting="discriminative").fit(X, y)


# -- out of core ------------------------------------------------------------------------------------
STREAMED = {
    "nb": lambda: NaiveBayes(weighting="discriminative", discriminative_penalty=0.5),
    "tan": lambda: TAN(weighting="discriminative", discriminative_penalty=0.5),
    "kdb": lambda: KDB(k=2, weighting="discriminative", discriminative_penalty=0.5, verbose=0),
    "skdb": lambda: SKDB(k=2, weighting="discriminative", discriminative_penalty=0.5, verbose=0),
    "aode": lambda: AODE(weighting="discriminative", discriminative_penalty=0.5, min_count=5),
    "a2de": lambda: AnDE(n=2, weighting="discriminative", discriminative_penalty=0.5, min_count=5),
}


@pytest.mark.slow  # a discriminative fit per pass over Dask partitions
@pytest.mark.parametrize("name", sorted(STREAMED))
def test_fit_blocks_and_fit_dask_equal_the_in_memory_fit(name, votes):
    import dask.dataframe as dd

    from pybnc import capabilities
    from pybnc.streaming import fit_blocks, fit_dask

    X, y = votes
    frame = X.assign(party=y)
    whole = STREAMED[name]().fit(X, y)
    assert capabilities(whole).rereads_rows and not capabilities(whole).learns_from_counts
    blocks = [frame.iloc[i : i + 100] for i in range(0, len(frame), 100)]
    streamed = fit_blocks(STREAMED[name](), blocks, target="party", classes=np.unique(y))
    on_dask = fit_dask(STREAMED[name](), dd.from_pandas(frame, npartitions=3), "party", scheduler="synchronous")
    for other in (streamed, on_dask):
        np.testing.assert_allclose(other.predict_proba(X), whole.predict_proba(X), atol=1e-5)
        assert other.discriminative_fit_.converged
        assert other.discriminative_fit_.objective == pytest.approx(whole.discriminative_fit_.objective, rel=1e-6)


def test_fit_blocks_needs_blocks_it_can_read_again(votes):
    from pybnc.streaming import fit_blocks

    X, y = votes
    once = iter([X.assign(party=y)])
    with pytest.raises(TypeError, match="read only once"):
        fit_blocks(NaiveBayes(weighting="discriminative"), once, target="party", classes=np.unique(y))


# -- the penalty chosen on the training rows (discriminative_penalty=None) ---------------------------
def _naive_bayes_rows(n, seed=0):
    """Rows drawn from a naive Bayes model: the generative model is the right one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({f"x{i}": np.where(rng.random(n) < np.where(y == 1, 0.65, 0.35), "a", "b") for i in range(6)})
    return X, y


def test_the_penalty_is_chosen_by_held_out_loss_on_the_training_rows():
    from pybnc.estimators._penalty_choice import GRID

    X, y = load_dataset("car")  # the class follows from the features: naive Bayes is far off
    weak = NaiveBayes(weighting="discriminative").fit(X, y)
    X, y = _naive_bayes_rows(200)  # naive Bayes is the truth, and there are few rows
    strong = NaiveBayes(weighting="discriminative").fit(X, y)
    for model in (weak, strong):
        found = model.discriminative_validation_
        assert model.discriminative_fit_.penalty == found["penalties"][np.argmin(found["held_out_log_loss"])]
        assert set(found["penalties"]) <= set(GRID)
    assert weak.discriminative_fit_.penalty <= 0.1 and strong.discriminative_fit_.penalty >= 10
    given = NaiveBayes(weighting="discriminative", discriminative_penalty=1.0).fit(X, y)
    assert not hasattr(given, "discriminative_validation_") and given.discriminative_fit_.penalty == 1.0


def test_sample_weights_are_repeated_rows(votes):
    X, y = votes
    weights = np.arange(len(y)) % 3  # 0: the row absent, 2: the row twice
    weighted = TAN(weighting="discriminative", discriminative_penalty=0.5).fit(X, y, sample_weight=weights)
    rows = np.repeat(np.arange(len(y)), weights)
    repeated = TAN(weighting="discriminative", discriminative_penalty=0.5).fit(X.iloc[rows], y[rows])
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9, atol=1e-12)
    with pytest.raises((TypeError, ValueError), match="integer"):
        TAN(weighting="discriminative").fit(X, y, sample_weight=np.full(len(y), 0.5))
