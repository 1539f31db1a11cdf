"""Back-off smoothing (pybnc.parameters.back_off): the hierarchy and its exact leave-one-out."""

import itertools

import numpy as np
import pytest

from pybnc import KDB, TAN
from pybnc.parameters import back_off
from pybnc.parameters.back_off import _cmi_order, back_off_log_table, leave_one_out_log_likelihood


def random_family(seed, shape):
    rng = np.random.default_rng(seed)
    return rng.poisson(rng.uniform(0.2, 3.0, shape)).astype(float)


def hierarchy_by_hand(n, m, base=1.0, bottom=None):
    """theta_k at every cell, parents already ranked, written level by level."""
    k_axes = n.ndim - 2
    r = n.shape[-1]
    theta = None
    for j in range(k_axes + 1):
        counts = n.sum(axis=tuple(range(1 + j, 1 + k_axes)), keepdims=True)
        if j == 0 and bottom is not None:
            counts = bottom.reshape(counts.shape)
        if theta is None:
            theta = (counts + base) / (counts.sum(axis=-1, keepdims=True) + r * base)
        else:
            theta = (counts + m * theta) / (counts.sum(axis=-1, keepdims=True) + m)
    return np.broadcast_to(theta, n.shape)


def loo_by_refitting(ranked, m, bottom=None):
    """Each row left out of the (ranked) family, the table refitted by hand, the row scored."""
    total = 0.0
    for cell in itertools.product(*map(range, ranked.shape)):
        if ranked[cell] == 0:
            continue
        less = ranked.copy()
        less[cell] -= 1
        less_bottom = None
        if bottom is not None:
            less_bottom = bottom.copy()
            less_bottom[cell[0], cell[-1]] -= 1
        total += ranked[cell] * np.log(hierarchy_by_hand(less, m, bottom=less_bottom)[cell])
    return total


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 2, 3, 2), (2, 2, 2, 3, 2)])
@pytest.mark.parametrize("m", [0.5, 4.0])
@pytest.mark.parametrize("child_rows", [False, True])
def test_leave_one_out_equals_refitting_without_each_row(shape, m, child_rows):
    """With ``child_rows`` the bottom table counts every row where the child is observed
    (some with parents missing): a family row left out leaves the bottom's counts too."""
    n = random_family(len(shape), shape)
    summed = n.sum(axis=tuple(range(1, n.ndim - 1)))
    bottom = summed + random_family(3, summed.shape) if child_rows else None
    order = _cmi_order(n)
    ranked = np.moveaxis(n, order, list(range(1, n.ndim - 1)))
    total = loo_by_refitting(ranked, m, bottom)
    assert leave_one_out_log_likelihood(n, m, bottom=bottom) == pytest.approx(total, rel=1e-12)
    # the same from the non-empty cells alone (what a large, sparse family is scored by)
    cells = back_off._loo_scores_of_cells(back_off._levels(ranked, bottom), ranked, [m], 1.0)[0]
    assert cells == pytest.approx(total, rel=1e-12)
    if child_rows:
        log_table, chosen = back_off_log_table(n, bottom=bottom)
        expected = np.moveaxis(hierarchy_by_hand(ranked, chosen, bottom=bottom), list(range(1, n.ndim - 1)), order)
        np.testing.assert_allclose(np.exp(log_table), expected, rtol=1e-12)
        # the default bottom is the family summed over its parents
        np.testing.assert_array_equal(back_off_log_table(n, bottom=summed)[0], back_off_log_table(n)[0])


def test_table_is_the_hierarchy_at_the_chosen_strength():
    n = random_family(0, (2, 3, 2, 4))
    log_table, m = back_off_log_table(n)
    order = _cmi_order(n)
    ranked = np.moveaxis(n, order, [1, 2])
    expected = np.moveaxis(hierarchy_by_hand(ranked, m), [1, 2], order)
    np.testing.assert_allclose(np.exp(log_table), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(log_table).sum(axis=-1), 1.0)
    best = max(leave_one_out_log_likelihood(n, s) for s in (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64))
    assert leave_one_out_log_likelihood(n, m) == best


def test_the_stronger_parent_is_kept_longest():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 4000)
    strong = rng.integers(0, 3, 4000)
    weak = rng.integers(0, 3, 4000)
    child = np.where(rng.random(4000) < 0.7, strong, rng.integers(0, 3, 4000))
    n = np.zeros((2, 3, 3, 3))
    np.add.at(n, (y, weak, strong, child), 1)
    assert _cmi_order(n) == [2, 1]


def test_estimators_take_back_off():
    from pybnc.datasets import load_dataset

    X, y = load_dataset("car")
    for model in (KDB(k=2, smoothing="backoff", verbose=0), TAN(smoothing="backoff")):
        proba = model.fit(X, y).predict_proba(X)
        assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
        for table in model.log_cpts_:
            np.testing.assert_allclose(np.exp(table).sum(axis=-1), 1.0)


def _masked_hepatitis():
    from pybnc.datasets import load_dataset

    X, y = load_dataset("hepatitis")
    return X.mask(np.random.default_rng(0).random(X.shape) < 0.3), np.asarray(y)


def test_kdb_backs_off_to_every_row_of_the_child(monkeypatch):
    """Issue 20 (no collapse): with missing values a kDB family sees only the rows where
    its parents are observed too; backing off to a P(x | c) from those rows put KDB 5.2
    points below naive Bayes on hepatitis with 30 % of its cells missing (7.6 on UCI
    audiology, 8.6 on labor). Backing off to the child's own rows (naive Bayes's
    estimate) keeps it within 5; without missing values nothing changes."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    from pybnc import NaiveBayes
    from pybnc.datasets import load_dataset
    from pybnc.parameters import learn

    X, y = _masked_hepatitis()
    folds = list(StratifiedKFold(5, shuffle=True, random_state=1).split(X, y))

    def accuracy(model):
        return 100 * np.mean([clone(model).fit(X.iloc[a], y[a]).score(X.iloc[b], y[b]) for a, b in folds])

    naive_bayes, kdb = accuracy(NaiveBayes()), accuracy(KDB(verbose=0))
    car_X, car_y = load_dataset("car")
    complete = KDB(verbose=0).fit(car_X, car_y).log_cpts_
    family_only = learn.back_off_family
    monkeypatch.setattr(learn, "back_off_family",
                        lambda n, parents, cards, alpha=1.0, child_counts=None: family_only(n, parents, cards, alpha))
    assert accuracy(KDB(verbose=0)) < naive_bayes - 5
    assert kdb >= naive_bayes - 5
    for table, before in zip(complete, KDB(verbose=0).fit(car_X, car_y).log_cpts_):
        np.testing.assert_array_equal(table, before)


def test_one_parent_families_learned_together_are_the_same_tables():
    """The batch path (every one-parent family of a TAN at once) gives
    back_off_log_table's tables and strengths to the bit, with and without a bottom."""
    from pybnc.parameters.back_off import back_off_log_tables_one_parent

    rng = np.random.default_rng(0)
    families, bottoms = [], []
    for t in range(200):
        k, r_p, r = (int(v) for v in rng.integers(1, 6, 3))
        n = rng.poisson(rng.choice([0.3, 2.0, 20.0]), (k, r_p, r)).astype(float)
        families.append(n)
        bottoms.append(None if t % 2 else n.sum(axis=1) + rng.poisson(3, (k, r)))
    families.append(np.zeros((2, 0, 3)))  # a parent never observed: the one-family path
    bottoms.append(None)
    together = back_off_log_tables_one_parent(families, bottoms)
    for (table, strength), n, bottom in zip(together, families, bottoms):
        expected, expected_strength = back_off_log_table(n, bottom=bottom)
        np.testing.assert_array_equal(table, expected)
        assert strength == expected_strength or (np.isnan(strength) and np.isnan(expected_strength))


@pytest.mark.parametrize("shape", [(2, 300, 200, 4), (3, 40, 30, 20, 3)])
def test_a_large_sparse_family_is_scored_and_estimated_at_its_rows_cells(monkeypatch, shape):
    # two parents of 300 and 200 levels, 432 rows: 480,000 cells, at most 432 of them
    # non-empty (and three parents); the table is computed at the seen configurations only
    rng = np.random.default_rng(0)
    n = np.zeros(shape)
    np.add.at(n, tuple(rng.integers(0, r, 432) for r in n.shape), 1.0)
    bottom = n.sum(axis=tuple(range(1, n.ndim - 1))) + rng.integers(0, 5, (shape[0], shape[-1]))
    calls = []
    for name in ("_loo_scores_of_cells", "_log_hierarchy_of_seen"):
        original = getattr(back_off, name)
        monkeypatch.setattr(back_off, name, lambda *a, original=original, name=name: calls.append(name) or original(*a))
    sparse_table, sparse_m = back_off_log_table(n, bottom=bottom)
    monkeypatch.setattr(back_off, "_SPARSE_FROM_CELLS", n.size)  # every cell, as before
    dense_table, dense_m = back_off_log_table(n, bottom=bottom)
    assert calls == ["_loo_scores_of_cells", "_log_hierarchy_of_seen"] and sparse_m == dense_m
    np.testing.assert_array_equal(sparse_table, dense_table)
