"""MANB against the explicit average over all 2^n naive Bayes feature subsets."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from pybnc import MANB, NaiveBayes
from pybnc.datasets import load_dataset


def _random_problem(seed, n_rows=40, n_features=5, n_classes=3, missing=0.15):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 4, size=n_features)
    y = rng.integers(0, n_classes, size=n_rows)
    # Some features depend on the class, some do not, so the arc posteriors vary.
    codes = np.empty((n_rows, n_features), dtype=int)
    for i, r in enumerate(cards):
        shift = y if i % 2 == 0 else 0
        noise = rng.integers(0, r, size=n_rows)
        codes[:, i] = np.where(rng.random(n_rows) < 0.6, (shift + noise) % r, noise)
    codes[rng.random(codes.shape) < missing] = -1
    return codes, y, cards, n_classes


def _frame(codes, cards):
    return pd.DataFrame({
        f"f{i}": pd.Categorical.from_codes(codes[:, i], categories=list(range(r)))
        for i, r in enumerate(cards)
    })


def _sequential_log_evidence(values, groups, n_groups, r, alpha):
    """log P(values) under a Dirichlet(alpha) per group, by the chain rule of predictives.

    Independent of the Gamma-function formula: it multiplies posterior predictives
    row by row while updating the counts.
    """
    table = np.zeros((n_groups, r))
    total = 0.0
    for v, g in zip(values, groups):
        if v < 0:
            continue
        total += np.log((table[g, v] + alpha) / (table[g].sum() + r * alpha))
        table[g, v] += 1
    return total


def _posterior_mean(values, groups, n_groups, r, alpha):
    table = np.full((n_groups, r), alpha, dtype=float)
    for v, g in zip(values, groups):
        if v >= 0:
            table[g, v] += 1
    return table / table.sum(axis=1, keepdims=True)


def _brute_force(codes, y, cards, n_classes, test_codes, alpha, arc_prior):
    """Explicit model average: returns (log P(c, x_obs | D) per test row, arc marginals)."""
    n = len(cards)
    class_prob = _posterior_mean(y, np.zeros_like(y), 1, n_classes, alpha)[0]
    with_arc = [_posterior_mean(codes[:, i], y, n_classes, r, alpha) for i, r in enumerate(cards)]
    without_arc = [_posterior_mean(codes[:, i], np.zeros_like(y), 1, r, alpha)[0] for i, r in enumerate(cards)]
    log_weights, joints = [], []
    for subset in itertools.product([0, 1], repeat=n):
        log_prior = sum(np.log(arc_prior) if s else np.log1p(-arc_prior) for s in subset)
        log_evidence = sum(
            _sequential_log_evidence(codes[:, i], y if s else np.zeros_like(y), n_classes if s else 1, r, alpha)
            for i, (s, r) in enumerate(zip(subset, cards))
        )
        log_weights.append(log_prior + log_evidence)
        joint = np.zeros((len(test_codes), n_classes))
        for row, x in enumerate(test_codes):
            # Sum the missing cells out by enumerating every completion.
            choices = [range(r) if x[i] < 0 else [x[i]] for i, r in enumerate(cards)]
            for full in itertools.product(*choices):
                for c in range(n_classes):
                    p = class_prob[c]
                    for i, (s, v) in enumerate(zip(subset, full)):
                        p *= with_arc[i][c, v] if s else without_arc[i][v]
                    joint[row, c] += p
        joints.append(joint)
    log_weights = np.array(log_weights)
    posterior = np.exp(log_weights - logsumexp(log_weights))
    averaged = np.tensordot(posterior, np.array(joints), axes=1)
    subsets = np.array(list(itertools.product([0, 1], repeat=n)))
    return np.log(averaged), posterior @ subsets, posterior, np.array(joints)


@pytest.mark.parametrize("seed, alpha, arc_prior", [(0, 1.0, 0.5), (1, 0.5, 0.3), (2, 2.5, 0.8), (3, 1.0, 0.05)])
def test_equals_explicit_average_over_all_subsets(seed, alpha, arc_prior):
    codes, y, cards, k = _random_problem(seed)
    test_codes, _, _, _ = _random_problem(seed + 100, n_rows=8, missing=0.3)
    test_codes = np.minimum(test_codes, cards - 1)  # same cardinalities as training
    log_joint, arc_marginals, _, _ = _brute_force(codes, y, cards, k, test_codes, alpha, arc_prior)

    model = MANB(alpha=alpha, arc_prior=arc_prior).fit(_frame(codes, cards), y)
    assert np.allclose(model.arc_posterior_, arc_marginals, rtol=0, atol=1e-10)
    assert 0.01 < model.arc_posterior_.max() and model.arc_posterior_.min() < 0.99  # the check is not trivial
    jll = model._joint_log_likelihood(_frame(test_codes, cards))
    assert np.allclose(jll, log_joint, rtol=0, atol=1e-10)
    proba = model.predict_proba(_frame(test_codes, cards))
    assert np.allclose(proba, np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True)), atol=1e-10)


def test_is_not_the_average_of_the_subsets_class_posteriors():
    """The Bayesian class posterior normalises the averaged joint; weighting each
    subset's P(c | x, G, D) by P(G | D) instead is a different (non-Bayesian) number."""
    codes, y, cards, k = _random_problem(7)
    test_codes = np.minimum(_random_problem(8, n_rows=6, missing=0.0)[0], cards - 1)
    _, _, posterior, joints = _brute_force(codes, y, cards, k, test_codes, 1.0, 0.5)
    conditionals = joints / joints.sum(axis=2, keepdims=True)
    averaged_conditionals = np.tensordot(posterior, conditionals, axes=1)
    proba = MANB().fit(_frame(codes, cards), y).predict_proba(_frame(test_codes, cards))
    assert np.abs(proba - averaged_conditionals).max() > 1e-4


def test_arc_prior_one_is_naive_bayes_and_zero_is_the_class_prior():
    X, y = load_dataset("votes")
    everything = MANB(arc_prior=1.0, alpha=2.0).fit(X, y)
    nb = NaiveBayes(smoothing="bayes", alpha=2.0).fit(X, y)
    assert np.allclose(everything.predict_proba(X), nb.predict_proba(X), atol=1e-12)
    assert np.all(everything.arc_posterior_ == 1.0)
    nothing = MANB(arc_prior=0.0).fit(X, y)
    assert np.all(nothing.arc_posterior_ == 0.0)
    assert np.allclose(nothing.predict_proba(X), np.exp(nothing.class_log_prior_), atol=1e-12)


def test_uninformative_feature_gets_low_posterior_and_informative_high():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    X = pd.DataFrame({"copy": np.where(rng.random(500) < 0.9, y, 1 - y), "noise": rng.integers(0, 3, 500)})
    model = MANB().fit(X, y)
    assert model.arc_posterior_[0] > 0.999 and model.arc_posterior_[1] < 0.2
    assert np.isfinite(model.predict_log_proba(X)).all()


def test_large_counts_stay_finite():
    X, y = load_dataset("chess")
    X, y = pd.concat([X] * 20, ignore_index=True), pd.concat([y] * 20, ignore_index=True)
    proba = MANB(alpha=1e-3, arc_prior=1e-9).fit(X, y).predict_proba(X.head(50))
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": 0.0}, r"'alpha' parameter of MANB must be a float in the range \(0.0, inf\)"),
    ({"alpha": -1}, "'alpha' parameter"), ({"alpha": "x"}, "'alpha' parameter"),
    ({"arc_prior": 1.5}, r"'arc_prior' parameter of MANB must be a float in the range \[0.0, 1.0\]"),
    ({"arc_prior": -0.1}, "'arc_prior' parameter"),
])
def test_invalid_hyperparameters_are_named(kwargs, match):
    X, y = load_dataset("car")
    with pytest.raises(ValueError, match=match):
        MANB(**kwargs).fit(X.iloc[::20], y.iloc[::20])
