"""AODE and A2DE in the ALR^n form (pybnc.averaging.alr): the start, the gradient, blocks."""

import itertools

import numpy as np
import pytest

from pybnc import AnDE
from pybnc.averaging import alr
from pybnc.averaging._alr_pairs import PairBlock
from pybnc.averaging.alr import SuperParentCells, alr_designs, alr_scores, fit_alr_weights
from pybnc.parameters.discriminative import penalised_objective


def rows(seed, n=120, d=4, levels=3, k=2, missing=0.15):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    codes = np.where(rng.random((n, d)) < 0.6, y[:, None] % levels, rng.integers(0, levels, (n, d)))
    codes[rng.random((n, d)) < missing] = -1
    return codes, y


def fitted_space(n, codes, y, min_count):
    model = AnDE(n=n, min_count=min_count).fit(codes, y)
    offsets = np.concatenate([[0], np.cumsum(model.encoder_.cardinalities_)])
    naive = np.concatenate([t[:, 0] for t in model.log_cpts_], axis=1)
    extra = {"log_pair": model.log_pair_, "log_pair_child": model.log_pair_child_} if n == 2 else {}
    space = SuperParentCells(n, offsets, model.log_joint_, model.log_child_, model.class_log_prior_, naive, **extra)
    return model, space, offsets


def brute_force_log_mean(codes, model, offsets, n):
    """The geometric mean of the SPnDEs of every row, by enumeration (AnDE's fallbacks)."""
    out = []
    for row in codes:
        seen = [i for i in range(row.size) if row[i] >= 0]
        col = {i: offsets[i] + row[i] for i in seen}
        terms = []
        if n == 2:
            for i, j in itertools.combinations(seen, 2):
                if model.pair_ok_[col[i], col[j]]:
                    terms.append(model.log_pair_[:, col[i], col[j]]
                                 + sum(model.log_pair_child_[:, col[i], col[j], col[l]] for l in seen if l not in (i, j)))
        if not terms:
            for j in seen:
                if model.super_parent_ok_[col[j]]:
                    terms.append(model.log_joint_[:, col[j]] + sum(model.log_child_[:, col[j], col[l]]
                                                                   for l in seen if l != j))
        if terms:
            out.append(np.mean(terms, axis=0))
        else:
            out.append(model.class_log_prior_ + sum(model.log_cpts_[l][:, 0, row[l]] for l in seen))
    return np.array(out)


@pytest.mark.parametrize("n, dense", [(1, False), (2, False), (2, True)])
@pytest.mark.parametrize("min_count", [0, 25])
def test_weights_of_one_give_the_log_mean_of_the_estimators(n, dense, min_count, monkeypatch):
    monkeypatch.setattr(alr, "DENSE_PAIR_CELLS", 1 << 24 if dense else 0)
    codes, y = rows(0)
    model, space, offsets = fitted_space(n, codes, y, min_count)
    np.testing.assert_allclose(alr_scores(codes, space, model.super_parent_ok_, getattr(model, "pair_ok_", None)),
                               brute_force_log_mean(codes, model, offsets, n), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n, dense", [(1, False), (2, False), (2, True)])
def test_gradient_matches_finite_differences(n, dense, monkeypatch):
    monkeypatch.setattr(alr, "DENSE_PAIR_CELLS", 1 << 24 if dense else 0)
    codes, y = rows(1, n=80)
    model, space, _ = fitted_space(n, codes, y, 10)
    designs = alr_designs(codes, space, model.super_parent_ok_, getattr(model, "pair_ok_", None), y)
    assert any(isinstance(d, PairBlock) for d in designs) == dense
    rng = np.random.default_rng(2)
    cells = np.unique(np.concatenate([d.cells() for d in designs]))
    values = space(cells).T
    compact = [d.on(cells, space.n_cells) for d in designs]
    w = rng.uniform(0.5, 1.5, values.shape)
    _, gradient = penalised_objective(w, values, compact, 0.7)
    for flat in rng.choice(values.size, 30, replace=False):
        m, c = divmod(int(flat), values.shape[1])
        up, down = w.copy(), w.copy()
        up[m, c] += 1e-6
        down[m, c] -= 1e-6
        numeric = (penalised_objective(up, values, compact, 0.7)[0]
                   - penalised_objective(down, values, compact, 0.7)[0]) / 2e-6
        assert numeric == pytest.approx(gradient[m, c], abs=1e-7, rel=1e-5)


def test_dense_pairs_equal_the_sparse_design(monkeypatch):
    codes, y = rows(5, n=200)
    model, space, _ = fitted_space(2, codes, y, 5)
    args = (codes, y, model.super_parent_ok_, model.pair_ok_)
    dense = fit_alr_weights(space, *args, penalty=0.5)
    dense_space = space.deltas(dense)
    monkeypatch.setattr(alr, "DENSE_PAIR_CELLS", 0)
    sparse = fit_alr_weights(space, *args, penalty=0.5)
    sparse_space = space.deltas(sparse)
    np.testing.assert_array_equal(dense.cells, sparse.cells)
    np.testing.assert_allclose(dense.weights, sparse.weights, atol=1e-6)
    np.testing.assert_allclose(alr_scores(codes, dense_space, *args[2:]), alr_scores(codes, sparse_space, *args[2:]),
                               atol=1e-6)


@pytest.mark.parametrize("n", [1, 2])
def test_blocks_rebuilt_at_every_evaluation_equal_the_held_design(n, monkeypatch):
    codes, y = rows(3, n=150)
    model, space, _ = fitted_space(n, codes, y, 5)
    args = (codes, y, model.super_parent_ok_, getattr(model, "pair_ok_", None))
    held = fit_alr_weights(space, *args, penalty=0.5)
    held_space = space.deltas(held)
    monkeypatch.setattr(alr, "DESIGN_CELLS", 100)
    monkeypatch.setattr(alr, "_BLOCK_ENTRIES", 2000)
    monkeypatch.setattr(alr, "DENSE_PAIR_CELLS", 0)
    assert callable(alr_designs(codes, space, *args[2:], y=y))
    streamed = fit_alr_weights(space, *args, penalty=0.5)
    streamed_space = space.deltas(streamed)
    np.testing.assert_array_equal(streamed.cells, held.cells)
    np.testing.assert_allclose(streamed.weights, held.weights, atol=1e-6)
    np.testing.assert_allclose(alr_scores(codes, streamed_space, *args[2:]), alr_scores(codes, held_space, *args[2:]),
                               atol=1e-5)


@pytest.mark.parametrize("n", [1, 2])
def test_with_the_generative_scores_weights_of_one_are_anDE_itself(n):
    """AnDE averages arithmetically; with its own scores as the base, weights of 1 give it
    exactly, and the fit starts there."""
    raw, y = rows(6, n=200)
    model, space, _ = fitted_space(n, raw, y, 5)
    codes = model.encoder_.transform(raw)  # the model's own codes (the generative scores read them)
    args = (model.super_parent_ok_, getattr(model, "pair_ok_", None))
    fit = fit_alr_weights(space, codes, y, *args, penalty=0.5, generative=model._generative_jll)
    proba = np.exp(model.predict_log_proba(raw))
    start = -np.mean(np.log(proba[np.arange(y.size), y]))
    assert fit.initial_objective == pytest.approx(start, rel=1e-9) and fit.objective < start
    fit.weights[:] = 1.0
    np.testing.assert_allclose(alr_scores(codes, space.deltas(fit), *args), 0.0, atol=1e-12)


def test_discriminative_weights_fit_the_training_rows_better():
    codes, y = rows(4, n=300, missing=0.0)
    model, space, _ = fitted_space(1, codes, y, 0)
    fit = fit_alr_weights(space, codes, y, model.super_parent_ok_, penalty=0.1)
    assert fit.converged and fit.objective < fit.initial_objective
    before = alr_scores(codes, space, model.super_parent_ok_)
    after = before + alr_scores(codes, space.deltas(fit), model.super_parent_ok_)

    def log_loss(scores):
        scores = scores - scores.max(axis=1, keepdims=True)
        return float(np.mean(np.log(np.exp(scores).sum(axis=1)) - scores[np.arange(y.size), y]))

    assert log_loss(after) < log_loss(before)


def _blocked_space(monkeypatch, n, seed, dense, held):
    """An A(n)DE's cell space on 160 rows, its designs in several blocks (3,000 entries
    each), A2DE's pair rows dense or not, the designs held as rows or streamed."""
    monkeypatch.setattr(alr, "DENSE_PAIR_CELLS", 1 << 24 if dense else 0)
    monkeypatch.setattr(alr, "_BLOCK_ENTRIES", 3000)
    if not held:
        monkeypatch.setattr(alr, "DESIGN_CELLS", 100)
    raw, y = rows(seed, n=160)
    model, space, _ = fitted_space(n, raw, y, 5)
    return model, space, model.encoder_.transform(raw), y, (model.super_parent_ok_, getattr(model, "pair_ok_", None))


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("held", [True, False])
def test_offsets_from_the_held_designs_are_those_of_the_scores_built_again(n, held, monkeypatch):
    """The designs built once give the log-mean their offsets subtract, to the bit: what
    ``alr_scores`` gives on the same rows (built again), block by block, held or streamed
    (A2DE's dense pair rows take the path that builds them again)."""
    model, space, codes, y, args = _blocked_space(monkeypatch, n, 7, dense=False, held=held)
    assert callable(alr_designs(codes, space, *args, y)) != held
    assert alr._held_as_rows(codes, space) == held  # the rule offset_alr_designs reads, as alr_designs decides
    designs = alr.offset_alr_designs(codes, space, *args, y, None, model._generative_jll)
    designs = list(designs() if callable(designs) else designs)
    assert len(designs) > 1
    want = model._generative_jll(codes) - alr_scores(codes, space, *args)
    got = np.concatenate([d.offset for d in designs])
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("n, dense, held", [(1, False, False), (2, False, False), (2, True, True)])
def test_designs_not_held_as_rows_are_built_as_before_and_no_more(n, dense, held, monkeypatch):
    """Streamed designs, or A2DE's dense pair rows: the offsets come from alr_scores, and no
    design is built beyond what alr_scores and alr_designs build themselves."""
    model, space, codes, y, args = _blocked_space(monkeypatch, n, 8, dense=dense, held=held)
    assert not alr._held_as_rows(codes, space)
    built = []
    original = alr._block_design
    monkeypatch.setattr(alr, "_block_design", lambda *a, **k: built.append(1) or original(*a, **k))
    alr.alr_scores(codes, space, *args)
    alr.alr_designs(codes, space, *args, y)
    before = len(built)
    built.clear()
    alr.offset_alr_designs(codes, space, *args, y, None, model._generative_jll)
    assert len(built) == before
