"""sample_weight: integer weights are repeated rows, a zero weight is the row absent, for
every registered classifier; fractional weights are exact where a model weighs its
counts, refused (clearly) where it reads its rows; blocks, partial_fit and
cross-validation carry the weights."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pybnc import AODE, KDB, SKDB, TAN, AnDE, NaiveBayes, capabilities
from pybnc.counts import count, count_families
from pybnc.datasets import load_dataset
from pybnc.encode.discretize import cut_points
from pybnc.registry import MODELS
from pybnc.streaming import fit_blocks

pytestmark = [pytest.mark.filterwarnings("ignore::pybnc.search.StartModelWarning"),
              pytest.mark.filterwarnings("ignore::pybnc.encode.EncodingWarning"),
              pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")]

DOC = Path(__file__).resolve().parents[1] / "docs" / "sample-weights.md"
SMALL = {"eskdb": dict(n_estimators=2, hdp_iterations=10), "auto": dict(candidates=[NaiveBayes(), TAN()], cv=3),
         "skdb": dict(k=2), "tbmatan": dict(), "a2de": dict(min_count=0)}


def _table(n=60, seed=0):
    """Categorical columns (one with missing values, one tied to the class) and a float one."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{j}": rng.choice(list("abc"), n) for j in range(4)})
    X["f1"] = np.where(X.f0 == "a", X.f1, "a")
    X.loc[rng.random(n) < 0.1, "f2"] = None
    y = np.where((X.f0 == "a") ^ (rng.random(n) < 0.2), "p", "q")
    X["num"] = np.round(rng.normal(size=n) + (y == "p"), 1)
    return X, y


def _model(entry):
    est = entry.cls(**SMALL.get(entry.short_name, {}))
    params = est.get_params()
    est.set_params(**{k: v for k, v in (("verbose", 0), ("random_state", 0)) if k in params})
    return est


def _same_model(a, b, X):
    assert np.abs(a.predict_proba(X) - b.predict_proba(X)).max() < 1e-10
    assert getattr(a, "structure_", None) == getattr(b, "structure_", None)
    assert [list(c) for c in a.encoder_.categories_] == [list(c) for c in b.encoder_.categories_]


@pytest.mark.parametrize("entry", MODELS, ids=[e.short_name for e in MODELS])
def test_integer_weights_are_repeated_rows(entry):
    X, y = _table()
    w = np.random.default_rng(1).integers(0, 4, len(y))
    w[:2] = [3, 0]
    rows = np.repeat(np.arange(len(y)), w)
    est = _model(entry)
    weighted = clone(est).fit(X, y, sample_weight=w)
    _same_model(weighted, clone(est).fit(X.iloc[rows], y[rows]), X)
    assert capabilities(weighted).sample_weight in ("counts", "repeats")


@pytest.mark.parametrize("entry", MODELS, ids=[e.short_name for e in MODELS])
def test_zero_weight_is_the_row_removed(entry):
    X, y = _table(seed=2)
    X.loc[5, "f3"] = "only-in-a-dropped-row"
    w = np.ones(len(y))
    w[[5, 7, 11]] = 0
    est = _model(entry)
    weighted = clone(est).fit(X, y, sample_weight=w)
    _same_model(weighted, clone(est).fit(X[w > 0], y[w > 0]), X[w > 0])
    assert "only-in-a-dropped-row" not in weighted.encoder_.categories_[3]


@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), AODE(), AnDE(min_count=0), KDB(k=2)],
                         ids=lambda m: type(m).__name__)
def test_fractional_weights_enter_the_counts(model):
    """A weight of 2.5 counts as 2.5 rows: the counts are the weighted sums, partial_fit
    block by block equals fit, and the model is the one of the counts."""
    assert capabilities(model).sample_weight == "counts"
    X, y = _table(seed=3)
    X = X.drop(columns="num")
    w = np.random.default_rng(4).uniform(0, 3, len(y))
    w[w < 0.4] = 0
    fitted = clone(model).fit(X, y, sample_weight=w)
    codes = fitted.encoder_.transform(X[w > 0])
    y_codes = np.searchsorted(fitted.classes_, y[w > 0])
    # brute force: the sum of the weights of the rows of each cell
    levels = np.zeros_like(fitted.counts_.levels)
    offsets = fitted.counts_.offsets
    for row, c, weight in zip(codes, y_codes, w[w > 0]):
        for i, a in enumerate(row):
            if a >= 0:
                levels[c, offsets[i] + a] += weight
    assert np.allclose(fitted.counts_.levels, levels, rtol=0, atol=1e-12)
    if capabilities(model).learns_from_counts:
        blocks = clone(model)
        for lo in range(0, len(y), 17):
            blocks.partial_fit(X[lo:lo + 17], y[lo:lo + 17], classes=["p", "q"], sample_weight=w[lo:lo + 17])
        assert np.abs(blocks.predict_proba(X) - fitted.predict_proba(X)).max() < 1e-10
    # the weights matter (a test that can fail)
    assert np.abs(clone(model).fit(X, y).predict_proba(X) - fitted.predict_proba(X)).max() > 1e-3


def test_weighted_counts_against_repeats_in_every_layout():
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 3, (50, 4)).astype(np.int32)
    codes[:, 0] = np.abs(codes[:, 0])
    y = rng.integers(0, 3, 50)
    w = rng.integers(0, 4, 50)
    rows = np.repeat(np.arange(50), w)
    for layout in ("dense", "reduced", "sparse"):
        a, b = count(codes, y, [3] * 4, 3, layout=layout, weights=w), count(codes[rows], y[rows], [3] * 4, 3,
                                                                            layout=layout)
        assert np.array_equal(a.dense_joint(), b.dense_joint()) and np.array_equal(a.class_counts, b.class_counts)
    f, g = (count_families(codes, y, [3] * 4, 3, [(0, 1, 2)], weights=w),
            count_families(codes[rows], y[rows], [3] * 4, 3, [(0, 1, 2)]))
    assert np.array_equal(f.tables[0], g.tables[0])
    half = count(codes, y, [3] * 4, 3, weights=w / 2)
    assert half.reduced.dtype == np.float64 and np.allclose(half.dense_joint(), b.dense_joint() / 2)


def test_whole_weights_keep_their_repeated_rows_for_the_pairwise_information():
    """Counts of whole-number weights hold the rows repeated by them where the information
    is counted from rows (cheaper there), and that information is the weighted counts' own;
    fractional weights, repeats past twice the rows, or a tall table keep no rows."""
    from pybnc.counts.tables import REPEATS_MAX_FACTOR
    from pybnc.scores.information import pairwise_cmi

    rng = np.random.default_rng(7)
    codes = rng.integers(-1, 4, (80, 6)).astype(np.int32)
    y = rng.integers(0, 3, 80)
    codes[:, 1] = np.where(rng.random(80) < 0.7, y, codes[:, 1])  # some information to find
    w = rng.multinomial(80, np.full(80, 1 / 80))  # a bootstrap sample's draws
    kept = w > 0
    weighted = count(codes[kept], y[kept], [4] * 6, 3, weights=w[kept])
    rows = np.repeat(np.arange(80), w)
    assert np.array_equal(weighted.rows[0], codes[rows]) and np.array_equal(weighted.rows[1], y[rows])
    from_rows, n_from_rows = pairwise_cmi(weighted)
    from_counts, n_from_counts = pairwise_cmi(weighted.to_keep())  # the same counts without their rows
    # both round to 1e-12 nats: sums a few ulps apart may round one step apart
    assert np.abs(from_rows - from_counts).max() <= 1.5e-12 and np.array_equal(n_from_rows, n_from_counts)
    assert from_rows[0, 1] > 0.01
    assert count(codes, y, [4] * 6, 3, weights=np.full(80, 1.5)).rows is None
    assert count(codes, y, [4] * 6, 3, weights=np.full(80, REPEATS_MAX_FACTOR + 1)).rows is None
    assert count(codes, y, [4] * 6, 3, weights=np.full(80, REPEATS_MAX_FACTOR)).rows is not None
    # a tall table of few levels reads its information from the counts: no copy of its rows
    tall = rng.integers(0, 3, (50_000, 5)).astype(np.int32)
    assert count(tall, rng.integers(0, 2, 50_000), [3] * 5, 2, weights=np.full(50_000, 2.0)).rows is None


@pytest.mark.parametrize("method", ["quantile", "mdl", "uniform"])
def test_weighted_cut_points_are_those_of_repeated_values(method):
    rng = np.random.default_rng(6)
    for _ in range(100):
        n = int(rng.integers(2, 40))
        x, y, w = rng.integers(0, 12, n).astype(float), rng.integers(0, 3, n), rng.integers(1, 5, n)
        rows = np.repeat(np.arange(n), w)
        assert np.array_equal(cut_points(x, method, 3, y, weights=w), cut_points(x[rows], method, 3, y[rows]))


def test_rows_readers_refuse_fractional_weights():
    X, y = _table()
    for model in (TAN(weighting="awnb"), MODELS[-1].cls(cv=3)):
        assert capabilities(model).sample_weight == "repeats"
        with pytest.raises(ValueError, match=r"sample_weight holds the fractional weight 0\.5.*integer weights"):
            model.fit(X, y, sample_weight=np.r_[0.5, np.ones(len(y) - 1)])


@pytest.mark.parametrize("weights, message", [
    (-np.ones(60), "sample_weight must be non-negative, got -1.0 at row 0"),
    (np.r_[np.nan, np.ones(59)], "sample_weight must be finite, got nan at row 0"),
    (np.ones(59), r"sample_weight must have shape \(60,\)"),
    (np.zeros(60), "sample_weight is zero for every row"),
    (np.ones((60, 2)), r"sample_weight must have shape \(60,\)"),
    (3.0, "sample_weight must be one number per row"),
    (["a"] * 60, "sample_weight must hold numbers"),
])
def test_bad_weights_are_refused_naming_the_parameter(weights, message):
    X, y = _table()
    for model in (NaiveBayes(), KDB(k=1), TAN(weighting="awnb")):
        with pytest.raises(ValueError, match=message):
            model.fit(X, y, sample_weight=weights)


def test_fit_blocks_with_weights_equals_fit():
    X, y = _table(n=90, seed=7)
    X = X.drop(columns="num")
    w = np.random.default_rng(8).uniform(0, 3, len(y))
    w[30:45] = 0  # a block whose rows are all absent
    frame = X.assign(target=y, weight=w)
    for model in (TAN(), AnDE(min_count=0), KDB(k=2)):
        whole = clone(model).fit(X, y, sample_weight=w)
        pairs = fit_blocks(clone(model), [(X[i:i + 15], y[i:i + 15], w[i:i + 15]) for i in range(0, 90, 15)],
                           classes=["p", "q"])
        named = fit_blocks(clone(model), [frame[i:i + 15] for i in range(0, 90, 15)], target="target",
                           weight="weight", classes=["p", "q"])
        for blocks in (pairs, named):
            assert np.abs(blocks.predict_proba(X) - whole.predict_proba(X)).max() < 1e-10
            assert getattr(blocks, "structure_", None) == getattr(whole, "structure_", None)


def test_fit_blocks_refuses_weights_for_a_model_that_repeats_rows():
    X, y = _table()
    with pytest.raises(TypeError, match="repeated rows"):
        fit_blocks(SKDB(), [(X, y, np.ones(len(y)))], classes=["p", "q"])


def test_partial_fit_skips_a_block_of_zero_weights():
    X, y = _table()
    model = TAN().partial_fit(X[:30], y[:30], classes=["p", "q"])
    before = model.predict_proba(X)
    model.partial_fit(X[30:], y[30:], sample_weight=np.zeros(30))
    assert np.array_equal(model.predict_proba(X), before)
    with pytest.raises(ValueError, match="zero for every row"):
        TAN().partial_fit(X, y, classes=["p", "q"], sample_weight=np.zeros(len(y)))


def test_the_documented_balanced_recipe_runs():
    """docs/sample-weights.md's python blocks run, and what they assert holds."""
    try:
        load_dataset("pima")  # the recipe's table is not bundled (its donor restricts redistribution)
    except FileNotFoundError as exc:
        pytest.skip(f"pima is not bundled and was not found: {exc}")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert blocks
    scope = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), scope)


def test_cross_validate_weights_the_fits_and_the_scores():
    """The fast path (weighted counts, total - fold) equals weighted refits, and each
    fold's scores are its test rows' weighted means."""
    from pybnc import KDB, TANHC
    from pybnc.evaluation import cross_validate
    from pybnc.evaluation.metrics import log_loss

    X, y = _table(n=80, seed=9)
    X = X.drop(columns="num")
    w = np.random.default_rng(10).uniform(0, 2, len(y))
    w[:8] = 0
    models = {"nb": NaiveBayes(), "tan": TAN(), "a2de": AnDE(min_count=0), "kdb": KDB(k=2, verbose=0),
              "tanhc": TANHC(verbose=0, random_state=0)}
    weights = np.rint(w * 2)  # whole numbers for the wrapper, which repeats its rows
    fast, proba = cross_validate(models, X, y, cv=4, verbose=0, sample_weight=weights, return_proba=True)
    slow, slow_proba = cross_validate(models, X, y, cv=4, verbose=0, sample_weight=weights, fast=False,
                                      return_proba=True)
    for name in models:
        assert np.abs(proba[name] - slow_proba[name]).max() < 1e-10, name
    assert np.allclose(fast[["accuracy", "log_loss", "brier"]], slow[["accuracy", "log_loss", "brier"]])
    unweighted = cross_validate(models, X, y, cv=4, verbose=0)
    assert not np.allclose(fast["log_loss"], unweighted["log_loss"])
    # fold 0's log-loss is the weighted mean over its test rows
    from sklearn.model_selection import StratifiedKFold
    classes, y_codes = np.unique(y, return_inverse=True)
    test = list(StratifiedKFold(4, shuffle=True, random_state=0).split(np.zeros((len(y), 1)), y_codes))[0][1]
    row = fast[(fast.model == "tan") & (fast.fold == 0)].iloc[0]
    assert np.isclose(row.log_loss, log_loss(y_codes[test], proba["tan"][test], sample_weight=weights[test]))
    manual = np.average(-np.log(np.maximum(proba["tan"][test, y_codes[test]], 1e-15)), weights=weights[test])
    assert np.isclose(row.log_loss, manual)


def test_autobnc_keeps_the_copies_of_a_row_in_its_folds():
    """With cv given as folds, the weighted AutoBNC equals the one fitted on repeated rows
    whose folds hold the copies of the same rows."""
    from pybnc import AutoBNC

    X, y = _table(n=45, seed=11)
    w = np.random.default_rng(12).integers(0, 3, len(y))
    folds = [(np.r_[15:45], np.r_[0:15]), (np.r_[0:15, 30:45], np.r_[15:30]), (np.r_[0:30], np.r_[30:45])]
    rows = np.repeat(np.arange(len(y)), w)
    repeated_folds = [(np.flatnonzero(np.isin(rows, a)), np.flatnonzero(np.isin(rows, b))) for a, b in folds]
    make = lambda cv: AutoBNC(candidates=[NaiveBayes(), TAN()], cv=cv, verbose=0, random_state=0)  # noqa: E731
    weighted = make(folds).fit(X, y, sample_weight=w)
    repeated = make(repeated_folds).fit(X.iloc[rows], y[rows])
    assert weighted.best_candidate_ == repeated.best_candidate_
    assert np.allclose(weighted.cv_results_["mean_test_log_loss"], repeated.cv_results_["mean_test_log_loss"])
    assert np.abs(weighted.predict_proba(X) - repeated.predict_proba(X)).max() < 1e-10


def test_fit_dask_with_a_weight_column_equals_fit():
    dd = pytest.importorskip("dask.dataframe")
    from pybnc.streaming import fit_dask

    X, y = _table(n=90, seed=13)
    w = np.random.default_rng(14).uniform(0, 3, len(y))
    w[:20] = 0
    X.loc[3, "f0"] = "absent"  # a level seen only in a row of weight 0
    w[3] = 0
    frame = X.drop(columns="num").assign(y=y, w=w)
    ddf = dd.from_pandas(frame, npartitions=3)
    for model in (TAN(), AnDE(min_count=0), KDB(k=2, verbose=0)):
        whole = clone(model).fit(frame.drop(columns=["y", "w"]), y, sample_weight=w)
        got = fit_dask(clone(model), ddf, "y", weight="w", scheduler="synchronous")
        assert [list(c) for c in got.encoder_.categories_] == [list(c) for c in whole.encoder_.categories_]
        assert np.abs(got.predict_proba(frame) - whole.predict_proba(frame)).max() < 1e-10
    with pytest.raises(ValueError, match="cannot weigh the cut points.*num"):
        fit_dask(TAN(), dd.from_pandas(X.assign(y=y, w=w), npartitions=2), "y", weight="w", scheduler="synchronous")
    with pytest.raises(TypeError, match="repeated rows"):
        fit_dask(SKDB(), ddf, "y", weight="w", scheduler="synchronous")


def test_a_parameter_that_takes_the_passes_away_makes_the_weights_repeats():
    class ReadsItsRows(NaiveBayes):
        def _refine_capabilities(self, declared):
            return declared.replace(learns_from_counts=False, passes=0)

    assert capabilities(ReadsItsRows).sample_weight == "counts"
    assert capabilities(ReadsItsRows()).sample_weight == "repeats"
    assert capabilities(NaiveBayes(weighting="wanbia")).sample_weight == "repeats"
