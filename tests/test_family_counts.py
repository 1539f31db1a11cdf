"""Family counts: brute force, additivity, and exact sub-families from the missing slot."""

import itertools

import numpy as np
import pytest

from pybnc.counts.families import count_families
from tests.conftest import random_codes


def _brute(codes, y, cards, k, family):
    table = np.zeros((k, *(cards[v] for v in family)))
    for row, c in zip(codes, y):
        if all(row[v] >= 0 for v in family):
            table[(c, *(row[v] for v in family))] += 1
    return table


def test_tables_equal_brute_force_and_sub_families(rng):
    cards = [2, 3, 4, 2]
    codes, y = random_codes(rng, 300, cards, 3, missing_rate=0.15)
    families = [(0,), (1, 0), (2, 1, 3), (0, 1, 2, 3)]
    fc = count_families(codes, y, cards, 3, families)
    for f, fam in enumerate(families):
        assert np.array_equal(fc.table(f), _brute(codes, y, cards, 3, fam))
        for size in range(1, len(fam) + 1):
            for keep in itertools.combinations(range(len(fam)), size):
                sub = tuple(fam[a] for a in keep)
                assert np.array_equal(fc.marginal(f, keep), _brute(codes, y, cards, 3, sub)), (fam, keep)
    assert fc.index((2, 1, 3)) == 2


def test_additive(rng):
    cards = [3, 2, 2]
    codes, y = random_codes(rng, 200, cards, 2, missing_rate=0.1)
    fams = [(0, 1, 2), (2, 0)]
    whole = count_families(codes, y, cards, 2, fams)
    a = count_families(codes[:70], y[:70], cards, 2, fams)
    b = count_families(codes[70:], y[70:], cards, 2, fams)
    total = a + b
    assert all(np.array_equal(s, t) for s, t in zip(total.tables, whole.tables))
    assert np.array_equal(total.class_counts, whole.class_counts)
    back = whole - b
    assert all(np.array_equal(s, t) for s, t in zip(back.tables, a.tables))


def test_large_sparse_tables_sum_from_their_cells(rng, monkeypatch):
    """A table of many more cells than rows is written and summed from the rows' cells:
    the same tables, marginals, sums and leave-one-out sub-tables as the dense path, also
    after adding and subtracting counts."""
    import pybnc.counts.families as families
    from pybnc.search.leave_one_out import _sub_tables

    cards = [9, 8, 7, 9, 8, 6]  # a family of all six: 3 x 10 x 9 x 8 x 10 x 9 x 7 cells
    codes, y = random_codes(rng, 150, cards, 3, missing_rate=0.1)
    fams = [(0, 1, 2, 3, 4, 5), (5, 0)]

    def both(make):
        sparse = make()
        monkeypatch.setattr(families, "SPARSE_CELLS", 10**12)
        dense = make()
        monkeypatch.undo()
        return sparse, dense

    for sparse, dense in [both(lambda: count_families(codes, y, cards, 3, fams)),
                          both(lambda: count_families(codes[:90], y[:90], cards, 3, fams)
                               + count_families(codes[90:], y[90:], cards, 3, fams)),
                          both(lambda: count_families(codes, y, cards, 3, fams)
                               - count_families(codes[:40], y[:40], cards, 3, fams))]:
        assert sparse.occupied[0] is not None and dense.occupied[0] is None and sparse.occupied[1] is None
        for f, fam in enumerate(fams):
            assert np.array_equal(sparse.tables[f], dense.tables[f])
            for keep in [(0,), (0, len(fam) - 1), (1, 3, 5)][: 3 if len(fam) == 6 else 2]:
                assert np.array_equal(sparse.marginal(f, keep), dense.marginal(f, keep))
        sub_sparse = _sub_tables(sparse.tables[0], 5, sparse.occupied[0])
        sub_dense = _sub_tables(dense.tables[0], 5)
        assert [(t.shape, s.shape) for t, s in sub_sparse] == [(t.shape, s.shape) for t, s in sub_dense]
        assert all(np.array_equal(a, b) and np.array_equal(c, d) for (a, c), (b, d) in zip(sub_sparse, sub_dense))
    assert np.array_equal(sparse.marginal(0, (0, 5)), _brute(codes, y, cards, 3, (0, 5)) - _brute(
        codes[:40], y[:40], cards, 3, (0, 5)))


def test_untouched_zeros_are_zeros_that_write_pickle_and_save():
    """The large sparse tables live in memory mapped afresh: zeros, writable, and copied
    like any array (pickled for processes, saved in model files)."""
    import pickle

    from pybnc.counts.families import untouched_zeros

    for _ in range(3):  # also once the heap holds freed blocks of that size
        table = untouched_zeros(5_000_000)
        assert table.shape == (5_000_000,) and table.dtype == np.float64 and not table.any()
        table[[3, 4_999_999]] = [2.0, 1.0]
        again = pickle.loads(pickle.dumps(table.reshape(1000, 5000)))
        assert again.sum() == 3.0 and again[0, 3] == 2.0 and again.flags.writeable
        del table, again
    assert untouched_zeros(0).shape == (0,)


@pytest.mark.parametrize("n, d, n_classes, levels, k, alpha, loss, missing, leave_out", [
    (300, 6, 3, 3, 2, 1.0, "rmse", False, True),
    (300, 6, 3, 3, 2, 1.0, "log_loss", True, True),
    (2000, 10, 4, 4, 5, 1.0, "rmse", True, True),
    (200, 12, 10, 3, 5, 0.0, "rmse", True, True),
    (500, 8, 2, 5, 3, 1.0, "zero_one", True, True),
    (400, 8, 3, 3, 3, 1.0, "rmse", True, False),
    (50, 30, 5, 6, 5, 0.5, "log_loss", True, True),
])
def test_the_leave_one_out_kernel_gives_the_numpy_losses_bit_for_bit(n, d, n_classes, levels, k, alpha, loss,
                                                                     missing, leave_out, monkeypatch):
    import warnings

    import pybnc.search.leave_one_out as loo

    if loo._native is None:
        pytest.skip("the compiled kernels are not built")
    rng = np.random.default_rng(n + d)
    cards = rng.integers(2, levels + 1, size=d)
    codes = np.stack([rng.integers(0, c, size=n) for c in cards], 1)
    if missing:
        codes[rng.random(codes.shape) < 0.1] = -1
    y = rng.integers(0, n_classes, size=n)
    order = rng.permutation(d)
    families = [tuple(int(v) for v in order[:p][::-1][:k]) + (int(i),) for p, i in enumerate(order)]
    fc = count_families(codes, y, cards, n_classes, families)
    compiled = loo.loo_losses(fc, order, codes, y, k, alpha, loss, leave_out)
    monkeypatch.setattr(loo, "_native", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # maximum likelihood's empty cells, in numpy
        twin = loo.loo_losses(fc, order, codes, y, k, alpha, loss, leave_out)
    assert np.array_equal(compiled, twin)
