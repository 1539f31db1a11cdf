"""Counts are exact and additive; information and scores equal slow direct formulas."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pybnc.counts import tables as counts_module
from pybnc.counts.tables import count
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


@pytest.mark.parametrize("layout", ["auto", "dense", "reduced", "sparse"])
@pytest.mark.parametrize("missing", ["none", "some columns", "every column"])
def test_pair_counts_match_direct_counting(rng, missing, layout):
    codes, y = random_codes(rng, 300, CARDS, 3, 0.0 if missing == "none" else 0.2)
    if missing == "some columns":  # features 0 and 3 seen in every row: reduced, they lose a level
        codes[:, [0, 3]] = np.maximum(codes[:, [0, 3]], 0)
    counts = count(codes, y, CARDS, 3, layout=layout)
    assert counts.layout == ("reduced" if layout == "auto" else layout)
    for i, j in itertools.product(range(len(CARDS)), repeat=2):
        expected = slow_pair_counts(codes, y, i, j, CARDS[i], CARDS[j], 3)
        if i == j:
            np.testing.assert_array_equal(counts.feature(i), np.einsum("kaa->ka", expected))
        else:
            np.testing.assert_array_equal(counts.pair(i, j), expected)
    np.testing.assert_array_equal(counts.class_counts, np.bincount(y, minlength=3))


def test_counts_are_additive(rng):
    codes, y = random_codes(rng, 500, CARDS, 3, 0.1)
    codes[:, 1] = np.maximum(codes[:, 1], 0)  # one feature seen in every row: it loses a level
    whole = count(codes, y, CARDS, 3)
    parts = count(codes[:200], y[:200], CARDS, 3) + count(codes[200:], y[200:], CARDS, 3)
    assert whole.layout == parts.layout == "reduced" and whole.reduced.dtype == np.float32
    np.testing.assert_array_equal(whole.reduced, parts.reduced)
    np.testing.assert_array_equal(whole.class_counts, parts.class_counts)
    back = whole - count(codes[200:], y[200:], CARDS, 3)
    np.testing.assert_array_equal(back.dense_joint(), count(codes[:200], y[:200], CARDS, 3, layout="dense").joint)
    # a block where feature 1 is missing somewhere keeps all its levels: the sum is still exact
    other = codes[:100].copy()
    other[0, 1] = -1
    mixed = whole + count(other, y[:100], CARDS, 3)
    np.testing.assert_array_equal(mixed.dense_joint(),
                                  count(np.vstack([codes, other]), np.r_[y, y[:100]], CARDS, 3, layout="dense").joint)


def test_reduced_counts_turn_float64_before_float32_stops_being_exact(rng, monkeypatch):
    codes, y = random_codes(rng, 200, CARDS, 2)
    small = count(codes, y, CARDS, 2)
    assert small.reduced.dtype == np.float32
    monkeypatch.setattr(counts_module, "_FLOAT32_EXACT_BELOW", 300)  # 2**24 rows, scaled down
    assert count(codes, y, CARDS, 2).reduced.dtype == np.float32
    total = small + small
    assert total.reduced.dtype == np.float64
    np.testing.assert_array_equal(total.reduced, 2.0 * small.reduced)
    assert count(np.vstack([codes, codes]), np.r_[y, y], CARDS, 2).reduced.dtype == np.float64


def test_sparse_counts_equal_dense_exactly(rng):
    cards = CARDS + [0, 1]  # a feature never observed, a constant one
    codes, y = random_codes(rng, 400, CARDS, 3, 0.15)
    codes = np.column_stack([codes, np.full(400, -1), np.zeros(400, int)])
    dense, sparse = count(codes, y, cards, 3, layout="dense"), count(codes, y, cards, 3, layout="sparse")
    assert (dense.layout, sparse.layout) == ("dense", "sparse")
    reduced = count(codes, y, cards, 3)
    assert reduced.layout == "reduced" and reduced.kept.size == sum(cards) - 1  # the constant one lost its level
    np.testing.assert_array_equal(reduced.dense_joint(), dense.joint)
    for c in range(3):  # the same nonzero cells, whichever layout holds them
        for got, want in zip(reduced.pair_entries(c), sparse.pair_entries(c)):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(sparse.dense_joint(), dense.joint)
    np.testing.assert_array_equal(sparse.levels, dense.levels)
    # the sparse blocks are counted a run of features at a time: any run length gives them
    for budget in (1, 5_000):
        for c in range(3):
            run = counts_module._sparse_upper(codes[y == c], dense.offsets, sum(cards), budget=budget)
            assert run.has_sorted_indices
            np.testing.assert_array_equal(run.toarray(), sparse.sparse[c].toarray())
    # additive whatever the layouts of the parts, and folds subtract
    mixed = count(codes[:150], y[:150], cards, 3, layout="sparse") + count(codes[150:], y[150:], cards, 3)
    np.testing.assert_array_equal(mixed.dense_joint(), dense.joint)
    fold = sparse - count(codes[150:], y[150:], cards, 3, layout="sparse")
    np.testing.assert_array_equal(fold.dense_joint(), count(codes[:150], y[:150], cards, 3).dense_joint())
    # the scores read either layout
    (cmi_d, n_d), (cmi_s, n_s) = pairwise_cmi(dense), pairwise_cmi(sparse)
    np.testing.assert_array_equal(n_s, n_d)
    np.testing.assert_allclose(cmi_s, cmi_d, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(ode_arc_weights(sparse, "bic") == -np.inf, ode_arc_weights(dense, "bic") == -np.inf)


def test_level_counts_alone_equal_the_pairs_diagonal(rng):
    codes, y = random_codes(rng, 300, CARDS, 3, 0.2)
    levels = count(codes, y, CARDS, 3, pairs=False)
    assert levels.layout == "levels" and not levels.has_pairs
    np.testing.assert_array_equal(levels.levels, count(codes, y, CARDS, 3).levels)
    with pytest.raises(ValueError, match="no pair counts"):
        levels.pair(0, 1)


def test_layout_follows_the_shape_and_an_impossible_one_is_refused(monkeypatch):
    assert counts_module.pair_layout(1000, [3] * 20, 2) == "reduced"
    # wide binary tables stay dense: reduced (a level less per feature), float32 below 2**24 rows
    for rows, d in [(200, 2000), (300, 3000), (2000, 3000), (200, 5000)]:
        assert counts_module.pair_layout(rows, [2] * d, 2, np.ones(d, bool)) == "reduced"
    assert counts_module.pair_layout(300, [2] * 10_000, 2, np.ones(10_000, bool)) == "reduced"  # 800 MB, sparse 4.8 GB
    assert counts_module.pair_layout(20_000, [500] * 50, 2) == "sparse"  # K W^2 = 1.25e9 cells
    assert counts_module.pair_layout(50, [40] * 100, 2) == "sparse"  # rows few next to cells
    monkeypatch.setattr(counts_module, "MAX_SPARSE_CELLS", 10_000)
    with pytest.raises(MemoryError, match=r"20,000 rows x 50 features \(25,000 levels.*MAX_SPARSE_CELLS"):
        counts_module.pair_layout(20_000, [500] * 50, 2)


def test_gram_is_exact_across_chunks(rng, monkeypatch):
    monkeypatch.setattr(counts_module, "_CHUNK_ROWS", 64)
    codes, y = random_codes(rng, 1000, CARDS, 2)
    chunked = count(codes, y, CARDS, 2)
    chunked_dense = count(codes, y, CARDS, 2, layout="dense")
    monkeypatch.setattr(counts_module, "_CHUNK_ROWS", 1 << 16)
    np.testing.assert_array_equal(chunked.reduced, count(codes, y, CARDS, 2).reduced)
    np.testing.assert_array_equal(chunked_dense.joint, count(codes, y, CARDS, 2, layout="dense").joint)


@pytest.mark.parametrize("cards", [CARDS, (2,) * 9, (3, 0, 3, 3, 2)])
def test_dense_cmi_in_blocks_of_features_equals_the_whole_table_bitwise(rng, cards):
    """Block by block (no temporary as large as the counts) the terms are those of the
    whole table to the last bit, for equal and unequal widths and a feature without levels."""
    from pybnc.scores.information import _dense_cmi_terms
    codes, y = random_codes(rng, 300, [max(r, 1) for r in cards], 2, 0.1)
    codes[:, [j for j, r in enumerate(cards) if r == 0]] = -1
    counts = count(codes, y, cards, 2)
    whole = _dense_cmi_terms(counts, chunk_cells=1 << 40)
    for chunk in (1, 7, 40):
        for got, want in zip(_dense_cmi_terms(counts, chunk_cells=chunk), whole):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("cards", [(2,) * 12, (2, 3, 4, 1, 5, 2, 3, 3)])
def test_cmi_from_reduced_counts_equals_the_full_counts_in_any_blocks(rng, cards):
    """No missing value: the CMI read from the reduced cells (each feature's last level
    rebuilt from the level counts), in blocks of any size, equals the CMI of the full
    dense counts and the textbook formula."""
    from pybnc.scores.information import _reduced_cmi
    codes, y = random_codes(rng, 300, cards, 3)
    reduced, dense = count(codes, y, cards, 3), count(codes, y, cards, 3, layout="dense")
    assert reduced.kept.size == sum(cards) - len(cards)
    want, n_want = pairwise_cmi(dense)
    got, n_got = pairwise_cmi(reduced)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(n_got, n_want)
    for chunk in (1, 5, 37):
        np.testing.assert_array_equal(_reduced_cmi(reduced, chunk_cells=chunk)[0], want)
    for i, j in itertools.combinations(range(len(cards)), 2):  # rounded to 1e-12 nats
        assert got[i, j] == pytest.approx(slow_cmi(codes, y, i, j), rel=1e-10, abs=1e-12)


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


@pytest.mark.parametrize("name", ["TAN", "FAN", "KDB"])
def test_models_learn_the_same_from_sparse_and_dense_counts(rng, monkeypatch, name):
    """Few rows next to many cells: the pairs are counted sparse; TAN/FAN/kDB equal
    the same fits from dense counts, and so does a stream of blocks."""
    import pybnc
    from pybnc.streaming import fit_blocks

    X = pd.DataFrame(rng.integers(0, 30, size=(60, 30)).astype(str)).radd("v").add_prefix("f")  # text levels
    X.iloc[::7, 3] = None
    y = rng.choice(["a", "b"], 60)
    sparse = getattr(pybnc, name)().fit(X, y)
    assert sparse.counts_.layout == "sparse"
    blocks = fit_blocks(getattr(pybnc, name)(), [(X[:25], y[:25]), (X[25:], y[25:])], classes=["a", "b"]) \
        if hasattr(sparse, "partial_fit") else sparse
    monkeypatch.setattr(counts_module, "pair_layout", lambda *a: "dense")
    dense = getattr(pybnc, name)().fit(X, y)
    assert dense.counts_.layout == "dense"
    assert sparse.structure_ == dense.structure_ == blocks.structure_
    np.testing.assert_allclose(sparse.predict_proba(X), dense.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(blocks.predict_proba(X), dense.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("cards", [(2,) * 12, (2, 3, 4, 1, 5, 2, 3, 3, 2, 2, 4, 0)])
def test_cmi_from_reduced_counts_with_a_few_features_missing_values(rng, cards):
    """A feature with missing values keeps all its levels in the reduced counts; its
    pairs (margins over the rows where both are observed) are done apart from the
    blocks, and every pair equals the full dense counts and the textbook formula."""
    codes, y = random_codes(rng, 300, [max(r, 1) for r in cards], 3)
    codes[:, [j for j, r in enumerate(cards) if r == 0]] = -1  # a feature never observed
    codes[rng.random(300) < 0.2, 2] = -1
    reduced, dense = count(codes, y, cards, 3), count(codes, y, cards, 3, layout="dense")
    kept_all = reduced.kept.size - (sum(cards) - len(cards))
    assert 0 < 4 * kept_all <= len(cards)  # the features that kept all their levels: few
    want, n_want = pairwise_cmi(dense)
    got, n_got = pairwise_cmi(reduced)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(n_got, n_want)
    from pybnc.scores.information import _reduced_cmi
    for chunk in (1, 9):
        np.testing.assert_array_equal(_reduced_cmi(reduced, chunk_cells=chunk)[0], got)
    for i, j in itertools.combinations(range(len(cards)), 2):
        if n_got[i, j]:
            assert got[i, j] == pytest.approx(slow_cmi(codes, y, i, j), rel=1e-10, abs=1e-12)


def test_dense_rows_of_every_class_at_once_equal_the_dense_blocks(rng):
    """``dense_rows`` with a slice of classes: the dense table's blocks, class by class."""
    codes, y = random_codes(rng, 300, CARDS, 3)
    codes[rng.random(300) < 0.2, 1] = -1  # one feature keeps all its levels
    reduced, dense = count(codes, y, CARDS, 3), count(codes, y, CARDS, 3, layout="dense")
    assert reduced.layout == "reduced"
    off = dense.offsets
    for f0, f1, g0, g1 in [(0, 5, 0, 5), (1, 2, 0, 5), (2, 4, 1, 3), (4, 5, 2, 5)]:
        want = dense.joint[:, off[f0] : off[f1], off[g0] : off[g1]]
        np.testing.assert_array_equal(reduced.dense_rows(slice(None), f0, f1, g0, g1), want)
        np.testing.assert_array_equal(reduced.dense_rows(slice(1, 3), f0, f1, g0, g1), want[1:3])
        for c in range(3):
            np.testing.assert_array_equal(reduced.dense_rows(c, f0, f1, g0, g1), want[c])


def test_xlogx_read_from_a_table_of_whole_counts_is_the_computed_one_to_the_bit(rng):
    """Large arrays of whole counts read ``n log n`` from a table; anything else (fractions,
    negatives, NaN, a count larger than the array) is computed: the same bits either way."""
    from pybnc.scores.information import _LOOKUP_FROM, _xlogx, _xlogx_direct
    whole = rng.integers(0, 40, size=(_LOOKUP_FROM // 64 + 1, 64)).astype(np.float64)
    weighted = whole * 0.37
    big = whole.copy()
    big[0, 0] = 10.0 * whole.size
    negative = whole.copy()
    negative[3, 5] = -2.0
    nan = whole.copy()
    nan[1, 1] = np.nan
    small = whole[:2]  # under the size of a lookup
    for a in (whole, weighted, big, negative, nan, small, whole[:, ::3], np.zeros(_LOOKUP_FROM)):
        want = _xlogx_direct(a)
        got = _xlogx(a)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_a_dense_copy_past_the_bound_is_refused_with_the_fix(rng, monkeypatch):
    """AODE's (K, W, W) tables over the bound: a MemoryError that says why and what to change."""
    from pybnc import AODE, TAN
    monkeypatch.setattr(counts_module, "DENSE_MAX_CELLS", 1000)
    codes, y = random_codes(rng, 200, (6,) * 8, 3)
    with pytest.raises(MemoryError, match=r"3 classes x 48 x 48 levels = 6,912 cells.*smaller n_bins.*TAN, KDB"):
        AODE().fit(codes, y)
    TAN().fit(codes, y)  # its tables follow its arcs
