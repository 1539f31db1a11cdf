"""The estimator protocol: every registered classifier declares its capabilities, and what
they say is what the classifier does."""

import warnings

import numpy as np
import pytest

import pybnc
from pybnc import KDB, SKDB, TAN, Capabilities, NaiveBayes, capabilities
from pybnc.datasets import load_dataset
from pybnc.registry import BY_SHORT_NAME, MODELS, model
from pybnc.streaming import fit_blocks

from conftest import registry_classifiers

CLASSIFIERS = registry_classifiers()


def test_the_registry_names_every_public_classifier_once():
    assert len(BY_SHORT_NAME) == len(MODELS)
    assert {m.cls.__name__ for m in MODELS} == {n for n in pybnc.__all__ if isinstance(getattr(pybnc, n), type)
                                               and issubclass(getattr(pybnc, n), pybnc.estimators.BaseBNC)}
    assert model(" TAN ").cls is TAN
    with pytest.raises(KeyError, match="unknown model 'nope'; known models: nb, tan"):
        model("nope")


def test_the_web_page_and_the_command_line_read_the_registry():
    from pybnc.cli._common import MODEL_HELP, model_class
    from pybnc.web.analysis import SLOW_MODELS, model_choices

    assert model_choices() == [(m.short_name, m.description) for m in MODELS]
    assert all(m.short_name in MODEL_HELP for m in MODELS) and model_class("a2de") is pybnc.AnDE
    assert set(SLOW_MODELS) == {"tanhc", "tanhcsp", "fssj", "bsej", "auto"}


@pytest.mark.parametrize("entry", MODELS, ids=lambda m: m.short_name)
def test_a_class_declares_its_capabilities_at_its_defaults(entry):
    assert isinstance(capabilities(entry.cls), Capabilities)
    assert capabilities(entry.cls) == capabilities(entry.cls()) == entry.capabilities


def test_parameters_refine_the_declaration_in_one_place():
    assert capabilities(TAN(weighting="wanbia")) == capabilities(TAN).replace(
        learns_from_counts=False, passes=0, tables_are_probabilities=False, sample_weight="repeats")
    hc = capabilities(KDB(search="hc"))
    assert (hc.passes, hc.pair_counts, hc.searches_by_cv, hc.smooths_by_hdp) == (0, False, True, False)
    with pytest.raises(TypeError, match="not a pybnc classifier"):
        capabilities(object())


def test_a_subclass_with_a_fit_of_its_own_is_not_learned_from_codes():
    class Custom(NaiveBayes):
        def fit(self, X, y):
            return super().fit(X, y)

    assert capabilities(NaiveBayes).learns_from_codes and not capabilities(Custom).learns_from_codes


@pytest.mark.parametrize("key", list(CLASSIFIERS))
def test_what_the_capabilities_say_is_what_the_classifier_does(key):
    """partial_fit exists exactly where it learns from counts; a model of one network has
    one; fit_blocks fits what learns out of core (as fit does) and refuses the rest."""
    X, y = load_dataset("car")
    rows = np.random.default_rng(0).permutation(len(X))[:300]
    X, y = X.iloc[rows], np.asarray(y)[rows]
    estimator = CLASSIFIERS[key]
    found = capabilities(estimator)
    assert hasattr(estimator, "partial_fit") == found.learns_from_counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = type(estimator)(**estimator.get_params()).fit(X, y)
        assert hasattr(fitted, "structure_") == found.one_network
        assert hasattr(fitted, "supernodes_") == found.joins_features
        blocks = [(X.iloc[:150], y[:150]), (X.iloc[150:], y[150:])]
        fresh = type(estimator)(**estimator.get_params())
        if found.passes:
            streamed = fit_blocks(fresh, blocks, classes=np.unique(y))
            np.testing.assert_allclose(streamed.predict_proba(X), fitted.predict_proba(X), rtol=1e-9, atol=1e-12)
        else:
            with pytest.raises(TypeError, match="block by block"):
                fit_blocks(fresh, blocks, classes=np.unique(y))


def test_scikit_learn_tags_say_what_every_classifier_takes():
    tags = TAN().__sklearn_tags__()
    assert tags.input_tags.allow_nan and tags.input_tags.string and tags.input_tags.categorical


def test_passes_out_of_core_are_counted():
    """SKDB reads the blocks three times, Sahami's kDB twice, TAN once."""
    X, y = load_dataset("car")
    rows = np.random.default_rng(0).permutation(len(X))
    X, y = X.iloc[rows], np.asarray(y)[rows]
    reads = []

    def blocks():
        reads.append(1)
        return iter([(X.iloc[:900], y[:900]), (X.iloc[900:], y[900:])])

    for estimator, passes in ((TAN(), 1), (KDB(k=2, verbose=0), 2), (SKDB(k=2, verbose=0), 3)):
        reads.clear()
        fit_blocks(estimator, blocks, classes=np.unique(y))
        assert len(reads) == passes == capabilities(estimator).passes


def _weighting_options(cls) -> set:
    """The values the ``weighting`` parameter's constraint accepts besides None."""
    options = cls._parameter_constraints.get("weighting", [])
    return {value for option in options if hasattr(option, "options") for value in option.options}


@pytest.mark.parametrize("entry", MODELS, ids=lambda m: m.short_name)
def test_the_declared_weightings_are_the_ones_the_parameter_takes(entry):
    assert set(entry.capabilities.weightings) == _weighting_options(entry.cls)


def test_discriminative_weights_read_the_blocks_again_at_every_step():
    assert {m.short_name for m in MODELS if "discriminative" in m.capabilities.weightings} == {
        "nb", "tan", "fan", "kdb", "skdb", "aode", "a2de"}
    weighted = TAN(weighting="discriminative", discriminative_penalty=1.0)
    assert capabilities(weighted) == capabilities(TAN).replace(
        learns_from_counts=False, rereads_rows=True, tables_are_probabilities=False, sample_weight="repeats")
    X, y = load_dataset("car")
    reads = []

    def blocks():
        reads.append(1)
        return iter([(X.iloc[:900], np.asarray(y)[:900]), (X.iloc[900:], np.asarray(y)[900:])])

    fit_blocks(weighted, blocks, classes=np.unique(y))
    # the counting pass, the pass that finds the cells read, then one per L-BFGS evaluation
    assert len(reads) >= capabilities(weighted).passes + 1 + weighted.n_iter_ > 3
