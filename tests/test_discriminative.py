"""Discriminative parameters (pybnc.parameters.discriminative): gradient, optimum, start, failures."""

import threading
import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.preprocessing import OneHotEncoder

from pybnc.counts.tables import count
from pybnc.inference.forest import joint_log_likelihood
from pybnc.parameters.discriminative import RowDesign, fit_weights, merge_rows, penalised_objective
from pybnc.parameters.network_weights import fit_network_weights, network_cells, network_design, network_scores
from pybnc.parameters.learn import learn_parameters
from pybnc.structure import Structure


def noisy_rows(seed, n=600, d=4, levels=3, k=3, missing=0.0):
    """Rows whose features are noisy copies of the class and of each other."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    codes = np.empty((n, d), dtype=np.int64)
    for i in range(d):
        base = y if i % 2 == 0 else codes[:, i - 1]
        codes[:, i] = np.where(rng.random(n) < 0.6, base % levels, rng.integers(0, levels, n))
    if missing:
        codes[rng.random((n, d)) < missing] = -1
    return codes, y


def tables(structure, codes, y, levels=3, k=3):
    counts = count(codes, y, [levels] * codes.shape[1], k)
    fitted = learn_parameters(structure, counts, "bayes", 1.0, codes, y)
    back_off = learn_parameters(Structure.naive_bayes(codes.shape[1]), counts, "bayes", 1.0)
    return fitted, [t[:, 0, :] for t in back_off.log_cpts]


def problem(seed, name, n, missing=0.0):
    """Rows, the structure's cell values (with back-off) and their layout."""
    codes, y = noisy_rows(seed, n=n, missing=missing)
    fitted, back_off = tables(STRUCTURES[name], codes, y)
    values, layout = network_cells(STRUCTURES[name], fitted.class_log_prior, fitted.log_cpts, back_off)
    return codes, y, values, layout


STRUCTURES = {
    "nb": Structure.naive_bayes(4),
    "tan": Structure.from_arcs(4, [(0, 1), (1, 2), (1, 3)]),
    "kdb2": Structure(((), (0,), (0, 1), (1, 2))),
}


@pytest.mark.parametrize("name", sorted(STRUCTURES))
@pytest.mark.parametrize("penalty", [0.0, 3.0])
def test_gradient_matches_finite_differences(name, penalty):
    structure = STRUCTURES[name]
    codes, y = noisy_rows(0, n=200, missing=0.15)
    fitted, back_off = tables(structure, codes, y)
    values, layout = network_cells(structure, fitted.class_log_prior, fitted.log_cpts, back_off)
    weight = np.random.default_rng(1).uniform(0.5, 2.0, y.size)  # sample weights too
    designs = [network_design(codes[:120], layout, y[:120], weight[:120]),
               network_design(codes[120:], layout, y[120:], weight[120:])]
    rng = np.random.default_rng(2)
    values = values.T  # the optimiser's layout: (cells, K)
    w = rng.uniform(0.3, 1.7, values.shape)
    _, gradient = penalised_objective(w, values, designs, penalty)
    step = 1e-6
    cells = rng.choice(values.size, min(40, values.size), replace=False)
    for flat in cells:
        m, c = divmod(int(flat), values.shape[1])
        up, down = w.copy(), w.copy()
        up[m, c] += step
        down[m, c] -= step
        numeric = (penalised_objective(up, values, designs, penalty)[0]
                   - penalised_objective(down, values, designs, penalty)[0]) / (2 * step)
        assert numeric == pytest.approx(gradient[m, c], abs=1e-7, rel=1e-5)


def test_objective_is_the_weighted_mean_log_loss():
    codes, y = noisy_rows(3, n=100)
    structure = STRUCTURES["tan"]
    fitted, _ = tables(structure, codes, y)
    values, layout = network_cells(structure, fitted.class_log_prior, fitted.log_cpts)
    values = values.T
    w = np.random.default_rng(0).uniform(0.5, 1.5, values.shape)
    scores = network_design(codes, layout).matrix @ (w * values)
    proba = np.exp(scores - logsumexp(scores, axis=1, keepdims=True))
    value, _ = penalised_objective(w, values, [network_design(codes, layout, y)], 2.0)
    expected = log_loss(y, proba, labels=[0, 1, 2]) + 0.5 * 2.0 * np.sum((w - 1) ** 2) / y.size
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_weights_of_one_give_the_generative_predictions(name):
    structure = STRUCTURES[name]
    codes, y = noisy_rows(4, n=300)
    fitted, _ = tables(structure, codes, y)
    scores = network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts)
    jll = joint_log_likelihood(codes, structure, fitted.class_log_prior, fitted.log_cpts, [3] * 4)
    np.testing.assert_allclose(scores, jll, rtol=0, atol=1e-12)


def test_naive_bayes_missing_values_are_summed_out_at_weights_of_one():
    codes, y = noisy_rows(5, n=300, missing=0.3)
    structure = STRUCTURES["nb"]
    fitted, _ = tables(structure, codes, y)
    scores = network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts)
    jll = joint_log_likelihood(codes, structure, fitted.class_log_prior, fitted.log_cpts, [3] * 4)
    np.testing.assert_allclose(scores, jll, rtol=0, atol=1e-12)


def fitted_with_base(seed, name, n, penalty):
    """A fit whose rows score the generative log joint plus the weights' corrections, and
    the scores of the rows."""
    structure = STRUCTURES[name]
    codes, y = noisy_rows(seed, n=n, missing=0.3)
    fitted, back_off = tables(structure, codes, y)

    def generative(rows):
        return joint_log_likelihood(rows, structure, fitted.class_log_prior, fitted.log_cpts, [3] * 4)

    fit = fit_network_weights(structure, fitted.class_log_prior, fitted.log_cpts, codes, y, back_off,
                              penalty=penalty, generative=generative)

    def scores():
        return network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts, back_off, fit=fit,
                              generative=generative)

    return fit, scores, generative(codes), y


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_with_the_generative_scores_weights_of_one_are_the_generative_model_on_every_row(name):
    """Rows with missing values too: the generative part sums them out exactly, the weights
    only add (w - 1) log theta; here the fit's weights are then all set to 1."""
    fit, scores, generative, _ = fitted_with_base(16, name, 300, 0.5)
    assert np.abs(scores() - generative).max() > 0.1  # the weights did move the scores
    fit.weights[:] = 1.0
    np.testing.assert_allclose(scores(), generative, atol=1e-12)


def test_the_objective_is_the_log_loss_of_the_scores_with_the_generative_base():
    fit, scores, generative, y = fitted_with_base(17, "tan", 200, 0.0)
    proba = np.exp(scores() - logsumexp(scores(), axis=1, keepdims=True))
    assert fit.objective == pytest.approx(log_loss(y, proba), rel=1e-9)
    start = np.exp(generative - logsumexp(generative, axis=1, keepdims=True))
    assert fit.initial_objective == pytest.approx(log_loss(y, start), rel=1e-9)


def test_a_missing_parent_reads_the_back_off_cell():
    codes = np.array([[-1, 2, 0, 1]])
    structure = STRUCTURES["tan"]  # 0 -> 1 -> {2, 3}
    fitted, back_off = tables(structure, *noisy_rows(6, n=200))
    scores = network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts, back_off)
    expected = (fitted.class_log_prior + back_off[1][:, 2] + fitted.log_cpts[2][:, 2, 0]
                + fitted.log_cpts[3][:, 2, 1])
    np.testing.assert_allclose(scores[0], expected, rtol=1e-12)
    dropped = network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts)  # no back-off
    np.testing.assert_allclose(dropped[0], expected - back_off[1][:, 2], rtol=1e-12)


def test_unpenalised_naive_bayes_reaches_logistic_regression():
    """Same hypothesis space as multinomial logistic regression on one-hot columns: the
    same optimal conditional log-likelihood."""
    codes, y = noisy_rows(7, n=1500, d=4, levels=3, k=3)
    structure = STRUCTURES["nb"]
    fitted, _ = tables(structure, codes, y)
    fit = fit_network_weights(structure, fitted.class_log_prior, fitted.log_cpts, codes, y, penalty=0.0, tol=1e-14,
                              max_iter=5000)
    scores = network_scores(codes, structure, fitted.class_log_prior, fitted.log_cpts, fit=fit)
    ours = log_loss(y, np.exp(scores - logsumexp(scores, axis=1, keepdims=True)))
    onehot = OneHotEncoder().fit_transform(codes).toarray()
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=20000).fit(onehot, y)
    theirs = log_loss(y, lr.predict_proba(onehot))
    assert ours == pytest.approx(theirs, rel=1e-6)
    assert fit.objective == pytest.approx(ours, rel=1e-9)
    generative = log_loss(y, np.exp(fitted.class_log_prior + 0 * scores))  # sanity: far below the prior alone
    assert ours < generative


def test_penalty_pulls_the_weights_to_one():
    codes, y = noisy_rows(8, n=400)
    structure = STRUCTURES["kdb2"]
    fitted, back_off = tables(structure, codes, y)
    distances, fit = [], None
    for penalty in (1e4, 10.0, 0.1):
        fit = fit_network_weights(structure, fitted.class_log_prior, fitted.log_cpts, codes, y, back_off,
                                     penalty=penalty)
        assert fit.converged and fit.objective <= fit.initial_objective
        distances.append(np.abs(fit.weights - 1).max())
    assert distances[0] < distances[1] < distances[2] and distances[0] < 0.01


def test_warm_start_reaches_the_same_weights():
    codes, y = noisy_rows(8, n=400)
    structure = STRUCTURES["tan"]
    fitted, _ = tables(structure, codes, y)
    values, layout = network_cells(structure, fitted.class_log_prior, fitted.log_cpts)
    designs = [network_design(codes, layout, y)]
    near = fit_weights(values, designs, penalty=2.0, tol=1e-12)
    cold = fit_weights(values, designs, penalty=1.0, tol=1e-12)
    warm = fit_weights(values, designs, penalty=1.0, tol=1e-12, initial=near)
    np.testing.assert_allclose(warm.weights, cold.weights, atol=1e-5)
    assert warm.n_iter < cold.n_iter


def test_out_of_core_blocks_equal_the_in_memory_fit():
    codes, y, values, layout = problem(9, "tan", 500, missing=0.1)
    whole = fit_weights(values, [network_design(codes, layout, y)], penalty=1.0)
    calls = []

    def blocks():
        calls.append(1)
        for start in range(0, y.size, 64):
            yield network_design(codes[start : start + 64], layout, y[start : start + 64])

    streamed = fit_weights(values, blocks, penalty=1.0)
    assert len(calls) > 2  # the blocks were read again for every evaluation
    np.testing.assert_allclose(streamed.weights, whole.weights, atol=1e-6)
    assert streamed.n_iter == whole.n_iter


def test_merged_rows_give_the_same_weights():
    codes, y = noisy_rows(10, n=400, d=3, levels=2, k=2)  # few distinct rows
    merged = merge_rows(codes, y)
    assert merged[0].shape[0] < 30 and merged[2].sum() == 400
    structure = Structure.naive_bayes(3)
    fitted, _ = tables(structure, codes, y, levels=2, k=2)
    values, layout = network_cells(structure, fitted.class_log_prior, fitted.log_cpts)
    plain = fit_weights(values, [network_design(codes, layout, y)], penalty=0.5, tol=1e-12)
    folded = fit_weights(values, [network_design(merged[0], layout, merged[1], merged[2])], penalty=0.5, tol=1e-12)
    np.testing.assert_allclose(folded.weights, plain.weights, atol=1e-6)


def test_unconverged_fit_warns_and_reports_its_iterations():
    codes, y = noisy_rows(11, n=300)
    structure = STRUCTURES["kdb2"]
    fitted, _ = tables(structure, codes, y)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        fit = fit_network_weights(structure, fitted.class_log_prior, fitted.log_cpts, codes, y, penalty=0.0,
                                     max_iter=2)
    assert fit.n_iter == 2 and not fit.converged
    assert np.isfinite(fit.weights).all() and fit.objective < fit.initial_objective


def test_failed_optimiser_keeps_the_generative_model():
    log_values = np.array([[-1e308, -1e-3], [-0.5, -0.9]]).T  # overflows to inf once weighted
    a = scipy.sparse.csr_matrix(np.ones((4, 2)))
    design = RowDesign(a, np.array([0, 1, 0, 1]), np.ones(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # nothing computed on NaN reaches the user either
        with pytest.warns(ConvergenceWarning, match="generative model is kept"):
            fit = fit_weights(log_values, [design], penalty=1.0)
    np.testing.assert_array_equal(fit.weights, 1.0)
    assert not fit.converged and not np.isnan(fit.objective)


def test_cells_no_row_reads_keep_weight_one():
    codes, y = noisy_rows(12, n=50, d=2, levels=3)
    codes[:, 1] = np.minimum(codes[:, 1], 1)  # level 2 of feature 1 never seen
    structure = Structure.naive_bayes(2)
    fitted, _ = tables(structure, codes, y, levels=3)
    values, layout = network_cells(structure, fitted.class_log_prior, fitted.log_cpts)
    fit = fit_weights(values, [network_design(codes, layout, y)], penalty=1.0)
    unseen = layout.table_start[1] + 2
    assert unseen not in fit.cells and fit.cells.size == values.shape[1] - 1
    np.testing.assert_array_equal(fit.dense_weights(values.shape[1])[unseen], 1.0)
    np.testing.assert_array_equal(fit.weighted(values)[:, unseen], values[:, unseen])


def test_too_many_weights_are_refused(monkeypatch):
    import pybnc.parameters.discriminative as module

    monkeypatch.setattr(module, "MAX_WEIGHTS", 10)  # read when fit_weights runs
    codes, y = noisy_rows(13, n=50)
    fitted, _ = tables(STRUCTURES["nb"], codes, y)
    with pytest.raises(MemoryError, match="weights, more than 10"):
        fit_network_weights(STRUCTURES["nb"], fitted.class_log_prior, fitted.log_cpts, codes, y)


def drive(passes, blocks):
    """pybnc's out-of-core driver over these blocks; the generator's result."""
    from pybnc.estimators.base import run_passes

    found = []

    def learn():
        found.append((yield from passes))
    run_passes(learn(), lambda: iter(blocks))
    return found[0]


@pytest.mark.parametrize("history", [10, 25])
def test_fit_in_passes_equals_the_in_memory_fit(history, monkeypatch):
    """Also with more step pairs (the floor of :func:`lbfgs_history` raised): both paths
    read the same entries and keep the same pairs."""
    from pybnc.parameters import discriminative
    from pybnc.parameters.discriminative_passes import fit_weights_in_passes

    codes, y, values, layout = problem(14, "kdb2", 500, missing=0.1)
    default = fit_weights(values, [network_design(codes, layout, y)], penalty=0.3)
    monkeypatch.setattr(discriminative, "HISTORY", history)
    whole = fit_weights(values, [network_design(codes, layout, y)], penalty=0.3)
    if history != 10:  # the pairs change the path: a fit that ignored them would be told apart
        assert whole.n_iter != default.n_iter
    blocks = [(codes[s : s + 70], y[s : s + 70]) for s in range(0, 500, 70)]
    passes = fit_weights_in_passes(values, lambda c, t: network_design(c, layout, t), penalty=0.3)
    streamed = drive(passes, blocks)
    np.testing.assert_array_equal(streamed.cells, whole.cells)
    np.testing.assert_allclose(streamed.weights, whole.weights, atol=1e-6)
    assert streamed.n_iter == whole.n_iter and streamed.converged
    assert streamed.initial_objective == pytest.approx(whole.initial_objective, rel=1e-12)


def test_lbfgs_keeps_more_pairs_only_where_evaluations_cost_more_than_steps():
    from pybnc.parameters.discriminative import HISTORY, HISTORY_BYTES, MAX_HISTORY, lbfgs_history

    assert lbfgs_history(1_100_000, 24_048, 18) == MAX_HISTORY  # krkopt's AODE: 823 reads per weight
    assert lbfgs_history(4_300_000, 477_308, 26) == 11  # letter's AODE: a step within a quarter of an evaluation
    assert lbfgs_history(2_300_000, 701_805, 15) == HISTORY  # movement_libras' AODE: 49 reads per weight
    assert lbfgs_history(3_000, 100, 2) == HISTORY  # too cheap an evaluation for more pairs
    assert lbfgs_history(10**9, 3_000_000, 10) == HISTORY  # the pairs' memory
    assert 16 * MAX_HISTORY * 400_000 <= HISTORY_BYTES < 16 * MAX_HISTORY * 450_000


def test_fit_in_passes_closed_early_ends_its_thread():
    import threading

    from pybnc.parameters.discriminative_passes import fit_weights_in_passes

    codes, y = noisy_rows(15, n=100)
    fitted, _ = tables(STRUCTURES["nb"], codes, y)
    values, layout = network_cells(STRUCTURES["nb"], fitted.class_log_prior, fitted.log_cpts)
    before = threading.active_count()
    passes = fit_weights_in_passes(values, lambda c, t: network_design(c, layout, t))
    step = next(passes)
    step = passes.send(step(codes, y))  # the cells; now the first evaluation is asked for
    passes.close()
    assert threading.active_count() == before


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_the_compiled_products_are_scipys_to_the_bit(index_dtype):
    """Every evaluation of a fit multiplies its design by the cells' values and by the rows'
    residuals; with two classes the compiled products sum in scipy's order (empty rows,
    repeated cells and rows of different lengths included), with more scipy runs."""
    from pybnc.parameters import discriminative

    if discriminative._native is None:
        pytest.fail("pybnc.parameters._design_c is not built (pip install -e .)")
    rng = np.random.default_rng(int(np.dtype(index_dtype).itemsize))
    k = 2
    lengths = rng.integers(0, 40, 300)
    lengths[[3, 50]] = 0
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index_dtype)
    indices = rng.integers(0, 500, indptr[-1]).astype(index_dtype)
    matrix = scipy.sparse.csr_matrix((rng.normal(size=indptr[-1]), indices, indptr), shape=(300, 500))
    matrix.indices, matrix.indptr = indices, indptr  # as built, whatever width scipy would pick
    values, residual = rng.normal(size=(500, k)), rng.normal(size=(300, k))
    assert np.array_equal(discriminative._rows_product(matrix, values), matrix @ values)
    assert np.array_equal(discriminative._cells_product(matrix, residual), matrix.T @ residual)
    # a design held through a fit gathers each cell's rows from its transpose: the same sums
    [held] = discriminative._kept_for_every_evaluation(
        discriminative.RowDesign(matrix, np.zeros(300, int), np.ones(300)), 2)
    assert np.array_equal(discriminative._rows_product(held.by_cell, residual), matrix.T @ residual)
    three = rng.normal(size=(500, 3))  # three classes: scipy's products
    assert discriminative._native_operands(matrix, three) is None
    # ... with the transpose kept where the cells outnumber the rows: the same sums, gathered
    [wide] = discriminative._kept_for_every_evaluation(
        discriminative.RowDesign(matrix, np.zeros(300, int), np.ones(300)), 3)
    residual3 = rng.normal(size=(300, 3))
    assert np.array_equal(discriminative._rows_product(wide.by_cell, residual3), matrix.T @ residual3)
    tall = discriminative.RowDesign(matrix[:, :200], np.zeros(300, int), np.ones(300))
    assert discriminative._kept_for_every_evaluation(tall, 3) == [tall]
    matrix.indices[7] = 500
    with pytest.raises(IndexError):
        discriminative._rows_product(matrix, values)
    with pytest.raises(IndexError):
        discriminative._cells_product(matrix, residual)


def test_the_blocks_of_a_design_fix_the_weights_whatever_the_threads(monkeypatch):
    """A design held through a fit is cut into blocks of rows that the evaluation's threads
    share out: the blocks' sums are the whole design's (to rounding), and the weights are
    the same to the bit on two threads or three (on one core the design stays whole)."""
    from pybnc.parameters import discriminative

    rng = np.random.default_rng(5)
    n, cells, k = 3000, 400, 4
    lengths = rng.integers(1, 30, n)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    matrix = scipy.sparse.csr_matrix((rng.uniform(0.5, 1.0, indptr[-1]), rng.integers(0, cells, indptr[-1]), indptr),
                                     shape=(n, cells))
    y = rng.integers(0, k, n)
    design = discriminative.RowDesign(matrix, y, rng.uniform(0.5, 2.0, n), rng.normal(size=(n, k)))
    log_values = np.log(rng.dirichlet(np.ones(k), cells).T)
    whole = discriminative.block_sums(log_values.T.copy(), design)
    monkeypatch.setattr(discriminative, "BLOCK_ENTRIES", 2_000)
    monkeypatch.setattr(discriminative, "BLOCK_ENTRIES_PER_WEIGHT", 1)
    monkeypatch.setattr(discriminative, "available_cores", lambda: 1)
    assert discriminative._kept_for_every_evaluation(design, k) == [design]  # one core: the design whole
    monkeypatch.setattr(discriminative, "available_cores", lambda: 2)
    blocks = discriminative._kept_for_every_evaluation(design, k)
    assert len(blocks) > 5 and sum(b.matrix.shape[0] for b in blocks) == n
    nll, gradient, total = discriminative.conditional_nll(log_values.T.copy(), lambda: iter(blocks))
    assert nll == pytest.approx(whole.nll, rel=1e-12) and total == pytest.approx(whole.total, rel=1e-12)
    np.testing.assert_allclose(gradient, whole.gradient, rtol=1e-10, atol=1e-10)
    fits, before = [], set(threading.enumerate())
    for cores in (1, 2, 3):
        monkeypatch.setattr(discriminative, "available_cores", lambda cores=cores: cores)
        fits.append(discriminative.fit_weights(log_values, [design], penalty=0.1))
        started = [t for t in threading.enumerate() if t not in before]
        for thread in started:  # joblib ends its pool's threads as the fit returns (a join is quick)
            thread.join(timeout=5)
        assert not [t.name for t in started if t.is_alive()]  # the evaluation's threads end with the fit
    assert fits[1].n_iter > 5 and fits[1].converged
    assert np.array_equal(fits[2].weights, fits[1].weights) and fits[2].n_iter == fits[1].n_iter
    np.testing.assert_allclose(fits[0].weights, fits[1].weights, rtol=1e-6, atol=1e-8)  # whole: other rounding


def test_a_threaded_evaluation_at_an_overflowing_point_warns_nothing(monkeypatch):
    """The line search may try a point whose scores overflow (it then shrinks the step):
    the evaluation's threads run under the fit's floating-point state, as this thread
    does, so no RuntimeWarning reaches the user (numpy's errstate is not inherited)."""
    from pybnc.parameters import discriminative

    rng = np.random.default_rng(0)
    n, cells, k = 4000, 50, 3
    matrix = scipy.sparse.random(n, cells, density=0.3, format="csr", random_state=0)
    design = discriminative.RowDesign(matrix, rng.integers(0, k, n), np.ones(n), np.full((n, k), 1e308))
    monkeypatch.setattr(discriminative, "BLOCK_ENTRIES", 1_000)
    monkeypatch.setattr(discriminative, "BLOCK_ENTRIES_PER_WEIGHT", 1)
    monkeypatch.setattr(discriminative, "available_cores", lambda: 2)
    blocks = discriminative._kept_for_every_evaluation(design, k)
    assert len(blocks) > 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with discriminative._evaluation_threads(len(blocks)) as mapper, \
                np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            nll = discriminative.conditional_nll(np.full((cells, k), 1e308), lambda: iter(blocks), mapper)[0]
    assert not np.isfinite(nll)


@pytest.mark.parametrize("n_classes", [1, 2, 18])
def test_the_softmax_is_scipys(n_classes):
    """Every evaluation turns the rows' scores into their loss and residuals by scipy's
    log_softmax (class codes of any width, not contiguous, weighted rows, scores far
    apart and a row of equal scores), leaving the scores as they were."""
    from scipy.special import log_softmax

    from pybnc.parameters import discriminative

    rng = np.random.default_rng(n_classes)
    scores = rng.normal(scale=30.0, size=(500, n_classes))
    scores[7] = 2.0
    y = rng.integers(0, n_classes, (500, 2)).astype(np.int32)[:, 0]  # a strided view
    weight = rng.uniform(0.0, 3.0, 500)
    log_p = log_softmax(scores, axis=1)
    expected = np.exp(log_p) * weight[:, None]
    expected[np.arange(500), y] -= weight
    kept = scores.copy()
    nll, residual, total = discriminative.block_softmax(kept, y, weight)
    assert np.array_equal(kept, scores)
    assert nll == pytest.approx(-(weight * log_p[np.arange(500), y]).sum(), rel=1e-12)
    assert total == pytest.approx(weight.sum(), rel=1e-13)
    np.testing.assert_allclose(residual, expected, rtol=1e-12, atol=1e-15)
    with pytest.raises(IndexError):
        discriminative.block_softmax(scores, np.full(500, n_classes), weight)


@pytest.mark.parametrize("joined_up_to", [0, 1 << 22])
@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_gathered_cells_and_their_deltas_are_the_arrays(name, joined_up_to, monkeypatch):
    """The estimators read a network's cells where they need them (GatheredCells: table by
    table for a large network, from one array built once for a small one): the values and
    the fit's deltas at any cells are those of the one array of every cell."""
    from pybnc.parameters import network_weights

    monkeypatch.setattr(network_weights, "_JOINED_CELLS", joined_up_to)
    codes, y = noisy_rows(4, n=150, missing=0.1)
    fitted, back_off = tables(STRUCTURES[name], codes, y)
    values, layout = network_cells(STRUCTURES[name], fitted.class_log_prior, fitted.log_cpts, back_off)
    gathered, _ = network_cells(STRUCTURES[name], fitted.class_log_prior, fitted.log_cpts, back_off, gathered=True)
    cells = np.random.default_rng(5).permutation(layout.n_cells)[: layout.n_cells // 2]
    assert np.array_equal(gathered(cells), values[:, cells])
    fit = fit_weights(values, [network_design(codes, layout, y)], penalty=1.0)
    assert 0 < fit.cells.size and np.array_equal(fit.deltas(gathered)(cells), fit.deltas(values)[:, cells])


def test_distinct_cells_is_numpys_unique_whether_marked_or_sorted():
    from pybnc.parameters.discriminative import _few, distinct_cells

    rng = np.random.default_rng(0)
    for n_cells, size in ((50, 2000), (100_000, 300), (1, 5), (10, 0)):
        indices = rng.integers(0, n_cells, size=size).astype(np.int32)
        out = distinct_cells(indices, n_cells)
        assert out.dtype == indices.dtype
        np.testing.assert_array_equal(out, np.unique(indices))
    assert not _few(np.zeros(2000, np.int32), 50) and _few(np.zeros(300, np.int32), 100_000)  # both ways ran


def test_design_scores_gather_every_cell_or_only_those_read_to_the_same_bits():
    """Fewer cells than entries: every cell's values are gathered; more: only the cells
    read. Each row sums its entries in their order either way."""
    from pybnc.parameters.discriminative import design_scores

    rng = np.random.default_rng(3)
    for n_cells, per_row in ((40, 6), (5000, 3)):
        matrix = scipy.sparse.random(60, n_cells, density=per_row / n_cells, format="csr", random_state=rng)
        log_values = np.log(rng.random((3, n_cells)))
        got = design_scores(matrix, log_values)
        used = np.unique(matrix.indices)
        compact = scipy.sparse.csr_matrix((matrix.data, np.searchsorted(used, matrix.indices), matrix.indptr),
                                          shape=(60, used.size))
        want = compact @ np.ascontiguousarray(log_values[:, used].T)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
        np.testing.assert_allclose(got, matrix @ log_values.T, rtol=1e-12)
        assert (n_cells <= matrix.nnz) == (n_cells == 40)  # both paths ran
