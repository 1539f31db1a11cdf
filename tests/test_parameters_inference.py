"""Parameter learners equal their formulas; prediction with missing values is exact."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB

from pybnc import TAN, NaiveBayes
from pybnc.counts.tables import count
from pybnc.inference.forest import complete_rows_jll, joint_log_likelihood
from pybnc.parameters.learn import learn_parameters, n_free_parameters
from pybnc.structure import Structure
from tests.conftest import random_codes

CARDS = (3, 2, 4, 3)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0, 2.5])
def test_naive_bayes_equals_sklearn_categorical_nb(rng, alpha):
    codes, y = random_codes(rng, 400, CARDS, 3)
    ours = NaiveBayes(alpha=alpha).fit(codes, y)
    # pybnc smooths the class prior with the same alpha, as bnclassify does
    # ((N_c + a) / (N + K a)); CategoricalNB uses raw frequencies, so hand it ours.
    n_c = np.bincount(y, minlength=3)
    np.testing.assert_allclose(np.exp(ours.class_log_prior_), (n_c + alpha) / (400 + 3 * alpha), rtol=1e-14)
    theirs = CategoricalNB(alpha=alpha, class_prior=np.exp(ours.class_log_prior_)).fit(codes, y)
    test_codes, _ = random_codes(rng, 200, CARDS, 3)
    np.testing.assert_allclose(ours.predict_proba(test_codes), theirs.predict_proba(test_codes), rtol=1e-10, atol=1e-12)


def _direct_family_counts(codes, y, i, parent, k):
    rp = CARDS[parent] if parent is not None else 1
    n = np.zeros((k, rp, CARDS[i]))
    for row, c in zip(codes, y):
        if row[i] >= 0 and (parent is None or row[parent] >= 0):
            n[c, 0 if parent is None else row[parent], row[i]] += 1
    return n


def test_multinomial_sampling_and_friedman_follow_cerquides_eq_3_and_4(rng):
    codes, y = random_codes(rng, 300, CARDS, 2, missing_rate=0.1)
    structure = Structure(((), (0,), (1,), ()))
    counts = count(codes, y, CARDS, 2)
    k = 2
    ms = learn_parameters(structure, counts, "ms", 10.0)
    fr = learn_parameters(structure, counts, "friedman", 5.0)
    omega = k * np.prod(CARDS)
    for i, parents in enumerate(structure.parents):
        p = parents[0] if parents else None
        n = _direct_family_counts(codes, y, i, p, k)
        n_pa = n.sum(axis=2, keepdims=True)
        # eq. 4: (N + lambda #notPa / #Omega) / (N_pa + lambda #X_i #notPa / #Omega)
        not_pa = omega / (k * (CARDS[p] if p is not None else 1) * CARDS[i])
        expected = (n + 10 * not_pa / omega) / (n_pa + 10 * CARDS[i] * not_pa / omega)
        np.testing.assert_allclose(np.exp(ms.log_cpts[i]), expected, rtol=1e-12)
        # eq. 3: N / (N_pa + N0) + N0 / (N_pa + N0) * N_i(x_i) / N
        n_i = np.array([(codes[:, i] == v).sum() for v in range(CARDS[i])], dtype=float)
        expected = n / (n_pa + 5) + 5 / (n_pa + 5) * n_i / n_i.sum()
        np.testing.assert_allclose(np.exp(fr.log_cpts[i]), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(ms.class_log_prior), (np.bincount(y) + 5) / (300 + 10))


def test_mle_and_parameter_count(rng):
    codes, y = random_codes(rng, 200, CARDS, 2)
    structure = Structure(((), (0,), (0,), (2,)))
    tables = learn_parameters(structure, count(codes, y, CARDS, 2), "mle")
    n = _direct_family_counts(codes, y, 3, 2, 2)
    with np.errstate(invalid="ignore"):
        expected = np.where(n.sum(2, keepdims=True) > 0, n / n.sum(2, keepdims=True), 1 / CARDS[3])
    np.testing.assert_allclose(np.exp(tables.log_cpts[3]), np.maximum(expected, 1e-300), rtol=1e-12)
    # (K-1) + K (r0-1) + K r0 (r1-1) + K r0 (r2-1) + K r2 (r3-1)
    assert n_free_parameters(structure, CARDS, 2) == 1 + 2 * 2 + 2 * 3 * 1 + 2 * 3 * 3 + 2 * 4 * 2


def _brute_force_jll(codes, structure, tables, cards):
    """log sum over every completion of the missing values of P(x, c)."""
    out = np.empty((codes.shape[0], tables.class_log_prior.shape[0]))
    for r, row in enumerate(codes):
        missing = np.flatnonzero(row < 0)
        completions = []
        for values in itertools.product(*[range(cards[m]) for m in missing]):
            full = row.copy()
            full[missing] = values
            completions.append(full)
        jll = complete_rows_jll(np.array(completions), structure, tables.class_log_prior, tables.log_cpts, cards)
        out[r] = np.logaddexp.reduce(jll, axis=0)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_missing_values_are_summed_out_exactly(seed):
    rng = np.random.default_rng(seed)
    cards = np.array([3, 2, 4, 3, 2, 3])
    codes, y = random_codes(rng, 300, cards, 3, missing_rate=0.05)
    # a forest with an inner node, a chain and a lone feature
    structure = Structure(((), (0,), (0,), (2,), (), (4,)))
    tables = learn_parameters(structure, count(codes, y, cards, 3), "bayes", 1.0)
    test, _ = random_codes(rng, 60, cards, 3, missing_rate=0.35)
    test[0] = -1  # every feature missing: P(c) alone
    got = joint_log_likelihood(test, structure, tables.class_log_prior, tables.log_cpts, cards)
    expected = _brute_force_jll(test, structure, tables, cards)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(got[0], tables.class_log_prior, rtol=1e-12)


def test_unseen_category_is_treated_as_missing():
    X = pd.DataFrame({"a": list("xyxyxy"), "b": list("ppqqpq")})
    y = [0, 1, 0, 1, 1, 0]
    model = TAN().fit(X, y)
    unseen = pd.DataFrame({"a": ["z"], "b": ["p"]})
    missing = pd.DataFrame({"a": [None], "b": ["p"]})
    np.testing.assert_array_equal(model.predict_proba(unseen), model.predict_proba(missing))


@pytest.mark.parametrize("method, alpha", [("bayes", 1.0), ("bayes", 0.37), ("ms", 10.0), ("mle", None)])
def test_tables_of_mostly_unseen_parent_configurations_are_the_dense_ones_to_the_bit(monkeypatch, method, alpha):
    """A family of many-levelled parents is estimated on its seen configurations only
    (the rest share one row), and its rows are read without a transposed copy when
    there are fewer rows than cells: the same tables and scores, bit for bit."""
    from pybnc.parameters import learn

    rng = np.random.default_rng(3)
    cards = np.array([300, 200, 7, 3])
    codes, y = random_codes(rng, 400, cards, 2, missing_rate=0.02)
    structure = Structure(((), (0,), (0, 1), (2,)))
    counts = count(codes, y, cards, 2)
    used = []
    sparse = learn._mostly_unseen_log_table
    monkeypatch.setattr(learn, "_mostly_unseen_log_table", lambda *a: used.append(1) or sparse(*a))
    tables = learn_parameters(structure, counts, method, alpha, codes=codes, y=y)
    assert used  # the family of parents 0 and 1: 2 x 60,000 configurations, at most 400 seen
    pseudo = learn.pseudo_counts(method, learn.resolve_alpha(method, alpha), 7, 60_000, 2)[0]
    n = learn.family_counts(counts, structure, 2, codes, y)
    numerator = n + pseudo
    dense = learn.log_ratio(numerator, numerator.sum(axis=-1, keepdims=True), 7)
    assert np.array_equal(tables.log_cpts[2], dense)
    test, _ = random_codes(rng, 50, cards, 2)
    expected = np.tile(tables.class_log_prior, (50, 1))
    for i, table in enumerate(tables.log_cpts):  # in the order complete_rows_jll adds them
        expected += table.reshape(2, -1).T[_flat_index(test, structure, cards, i)]
    assert np.array_equal(complete_rows_jll(test, structure, tables.class_log_prior, tables.log_cpts, cards),
                          expected)


def _flat_index(codes, structure, cards, i):
    parents = list(structure.parents[i])
    configuration = np.ravel_multi_index(tuple(codes[:, parents].T), tuple(cards[parents])) if parents else 0
    return configuration * cards[i] + codes[:, i]


@pytest.mark.parametrize("method", ["bayes", "mle", "ms"])
def test_tables_of_one_shape_estimated_together_equal_each_alone(method):
    """learn_parameters stacks the small tables of one shape: the same bits as one at a
    time, with unseen configurations (denominator 0), shapes seen once, and a table past
    the sparse bound among them."""
    from pybnc.parameters.learn import _SPARSE_FROM_CELLS, conditional_log_table, conditional_log_tables

    rng = np.random.RandomState(0)
    tables = [rng.poisson(0.7, size=shape).astype(float)
              for shape in [(2, 3, 4), (2, 3, 4), (3, 1, 5), (2, 3, 4), (3, 1, 5), (2, 7, 2), (2, 1, 0), (2, 1, 0)]]
    tables[1][:, 0] = 0.0  # a configuration never seen
    big = np.zeros((2, _SPARSE_FROM_CELLS // 4 + 1, 4))
    big[0, 5] = [1.0, 2.0, 0.0, 3.0]
    tables.append(big)
    together = conditional_log_tables(tables, method, 1.0)
    for table, got in zip(tables, together):
        np.testing.assert_array_equal(got, conditional_log_table(table, method, 1.0))


@pytest.mark.parametrize("params", ["ms", "friedman", "bayes", "mle"])
@pytest.mark.parametrize("learner", [NaiveBayes, TAN])
def test_a_column_never_observed_has_an_empty_table_under_every_smoothing(learner, params):
    """An all-missing column has no level: multinomial sampling spread its pseudo-counts
    over no cells, and Friedman's marginal over no levels (both divided by zero before)."""
    X = pd.DataFrame({"a": ["x", "y", "x", "y", "x"], "empty": [np.nan] * 5, "c": ["u", "u", "v", "v", "u"]})
    y = [0, 1, 0, 1, 1]
    with_empty = learner(smoothing=params).fit(X, y)
    without = learner(smoothing=params).fit(X.drop(columns="empty"), y)
    np.testing.assert_allclose(with_empty.predict_proba(X), without.predict_proba(X.drop(columns="empty")),
                               rtol=1e-12)
