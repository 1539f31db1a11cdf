"""Tests for pybnc.datasets: expected sizes come from the UCI .names files
and /work/shared/datasets/uci/INDEX.tsv, not from the loader itself."""

import numpy as np
import pandas as pd
import pytest

from pybnc.datasets import describe, list_datasets, load_dataset

# name: (rows, features, classes, missing cells, continuous features)
EXPECTED = {
    "adult": (48842, 14, 2, 6465, 6),
    "breast": (699, 9, 2, 16, 9),
    "car": (1728, 6, 4, 0, 0),
    "chess": (3196, 36, 2, 0, 0),
    "cleve": (303, 13, 2, 7, 6),
    "crx": (690, 15, 2, 67, 6),
    "flare": (1066, 10, 2, 0, 0),
    "glass": (214, 9, 6, 0, 9),
    "hepatitis": (155, 19, 2, 167, 6),
    "iris": (150, 4, 3, 0, 4),
    "letter": (20000, 16, 26, 0, 16),
    "mushroom": (8124, 22, 2, 2480, 0),
    "nursery": (12960, 8, 5, 0, 0),
    "pima": (768, 8, 2, 0, 8),
    "soybean": (683, 35, 19, 2337, 0),
    "votes": (435, 16, 2, 392, 0),
}


def _load(name, **kw):
    try:
        return load_dataset(name, **kw)
    except FileNotFoundError as exc:
        if name == "pima":
            pytest.skip(f"pima is not bundled and was not found: {exc}")
        raise


def test_list_datasets():
    assert list_datasets() == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shape_classes_missing_dtypes(name):
    rows, feats, classes, missing, n_cont = EXPECTED[name]
    X, y = _load(name)
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert X.shape == (rows, feats)
    assert len(y) == rows and y.name == "class"
    assert y.nunique() == classes and not y.isna().any()
    assert int(X.isna().sum().sum()) == missing
    assert sum(X.dtypes == "float64") == n_cont
    for col in X.columns:
        if X[col].dtype != "float64":
            assert isinstance(X[col].dtype, pd.CategoricalDtype), col
            cats = X[col].cat.categories
            assert all(isinstance(c, str) for c in cats), col
            assert "?" not in cats, col
    d = describe(name)
    assert (d["n_rows"], d["n_features"], d["n_classes"]) == (rows, feats, classes)
    assert d["has_missing"] == (missing > 0)
    assert d["features"] == list(X.columns)


@pytest.mark.parametrize("name, counts", [
    ("car", {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}),
    ("chess", {"won": 1669, "nowin": 1527}),
    ("votes", {"democrat": 267, "republican": 168}),
    ("breast", {"2": 458, "4": 241}),
    ("hepatitis", {"1": 32, "2": 123}),
    ("crx", {"+": 307, "-": 383}),
    ("mushroom", {"e": 4208, "p": 3916}),
    ("adult", {"<=50K": 37155, ">50K": 11687}),
    ("cleve", {"buff": 165, "sick": 138}),
    ("flare", {"0": 884, "1": 182}),
    ("glass", {"1": 70, "2": 76, "3": 17, "5": 13, "6": 9, "7": 29}),
    ("iris", {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}),
    ("nursery", {"not_recom": 4320, "priority": 4266, "spec_prior": 4044,
                 "very_recom": 328, "recommend": 2}),
    ("pima", {"0": 500, "1": 268}),
])
def test_class_counts(name, counts):
    _, y = _load(name)
    assert y.value_counts().to_dict() == counts


def test_column_names_and_specific_missing():
    X, _ = load_dataset("chess")
    assert list(X.columns[:3]) == ["bkblk", "bknwy", "bkon8"]
    X, _ = load_dataset("votes")
    assert X.columns[0] == "handicapped-infants"
    assert X["export-administration-act-south-africa"].isna().sum() == 104
    assert set(X["crime"].cat.categories) == {"n", "y"}
    X, _ = load_dataset("mushroom")
    assert X["stalk-root"].isna().sum() == 2480
    X, _ = load_dataset("breast")
    assert X["bare_nuclei"].isna().sum() == 16
    assert "sample_code_number" not in X.columns
    X, _ = load_dataset("adult")
    assert X["native-country"].isna().sum() == 857
    assert not X["workclass"].cat.categories.str.startswith(" ").any()


def test_adult_and_cleve_cleaning():
    _, y = load_dataset("adult")
    assert list(y.cat.categories) == ["<=50K", ">50K"]
    X, y = load_dataset("cleve")
    assert X.dropna().shape[0] == 296  # Friedman et al. 1997
    assert X["ca"].dtype == "float64" and X["thal"].dtype == "category"


def test_numeric_codes_sorted_numerically():
    X, _ = load_dataset("flare")
    assert list(X["evolution"].cat.categories) == ["1", "2", "3"]
    _, y = load_dataset("glass")
    assert list(y.cat.categories) == ["1", "2", "3", "5", "6", "7"]


def test_as_frame_false():
    X, y = load_dataset("votes", as_frame=False)
    assert isinstance(X, np.ndarray) and X.dtype == object
    assert X.shape == (435, 16) and y.shape == (435,) and y.dtype == object
    assert pd.isna(X).sum() == 392
    X, _ = load_dataset("iris", as_frame=False)
    assert X.shape == (150, 4) and isinstance(X[0, 0], float)


def test_aliases_and_copies():
    X1, _ = load_dataset("kr-vs-kp")
    X2, _ = load_dataset("Chess")
    assert X1.equals(X2)
    X1.iloc[0, 0] = np.nan  # must not leak into the cache
    assert not load_dataset("chess")[0].iloc[:, 0].isna().any()
    assert load_dataset("house_votes_84")[0].shape == (435, 16)


def test_unknown_name():
    with pytest.raises(ValueError, match="Valid names: adult, breast.*votes"):
        load_dataset("no-such-data")
    with pytest.raises(ValueError, match="Valid names"):
        describe("no-such-data")


def test_describe_attribution():
    d = describe("votes")
    assert "Dua" in d["attribution"] and "CC BY 4.0" in d["attribution"]
    assert d["source"] and d["bundled"]
    assert describe("pima")["bundled"] is False


def test_pima_missing_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("PYBNC_DATA_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="PYBNC_DATA_HOME"):
        load_dataset("pima")
    with pytest.raises(FileNotFoundError, match="data_home"):
        load_dataset("pima", data_home=tmp_path / "elsewhere")


def test_pima_data_home(tmp_path):
    src, _ = _load("pima")  # skips when the shared copy is absent
    rows = ["6,148,72,35,0,33.6,0.627,50,1", "1,85,66,29,0,26.6,0.351,31,0"]
    (tmp_path / "pima-indians-diabetes.data").write_text("\n".join(rows) + "\n")
    X, y = load_dataset("pima", data_home=tmp_path)
    assert X.shape == (2, 8) and list(y) == ["1", "0"]
    assert X.iloc[0].tolist() == src.iloc[0].tolist()


def test_bundled_files_exist():
    from pybnc.datasets._uci import DATA_DIR, SPECS

    for s in SPECS:
        for f in s.files:
            assert (DATA_DIR / s.name / f).is_file() == s.shipped, (s.name, f)
    assert (DATA_DIR / "README.md").is_file()
