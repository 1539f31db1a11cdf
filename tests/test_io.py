"""Model files (save/load) and BIF/XMLBIF export."""

from __future__ import annotations

import inspect
import io
import json
import re
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

import pybnc
from pybnc.datasets import load_dataset
from pybnc.estimators import AugmentedNaiveBayes, BaseBNC
from pybnc.io import estimator_classes, load, read_header, save, to_bif, to_xmlbif
from pybnc.io.bif import ExportWarning, bif_names


def _concrete_classes():
    """Every pybnc classifier; base classes (abstract, or without parameters) are left out."""
    return sorted((c for c in estimator_classes().values()
                   if not inspect.isabstract(c) and c.__init__ is not object.__init__),
                  key=lambda c: c.__name__)


@pytest.fixture(scope="module")
def data():
    """votes (missing values) plus a float column (discretised), an int column and int classes."""
    X, y = load_dataset("votes")
    X = X.iloc[:, :8].copy()
    rng = np.random.default_rng(0)
    X["num"] = rng.normal(size=len(X)) + (y == "democrat").to_numpy()
    X["small_int"] = rng.integers(0, 3, size=len(X))
    train = np.arange(len(X)) % 3 != 0
    test = X[~train].astype(object)
    # Unseen categories and missing values at prediction time.
    test.iloc[::5, 0] = "maybe"
    test.iloc[1::7, 1] = None
    test.iloc[2::9, 9] = 7
    test["num"] = test["num"].astype(float)
    test.iloc[3::11, 8] = np.nan
    return X[train], y[train], test


def test_tables_of_long_runs_save_under_the_ratio_load_refuses():
    """A member of one value repeated compresses below the zip-bomb cap (500:1): an SKDB
    whose kDB tables are mostly unseen parent configurations (6 columns of 300 levels) saved
    at zlib's default level reached 705:1 and did not load; and a run of zeros deflated as
    pybnc writes stays under the cap."""
    import zlib

    from pybnc.io._archive import MAX_COMPRESSION_RATIO
    from pybnc.io.model_file import COMPRESS_LEVEL

    zeros = bytes(8 << 20)
    assert len(zeros) < MAX_COMPRESSION_RATIO * len(zlib.compress(zeros, COMPRESS_LEVEL))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    X = pd.DataFrame({f"m{i}": [f"v{v}" for v in rng.integers(0, 300, 600) + y * (i % 2)] for i in range(6)})
    model = pybnc.SKDB(verbose=0).fit(X, y)
    buffer = io.BytesIO()
    save(model, buffer)
    again = load(io.BytesIO(buffer.getvalue()))
    assert (again.predict_proba(X[:50]) == model.predict_proba(X[:50])).all()


def test_tables_learned_in_another_layout_predict_to_the_bit_after_a_round_trip():
    """Back-off tables are learned in a moved-axes layout; a loaded model holds C-order arrays.
    A sum over a row's unseen levels of 300 ran in another order there: a TAN fitted with a
    bootstrap sample's weights predicted 3.4e-15 apart after a round trip."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    X = pd.DataFrame({f"m{i}": [f"v{v}" for v in rng.integers(0, 300, 600) + y * (i % 2)] for i in range(6)})
    X["n"] = rng.normal(size=600) + y
    train = np.arange(600) % 2 == 0
    draws = np.random.default_rng(1).multinomial(300, np.full(300, 1 / 300))
    model = pybnc.TAN().fit(X[train], y[train], sample_weight=draws)
    assert all(table.flags.c_contiguous for table in model.log_cpts_)
    buffer = io.BytesIO()
    save(model, buffer)
    assert (load(io.BytesIO(buffer.getvalue())).predict_proba(X[~train]) == model.predict_proba(X[~train])).all()


@pytest.mark.parametrize("cls", _concrete_classes(), ids=lambda c: c.__name__)
def test_round_trip_is_bit_identical(cls, data, tmp_path):
    X, y, X_test = data
    model = cls().fit(X, y)
    path = tmp_path / "model.pybnc"
    save(model, path)
    again = load(path)
    assert type(again) is cls
    assert again.get_params() == model.get_params()
    assert set(vars(again)) == set(vars(model))
    assert (again.predict_proba(X_test) == model.predict_proba(X_test)).all()
    assert (again.predict(X_test) == model.predict(X_test)).all()
    assert read_header(path)["estimator"]["class"].endswith(cls.__name__)


def test_round_trip_keeps_types_and_labels(data):
    X, y, X_test = data
    model = pybnc.TAN(criterion="bic", smoothing="friedman").fit(X, y.map({"democrat": 0, "republican": 1}).astype(int))
    buffer = io.BytesIO()
    save(model, buffer)
    again = load(io.BytesIO(buffer.getvalue()))
    assert again.classes_.dtype == model.classes_.dtype and list(again.classes_) == [0, 1]
    assert again.structure_ == model.structure_
    for a, b in zip(again.encoder_.categories_, model.encoder_.categories_):
        assert a.dtype == b.dtype and [type(v) for v in a] == [type(v) for v in b] and list(a) == list(b)
    assert [None if c is None else c.tolist() for c in again.encoder_.cut_points_] == \
           [None if c is None else c.tolist() for c in model.encoder_.cut_points_]
    assert again.arcs_ == model.arcs_ and all(isinstance(a, tuple) for a in again.arcs_)
    assert (again.predict_proba(X_test) == model.predict_proba(X_test)).all()


def test_equal_models_give_equal_files(data):
    X, y, _ = data
    files = []
    for _ in range(2):
        buffer = io.BytesIO()
        save(pybnc.NaiveBayes().fit(X, y), buffer)
        files.append(buffer.getvalue())
    assert files[0] == files[1]


def _rewrite(path, edit_header=None, drop=None):
    """A copy of a model file with the header edited or a member dropped."""
    with zipfile.ZipFile(path) as src:
        members = {n: src.read(n) for n in src.namelist() if n != drop}
    if edit_header:
        header = json.loads(members["model.json"])
        edit_header(header)
        members["model.json"] = json.dumps(header).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name, blob in members.items():
            dst.writestr(name, blob)
    return io.BytesIO(out.getvalue())


@pytest.fixture(scope="module")
def saved(data, tmp_path_factory):
    X, y, _ = data
    path = tmp_path_factory.mktemp("models") / "tan.pybnc"
    save(pybnc.TAN().fit(X, y), path)
    return path


def test_wrong_and_corrupt_files_raise_clear_errors(saved, tmp_path):
    text = tmp_path / "model.txt"
    text.write_text("not a model")
    with pytest.raises(ValueError, match="not a pybnc model file .not a zip"):
        load(text)
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("something.txt", "hi")
    with pytest.raises(ValueError, match="no model.json"):
        load(io.BytesIO(other.getvalue()))
    with pytest.raises(ValueError, match="format 'other'"):
        load(_rewrite(saved, lambda h: h.update(format="other")))
    with pytest.raises(ValueError, match="missing array"):
        load(_rewrite(saved, drop="arrays/00002.npy"))
    truncated = tmp_path / "cut.pybnc"
    truncated.write_bytes(saved.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a pybnc model file"):
        load(truncated)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent.pybnc")


def test_newer_version_and_foreign_classes_are_refused(saved):
    with pytest.raises(ValueError, match="format version 99 .*Upgrade pybnc"):
        load(_rewrite(saved, lambda h: h.update(format_version=99)))

    def foreign(header):
        header["estimator"]["class"] = "os.system"
    with pytest.raises(ValueError, match="not a pybnc estimator class"):
        load(_rewrite(saved, foreign))

    def foreign_helper(header):
        header["estimator"]["attributes"]["encoder_"]["class"] = "subprocess.Popen"
    with pytest.raises(ValueError, match="not a pybnc helper class"):
        load(_rewrite(saved, foreign_helper))


def test_pickled_arrays_are_never_loaded(saved):
    evil = io.BytesIO()
    np.save(evil, np.array([object()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(saved) as src:
        members = {n: src.read(n) for n in src.namelist()}
    members["arrays/00000.npy"] = evil.getvalue()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name, blob in members.items():
            dst.writestr(name, blob)
    with pytest.raises(ValueError, match="never loaded"):
        load(io.BytesIO(out.getvalue()))


def test_save_refuses_unfitted_and_foreign_models(tmp_path):
    from sklearn.exceptions import NotFittedError
    from sklearn.naive_bayes import CategoricalNB

    with pytest.raises(NotFittedError):
        save(pybnc.TAN(), tmp_path / "x.pybnc")
    with pytest.raises(TypeError, match="pybnc classifiers only"):
        save(CategoricalNB(), tmp_path / "x.pybnc")


def test_unsupported_attribute_is_named(data, tmp_path):
    X, y, _ = data
    model = pybnc.NaiveBayes().fit(X, y)
    model.extra_ = lambda: None
    with pytest.raises(TypeError, match=r"NaiveBayes\.extra_: values of type .*function"):
        save(model, tmp_path / "x.pybnc")


# -- BIF ----------------------------------------------------------------------------------------
def _parse_bif(text):
    """A small BIF reader: variables with states, and tables as {(var, given): {config: probs}}."""
    variables = {m.group(1): [s.strip() for s in m.group(2).split(",")]
                 for m in re.finditer(r"variable ([\w.-]+) \{\s*type discrete \[ \d+ \] \{ ([^}]*) \};", text)}
    tables = {}
    for m in re.finditer(r"probability \( ([\w.-]+)(?: \| ([\w., -]+))? \) \{([^}]*)\}", text):
        given = tuple(g.strip() for g in m.group(2).split(",")) if m.group(2) else ()
        rows = {}
        for line in m.group(3).strip().splitlines():
            line = line.strip().rstrip(";")
            if line.startswith("table"):
                rows[()] = [float(v) for v in line[5:].split(",")]
            else:
                config, probs = re.fullmatch(r"\(([^)]*)\) (.*)", line).groups()
                rows[tuple(s.strip() for s in config.split(","))] = [float(v) for v in probs.split(",")]
        tables[m.group(1)] = (given, rows)
    return variables, tables


@pytest.fixture(scope="module")
def kdb_like(data):
    X, y, _ = data
    return pybnc.TAN().fit(X, y)


def test_bif_reparse_matches_tables(kdb_like):
    model = kdb_like
    names = bif_names(model)
    variables, tables = _parse_bif(to_bif(model))
    assert list(variables) == [names["class"]] + names["variables"]
    assert tables["class"][1][()] == np.exp(model.class_log_prior_).tolist()
    for i, var in enumerate(names["variables"]):
        given, rows = tables[var]
        parents = model.structure_.parents[i]
        assert given == ("class", *[names["variables"][p] for p in parents])
        assert variables[var] == names["states"][i]
        expected = np.exp(model.log_cpts_[i])
        for c, cname in enumerate(names["class_states"]):
            for j in range(expected.shape[1]):
                labels = [names["states"][p][k] for p, k in zip(parents, np.unravel_index(j, [len(names["states"][p]) for p in parents]))]
                assert rows[(cname, *labels)] == expected[c, j].tolist()


def test_names_are_sanitised_and_unique():
    X = pd.DataFrame({"class": ["a b", "a-b", "1"] * 4, "x-y": ["[0, 1)", "2", "2"] * 4,
                      "x y": ["u", "v", "u"] * 4, "n": ["1.5", "1e5", "z"] * 4, "7": ["a", "b", "c"] * 4})
    y = ["p", "q", "q", "p"] * 3
    model = pybnc.NaiveBayes().fit(X, y)
    with pytest.warns(ExportWarning, match=r"BIF names are words.*'class': 'a b' -> 'a_b'.*'n': '1\.5' -> '1_5', "
                                           r"'1e5' -> 's_1e5'"):
        text = to_bif(model)
    names = bif_names(model)
    assert names["class"] == "class_2"
    assert names["variables"] == ["class", "x-y", "x_y", "n", "v_7"]  # an integer is no variable to pyAgrum
    assert names["states"][0] == ["1", "a_b", "a-b"]  # words are kept: evidence by label works
    assert names["states"][1] == ["2", "0_1"]
    assert names["states"][3] == ["1_5", "s_1e5", "z"]
    assert "probability ( class | class_2 )" in text
    xml = bif_names(model, format="xmlbif")  # XMLBIF keeps them all
    assert xml["variables"] == ["class", "x-y", "x y", "n", "7"] and xml["states"][0] == ["1", "a b", "a-b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_xmlbif(model)
        to_bif(pybnc.NaiveBayes().fit(*load_dataset("car")))  # car's labels are words: no warning


@pytest.fixture(scope="module")
def labelled():
    """car (labels such as '2' and '5more'), a float column (discretised), a label with a
    space, missing values, and a TAN fitted on it."""
    X, y = load_dataset("car")
    X = X[["buying", "doors", "persons", "safety"]].copy()  # a small network: pgmpy's BIF parser is slow
    rng = np.random.default_rng(1)
    X["weight kg"] = rng.normal(1200, 200, len(X)) + 100 * (y == "unacc").to_numpy()
    X["colour"] = rng.choice(["dark red", "white", "2"], len(X))
    X.iloc[5::13, 0] = None
    return X, y, pybnc.TAN().fit(X, y)


def _evidence(model, row, names) -> dict:
    """A row's evidence by state name (missing values left out, as pybnc sums them out)."""
    codes = model.encoder_.transform(row.to_frame().T)[0]
    return {v: names["states"][j][c] for j, (v, c) in enumerate(zip(names["variables"], codes)) if c >= 0}


@pytest.mark.parametrize("fmt", ["bif", "xmlbif"])
def test_pyagrum_and_pgmpy_read_back_the_labels_and_the_posteriors(fmt, labelled, tmp_path):
    import pyagrum as gum
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    X, y, model = labelled
    path = tmp_path / f"model.{fmt if fmt == 'bif' else 'bifxml'}"
    if fmt == "bif":  # car's labels are words, kept; a colour with a space is said renamed
        with pytest.warns(ExportWarning, match=r"renamed: 'colour': 'dark red' -> 'dark_red'\. Give"):
            to_bif(model, path)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ExportWarning)
            to_xmlbif(model, path)
    names = bif_names(model, fmt)
    for j, column in enumerate(model.encoder_.columns_):
        if model.encoder_.kinds_[j] == "categorical" and (fmt == "xmlbif" or column != "colour"):
            assert names["states"][j] == [str(c) for c in model.encoder_.categories_[j]]
    assert names["class_states"] == list(model.classes_)
    bn = gum.loadBN(str(path))
    network = (BIFReader if fmt == "bif" else XMLBIFReader)(str(path)).get_model()
    inference = VariableElimination(network)
    rows = X.iloc[[0, 1, 5, 500, 1727]]  # row 5 has a missing value
    expected = model.predict_proba(rows)
    for r in range(len(rows)):
        evidence = _evidence(model, rows.iloc[r], names)
        if fmt == "bif":  # by label, in the column's own words
            assert evidence["doors"] == str(rows.iloc[r]["doors"])
        else:
            assert evidence["colour"] == rows.iloc[r]["colour"]
        ie = gum.LazyPropagation(bn)
        ie.setEvidence(evidence)
        ie.makeInference()
        theirs = ie.posterior(names["class"])
        agrum = [theirs[{names["class"]: c}] for c in names["class_states"]]
        np.testing.assert_allclose(agrum, expected[r], atol=1e-7)  # pyAgrum reads BIF numbers as floats
        pgm = inference.query([names["class"]], evidence=evidence, show_progress=False)
        np.testing.assert_allclose([pgm.get_value(**{names["class"]: c}) for c in names["class_states"]],
                                   expected[r], atol=1e-9)


def test_bif_refuses_models_without_one_network(data):
    X, y, _ = data
    averaging = [c for c in _concrete_classes() if not issubclass(c, AugmentedNaiveBayes)]
    assert averaging, "the model-averaging classifiers are registered"
    model = averaging[0]().fit(X, y)
    with pytest.raises(TypeError, match="no single network"):
        to_bif(model)


def _joint_from_pgmpy(network, assignment):
    total = 1.0
    for cpd in network.get_cpds():
        total *= cpd.get_value(**{v: assignment[v] for v in cpd.scope()})
    return total


@pytest.mark.parametrize("fmt", ["bif", "xmlbif"])
def test_pgmpy_reads_the_same_joint(fmt, data, tmp_path):
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    X, y, _ = data
    X = X.dropna()
    model = pybnc.TAN().fit(X, y.loc[X.index])
    path = tmp_path / f"model.{fmt}"
    (to_bif if fmt == "bif" else to_xmlbif)(model, path)
    network = (BIFReader if fmt == "bif" else XMLBIFReader)(str(path)).get_model()
    names = bif_names(model, fmt)
    codes = model.encoder_.transform(X.iloc[:15])
    jll = model._jll_encoded(codes)
    for row, jll_row in zip(codes, jll):
        for c, cname in enumerate(names["class_states"]):
            assignment = {names["class"]: cname}
            assignment.update({v: names["states"][i][row[i]] for i, v in enumerate(names["variables"])})
            assert _joint_from_pgmpy(network, assignment) == pytest.approx(np.exp(jll_row[c]), rel=1e-9)


def test_bif_refuses_weighted_models(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="weighting='awnb'.*no Bayesian network"):
        to_bif(pybnc.NaiveBayes(weighting="awnb").fit(X, y))
