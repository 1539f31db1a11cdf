"""Counts are exact and additive; information and scores equal slow direct formulas."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pybnc import counts as counts_module
from pybnc.counts import count
from pybnc.scores import (
    entropy,
    mutual_information,
    ode_arc_weights,
    pairwise_cmi,
    penalty_per_parameter,
)
from tests.conftest import random_codes

CARDS = [2, 3, 4, 2, 5]


def slow_pair_counts(codes, y, i, j, ri, rj, k):
    table = np.zeros((k, ri, rj))
    for c, a, b in zip(y, codes[:, i], codes[:, j]):
        if a >= 0 and b >= 0:
            table[c, a, b] += 1
    return table


def slow_cmi(codes, y, i, j):
    """I(X_i; X_j | C) from the rows where both are observed, by the textbook formula."""
    keep = (codes[:, i] >= 0) & (codes[:, j] >= 0)
    frame = pd.DataFrame({"c": y[keep], "a": codes[keep, i], "b": codes[keep, j]})
    n = len(frame)
    total = 0.0
    for (c, a, b), n_cab in frame.value_counts().items():
        n_c = (frame.c == c).sum()
        n_ca = ((frame.c == c) & (frame.a == a)).sum()
        n_cb = ((frame.c == c) & (frame.b == b)).sum()
        total += n_cab / n * np.log(n_cab * n_c / (n_ca * n_cb))
    return total


@pytest.mark.parametrize("missing_rate", [0.0, 0.2])
def test_pair_counts_match_direct_counting(rng, missing_rate):
    codes, y = random_codes(rng, 300, CARDS, 3, missing_rate)
    counts = count(codes, y, CARDS, 3)
    for i, j in itertools.product(range(len(CARDS)), repeat=2):
        expected = slow_pair_counts(codes, y, i, j, CARDS[i], CARDS[j], 3)
        if i == j:
            np.testing.assert_array_equal(counts.feature(i), np.einsum("kaa->ka", expected))
        else:
            np.testing.assert_array_equal(counts.pair(i, j), expected)
    np.testing.assert_array_equal(counts.class_counts, np.bincount(y, minlength=3))


def test_counts_are_additive(rng):
    codes, y = random_codes(rng, 500, CARDS, 3, 0.1)
    whole = count(codes, y, CARDS, 3)
    parts = count(codes[:200], y[:200], CARDS, 3) + count(codes[200:], y[200:], CARDS, 3)
    np.testing.assert_array_equal(whole.joint, parts.joint)
    np.testing.assert_array_equal(whole.class_counts, parts.class_counts)
    back = whole - count(codes[200:], y[200:], CARDS, 3)
    np.testing.assert_array_equal(back.joint, count(codes[:200], y[:200], CARDS, 3).joint)


def test_bincount_path_equals_gram_path(rng, monkeypatch):
    codes, y = random_codes(rng, 400, CARDS, 2, 0.15)
    gram = count(codes, y, CARDS, 2)
    monkeypatch.setattr(counts_module, "_GRAM_MAX_WIDTH", 0)
    binc = count(codes, y, CARDS, 2)
    np.testing.assert_array_equal(gram.joint, binc.joint)


def test_gram_is_exact_across_chunks(rng, monkeypatch):
    monkeypatch.setattr(counts_module, "_CHUNK_ROWS", 64)
    codes, y = random_codes(rng, 1000, CARDS, 2)
    chunked = count(codes, y, CARDS, 2)
    monkeypatch.setattr(counts_module, "_CHUNK_ROWS", 1 << 16)
    np.testing.assert_array_equal(chunked.joint, count(codes, y, CARDS, 2).joint)


def test_entropy_and_mutual_information_reference():
    assert entropy(np.array([2.0, 2.0, 4.0])) == pytest.approx(-(0.25 * np.log(0.25) * 2 + 0.5 * np.log(0.5)))
    table = np.array([[10.0, 2.0], [3.0, 5.0]])
    p = table / table.sum()
    direct = np.sum(p * np.log(p / np.outer(p.sum(1), p.sum(0))))
    assert mutual_information(table) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("missing_rate", [0.0, 0.25])
def test_pairwise_cmi_equals_slow_reference(rng, missing_rate):
    codes, y = random_codes(rng, 250, CARDS, 3, missing_rate)
    cmi, n_pair = pairwise_cmi(count(codes, y, CARDS, 3))
    for i, j in itertools.combinations(range(len(CARDS)), 2):
        assert cmi[i, j] == pytest.approx(slow_cmi(codes, y, i, j), rel=1e-10, abs=1e-13)
        assert cmi[i, j] == cmi[j, i]
        both = ((codes[:, i] >= 0) & (codes[:, j] >= 0)).sum()
        assert n_pair[i, j] == both
    assert np.all(np.diag(cmi) == 0)


@pytest.mark.parametrize("criterion", ["loglik", "aic", "bic", "mdl"])
def test_arc_weights_are_gain_minus_penalty(rng, criterion):
    codes, y = random_codes(rng, 400, CARDS, 2)
    counts = count(codes, y, CARDS, 2)
    w = ode_arc_weights(counts, criterion)
    cmi, _ = pairwise_cmi(counts)
    pen = {"loglik": 0.0, "aic": 1.0, "bic": np.log(400) / 2, "mdl": np.log(400) / 2}[criterion]
    assert penalty_per_parameter(criterion, 400) == pytest.approx(pen)
    for i, j in itertools.combinations(range(len(CARDS)), 2):
        expected = 400 * cmi[i, j] - pen * 2 * (CARDS[i] - 1) * (CARDS[j] - 1)
        assert w[i, j] == pytest.approx(expected, rel=1e-12)


def test_unknown_criterion_is_rejected():
    with pytest.raises(ValueError, match="criterion"):
        penalty_per_parameter("score", 10)
