"""AODE against a direct, slow implementation of Webb, Boughton & Wang (2005)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pybnc import AODE, NaiveBayes
from pybnc.datasets import load_dataset
from test_manb import _frame  # categorical frame with declared levels: codes round-trip


def _random_problem(seed, n_rows=120, n_features=5, n_classes=3, missing=0.1):
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, 5, size=n_features)
    y = rng.integers(0, n_classes, size=n_rows)
    codes = np.empty((n_rows, n_features), dtype=int)
    codes[:, 0] = np.where(rng.random(n_rows) < 0.7, y % cards[0], rng.integers(0, cards[0], n_rows))
    for i in range(1, n_features):
        # Each feature leans on the previous one and the class: dependencies AODE can use.
        lean = (codes[:, i - 1] + y) % cards[i]
        codes[:, i] = np.where(rng.random(n_rows) < 0.5, lean, rng.integers(0, cards[i], n_rows))
    codes[rng.random(codes.shape) < missing] = -1
    return codes, y, cards, n_classes


class SlowAODE:
    """The paper's formulas, one row and one super-parent at a time, counted from rows."""

    def __init__(self, codes, y, cards, n_classes, alpha, min_count):
        self.codes, self.y, self.cards, self.k = codes, y, cards, n_classes
        self.alpha, self.min_count = alpha, min_count

    def _estimate(self, hits, total, levels):
        if self.alpha == 0 and total == 0:
            return 1.0 / levels
        return max((hits + self.alpha) / (total + levels * self.alpha), 1e-300)

    def super_parent_term(self, c, x, j):
        """P(c, x_j) prod over observed children of P(x_i | c, x_j)."""
        d, y = self.codes, self.y
        seen_j = d[:, j] >= 0
        p = self._estimate(np.sum(seen_j & (y == c) & (d[:, j] == x[j])), seen_j.sum(), self.k * self.cards[j])
        for i in range(len(x)):
            if i == j or x[i] < 0:
                continue
            base = (y == c) & (d[:, j] == x[j]) & (d[:, i] >= 0)
            p *= self._estimate(np.sum(base & (d[:, i] == x[i])), base.sum(), self.cards[i])
        return p

    def super_parents(self, x):
        return [j for j in range(len(x)) if x[j] >= 0 and np.sum(self.codes[:, j] == x[j]) >= self.min_count]

    def naive_bayes(self, c, x):
        d, y = self.codes, self.y
        p = self._estimate(np.sum(y == c), len(y), self.k)
        for i in range(len(x)):
            if x[i] >= 0:
                base = (y == c) & (d[:, i] >= 0)
                p *= self._estimate(np.sum(base & (d[:, i] == x[i])), base.sum(), self.cards[i])
        return p

    def joint(self, x):
        parents = self.super_parents(x)
        if not parents:
            return np.array([self.naive_bayes(c, x) for c in range(self.k)])
        return np.array([sum(self.super_parent_term(c, x, j) for j in parents) / len(parents)
                         for c in range(self.k)])


@pytest.mark.parametrize("seed, params, alpha, min_count", [
    (0, "bayes", 1.0, 0), (1, "bayes", 1.0, 30), (2, "bayes", 0.3, 12), (3, "mle", None, 25), (4, "bayes", 2.0, 200),
])
def test_matches_slow_reference(seed, params, alpha, min_count):
    codes, y, cards, k = _random_problem(seed)
    test_codes = np.minimum(_random_problem(seed + 50, n_rows=25, missing=0.2)[0], cards - 1)
    model = AODE(min_count=min_count, smoothing=params, alpha=alpha).fit(_frame(codes, cards), y)
    slow = SlowAODE(codes, y, cards, k, 0.0 if params == "mle" else alpha, min_count)
    expected = np.log([slow.joint(x) for x in test_codes])
    jll = model._joint_log_likelihood(_frame(test_codes, cards))
    assert np.allclose(jll, expected, rtol=1e-12, atol=1e-10)
    n_parents = [len(slow.super_parents(x)) for x in test_codes]
    if 0 < min_count < 200:  # the frequency rule really selects: rows with some and with all parents
        assert min(n_parents) < max(n_parents)


def test_missing_child_is_summed_out_by_enumeration():
    """With the super-parent set fixed by the observed cells, each estimator's missing
    children are exactly summed out: compare with enumerating every completion."""
    codes, y, cards, k = _random_problem(5, missing=0.05)
    slow = SlowAODE(codes, y, cards, k, 1.0, 10)
    model = AODE(min_count=10).fit(_frame(codes, cards), y)
    rng = np.random.default_rng(6)
    test_codes = np.minimum(_random_problem(7, n_rows=10, missing=0.0)[0], cards - 1)
    test_codes[rng.random(test_codes.shape) < 0.4] = -1
    test_codes[:, 0] = np.maximum(test_codes[:, 0], 0)  # at least one super-parent candidate
    jll = model._joint_log_likelihood(_frame(test_codes, cards))
    for x, row in zip(test_codes, jll):
        parents = slow.super_parents(x)
        if not parents:
            continue
        choices = [range(r) if v < 0 else [v] for v, r in zip(x, cards)]
        total = np.zeros(k)
        for full in itertools.product(*choices):
            total += [sum(slow.super_parent_term(c, np.array(full), j) for j in parents) for c in range(k)]
        assert np.allclose(row, np.log(total / len(parents)), atol=1e-10)


def test_missing_super_parent_drops_out_of_the_average():
    codes, y, cards, k = _random_problem(8)
    model = AODE(min_count=0).fit(_frame(codes, cards), y)
    x = np.minimum(np.array([[1, 0, 1, 0, 1]]), cards - 1)
    dropped = x.copy()
    dropped[0, 2] = -1
    slow = SlowAODE(codes, y, cards, k, 1.0, 0)
    kept = [j for j in range(5) if j != 2]
    expected = [np.mean([slow.super_parent_term(c, dropped[0], j) for j in kept]) for c in range(k)]
    assert np.allclose(model._joint_log_likelihood(_frame(dropped, cards))[0], np.log(expected), atol=1e-10)


def test_no_qualifying_super_parent_falls_back_to_naive_bayes():
    X, y = load_dataset("votes")  # has missing values
    aode = AODE(min_count=10**6).fit(X, y)
    nb = NaiveBayes(smoothing="bayes", alpha=1.0).fit(X, y)
    assert np.allclose(aode.predict_proba(X), nb.predict_proba(X), atol=1e-12)
    all_missing = pd.DataFrame([[np.nan] * X.shape[1]], columns=X.columns).astype(X.dtypes)
    assert np.allclose(AODE().fit(X, y).predict_proba(all_missing), nb.predict_proba(all_missing))


def test_one_feature_is_its_single_estimator():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = pd.DataFrame({"a": (y + (rng.random(200) < 0.2)) % 2})
    proba = AODE(min_count=0).fit(X, y).predict_proba(pd.DataFrame({"a": [0, 1]}))
    n = pd.crosstab(X["a"], y).to_numpy() + 1.0  # P(c | x) from the Laplace joint
    assert np.allclose(proba, n / n.sum(axis=1, keepdims=True))


def test_better_than_naive_bayes_on_chess_and_finite():
    X, y = load_dataset("chess")
    train, test = np.arange(len(y)) % 3 != 0, np.arange(len(y)) % 3 == 0
    aode = AODE().fit(X[train], y[train])
    nb = NaiveBayes().fit(X[train], y[train])
    assert aode.score(X[test], y[test]) > nb.score(X[test], y[test]) + 0.01
    assert np.isfinite(AODE(smoothing="mle").fit(X[train], y[train]).predict_log_proba(X[test])).all()


@pytest.mark.parametrize("kwargs, match", [
    ({"smoothing": "friedman"}, "'smoothing' parameter of AODE must be a str among"), ({"min_count": -1}, "min_count"),
    ({"min_count": "30"}, "min_count"), ({"alpha": -1.0}, "alpha"),
])
def test_invalid_hyperparameters_are_named(kwargs, match):
    X, y = load_dataset("car")
    with pytest.raises(ValueError, match=match):
        AODE(**kwargs).fit(X.iloc[::20], y.iloc[::20])


@pytest.mark.parametrize("cards", [[3] * 6, [1, 4, 2, 5, 3, 2]])
@pytest.mark.parametrize("alpha", [1.0, 0.5, 1e-305])
def test_child_tables_equal_the_general_estimate_to_the_bit(cards, alpha):
    # the Dirichlet path writes log((n + a) / (total + r a)) in place; the general path
    # (log_estimate over the totals spread to every cell) is the definition; 1e-305 puts
    # estimates under the 1e-300 floor, which the fast path must then apply
    from pybnc.averaging.aode import child_log_estimate, log_estimate
    from pybnc.counts.tables import count

    rng = np.random.default_rng(len(cards) + int(alpha * 10))
    X = np.column_stack([rng.integers(0, c, 400) for c in cards])
    counts = count(X, rng.integers(0, 3, 400), cards, 3)
    joint = counts.dense_joint() * 1e5  # large totals: a / total falls under 1e-300 for the smallest alpha
    column = counts.column_feature
    first = np.r_[True, column[1:] != column[:-1]]
    starts, run = np.flatnonzero(first), np.cumsum(first) - 1
    r = np.diff(np.r_[starts, column.size])[run]
    expected = log_estimate(joint, np.add.reduceat(joint, starts, axis=-1)[..., run], r, "bayes", alpha)
    got = child_log_estimate(joint, column, "bayes", alpha)
    assert np.array_equal(got, expected)
    assert np.isfinite(got).all()


@pytest.mark.parametrize("name", ["car", "soybean", "hepatitis"])  # 4 and 19 classes; missing values
@pytest.mark.parametrize("min_count", [0, 30, 10**9])  # every value, some, no value a super-parent
def test_masked_rows_of_one_row_equal_the_model_on_those_rows(name, min_count, monkeypatch):
    # explain's masked copies go through aode_masked_log_joint (each row's own cells
    # gathered once); they must equal the model's log joint on the same rows, missing
    # where masked, including the rows that fall back to naive Bayes
    import pybnc.averaging.aode as aode_module
    from pybnc.estimators.base import BaseBNC

    monkeypatch.setattr(aode_module, "_GATHER_FROM_WIDTH", 0)  # car's 21 columns too
    X, y = load_dataset(name)
    model = AODE(min_count=min_count).fit(X, y)
    coded, _ = model._explain_rows(X.iloc[:15])
    rng = np.random.default_rng(min_count % 7)
    rows = rng.integers(0, 15, 200)
    keep = rng.random((200, coded.shape[1])) < 0.6
    keep[:3] = False  # nothing kept: the class prior alone
    got = model._masked_jll(coded, rows, keep)
    np.testing.assert_allclose(got, BaseBNC._masked_jll(model, coded, rows, keep), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, model._jll_encoded(np.where(keep, coded[rows], -1)), rtol=1e-12, atol=1e-12)
