"""Block-wise fitting (partial_fit, fit_blocks) and Dask fitting equal the in-memory fit."""

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from pybnc import AODE, FAN, KDB, MANB, SSTBMATAN, TAN, TBMATAN, NaiveBayes
from pybnc.counts.tables import count
from pybnc.encode import EncodingWarning
from pybnc.streaming import fit_blocks, fit_dask, grow_encoder
from pybnc.encode import Encoder

COUNT_LEARNERS = [NaiveBayes(), TAN(), TAN(criterion="bic", smoothing="friedman"), FAN(smoothing="ms"), MANB(),
                  AODE(min_count=5), TBMATAN(), SSTBMATAN()]


def pair_counts(model):
    """The model's pair counts as one dense table, whatever their layout (None: it has none)."""
    return model.counts_.dense_joint() if model.counts_.has_pairs else None


def _table(n=500, seed=0):
    """Categorical columns of every kind, with missing values; the class depends on them."""
    rng = np.random.default_rng(seed)
    a = rng.choice(np.array(["red", "green", "blue", "amber", "violet"], dtype=object), n)
    b = rng.integers(0, 4, n)
    c = rng.choice(np.array(["lo", "hi", None], dtype=object), n)
    d = pd.Categorical(rng.choice(["p", "q", "r"], n), categories=["r", "q", "p"])
    e = rng.choice([0.5, 1.5, np.nan], n)  # few distinct floats: categorical
    y = np.where((b >= 2) ^ (a == "red") ^ (rng.random(n) < 0.2), "yes", "no")
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e}), pd.Series(y, name="y")


def _blocks_with_late_levels(X, y, n_blocks=5):
    """Row order in which 'violet' and 'amber' (and b = 3) appear only in later blocks."""
    late = X["a"].isin(["violet", "amber"]).to_numpy() | (X["b"] == 3).to_numpy()
    order = np.concatenate([np.flatnonzero(~late), np.flatnonzero(late)])
    X, y = X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)
    return X, y, np.array_split(np.arange(len(X)), n_blocks)


@pytest.mark.parametrize("model", COUNT_LEARNERS, ids=lambda m: repr(m))
def test_partial_fit_over_blocks_equals_fit(model):
    X, y = _table()
    X, y, parts = _blocks_with_late_levels(X, y)
    first = X.iloc[parts[0]]
    assert "violet" not in set(first["a"]) and 3 not in set(first["b"])
    streamed = type(model)(**model.get_params())
    for i, rows in enumerate(parts):
        streamed.partial_fit(X.iloc[rows], y.iloc[rows], classes=["no", "yes"] if i == 0 else None)
        streamed.predict_proba(X.head(3))  # usable after every block
    whole = type(model)(**model.get_params()).fit(X, y)
    for got, want in zip(streamed.encoder_.categories_, whole.encoder_.categories_):
        assert_array_equal(got, want)
    assert_array_equal(pair_counts(streamed), pair_counts(whole))
    assert_array_equal(streamed.counts_.levels, whole.counts_.levels)
    assert_array_equal(streamed.predict_proba(X), whole.predict_proba(X))


def test_new_levels_keep_the_sorted_order_whatever_the_arrival_order():
    X, y = _table(200, seed=1)
    model = TAN()
    for i, level in enumerate(["violet", "amber", "red", "blue", "green"]):
        rows = (X["a"] == level).to_numpy()
        model.partial_fit(X[rows], y[rows], classes=["no", "yes"] if i == 0 else None)
    assert model.encoder_.categories_[0].tolist() == ["amber", "blue", "green", "red", "violet"]
    assert_array_equal(model.predict_proba(X), TAN().fit(X, y).predict_proba(X))


def test_partial_fit_after_fit_continues():
    X, y = _table(300, seed=2)
    model = NaiveBayes().fit(X[:150], y[:150]).partial_fit(X[150:], y[150:])
    assert model.counts_.n_rows == 300
    assert_array_equal(model.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X))


def test_discretised_columns_keep_the_first_block_cut_points():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=400), "z": rng.integers(0, 3, 400)})
    y = (X["x"] > 0).astype(int)
    model = TAN().partial_fit(X[:100], y[:100], classes=[0, 1])
    cuts = model.encoder_.cut_points_[0].copy()
    model.partial_fit(X[100:] * 10, y[100:])  # values far outside the first block's range
    assert_array_equal(model.encoder_.cut_points_[0], cuts)
    assert model.counts_.n_rows == 400


def test_declared_categories_added_after_the_old_ones():
    first = pd.DataFrame({"d": pd.Categorical(["q", "p"], categories=["q", "p"])})
    later = pd.DataFrame({"d": pd.Categorical(["s"], categories=["s", "p", "q"])})
    from pybnc.encode import Encoder

    grown, moves = grow_encoder(Encoder().fit(first), later)
    assert grown.categories_[0].tolist() == ["q", "p", "s"] and moves[0].tolist() == [0, 1]


def test_unsupported_estimators_have_no_partial_fit():
    """partial_fit exists only where it works (scikit-learn asks hasattr), and says why not."""
    X, y = _table(100)
    assert hasattr(TAN(), "partial_fit") and not hasattr(KDB(), "partial_fit")
    # The reason is the cause of scikit-learn's AttributeError (shown in the traceback).
    with pytest.raises(AttributeError, match="no attribute 'partial_fit'") as info:
        KDB(search="hc").partial_fit(X, y, classes=["no", "yes"])
    assert re.search(r"KDB\(search='hc'\) reads the training rows.*NaiveBayes, TAN", str(info.value.__cause__))
    with pytest.raises(AttributeError) as info:
        KDB().partial_fit(X, y, classes=["no", "yes"])
    assert re.search("KDB reads the rows 2 times.*fit_blocks.*fit_dask", str(info.value.__cause__))
    with pytest.raises(AttributeError) as info:
        TAN(weighting="awnb").partial_fit(X, y, classes=["no", "yes"])
    assert re.search(r"TAN\(weighting='awnb'\).*TAN\(weighting=None\), which does", str(info.value.__cause__))
    with pytest.raises(TypeError, match=r"KDB\(search='hc'\).*Use KDB\(search='sahami'\), which learns out of core"):
        fit_blocks(KDB(search="hc"), [(X, y)], classes=["no", "yes"])


def test_partial_fit_validates_classes():
    X, y = _table(100)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        TAN().partial_fit(X, y)
    with pytest.raises(ValueError, match="not seen at fit"):
        TAN().partial_fit(X, y, classes=["no", "maybe"])
    model = TAN().partial_fit(X, y, classes=["no", "yes"])
    with pytest.raises(ValueError, match="differs from the classes of the first call"):
        model.partial_fit(X, y, classes=["no", "yes", "maybe"])


def test_fit_blocks_from_csv_chunks_pairs_and_arrow_batches():
    import pyarrow as pa
    X, y = _table(400, seed=4)
    X = X.drop(columns=["d", "e"])  # a CSV round trip keeps strings and ints as they are
    frame = X.assign(y=y)
    want = TAN().fit(X, y).predict_proba(X)
    text = io.StringIO(frame.to_csv(index=False))
    chunks = pd.read_csv(text, chunksize=90, dtype={"a": object, "c": object})
    got = fit_blocks(TAN(), chunks, target="y", classes=["no", "yes"])
    assert_array_equal(got.predict_proba(X), want)
    pairs = ((X[i:i + 100], y[i:i + 100]) for i in range(0, 400, 100))
    assert_array_equal(fit_blocks(TAN(), pairs, classes=["no", "yes"]).predict_proba(X), want)
    batches = pa.Table.from_pandas(frame, preserve_index=False).to_batches(max_chunksize=100)
    model = fit_blocks(TAN(), batches, target="y", classes=["no", "yes"])
    assert model.counts_.n_rows == 400
    assert model.encoder_.categories_[0].tolist() == sorted(set(X["a"]))
    with pytest.raises(ValueError, match="classes must list"):
        fit_blocks(TAN(), [frame], target="y")


def test_large_data_guide_runs(tmp_path, monkeypatch, capsys):
    """docs/large-data.md cannot rot: its python blocks run in order, in one namespace."""
    guide = (Path(__file__).resolve().parents[1] / "docs" / "large-data.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in re.findall(r"```python\n(.*?)```", guide, flags=re.S):
        exec(compile(block, "docs/large-data.md", "exec"), namespace)
    assert "30000 ['blue', 'green', 'red']" in capsys.readouterr().out


def test_fit_blocks_restarts_a_fitted_model():
    X, y = _table(200, seed=5)
    model = NaiveBayes().fit(X, y)
    fit_blocks(model, [(X[:100], y[:100]), (X[100:], y[100:])], classes=["no", "yes"])
    assert model.counts_.n_rows == 200


# -- Dask -------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [TAN(), AODE(min_count=5), TBMATAN()], ids=lambda m: repr(m))
def test_fit_dask_equals_fit_on_categorical_data(model):
    import dask.dataframe as dd
    X, y = _table(400, seed=6)
    frame = X.assign(y=y)
    ddf = dd.from_pandas(frame, npartitions=4)
    got = fit_dask(type(model)(**model.get_params()), ddf, "y", scheduler="synchronous")
    want = type(model)(**model.get_params()).fit(X, y)
    for g, w in zip(got.encoder_.categories_, want.encoder_.categories_):
        assert_array_equal(g, w)
    assert_array_equal(pair_counts(got), pair_counts(want))
    assert_array_equal(got.predict_proba(X), want.predict_proba(X))
    assert list(got.feature_names_in_) == list(X.columns)


def test_fit_dask_leaves_out_and_refuses_the_columns_fit_does():
    """Numbers named like identifiers (an integer, and a float a blank made of one) are left
    out, and a category column's limit counts its declared categories, as fit does."""
    import dask.dataframe as dd
    n, months = 60, ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    y = np.array(["a", "b"] * (n // 2))
    X = pd.DataFrame({"s": np.where(np.arange(n) % 5 == 0, "w", np.where(y == "a", "u", "v")),
                      "id": np.where(np.arange(n) == 5, np.nan, np.arange(n, dtype=float)),
                      "customer_id": np.arange(n),
                      "m": pd.Categorical(np.array(months[:3])[np.arange(n) % 3], categories=months)})
    dask_fit = lambda X: fit_dask(NaiveBayes(), dd.from_pandas(X.assign(y=y), npartitions=3), "y",  # noqa: E731
                                  scheduler="synchronous")
    with pytest.warns(EncodingWarning, match="'id', 'customer_id'"):
        assert dask_fit(X).encoder_.columns_ == NaiveBayes().fit(X, y).encoder_.columns_ == ["s", "m"]
    many = X.assign(m=pd.Categorical(X["m"].astype(str), categories=[f"k{i}" for i in range(1000)] + months))
    with pytest.raises(ValueError, match="'m' declares 1012 categories, of which 3 occur"):
        dask_fit(many)


def test_fit_dask_names_its_target_column_and_says_so_when_given_a_series():
    """A user with scikit-learn's habit passes the class column itself; the message showed
    the Dask Series' repr and said it was not a column."""
    import dask.dataframe as dd
    ddf = dd.from_pandas(pd.DataFrame({"a": ["x", "y"] * 10, "t": ["p", "q"] * 10}), npartitions=2)
    with pytest.raises(TypeError, match=r"target is the name of a column of ddf, not a Series: "
                                        r"fit_dask\(model, ddf, target='t'\)"):
        fit_dask(TAN(), ddf.drop(columns="t"), ddf["t"])
    with pytest.raises(ValueError, match="target='nope' is not a column of the Dask DataFrame; its columns: a, t"):
        fit_dask(TAN(), ddf, "nope")


def test_fit_dask_float_columns_use_approximate_quantiles():
    import dask.dataframe as dd
    rng = np.random.default_rng(7)
    x = rng.normal(size=2000)
    x[::17] = np.nan
    frame = pd.DataFrame({"x": x, "z": rng.integers(0, 3, 2000), "y": (rng.random(2000) < 0.3).astype(int)})
    ddf = dd.from_pandas(frame, npartitions=4)
    model = fit_dask(NaiveBayes(encoder=Encoder(discretizer="quantile")), ddf, "y", scheduler="synchronous")
    cuts = model.encoder_.cut_points_[0]
    assert model.encoder_.kinds_ == ["discretised", "categorical"] and cuts.size == 4
    # Dask's own approximate quantiles, computed partition by partition with the other facts.
    assert_array_equal(cuts, ddf["x"].quantile([0.2, 0.4, 0.6, 0.8]).compute(scheduler="synchronous"))
    # Every bin holds about a fifth of the observed values.
    shares = np.bincount(np.searchsorted(cuts, x[~np.isnan(x)], side="right"), minlength=5) / (~np.isnan(x)).sum()
    assert np.all(np.abs(shares - 0.2) < 0.03)
    # The counts are exactly those of the whole table under the learned encoding.
    codes = model.encoder_.transform(frame[["x", "z"]])
    want = count(codes, frame["y"].to_numpy(), model.encoder_.cardinalities_, 2)
    assert_array_equal(model.counts_.levels, want.levels)
    uniform = fit_dask(NaiveBayes(encoder=Encoder(discretizer="uniform")), ddf, "y", scheduler="synchronous")
    want = NaiveBayes(encoder=Encoder(discretizer="uniform")).fit(frame[["x", "z"]], frame["y"])
    assert_array_equal(uniform.encoder_.cut_points_[0], want.encoder_.cut_points_[0])
    assert_array_equal(uniform.predict_proba(frame[["x", "z"]]), want.predict_proba(frame[["x", "z"]]))


def _mdl_frame(n=1500, seed=1):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 2)
    x[::13] = np.nan
    y = np.where(x + rng.normal(size=n) > 0.3, "b", "a")
    y[rng.random(n) < 0.1] = "c"
    return pd.DataFrame({"x": x, "z": rng.integers(0, 300, n), "w": rng.gamma(2.0, size=n) + (y == "b"),
                         "k": rng.choice(list("pq"), n), "y": y})


@pytest.mark.filterwarnings("ignore::pybnc.encode.EncodingWarning")
def test_fit_dask_mdl_cut_points_equal_fit_exactly():
    """The default discretiser: MDL from the summed (value, class) tables is fit's MDL."""
    import dask.dataframe as dd
    frame = _mdl_frame()
    X = frame.drop(columns="y")
    ddf = dd.from_pandas(frame, npartitions=4)
    for make in (NaiveBayes, TAN):
        got = fit_dask(make(), ddf, "y", scheduler="synchronous")
        want = make().fit(X, frame["y"])
        assert got.encoder_.kinds_ == want.encoder_.kinds_ == ["discretised"] * 3 + ["categorical"]
        for g, w in zip(got.encoder_.cut_points_, want.encoder_.cut_points_):
            assert_array_equal(g, w)
        assert got.encoder_.cut_points_[0].size >= 2  # a real test: x is cut
        assert_array_equal(pair_counts(got), pair_counts(want))
        assert_array_equal(got.predict_proba(X), want.predict_proba(X))


@pytest.mark.filterwarnings("ignore::pybnc.encode.EncodingWarning")
def test_fit_dask_on_a_wide_table_equals_fit_and_its_graph_does_not_grow_with_the_columns():
    """One task per partition learns every column's facts: 500 rows x 2,000 floats took
    minutes when each column and fact was a Dask expression of its own."""
    import dask.dataframe as dd
    from pybnc.encode import plan_encoder
    rng = np.random.default_rng(3)
    n, w = 120, 300
    frame = pd.DataFrame(np.round(rng.normal(size=(n, w)), 1), columns=[f"x{j}" for j in range(w)])
    frame["k"], frame["i"] = rng.choice(list("pqr"), n), rng.integers(0, 3, n)
    frame.iloc[::7, 5] = np.nan
    frame["y"] = np.where(frame["x0"] + rng.normal(size=n) > 0, "a", "b")
    ddf = dd.from_pandas(frame, npartitions=3)
    X = frame.drop(columns="y")
    got, want = fit_dask(NaiveBayes(), ddf, "y", scheduler="synchronous"), NaiveBayes().fit(X, frame["y"])
    assert got.encoder_.kinds_ == want.encoder_.kinds_
    assert_array_equal(got.predict_proba(X), want.predict_proba(X))
    got = fit_dask(TAN(encoder=Encoder(discretizer="quantile")), ddf, "y", scheduler="synchronous")
    assert got.encoder_.kinds_ == TAN(encoder=Encoder(discretizer="quantile")).fit(X, frame["y"]).encoder_.kinds_
    graphs = [len(plan_encoder(NaiveBayes()._encoder(), X.iloc[:0, :m], ddf[[*X.columns[:m], "y"]], "y")
                  .__dask_graph__()) for m in (3, 300)]
    assert graphs[0] == graphs[1]


def test_fit_dask_mdl_past_the_distinct_limit_cuts_among_quantile_edges(monkeypatch):
    import dask.dataframe as dd
    from pybnc.encode.discretize import mdl_cut_points
    from pybnc.encode import grow
    frame = _mdl_frame()
    ddf = dd.from_pandas(frame[["x", "w", "y"]], npartitions=3)
    monkeypatch.setattr(grow, "MDL_MAX_DISTINCT", 300)  # x has ~480 distinct values, w ~1,400
    with pytest.warns(EncodingWarning, match="among 999 approximate quantiles"):
        got = fit_dask(NaiveBayes(), ddf, "y", scheduler="synchronous")
    classes = np.array(["a", "b", "c"])
    for j, name in enumerate(["x", "w"]):
        col = frame[name]
        edges = np.asarray(ddf[name].quantile(np.arange(1, 1000) / 1000).compute(scheduler="synchronous"))
        edges = np.unique(edges[edges > col.min()])
        cuts = got.encoder_.cut_points_[j]
        assert cuts.size >= 1 and np.isin(cuts, edges).all()
        # MDL over the bins' exact class counts, computed here from the rows.
        seen = col.notna().to_numpy()
        bins = np.searchsorted(edges, col[seen], side="right")
        counts = np.zeros((edges.size + 1, 3), dtype=np.int64)
        np.add.at(counts, (bins, np.searchsorted(classes, frame["y"][seen])), 1)
        assert_array_equal(cuts, mdl_cut_points(counts, edges))



def test_kdb_from_blocks_equals_kdb_from_all_rows_exactly():
    """Sahami's kDB: the structure from the summed pair counts, then a second pass counts
    the families of two parents; block-wise equals whole exactly, missing values and a
    level first seen in a later block included."""
    X, y = _table(500, seed=9)
    X = X.astype(object)
    X.iloc[::11, 1] = None
    whole = KDB(k=2).fit(X, y)
    blocks = [(X[i:i + 120], y[i:i + 120]) for i in range(0, 500, 120)]
    for source in (blocks, lambda: iter(blocks)):
        streamed = fit_blocks(KDB(k=2), source, classes=np.unique(y))
        assert streamed.structure_ == whole.structure_
        assert max(len(p) for p in streamed.structure_.parents) == 2
        for got, want in zip(streamed.log_cpts_, whole.log_cpts_):
            assert_array_equal(got, want)
        assert_array_equal(streamed.predict_proba(X), whole.predict_proba(X))
    with pytest.raises(TypeError, match="reads the blocks 2 times.*lambda: pd.read_csv"):
        fit_blocks(KDB(k=2), iter(blocks), classes=np.unique(y))
    assert not hasattr(KDB(), "partial_fit")  # one pass cannot count the final structure's families


def test_which_classifiers_table_is_what_they_declare():
    """docs/large-data.md's table of which classifier streams how, read from the classifiers."""
    from pybnc import (AODE, BSEJ, ESKDB, FAN, FSSJ, KDB, MANB, SKDB, SSTBMATAN, TANHC, TANHCSP, TBMATAN, AnDE,
                       NaiveBayes, capabilities)

    assert capabilities(TAN).learns_from_counts and capabilities(KDB).passes == 2
    assert capabilities(TAN(weighting="awnb")).passes == 0
    one_pass = [NaiveBayes, TAN, FAN, MANB, AODE, AnDE, TBMATAN, SSTBMATAN]
    rows_only = [KDB(search="hc"), TANHC, TANHCSP, FSSJ, BSEJ, ESKDB, NaiveBayes(weighting="wanbia")]
    assert all(capabilities(c).learns_from_counts and capabilities(c).passes == 1 for c in one_pass)
    assert [capabilities(c).passes for c in (KDB, SKDB)] == [2, 3]
    assert all(capabilities(c).passes == 0 for c in rows_only)
