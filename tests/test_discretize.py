import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline

from pybnc.encode.discretize import (
    EqualFrequencyDiscretizer,
    EqualWidthDiscretizer,
    MDLPDiscretizer,
    cut_points,
)


# ---------------------------------------------------------------- cut_points
def test_quantile_known_cuts():
    np.testing.assert_allclose(cut_points(np.arange(100.0), "quantile", 5), [19.5, 39.5, 59.5, 79.5])


def test_quantile_bins_have_equal_counts():
    x = np.random.default_rng(0).normal(size=1000)
    cuts = cut_points(x, "quantile", 4)
    counts = np.bincount(np.searchsorted(cuts, x, side="right"))
    assert counts.tolist() == [250, 250, 250, 250]


def test_quantile_few_distinct_values_gives_fewer_bins():
    x = np.array([1, 1, 1, 1, 2, 2, 3, 3, 3, 3], dtype=float)
    cuts = cut_points(x, "quantile", 5)
    np.testing.assert_allclose(cuts, [1.5, 2.5])
    assert cut_points(np.full(7, 4.2), "quantile", 5).size == 0


def test_quantile_cuts_between_distinct_values():
    x = np.random.default_rng(1).integers(0, 6, size=300).astype(float)
    cuts = cut_points(x, "quantile", 5)
    assert np.all(np.diff(cuts) > 0)
    assert not np.isin(cuts, x).any()


def test_uniform_known_cuts():
    np.testing.assert_allclose(cut_points([0.0, 10.0], "uniform", 5), [2, 4, 6, 8])
    np.testing.assert_allclose(cut_points(np.linspace(0, 10, 11), "uniform", 5), [2, 4, 6, 8])
    np.testing.assert_allclose(cut_points([-1.0, 1.0, 0.3], "uniform", 2), [0.0])
    assert cut_points([3.0, 3.0], "uniform", 5).size == 0


def test_mdl_single_step():
    x = np.random.default_rng(2).uniform(0, 8, size=400)
    x = np.round(x * 4) / 4  # ties, so only midpoints of distinct values count
    cuts = cut_points(x, "mdl", y=(x > 3.5).astype(int))
    np.testing.assert_allclose(cuts, [3.625])  # midpoint of 3.5 and 3.75
    x = np.repeat(np.arange(8.0), 25)
    np.testing.assert_allclose(cut_points(x, "mdl", y=(x > 3.5).astype(int)), [3.5])


def test_mdl_noise_gives_no_cut():
    rng = np.random.default_rng(3)
    x = rng.normal(size=500)
    assert cut_points(x, "mdl", y=rng.integers(0, 2, size=500)).size == 0


def test_mdl_three_class_step():
    x = np.random.default_rng(4).uniform(0, 9, size=600)
    y = np.digitize(x, [3.0, 6.0])
    cuts = cut_points(x, "mdl", y=y)
    assert cuts.size == 2
    np.testing.assert_allclose(cuts, [3.0, 6.0], atol=0.05)
    # Cuts separate the classes exactly.
    assert (np.searchsorted(cuts, x, side="right") == y).all()


def test_mdl_accepts_labels_and_ignores_n_bins():
    x = np.repeat(np.arange(8.0), 25)
    y = np.where(x > 3.5, "yes", "no")
    np.testing.assert_allclose(cut_points(x, "mdl", n_bins=0, y=y), [3.5])


def test_mdl_criterion_at_the_threshold():
    # Two pure halves of m rows each: Gain = 1 bit, Delta = log2(7) - 2.
    # Accept iff 1 > (log2(2m - 1) + log2(7) - 2) / (2m).
    for m in range(1, 12):
        x = np.arange(2.0 * m)
        y = (x >= m).astype(int)
        n = 2 * m
        expected = 1 > (np.log2(n - 1) + np.log2(7) - 2) / n
        assert (cut_points(x, "mdl", y=y).size == 1) == expected, m


def test_mdl_iris_petal_length():
    X, y = load_iris(return_X_y=True)
    cuts = [cut_points(X[:, j], "mdl", y=y) for j in range(4)]
    assert all(1 <= c.size <= 4 for c in cuts)
    assert cuts[2][0] == pytest.approx(2.45)
    np.testing.assert_allclose(cuts[2], [2.45, 4.75])
    np.testing.assert_allclose(cuts[3], [0.8, 1.75])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(method="kmeans"), "method"),
        (dict(n_bins=1), "n_bins"),
        (dict(n_bins=2.5), "n_bins"),
        (dict(method="mdl"), "pass y, the class of each row"),
    ],
)
def test_cut_points_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cut_points(np.arange(10.0), **kwargs)


def test_cut_points_rejects_non_finite():
    with pytest.raises(ValueError, match="finite"):
        cut_points([1.0, np.nan], "quantile")
    with pytest.raises(ValueError, match="finite"):
        cut_points([1.0, np.inf], "uniform")


def test_adjacent_floats_still_separated():
    a = 1.0
    b = np.nextafter(a, 2.0)
    x = np.array([a] * 5 + [b] * 5)
    cuts = cut_points(x, "quantile", 2)
    assert cuts.size == 1
    assert np.searchsorted(cuts, a, side="right") == 0
    assert np.searchsorted(cuts, b, side="right") == 1


# -------------------------------------------------------------- transformers
def test_transformer_array_codes():
    X = np.column_stack([np.arange(100.0), np.arange(100.0)[::-1]])
    d = EqualFrequencyDiscretizer(n_bins=5).fit(X)
    assert d.n_features_in_ == 2 and not hasattr(d, "feature_names_in_")
    Xt = d.transform(X)
    assert Xt.dtype == np.int64
    assert Xt[:, 0].tolist() == np.repeat(np.arange(5), 20).tolist()
    assert d.n_bins_.tolist() == [5, 5]


def test_transformer_nan_array():
    X = np.array([[0.0], [np.nan], [10.0], [5.0]])
    Xt = EqualWidthDiscretizer(n_bins=2).fit_transform(X)
    assert Xt.dtype == np.float64
    np.testing.assert_array_equal(Xt.ravel(), [0, np.nan, 1, 1])


def test_transformer_dataframe_round_trip():
    df = pd.DataFrame(
        {
            "a": [0.0, 1.0, 2.0, np.nan, 4.0, 5.0],
            "b": pd.array([1, 2, None, 4, 5, 6], dtype="Int64"),
            "colour": ["r", "g", "b", "r", "g", "b"],
        },
        index=list("uvwxyz"),
    )
    d = EqualWidthDiscretizer(n_bins=2).fit(df)
    assert d.feature_names_in_.tolist() == ["a", "b", "colour"]
    assert d.get_feature_names_out().tolist() == ["a", "b", "colour"]
    assert d.cut_points_[2] is None
    out = d.transform(df)
    assert list(out.columns) == ["a", "b", "colour"]
    assert (out.index == df.index).all()
    assert str(out["a"].dtype) == "Int64" and str(out["b"].dtype) == "Int64"
    assert out["a"].tolist() == [0, 0, 0, pd.NA, 1, 1]
    assert out["b"].tolist() == [0, 0, pd.NA, 1, 1, 1]
    assert out["colour"].tolist() == df["colour"].tolist()
    assert df["a"].dtype == np.float64  # input untouched


def test_transform_checks_columns():
    df = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)})
    d = EqualFrequencyDiscretizer(n_bins=2).fit(df)
    with pytest.raises(ValueError):
        d.transform(df[["b", "a"]])
    with pytest.raises(ValueError), pytest.warns(UserWarning, match="feature names"):
        d.transform(np.zeros((3, 3)))


def test_infinite_values_name_the_column():
    df = pd.DataFrame({"ok": [1.0, 2.0, 3.0], "bad": [1.0, np.inf, 2.0]})
    with pytest.raises(ValueError, match="'bad'"):
        EqualFrequencyDiscretizer().fit(df)
    d = EqualFrequencyDiscretizer(n_bins=2).fit(df[["ok"]].assign(bad=0.0))
    with pytest.raises(ValueError, match="'bad'.*infinite"):
        d.transform(df)


@pytest.mark.parametrize("n_bins", [1, 0, -3, 2.0, "5", None])
def test_bad_n_bins(n_bins):
    X = np.arange(10.0).reshape(-1, 1)
    est = EqualWidthDiscretizer(n_bins=n_bins)  # stored unchanged, checked in fit
    assert est.get_params()["n_bins"] == n_bins
    with pytest.raises(ValueError, match="n_bins"):
        est.fit(X)


def test_mdlp_needs_y():
    with pytest.raises(ValueError, match="requires y"):
        MDLPDiscretizer().fit(np.arange(10.0).reshape(-1, 1))


def test_mdlp_iris_dataframe():
    X, y = load_iris(return_X_y=True, as_frame=True)
    X = X.copy()
    X.iloc[0, 2] = np.nan  # one missing value must be ignored when fitting
    d = MDLPDiscretizer().fit(X, y)
    assert d.cut_points_[2][0] == pytest.approx(2.45)
    assert all(1 <= c.size <= 4 for c in d.cut_points_)
    out = d.transform(X)
    assert out.iloc[0, 2] is pd.NA
    assert out.iloc[1:, 2].tolist() == np.searchsorted(d.cut_points_[2], X.iloc[1:, 2], side="right").tolist()


@pytest.mark.parametrize("est", [EqualFrequencyDiscretizer(3), EqualWidthDiscretizer(4), MDLPDiscretizer()])
def test_pipeline(est):
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(clone(est), CategoricalNB())
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.85


def test_pipeline_set_output_pandas():
    X, y = load_iris(return_X_y=True, as_frame=True)
    d = EqualFrequencyDiscretizer().set_output(transform="pandas")
    out = d.fit_transform(X.to_numpy(), y)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == [f"x{i}" for i in range(4)]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
@pytest.mark.parametrize("est", [EqualFrequencyDiscretizer(), EqualWidthDiscretizer(), MDLPDiscretizer()])
def test_sklearn_estimator_checks(est):
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(est)


def test_split_scores_entropies_are_the_guarded_ones_to_the_bit():
    """MDL's split scores read every segment and both halves of each split without the guard
    for empty rows (none is empty there); the entropies must be the guarded ones exactly,
    integer and weighted counts alike."""
    from pybnc.encode.discretize import _entropy_bits, _filled_entropy_bits

    rng = np.random.default_rng(0)
    for counts in (rng.integers(0, 9, size=(400, 5)), rng.random((400, 3)) * rng.integers(0, 2, size=(400, 3))):
        counts = counts[counts.sum(axis=1) > 0]
        assert counts.shape[0] > 300
        np.testing.assert_array_equal(_filled_entropy_bits(counts), _entropy_bits(counts))
        np.testing.assert_array_equal(_filled_entropy_bits(counts[7]), _entropy_bits(counts[7]))
