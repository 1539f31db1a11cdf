"""Encoding policies every classifier shares: predict agrees with predict_proba,
warnings for silent surprises, identifier columns, missing as a category, integer
columns taken as numbers."""

import decimal
import warnings

import numpy as np
import pandas as pd
import pytest

import pybnc
from pybnc import capabilities
from pybnc.encode import EncodingWarning, Encoder, column_report, detect_id_columns
from pybnc.evaluation import cross_validate
from pybnc.estimators.base import BaseBNC

CLASSIFIERS = [getattr(pybnc, name) for name in pybnc.__all__
               if isinstance(getattr(pybnc, name), type) and issubclass(getattr(pybnc, name), BaseBNC)]


def quiet(Model, **params):
    """The estimator with its progress silenced where it has a ``verbose``; encoding
    options go to its encoder."""
    encoding = {k: params.pop(k) for k in list(params) if k in Encoder().get_params()}
    if encoding:
        params["encoder"] = Encoder(**encoding)
    if "verbose" in Model().get_params():
        params.setdefault("verbose", 0)
    return Model(**params)


@pytest.mark.parametrize("Model", CLASSIFIERS, ids=lambda m: m.__name__)
def test_predict_is_argmax_of_predict_proba_on_exact_ties(Model):
    # Issue 9: p and r tie exactly when x0 is missing, but their joint log-likelihoods
    # differ by one ulp; predict must follow predict_proba and give the first class.
    X = pd.DataFrame({"x0": ["a"] * 26 + ["b"] * 2 + ["c"] * 2})
    y = np.array(["p"] * 12 + ["q"] * 6 + ["r"] * 12)
    query = pd.DataFrame({"x0": [None, "a", "b", "c"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = quiet(Model).fit(X, y)
    proba = model.predict_proba(query)
    np.testing.assert_array_equal(model.predict(query), model.classes_[np.argmax(proba, axis=1)])
    if capabilities(getattr(model, "best_estimator_", model)).rereads_rows:
        return  # AutoBNC chose discriminative weights: the classes' prior weights differ, no tie
    assert proba[0, 0] == proba[0, 2]
    assert model.predict(query)[0] == "p"


# -- 9.5: one warning per call for each silent surprise; refusals that say what to convert
def _fitted():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"] * 5, "b": [0, 1, 1, 0] * 5})
    return pybnc.NaiveBayes().fit(X, [0, 1, 0, 1] * 5), X


def test_extra_columns_at_predict_warn_once_naming_them():
    model, X = _fitted()
    with pytest.warns(EncodingWarning, match=r"not fitted on: \['extra', 'more'\]") as caught:
        model.predict(X.assign(extra=1, more="m"))
    assert sum(issubclass(w.category, EncodingWarning) for w in caught) == 1


def test_integers_where_strings_were_fitted_warn_naming_the_column():
    model, X = _fitted()
    with pytest.warns(EncodingWarning, match=r"'a' got 1.*treated as missing.*columns 'a'"):
        proba = model.predict_proba(X.assign(a=[1, 2, 1, 2] * 5))
    np.testing.assert_allclose(proba, model.predict_proba(X.assign(a=None)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X.assign(a=["x", "unseen", "x", "y"] * 5))  # an unseen category of the same type: silent


@pytest.mark.parametrize("cell, kind", [([1, 2], "list"), ({"k": 1}, "dict")])
def test_containers_in_a_column_name_it(cell, kind):
    X = pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "v", "u"]})
    X["b"] = pd.Series(["u", cell, "v"], dtype=object)
    with pytest.raises(TypeError, match=rf"Column 'b' holds a {kind} at row 1.*string or a number"):
        pybnc.TAN().fit(X, [0, 1, 0])
    model = pybnc.TAN().fit(X.assign(b="u"), [0, 1, 0])
    with pytest.raises(TypeError, match="Column 'b' holds a"):
        model.predict(X)


@pytest.mark.parametrize("column, match", [
    (pd.to_datetime(["2020-01-01", "2021-05-01", "2022-01-01"]), r"Column 'd' holds dates.*\.dt\.year"),
    (pd.to_timedelta([1, 2, 3], unit="D"), r"Column 'd' holds durations.*total_seconds"),
    (pd.Series([b"x", b"y", b"x"], dtype=object), r"Column 'd' holds bytes.*decode"),
    (pd.Series([pd.Timestamp("2020-01-01"), "x", "y"], dtype=object), r"Column 'd' holds dates or times"),
])
def test_unsavable_columns_refused_at_fit_saying_what_to_convert(column, match):
    X = pd.DataFrame({"a": ["x", "y", "x"], "d": column})
    with pytest.raises(TypeError, match=match):
        pybnc.NaiveBayes().fit(X, [0, 1, 0])


# -- 13.1: identifier columns by rule
def _with_identifier(n=100, distinct=90, name="ref", seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    ids = np.array([f"r{i % distinct}" for i in range(n)])  # exactly `distinct` values
    X = pd.DataFrame({name: ids, "a": np.where(rng.random(n) < 0.85, y, 1 - y).astype(str),
                      "b": rng.choice(["u", "v"], n)})
    return X, y


def test_arrow_and_object_durations_decimals_and_lists_are_named():
    pa = pytest.importorskip("pyarrow")
    cases = {
        "duration": (pd.Series(pd.to_timedelta([1, 2] * 5, unit="s")).astype(pd.ArrowDtype(pa.duration("s"))),
                     r"'c' holds durations.*total_seconds"),
        "timedelta objects": (pd.Series([pd.Timedelta(1, "s"), pd.Timedelta(2, "s")] * 5, dtype=object),
                              r"'c' holds durations.*total_seconds"),
        "decimal": (pd.Series([1.5, 2.5] * 5).astype(pd.ArrowDtype(pa.decimal128(5, 2))),
                    r"'c' holds decimals.*astype\(float\)"),
        "decimal objects": (pd.Series([decimal.Decimal("1.5"), decimal.Decimal("2.5")] * 5, dtype=object),
                            r"'c' holds decimals.*astype\(float\)"),
        "list": (pd.Series([[1], [2]] * 5).astype(pd.ArrowDtype(pa.list_(pa.int64()))), r"'c' holds nested values"),
    }
    for column, match in cases.values():
        with pytest.raises(TypeError, match=match):
            pybnc.NaiveBayes().fit(pd.DataFrame({"c": column, "s": list("uv") * 5}), [0, 1] * 5)


def test_identifier_of_90_percent_distinct_is_left_out_with_a_warning():
    X, y = _with_identifier()
    with pytest.warns(EncodingWarning, match=r"row identifiers.*'ref'.*id_columns='keep'"):
        model = pybnc.TAN().fit(X, y)
    assert model.encoder_.columns_ == ["a", "b"] and model.encoder_.dropped_columns_ == ["ref"]
    assert model.n_features_in_ == 3 and all("ref" not in arc for arc in model.arcs_)
    np.testing.assert_array_equal(model.predict_proba(X), pybnc.TAN().fit(X[["a", "b"]], y).predict_proba(X[["a", "b"]]))
    with pytest.raises(ValueError, match=r"Column 'ref' looks like a row identifier: 90 distinct values in 100"):
        pybnc.TAN(encoder=Encoder(id_columns="error")).fit(X, y)
    assert pybnc.TAN(encoder=Encoder(id_columns="keep")).fit(X, y).encoder_.columns_ == ["ref", "a", "b"]
    assert pybnc.TAN(encoder=Encoder(categorical_features=["ref"])).fit(X, y).encoder_.columns_ == ["ref", "a", "b"]


def test_identifier_rule_thresholds_and_name_test():
    assert pybnc.TAN().fit(*_with_identifier(distinct=80)).encoder_.columns_ == ["ref", "a", "b"]  # 80 %: kept
    with pytest.warns(EncodingWarning, match="'customer_id'"):  # 60 %, but the name says identifier
        assert pybnc.TAN().fit(*_with_identifier(distinct=60, name="customer_id")).encoder_.columns_ == ["a", "b"]
    assert pybnc.TAN().fit(*_with_identifier(distinct=40, name="name")).encoder_.columns_ == ["name", "a", "b"]
    # an integer running number named id: a number by the integer rule, an identifier by its name
    X, y = _with_identifier()
    with pytest.warns(EncodingWarning, match="'id'"):
        assert pybnc.NaiveBayes().fit(X.assign(id=np.arange(100)), y).encoder_.columns_ == ["a", "b"]
    # the same number made float by a blank cell (a CSV file's empty row) is still one
    with_blank = np.where(np.arange(100) == 5, np.nan, np.arange(100.0))
    with pytest.warns(EncodingWarning, match="'id'"):
        assert pybnc.NaiveBayes().fit(X.assign(id=with_blank), y).encoder_.columns_ == ["a", "b"]
    assert pybnc.NaiveBayes().fit(X.assign(id=with_blank + 0.5), y).encoder_.columns_ == ["a", "b", "id"]


def test_column_report_is_what_fit_decides():
    X, y = _with_identifier()
    X["m"] = np.arange(100) * 7 % 201
    X["when"] = pd.to_datetime("2020-01-01") + pd.to_timedelta(np.arange(100), unit="D")
    report = column_report(X, y).set_index("column")
    assert report["decision"].to_dict() == {"ref": "identifier", "a": "categorical", "b": "categorical",
                                            "m": "discretised", "when": "refused"}
    assert "90 distinct values in 100" in report.loc["ref", "reason"]
    assert "taken as numbers" in report.loc["m", "reason"] and "dates" in report.loc["when", "reason"]
    assert detect_id_columns(X.drop(columns="when")) == ["ref"]
    assert detect_id_columns(X.drop(columns="when"), id_columns="keep") == []


def test_cross_validation_fast_path_equals_refits_near_the_identifier_threshold():
    # 86 distinct of 100 rows: below 90 % on the whole table, above in some training folds.
    X, y = _with_identifier(distinct=86)
    models = {"nb": pybnc.NaiveBayes(), "tan": pybnc.TAN()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EncodingWarning)
        fast = cross_validate(models, X, y, cv=5, verbose=0)
        slow = cross_validate(models, X, y, cv=5, verbose=0, fast=False)
    cols = ["accuracy", "log_loss"]
    np.testing.assert_allclose(fast[cols].to_numpy(), slow[cols].to_numpy(), rtol=1e-12)


# -- 13.2: missing as a category
def _informative_missingness(n=400, seed=1):
    """``a`` is missing mostly in class 1 ("not applicable"); ``b`` is noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = pd.Series(rng.choice(["u", "v", "w"], n), dtype=object)
    a[(y == 1) & (rng.random(n) < 0.9)] = None
    a[(y == 0) & (rng.random(n) < 0.05)] = None
    return pd.DataFrame({"a": a, "b": rng.choice(["p", "q"], n), "c": rng.normal(size=n)}), y


@pytest.mark.parametrize("Model", [pybnc.NaiveBayes, pybnc.TAN, pybnc.KDB])
def test_missing_category_wins_when_missingness_is_informative(Model):
    X, y = _informative_missingness()
    scores = {m: cross_validate({"m": quiet(Model, missing=m)}, X, y, cv=5, verbose=0)["accuracy"].mean()
              for m in ("sum", "category")}
    assert scores["category"] > 0.85 > scores["sum"] + 0.2, scores


def test_missing_category_codes_learning_and_prediction():
    X, y = _informative_missingness(n=60)
    model = pybnc.NaiveBayes(encoder=Encoder(missing="category")).fit(X, y)
    enc = model.encoder_
    assert enc.categories_[0].tolist() == ["u", "v", "w", "(missing)"] and enc.missing_codes_.tolist() == [3, -1, -1]
    codes = enc.transform(pd.DataFrame({"a": [None, "zz", "u"], "b": ["p", None, "q"], "c": [0.0, np.nan, 1.0]}))
    assert codes[:, 0].tolist() == [3, -1, 0] and codes[1, 1] == -1 and codes[1, 2] == -1  # unseen: summed out
    # missing is learned like a level: its table entry is the smoothed count of missing cells
    counts = model.counts_.feature(0)
    assert counts[:, 3].tolist() == [float(((y == c) & X["a"].isna()).sum()) for c in (0, 1)]
    # a label that is taken gets another
    taken = pybnc.NaiveBayes(encoder=Encoder(missing="category")).fit(X.assign(a=X["a"].fillna("(missing)").where(X.index > 0)), y)
    assert taken.encoder_.categories_[0][-1] == "(missing)_"


def test_missing_category_block_by_block_equals_whole_and_cv_fast_path_equals_refits():
    X, y = _informative_missingness(n=120)
    X = X[["a", "b"]]
    order = np.argsort(X["a"].isna().to_numpy(), kind="stable")  # no missing value in the first block
    X, y = X.iloc[order].reset_index(drop=True), y[order]
    whole = pybnc.TAN(encoder=Encoder(missing="category")).fit(X, y)
    blocks = pybnc.TAN(encoder=Encoder(missing="category"))
    for rows in np.array_split(np.arange(len(y)), 4):
        blocks.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    assert blocks.encoder_.categories_[0].tolist() == whole.encoder_.categories_[0].tolist()
    np.testing.assert_array_equal(blocks.predict_proba(X), whole.predict_proba(X))
    models = {"nb": pybnc.NaiveBayes(encoder=Encoder(missing="category")), "tan": pybnc.TAN(encoder=Encoder(missing="category"))}
    fast = cross_validate(models, X, y, cv=5, verbose=0)
    slow = cross_validate(models, X, y, cv=5, verbose=0, fast=False)
    np.testing.assert_allclose(fast[["accuracy", "log_loss"]].to_numpy(), slow[["accuracy", "log_loss"]].to_numpy(),
                               rtol=1e-12)


# -- 13.3: integer columns with many values are numbers
def _integer_measurement(n=600, seed=2):
    rng = np.random.default_rng(seed)
    m = rng.permutation(np.resize(np.arange(200), n))  # 200 distinct values
    y = (m + rng.normal(0, 25, n) > 100).astype(int)
    return pd.DataFrame({"m": m, "k": rng.integers(0, 3, n)}), y


def test_integer_measurement_with_200_values_is_a_number():
    X, y = _integer_measurement()
    with pytest.warns(EncodingWarning, match=r"taken as numbers.*'m'.*categorical_features"):
        model = pybnc.TAN().fit(X, y)
    assert model.encoder_.kinds_ == ["discretised", "categorical"] and model.encoder_.cardinalities_[0] >= 2
    as_float = pybnc.TAN().fit(X.astype({"m": float}), y)
    np.testing.assert_array_equal(model.predict_proba(X), as_float.predict_proba(X.astype({"m": float})))
    # overrides: the list, the pandas dtype; and the reverse for a small integer column
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pybnc.TAN(encoder=Encoder(categorical_features=["m"])).fit(X, y).encoder_.cardinalities_[0] == 200
        assert pybnc.TAN().fit(X.astype({"m": "category"}), y).encoder_.kinds_[0] == "categorical"
        small = pybnc.TAN(encoder=Encoder(numeric_features=["k"], n_bins=2)).fit(X.assign(m=X["m"] // 20), y)
    assert small.encoder_.kinds_ == ["categorical", "discretised"]
    score_num = cross_validate({"t": pybnc.TAN()}, X, y, cv=5, verbose=0)["accuracy"].mean()
    score_cat = cross_validate({"t": pybnc.TAN(encoder=Encoder(categorical_features=["m"]))}, X, y, cv=5, verbose=0)["accuracy"].mean()
    assert score_num > score_cat


def test_feature_lists_are_validated_in_fit():
    X, y = _integer_measurement()
    for params, match in [({"categorical_features": ["nope"]}, "lists 'nope', which is not a column"),
                          ({"numeric_features": "m"}, "'numeric_features' parameter of Encoder must be an "
                                                      "array-like or None"),
                          ({"categorical_features": ["m"], "numeric_features": ["m"]}, "both in"),
                          ({"missing": "drop"}, r"'missing' parameter of Encoder must be a str among \{"),
                          ({"id_columns": "yes"}, "'id_columns' parameter of Encoder must be a str among")]:
        with pytest.raises(ValueError, match=match):
            pybnc.NaiveBayes(encoder=Encoder(**params)).fit(X, y)
    with pytest.raises(ValueError, match=r"Column 'k' is numeric in this model but holds the value 'x'"):
        pybnc.NaiveBayes(encoder=Encoder(numeric_features=["k"])).fit(X.assign(k=["x"] + [1] * (len(y) - 1)), y)


def test_models_with_left_out_columns_and_missing_levels_save_and_load(tmp_path):
    X, y = _with_identifier()
    X.loc[::3, "a"] = None
    with pytest.warns(EncodingWarning):
        model = pybnc.TAN(encoder=Encoder(missing="category")).fit(X, y)
    pybnc.save(model, tmp_path / "m.pybnc")
    loaded = pybnc.load(tmp_path / "m.pybnc")
    assert loaded.encoder_.dropped_columns_ == ["ref"] and loaded.encoder_.missing_codes_.tolist() == [2, -1]
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_nearly_unique_integer_numbers_are_named_as_possible_identifiers():
    X, y = _with_identifier()
    X["sample"] = np.random.default_rng(0).permutation(100) * 13 + 1000  # a sample number, unnamed
    with pytest.warns(EncodingWarning, match=r"nearly every row are taken as numbers, not as row identifiers: 'sample'"):
        assert pybnc.NaiveBayes().fit(X, y).encoder_.kinds_[-1] == "discretised"


def test_columns_mdl_leaves_uncut_contribute_nothing():
    """MDL keeps no cut for a column without class information: one level, and every
    classifier (TBMATAN's Kron reduction of all-neutral features included) gives the
    class prior when no column has more than one level."""
    from pybnc.averaging._laplacian import kron_reduce, log_tree_sum

    weights = np.log(np.array([[1, 1, 2], [1, 1, 3], [2, 3, 1]], dtype=float))
    assert kron_reduce(weights, np.ones(3, dtype=bool))[1] == pytest.approx(log_tree_sum(weights))  # 11 trees
    X = pd.DataFrame({"a": ["x"] * 5, "b": [0.0, 1.5, 0.25, 3.0, 2.0] * 1})
    y = np.array([0, 1, 0, 1, 0])
    # TANHCSP is left out: on a table whose every column is constant its superparent step
    # raises IndexError (search/tan_hc.py; issue 9.1's degenerate data, reported, not fixed here).
    for Model in [M for M in CLASSIFIERS if M is not pybnc.TANHCSP]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = quiet(Model).fit(X.assign(b=7.0), y)
        proba = model.predict_proba(X)
        assert np.allclose(proba, proba[0]) and proba[0, 0] > proba[0, 1], Model.__name__


def test_integer_arrays_encode_as_their_dataframe_does():
    """The integer-matrix path (all columns at once) gives the encoder and codes of the
    column-by-column path: small codes, negatives, a 40-value number, an identifier."""
    rng = np.random.default_rng(5)
    n = 300
    arr = np.column_stack([rng.integers(0, 3, n), rng.integers(-4, 2, n), rng.integers(0, 40, n),
                           np.arange(n) % 290, rng.integers(5, 7, n)]).astype(np.int32)
    y = (arr[:, 0] + (arr[:, 2] > 20) + rng.integers(0, 2, n)) % 2
    frame = pd.DataFrame(arr, columns=[f"x{i}" for i in range(5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EncodingWarning)
        fast, slow = Encoder(discretizer="mdl"), Encoder(discretizer="mdl")
        codes_fast, codes_slow = fast.fit_transform(arr, y), slow.fit_transform(frame, y)
    assert fast.columns_ == slow.columns_ and fast.kinds_[2:4] == ["discretised", "discretised"]
    for name in ("kinds_", "cardinalities_", "positions_", "dropped_columns_"):
        assert np.array_equal(np.asarray(getattr(fast, name)), np.asarray(getattr(slow, name))), name
    assert all(a.tolist() == b.tolist() for a, b in zip(fast.categories_, slow.categories_))
    np.testing.assert_array_equal(codes_fast, codes_slow)
    test = rng.integers(-6, 45, (50, 5))
    np.testing.assert_array_equal(fast.transform(test), slow.transform(pd.DataFrame(test, columns=frame.columns)))
    # 12 rows: 11 distinct codes make a categorical column an identifier on both paths
    ids = np.column_stack([np.arange(12) % 11, np.arange(12) % 2])
    with pytest.warns(EncodingWarning, match="row identifiers"):
        fast_ids = Encoder().fit(ids)
    with pytest.warns(EncodingWarning, match="row identifiers"):
        slow_ids = Encoder().fit(pd.DataFrame(ids, columns=["x0", "x1"]))
    assert fast_ids.dropped_columns_ == slow_ids.dropped_columns_ == ["x0"] and fast_ids.columns_ == ["x1"]
    np.testing.assert_array_equal(fast_ids.transform(ids), slow_ids.transform(pd.DataFrame(ids, columns=["x0", "x1"])))
    small = arr[:, [0, 1, 4]]
    enc = Encoder().fit(small)
    np.testing.assert_array_equal(enc.transform(test[:, [0, 1, 4]]),
                                  Encoder().fit(pd.DataFrame(small)).transform(pd.DataFrame(test[:, [0, 1, 4]])))


@pytest.mark.parametrize("missing", ["sum", "category"])
def test_wide_text_tables_are_looked_up_in_blocks_as_column_by_column(monkeypatch, missing):
    """Many text columns are matched in one block; the codes equal the column-by-column
    lookup's, including missing values, numbers mixed with text and booleans given as 0/1,
    and a column with an unseen value alone takes the column-by-column lookup."""
    rng = np.random.default_rng(3)
    n, w = 40, 12
    X = pd.DataFrame({f"t{j}": rng.choice(np.array(["lo", "mid", "hi", None], dtype=object), n) for j in range(w)})
    X["mixed"] = pd.Series([1, "two", 3.5, None] * (n // 4), dtype=object)
    X["flag"] = pd.Series([True, False] * (n // 2), dtype=object)
    X["arrow"] = pd.array(rng.choice(["x", "y"], n), dtype="string[pyarrow]")
    y = np.array([0, 1] * (n // 2))
    encoder = Encoder(missing=missing).fit(X, y)
    new = X.assign(flag=pd.Series([1, 0] * (n // 2), dtype=object), arrow=X["arrow"].astype(object))
    new.loc[3, "t5"] = "never seen"
    import pybnc.encode.table as table

    one_by_one = []
    lookup = table.lookup_column
    monkeypatch.setattr(table, "lookup_column", lambda col, *a: one_by_one.append(col.name) or lookup(col, *a))
    got = encoder.transform(new)
    assert one_by_one == ["t5"]
    monkeypatch.setattr(table, "TEXT_BLOCK_MIN_COLUMNS", 10**9)
    assert_array_equal = np.testing.assert_array_equal
    assert_array_equal(got, encoder.transform(new))
    assert len(one_by_one) == 1 + X.shape[1]


def test_long_text_tables_are_matched_column_by_column(monkeypatch):
    # Past a few thousand rows the block match is the slower way; the codes are the same.
    import pybnc.encode.table as table
    rng = np.random.default_rng(0)
    n = table.TEXT_BLOCK_MAX_ROWS + 1
    X = pd.DataFrame({f"t{i}": rng.choice(["a", "b", "c"], n) for i in range(table.TEXT_BLOCK_MIN_COLUMNS)})
    encoder = Encoder().fit(X, rng.integers(0, 2, n))
    blocks = []
    block = table.lookup_text_columns
    monkeypatch.setattr(table, "lookup_text_columns", lambda *a: blocks.append(1) or block(*a))
    long_codes = encoder.transform(X)
    assert blocks == []
    np.testing.assert_array_equal(encoder.transform(X.iloc[:100]), long_codes[:100])
    assert blocks == [1]


def test_surely_discretises_agrees_with_a_fit():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    few = pd.DataFrame({"level": rng.choice([1.0, 2.0, 3.0], 60), "colour": rng.choice(["r", "g"], 60)})
    many = few.assign(height=rng.normal(size=60))
    many.loc[3, "height"] = np.nan
    for X, listed, expected in [(few, None, False), (many, None, True), (many, ["height"], False)]:
        encoder = Encoder(discretizer="quantile", n_bins=5, categorical_features=listed)
        assert encoder.surely_discretises(X) is expected
        assert ("discretised" in encoder.fit(X, y).kinds_) is expected


def test_the_encoder_takes_class_labels_of_any_kind_as_a_classifier_does():
    """Encoder is public: ``fit(X, y)`` with the labels a user has (strings, booleans,
    categories) cuts as with their codes; it crashed on strings before ('invalid literal
    for int()')."""
    from pybnc.encode import Encoder

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.choice(["u", "v"], 300)})
    y = np.where(X["a"] + 0.3 * rng.normal(size=300) > 0.2, "rock", "mine")
    codes = (y == "rock").astype(np.int64)  # the codes a classifier passes: sorted labels
    expected = Encoder(discretizer="mdl").fit_transform(X, codes)
    assert len(Encoder(discretizer="mdl").fit(X, codes).cut_points_[0]) > 0  # the class is read
    for labels in (y, pd.Series(y, dtype="category"), pd.Series(y == "rock"), list(y)):
        np.testing.assert_array_equal(Encoder(discretizer="mdl").fit_transform(X, labels), expected)
    with pytest.raises(ValueError, match="300 rows but y has 10 labels"):
        Encoder(discretizer="mdl").fit(X, y[:10])
    with pytest.raises(ValueError, match="pass y"):
        Encoder(discretizer="mdl").fit(X)
