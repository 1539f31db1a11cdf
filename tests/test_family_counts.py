"""Family counts: brute force, additivity, and exact sub-families from the missing slot."""

import itertools

import numpy as np

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
