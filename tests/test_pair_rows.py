"""Pairwise conditional mutual information straight from the coded rows
(pybnc.scores.pair_rows): against brute force, against the pair counts' path, and the
choice between the two."""

import numpy as np
import pandas as pd
import pytest

from pybnc import TAN
from pybnc.counts.tables import count
from pybnc.scores import pair_rows
from pybnc.scores.information import mutual_information, pairwise_cmi
from pybnc.scores.pair_rows import cheaper_from_rows, cmi_terms_from_rows, cmi_terms_numpy

KERNEL = pytest.importorskip("pybnc.scores._pairs_c", reason="the compiled kernels are not built")


def _table(rng, n, cards, n_classes, missing):
    codes = np.stack([rng.integers(0, max(c, 1), n) for c in cards], axis=1)
    codes[:, np.asarray(cards) == 0] = -1
    if missing:
        codes[rng.random(codes.shape) < missing] = -1
    return codes, rng.integers(0, n_classes, n)


def _stored(counts):
    """The counts with stored pairs and no rows: pairwise_cmi reads the pair counts."""
    return counts.stored_pairs().to_keep()


def _brute_force(codes, y, cards, n_classes):
    """N I(X_i; X_j | C) and N of each pair, one contingency table per class."""
    d = codes.shape[1]
    terms, n_pair = np.zeros((d, d)), np.zeros((d, d))
    for i in range(d):
        for j in range(d):
            if i == j:
                continue
            both = (codes[:, i] >= 0) & (codes[:, j] >= 0)
            for c in range(n_classes):
                rows = both & (y == c)
                table = np.zeros((max(cards[i], 1), max(cards[j], 1)))
                np.add.at(table, (codes[rows, i], codes[rows, j]), 1.0)
                if table.sum():
                    terms[i, j] += table.sum() * mutual_information(table)
            n_pair[i, j] = both.sum()
    return terms, n_pair


@pytest.mark.parametrize("missing", [0.0, 0.25])
@pytest.mark.parametrize("how", ["kernel", "numpy"])
def test_terms_from_rows_equal_brute_force(missing, how):
    rng = np.random.default_rng(3)
    compute = cmi_terms_from_rows if how == "kernel" else cmi_terms_numpy
    for trial in range(25):
        n, d, k = int(rng.integers(1, 50)), int(rng.integers(2, 7)), int(rng.integers(2, 5))
        cards = rng.integers(1, 6, d)
        if trial % 5 == 0:
            cards[0] = 0  # a column with no level at all: always missing
        codes, y = _table(rng, n, cards, k, missing)
        want_terms, want_n = _brute_force(codes, y, cards, k)
        terms, n_pair = compute(codes, y, cards, k)
        np.testing.assert_allclose(terms, want_terms, rtol=1e-10, atol=1e-10)
        assert np.array_equal(n_pair, want_n)


def test_pairwise_cmi_from_rows_equals_the_pair_counts_path():
    rng = np.random.default_rng(0)
    for layout in ("reduced", "sparse", "dense"):
        for missing in (0.0, 0.2):
            codes, y = _table(rng, 80, [2, 3, 1, 4, 5, 2], 3, missing)
            counts = count(codes, y, [2, 3, 1, 4, 5, 2], 3, layout=layout)
            assert counts.rows is not None and counts.layout == layout
            from_counts = pairwise_cmi(_stored(counts))
            from_rows = cmi_terms_from_rows(codes, y, [2, 3, 1, 4, 5, 2], 3)
            cmi = np.where(from_rows[1] > 0, from_rows[0] / np.maximum(from_rows[1], 1), 0.0)
            np.fill_diagonal(cmi, 0.0)
            np.testing.assert_allclose(cmi, from_counts[0], atol=1e-12)
            off = ~np.eye(6, dtype=bool)
            assert np.array_equal(from_rows[1][off], from_counts[1][off])


def test_a_wide_table_reads_its_rows_and_gives_the_counts_values(monkeypatch):
    rng = np.random.default_rng(1)
    codes, y = _table(rng, 40, [6] * 60, 2, 0.1)
    counts = count(codes, y, [6] * 60, 2, layout="reduced")
    assert cheaper_from_rows(counts)  # 40 rows x 1,770 pairs against 2 x 360^2 cells
    calls = []
    real = pair_rows.cmi_terms_from_rows
    monkeypatch.setattr(pair_rows, "cmi_terms_from_rows", lambda *a: calls.append(1) or real(*a))
    cmi, n_pair = pairwise_cmi(counts)
    assert calls  # the rows' path ran
    want, want_n = pairwise_cmi(_stored(counts))
    np.testing.assert_allclose(cmi, want, atol=1e-12)
    assert np.array_equal(n_pair, want_n)


def test_the_choice_between_rows_and_counts():
    rng = np.random.default_rng(2)
    codes, y = _table(rng, 5000, [3] * 8, 2, 0.0)
    tall = count(codes, y, [3] * 8, 2)
    assert not cheaper_from_rows(tall)  # 5,000 rows x 28 pairs against 2 x 16^2 cells
    assert not cheaper_from_rows(tall.to_keep())
    assert tall.layout == "reduced" and tall.to_keep().rows is None and tall.rows is not None
    assert not cheaper_from_rows(count(codes, y, [3] * 8, 2, weights=np.full(5000, 2.0)))  # weighted: no rows
    codes, y = _table(rng, 30, [9] * 40, 4, 0.0)
    assert cheaper_from_rows(count(codes, y, [9] * 40, 4, layout="sparse"))


def test_the_kernel_rejects_codes_outside_their_levels():
    codes = np.array([[0, 1], [1, 3]], dtype=np.int32).T.copy()  # feature 1 has 2 levels, a row says 3
    y = np.array([0, 1], dtype=np.int32)
    with pytest.raises(IndexError):
        KERNEL.pair_terms(codes, y, np.array([2, 2]), 2, np.ones(2, np.uint8), np.zeros(3), np.zeros(2), 0.0,
                          np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(IndexError):
        KERNEL.pair_terms(np.zeros((2, 2), np.int32), np.array([0, 2], np.int32), np.array([2, 2]), 2,
                          np.ones(2, np.uint8), np.zeros(3), np.zeros(2), 0.0, np.zeros((2, 2)), np.zeros((2, 2)))


def test_a_fitted_model_keeps_no_rows_and_learns_the_same_tree_either_way(monkeypatch):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 120)
    X = pd.DataFrame({f"x{i}": rng.integers(0, 8, 120) + (y if i % 7 == 0 else 0) for i in range(80)}).astype(str)
    model = TAN().fit(X, y)
    assert model.counts_.rows is None
    monkeypatch.setattr(pair_rows, "cheaper_from_rows", lambda counts: False)
    assert TAN().fit(X, y).arcs_ == model.arcs_


@pytest.fixture
def rows_from_small_tables(monkeypatch):
    """The rows layout from tables of 4,096 reduced cells (the bound is 4 million: a test's
    tables are small)."""
    import pybnc.counts.tables as tables

    monkeypatch.setattr(tables, "ROWS_LAYOUT_FROM", 1 << 12)


def _wide_categorical(rng, n=60, d=90, levels=8):
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({f"x{i}": [f"v{v}" for v in (rng.integers(0, levels, n) + (y if i % 9 == 0 else 0)) % levels]
                      for i in range(d)})
    return X.mask(rng.random(X.shape) < 0.05), y


def test_the_rows_layout_answers_every_question_as_the_stored_pairs(rows_from_small_tables):
    rng = np.random.default_rng(5)
    codes, y = _table(rng, 50, [7] * 50, 3, 0.1)
    rows = count(codes, y, [7] * 50, 3)
    assert rows.layout == "rows" and rows.has_pairs  # 50 rows x 1,225 pairs against 3 x 345^2 cells
    stored = count(codes, y, [7] * 50, 3, layout="reduced")
    assert np.array_equal(rows.levels, stored.levels) and np.array_equal(rows.class_counts, stored.class_counts)
    for i, j in [(0, 1), (4, 4), (17, 3), (49, 0)]:
        assert np.array_equal(rows.pair(i, j), stored.pair(i, j))
    assert np.array_equal(rows.dense_rows(1, 2, 5), stored.dense_rows(1, 2, 5))
    assert np.array_equal(rows.dense_joint(), stored.dense_joint())
    assert all(np.array_equal(a, b) for a, b in zip(rows.pair_entries(2), stored.pair_entries(2)))
    half = count(codes[:20], y[:20], [7] * 50, 3)
    assert np.array_equal((rows - half).dense_joint(), (stored - half).dense_joint())
    assert np.array_equal(rows.saved_form().dense_joint(), stored.dense_joint()) and rows.saved_form().rows is None
    assert rows.to_keep() is rows  # the rows are its pairs: a model keeps them
    with pytest.raises(ValueError, match="unweighted"):
        count(codes, y, [7] * 50, 3, layout="rows", weights=np.ones(50))


@pytest.mark.parametrize("make", [lambda: TAN(), lambda: __import__("pybnc").KDB(k=2, verbose=0),
                                  lambda: __import__("pybnc").AODE(),
                                  lambda: TAN(weighting="discriminative", discriminative_penalty=0.1)])
def test_fits_on_the_rows_layout_equal_fits_on_stored_pairs(rows_from_small_tables, monkeypatch, make):
    import pybnc.counts.tables as tables

    X, y = _wide_categorical(np.random.default_rng(6))
    model = make().fit(X, y)
    assert model.counts_.layout == "rows"
    proba = model.predict_proba(X)
    monkeypatch.setattr(tables, "rows_layout_pays", lambda *a: False)
    stored = make().fit(X, y)
    assert stored.counts_.layout != "rows"
    assert np.array_equal(stored.predict_proba(X), proba)


def test_a_rows_layout_model_saves_loads_and_continues(rows_from_small_tables, tmp_path):
    import pybnc

    X, y = _wide_categorical(np.random.default_rng(7))
    model = TAN().fit(X[:40], y[:40])
    assert model.counts_.layout == "rows"
    pybnc.save(model, tmp_path / "m.pybnc")
    loaded = pybnc.load(tmp_path / "m.pybnc")
    assert loaded.counts_.layout != "rows"  # stored as pair counts
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    whole = TAN().fit(X, y)
    for m in (model, loaded):
        m.partial_fit(X[40:], y[40:])
        np.testing.assert_allclose(m.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-12)


def test_cross_validation_of_a_rows_layout_table_equals_refits(rows_from_small_tables):
    from pybnc.evaluation import cross_validate

    X, y = _wide_categorical(np.random.default_rng(8))
    models = {"TAN": TAN(), "KDB": __import__("pybnc").KDB(k=1, verbose=0)}
    fast = cross_validate(models, X, y, cv=3, verbose=0, return_proba=True)[1]
    slow = cross_validate(models, X, y, cv=3, verbose=0, fast=False, return_proba=True)[1]
    for name in models:
        assert np.array_equal(fast[name], slow[name])
