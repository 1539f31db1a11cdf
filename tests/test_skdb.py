"""SKDB: leave-one-out from counts equals refitting without the row; out of core equals fit."""

import numpy as np
import pandas as pd
import pytest

from pybnc import SKDB
from pybnc.counts.tables import count
from pybnc.counts.families import count_families
from pybnc.search.kdb import sahami_ranking
from pybnc.search.leave_one_out import loo_losses, loo_lookups
from pybnc.streaming import fit_blocks, fit_dask

from tests.conftest import random_codes


def _refit_true_class_proba(codes, y, cards, n_classes, order, ranked, held, s, k, alpha):
    """P(y_held | x_held) of the candidate (s, k) fitted without row ``held`` (brute force)."""
    rest = np.arange(len(y)) != held
    x, rc, ry = codes[held], codes[rest], y[rest]
    log_p = np.log((np.bincount(ry, minlength=n_classes) + alpha) / (len(ry) + n_classes * alpha))
    for i in order[:s]:
        used = list(ranked[i][:k]) + [i]
        if (x[used] < 0).any():
            continue  # the selection leaves out a factor it cannot evaluate without the value
        parents_match = (rc[:, used[:-1]] == x[used[:-1]]).all(axis=1) & (rc[:, i] >= 0)
        for c in range(n_classes):
            den = np.sum(parents_match & (ry == c))
            num = np.sum(parents_match & (ry == c) & (rc[:, i] == x[i]))
            log_p[c] += np.log((num + alpha) / (den + cards[i] * alpha))
    p = np.exp(log_p - log_p.max())
    return p[y[held]] / p.sum()


@pytest.mark.parametrize("missing_rate", [0.0, 0.15])
@pytest.mark.parametrize("max_cells", [0, np.inf])  # factors computed per row / read from tables
def test_leave_one_out_equals_refit_without_the_row(rng, missing_rate, max_cells):
    cards, n_classes, k, alpha = [2, 3, 2, 3, 2], 3, 2, 1.0
    codes, y = random_codes(rng, 40, cards, n_classes, missing_rate)
    order, ranked = sahami_ranking(count(codes, y, cards, n_classes), k)
    fc = count_families(codes, y, cards, n_classes, [ranked[i] + (int(i),) for i in order])
    lookups = loo_lookups(fc, k, alpha, max_cells=max_cells)
    squared_errors = 0.0
    for held in range(len(y)):
        losses = loo_losses(fc, order, codes[held : held + 1], y[held : held + 1], k, alpha, "log_loss",
                            lookups=lookups)
        expected = np.array([[_refit_true_class_proba(codes, y, cards, n_classes, order, ranked, held, s, kk, alpha)
                              for kk in range(k + 1)] for s in range(len(cards) + 1)])
        np.testing.assert_allclose(np.exp(-losses), expected, rtol=1e-10)
        squared_errors = squared_errors + (1 - expected) ** 2
    rmse = loo_losses(fc, order, codes, y, k, alpha, "rmse", lookups=lookups)  # all rows in one block
    np.testing.assert_allclose(rmse, squared_errors, rtol=1e-10)


def test_selection_is_the_least_loss_and_the_model_keeps_it():
    X, y = random_codes(np.random.default_rng(3), 300, [3, 3, 2, 4, 2, 3], 2)
    model = SKDB(k=3, loss="zero_one").fit(pd.DataFrame(X).astype("category"), y)
    s, kk = model.n_selected_, model.k_selected_
    assert model.selection_loss_[s, kk] == model.selection_loss_.min()
    kept = set(int(i) for i in model.order_[:s])
    for i, parents in enumerate(model.structure_.parents):
        assert (len(parents) <= kk and set(parents) <= kept) if i in kept else parents == ()


def _frame(seed=5, n=600, missing=0.1):
    codes, y = random_codes(np.random.default_rng(seed), n, [3, 2, 4, 3, 2], 3, missing)
    X = pd.DataFrame({f"f{j}": pd.Series(codes[:, j]).map(lambda v: None if v < 0 else f"v{v}")
                      for j in range(codes.shape[1])})
    return X, pd.Series(y).map({0: "a", 1: "b", 2: "c"})


def _same_model(a, b):
    assert (a.n_selected_, a.k_selected_) == (b.n_selected_, b.k_selected_)
    np.testing.assert_allclose(a.selection_loss_, b.selection_loss_, rtol=1e-12)
    for ta, tb in zip(a.log_cpts_, b.log_cpts_):
        np.testing.assert_allclose(ta, tb, rtol=1e-12)


def test_out_of_core_equals_fit():
    X, y = _frame()
    full = SKDB(k=2).fit(X, y)
    blocks = [(X[i : i + 150], y[i : i + 150]) for i in range(0, len(X), 150)]
    _same_model(fit_blocks(SKDB(k=2), blocks, classes=["a", "b", "c"]), full)
    assert not hasattr(SKDB(), "partial_fit")  # three passes: refused, with the fix
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(X.assign(target=y), npartitions=3)
    _same_model(fit_dask(SKDB(k=2), ddf, "target", scheduler="synchronous"), full)
    with pytest.raises(TypeError, match="SKDB reads the blocks 3 times.*can be read only once"):
        fit_blocks(SKDB(), iter(blocks), classes=["a", "b", "c"])
