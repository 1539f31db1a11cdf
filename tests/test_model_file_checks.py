"""Hostile and damaged model files: every problem is one ValueError naming the file and
the field, found before anything large is decompressed or built."""

from __future__ import annotations

import copy
import inspect
import io
import json
import re
import zipfile
import zlib

import numpy as np
import pandas as pd
import pytest
import scipy.sparse

import pybnc
from pybnc.datasets import load_dataset
from pybnc.estimators.base import BaseBNC
from pybnc.io import estimator_classes, load, save
from pybnc.structure import Structure


@pytest.fixture(scope="module")
def car():
    X, y = load_dataset("car")  # 4 classes
    return X, y


@pytest.fixture(scope="module")
def tan(car):
    return pybnc.TAN().fit(*car)


def _saved(model) -> bytes:
    buffer = io.BytesIO()
    save(model, buffer)
    return buffer.getvalue()


def _members(blob: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        return {n: z.read(n) for n in z.namelist()}


def _zip(members: dict, method=zipfile.ZIP_DEFLATED) -> io.BytesIO:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as z:
        for name, blob in members.items():
            z.writestr(name, blob)
    return io.BytesIO(out.getvalue())


def _with_header(blob: bytes, edit) -> io.BytesIO:
    members = _members(blob)
    header = json.loads(members["model.json"])
    edit(header)
    members["model.json"] = json.dumps(header).encode()
    return _zip(members)


def _tampered(model, **changes):
    bad = copy.deepcopy(model)
    for name, value in changes.items():
        setattr(bad, name, value)
    return io.BytesIO(_saved(bad))


# -- limits: checked before decompression ------------------------------------------------------
def test_a_zip_bomb_is_refused_before_it_is_decompressed(tan):
    members = _members(_saved(tan))
    members["arrays/00000.npy"] = bytes(64 << 20)  # 64 MiB of zeros: about 1000:1 under deflate
    with pytest.raises(ValueError, match=r"arrays/00000.npy: it declares 67,108,864 bytes .*ratio \d+:1"):
        load(_zip(members))


def test_the_total_size_cap_and_compression_methods(tan):
    blob = _saved(tan)
    with pytest.raises(ValueError, match=r"more than 1,000 bytes uncompressed .*max_bytes"):
        load(io.BytesIO(blob), max_bytes=1000)
    assert type(load(io.BytesIO(blob), max_bytes=10 << 20)) is pybnc.TAN
    with pytest.raises(ValueError, match="compression method 12"):
        load(_zip(_members(blob), method=zipfile.ZIP_BZIP2))


def test_a_header_larger_than_its_arrays_justify_is_refused_unparsed(tan):
    """An 18.8 MB file can hold a 264 MB JSON header; the cap follows the arrays' count."""
    import time

    from pybnc.io import _archive

    members = _members(_saved(tan))
    n_arrays = len(members) - 1
    header = json.loads(members["model.json"])
    size = _archive.HEADER_BASE + _archive.HEADER_PER_ARRAY * n_arrays
    header["padding"] = np.random.default_rng(0).bytes(size // 2 + 1).hex()  # incompressible: no zip bomb
    members["model.json"] = json.dumps(header).encode()
    forged, start = _zip(members), time.perf_counter()
    with pytest.raises(ValueError, match=rf"model.json: [\d,]+ bytes, above what its {n_arrays} array member\(s\) "
                                         r"justify of [\d,]+\. "):
        load(forged)
    assert time.perf_counter() - start < 1.0
    many = _archive.CONTAINERS_BASE + _archive.CONTAINERS_PER_ARRAY * n_arrays
    header["padding"] = [{} for _ in range(many)]  # small text, many dicts
    members["model.json"] = json.dumps(header, separators=(",", ":")).encode()
    with pytest.raises(ValueError, match=r"model.json: [\d,]+ JSON objects and lists, more than its"):
        load(_zip(members))


def test_a_shape_no_array_can_have_is_refused_naming_the_field(tan):
    blob = _saved(tan)
    node = json.loads(_members(blob)["model.json"])["estimator"]["attributes"]["class_log_prior_"]
    huge = [0, 2**62, 2**62]

    def declare(header):
        header["estimator"]["attributes"]["class_log_prior_"]["shape"] = huge
    members = _members(_with_header(blob, declare).getvalue())
    members[node["file"]] = _npy(f"{{'descr': '<f8', 'fortran_order': False, 'shape': {tuple(huge)}, }}")
    with pytest.raises(ValueError, match=r"the file object is not a valid pybnc model file: arrays/\d+\.npy "
                                         r"\(TAN\.class_log_prior_\): the \.npy shape .* larger than any array"):
        load(_zip(members))

    def labels(header):
        header["estimator"]["attributes"]["classes_"].update(shape=huge, items=[])
    with pytest.raises(ValueError, match=r"TAN\.classes_: shape \[0, 4611686018427387904, 4611686018427387904\] "
                                         "does not hold"):
        load(_with_header(blob, labels))


def _npy(header: str, data: bytes = b"") -> bytes:
    text = header.encode("latin-1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


@pytest.mark.parametrize("array, message", [
    (_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000000,), }", bytes(16)),
     r"shape \(10000000000000,\) needs 80,000,000,000,\d+ bytes, the member has"),
    (_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", bytes(16)), "never loaded"),
    (_npy("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", bytes(16)), "never loaded"),
    (_npy("__import__('os').system('true')"), "header is unreadable"),
    (b"PK not an array", "not a .npy array"),
])
def test_array_headers_are_checked_before_the_data_are_read(tan, array, message):
    blob = _saved(tan)
    node = json.loads(_members(blob)["model.json"])["estimator"]["attributes"]["class_log_prior_"]

    def declare(header):  # the header agrees with the forged array: its size must still fit
        header["estimator"]["attributes"]["class_log_prior_"]["shape"] = [10**13]
    members = _members(_with_header(blob, declare).getvalue())
    members[node["file"]] = array
    with pytest.raises(ValueError, match=message):
        load(_zip(members))


def test_arrays_must_match_the_dtype_and_shape_the_header_declares(tan):
    def reshape(header):
        header["estimator"]["attributes"]["class_log_prior_"]["shape"] = [5]
    with pytest.raises(ValueError, match=r"has shape \(4,\), the header declares \(5,\)"):
        load(_with_header(_saved(tan), reshape))

    def retype(header):
        header["estimator"]["attributes"]["class_log_prior_"]["dtype"] = "<f4"
    with pytest.raises(ValueError, match="has dtype <f8, the header declares <f4"):
        load(_with_header(_saved(tan), retype))


def test_format_one_files_without_declared_arrays_still_load(tan, car):
    def older(header):
        header["format_version"] = 1

        def strip(node):
            if isinstance(node, dict):
                if node.get("type") == "ndarray":
                    node.pop("dtype"), node.pop("shape")
                for value in node.values():
                    strip(value)
            elif isinstance(node, list):
                for value in node:
                    strip(value)
        strip(header)
    again = load(_with_header(_saved(tan), older))
    assert (again.predict_proba(car[0]) == tan.predict_proba(car[0])).all()


@pytest.mark.parametrize("version", [0, -1, True, "1", 1.0, None, 3])
def test_format_version_is_an_integer_in_the_supported_range(tan, version):
    with pytest.raises(ValueError, match="format_version|format version 3 .*Upgrade"):
        load(_with_header(_saved(tan), lambda h: h.update(format_version=version)))


def test_deep_nesting_and_malformed_nodes_are_value_errors(tan):
    members = _members(_saved(tan))
    members["model.json"] = b'{"format": "pybnc-model", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(ValueError, match="model.json: not readable JSON"):
        load(_zip(members))

    def nest(header):
        node = {"type": "none"}
        for _ in range(200):
            node = {"type": "list", "items": [node]}
        header["estimator"]["attributes"]["extra_"] = node
    with pytest.raises(ValueError, match=r"TAN\.extra_(\[0\])+: nested more than 64 levels"):
        load(_with_header(_saved(tan), nest))

    def void(header):  # np.void(10**9) would allocate a gigabyte
        header["estimator"]["attributes"]["n_features_in_"] = {"type": "int", "value": 10**9, "dtype": "|V8"}
    with pytest.raises(ValueError, match=r"TAN\.n_features_in_: dtype \|V8 does not hold a int"):
        load(_with_header(_saved(tan), void))

    def shadow(header):  # data must never replace a method
        header["estimator"]["attributes"]["predict"] = {"type": "int", "value": 1}
    with pytest.raises(ValueError, match=r"TAN\.predict: not an attribute name"):
        load(_with_header(_saved(tan), shadow))


# -- consistency of the fitted state ------------------------------------------------------------
def _bad_states(model):
    k = len(model.classes_)
    cpts = model.log_cpts_
    yield "classes_", dict(classes_=model.classes_[:3]), r"class_log_prior_: shape \(4,\), expected \(3,\)"
    yield "classes_", dict(classes_=np.array(list(model.classes_) * 2, dtype=object)[:6]), "repeated|shape"
    yield "classes_", dict(classes_=model.classes_[:1]), "classes_: 1 label"
    yield "prior", dict(class_log_prior_=np.r_[np.nan, model.class_log_prior_[1:]]), "class_log_prior_: holds nan"
    yield "tables", dict(log_cpts_=[]), "log_cpts_: not a list of 6 tables"
    yield "tables", dict(log_cpts_=[np.empty((k, 1, 0))] + cpts[1:]), r"log_cpts_\[0\]: shape \(4, 1, 0\)"
    yield "tables", dict(log_cpts_=cpts[:2] + [cpts[2][:, :, :-1]] + cpts[3:]), r"log_cpts_\[2\]: shape"
    yield "tables", dict(log_cpts_=[c.astype(int) for c in cpts]), r"log_cpts_\[0\]: dtype int64"
    yield "inf", dict(log_cpts_=[np.where(c == c.max(), np.inf, c) for c in cpts]), r"log_cpts_\[0\]: holds inf"
    yield "structure", dict(structure_=Structure(((1,), (0,), (), (), (), ()))), "cycle"
    yield "structure", dict(structure_=Structure(((9,), (), (), (), (), ()))), r"parents\[0\]"
    yield "weights", dict(feature_weights_=np.ones(5)), "feature_weights_: shape"
    yield "features", dict(n_features_in_=7), "not a list of n_features_in_=7"
    yield "names", dict(feature_names_in_=model.feature_names_in_[::-1].copy()), "differs from encoder_.columns_"
    encoder = copy.deepcopy(model.encoder_)
    encoder.categories_[0] = np.array(["high", "high", "low", "med", "vhigh"], dtype=object)
    yield "encoder", dict(encoder_=encoder), r"encoder_.cardinalities_\[0\]: 4, but the column has 5"
    encoder = copy.deepcopy(encoder)
    encoder.cardinalities_[0] = 5
    yield "encoder", dict(encoder_=encoder), r"encoder_.categories_\[0\]: a level occurs twice"
    counts = copy.deepcopy(model.counts_)
    counts.reduced = counts.reduced[:, :-1, :-1]  # a TAN on a table without missing values: reduced pairs
    yield "counts", dict(counts_=counts), "counts_.reduced: shape"


@pytest.mark.parametrize("case", range(17))
def test_inconsistent_states_are_refused_naming_the_field(tan, case):
    _, changes, message = list(_bad_states(tan))[case]
    with pytest.raises(ValueError, match=r"^the file object is not a valid pybnc model file: TAN\.") as info:
        load(_tampered(tan, **changes))
    assert re.search(message, str(info.value)), str(info.value)


def _concrete():
    return sorted((c for c in estimator_classes().values()
                   if not inspect.isabstract(c) and c.__init__ is not object.__init__), key=lambda c: c.__name__)


def _float_paths(value, path=()):
    """Paths (attribute, index...) to every float array of a fitted value."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
        yield path
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _float_paths(item, path + (i,))
    elif isinstance(value, BaseBNC):  # a classifier inside another (AutoBNC's best_estimator_)
        params = value.get_params(deep=False)
        for name, item in vars(value).items():
            if name not in params:
                yield from _float_paths(item, path + (name,))


# The ensembles' fits are seconds each and this test refits once per fitted table: the edit loop
# leaves them out.
@pytest.mark.parametrize("cls", [pytest.param(c, marks=pytest.mark.slow) if c.__name__ in ("AutoBNC", "BaggedBNC", "ESKDB")
                                 else c for c in _concrete()], ids=lambda c: c.__name__)
def test_a_nan_in_any_fitted_table_of_any_classifier_is_refused(cls):
    X, y = load_dataset("votes")
    X = X.iloc[:, :4].copy()
    X["num"] = np.linspace(0, 1, len(X))
    model = cls().fit(X, y)
    params = model.get_params(deep=False)
    paths = [(name, *p) for name, v in vars(model).items() if name not in params for p in _float_paths(v)]
    assert paths
    for path in paths:
        bad = copy.deepcopy(model)
        holder = bad
        for step in path[:-1]:
            holder = getattr(holder, step) if isinstance(step, str) else holder[step]
        last = path[-1]
        target = getattr(holder, last) if isinstance(last, str) else holder[last]
        target.flat[0] = np.nan
        with pytest.raises(ValueError, match=rf"{cls.__name__}\.{path[0]}.*(nan|NaN)"):
            load(io.BytesIO(_saved(bad)))


def test_estimator_specific_state_is_checked(car):
    X, y = car
    aode = pybnc.AODE().fit(X, y)
    with pytest.raises(ValueError, match=r"AODE\.log_child_: shape"):
        load(_tampered(aode, log_child_=aode.log_child_[:, :-1]))
    tbmatan = pybnc.TBMATAN().fit(X, y)
    with pytest.raises(ValueError, match=r"TBMATAN\.column_offsets_: differ"):
        load(_tampered(tbmatan, column_offsets_=tbmatan.column_offsets_[::-1].copy()))
    from pybnc.search import BSEJ

    bsej = BSEJ(random_state=0).fit(X, y)
    joined = next(s for s, keys in enumerate(bsej.join_keys_) if keys)
    keys = copy.deepcopy(bsej.join_keys_)
    keys[joined][0] = keys[joined][0][::-1].copy()
    with pytest.raises(ValueError, match=rf"BSEJ\.join_keys_\[{joined}\]\[0\]: not increasing"):
        load(_tampered(bsej, join_keys_=keys))


def test_sparse_matrices_round_trip_and_bad_indices_are_refused(tan, car):
    model = copy.deepcopy(tan)
    model.extra_ = [scipy.sparse.csr_array(np.eye(3)), scipy.sparse.coo_matrix(np.arange(6.0).reshape(2, 3))]
    again = load(io.BytesIO(_saved(model)))
    assert type(again.extra_[0]) is scipy.sparse.csr_array and type(again.extra_[1]) is scipy.sparse.coo_matrix
    assert (again.extra_[0] != model.extra_[0]).nnz == 0 and (again.extra_[1] != model.extra_[1]).nnz == 0

    def out_of_range(header):
        header["estimator"]["attributes"]["extra_"]["items"][0]["shape"] = [2, 2]
    with pytest.raises(ValueError, match=r"TAN\.extra_\[0\]: inconsistent sparse csr parts"):
        load(_with_header(_saved(model), out_of_range))


# -- fuzz: whatever happens to the bytes, load raises ValueError or returns a working model ------
def _outcome(blob: bytes, X) -> str:
    try:
        model = load(io.BytesIO(blob))
    except ValueError:
        return "refused"
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    return "loaded"


def test_fuzz_bit_flips_truncation_and_member_swaps(car):
    X, y = car
    model = pybnc.NaiveBayes().fit(X.iloc[:, :3], y)
    blob = _saved(model)
    rng = np.random.default_rng(0)
    outcomes = []
    for position in rng.integers(0, len(blob), 150):  # one random bit flipped
        flipped = bytearray(blob)
        flipped[position] ^= 1 << int(rng.integers(8))
        outcomes.append(_outcome(bytes(flipped), X.iloc[:5, :3]))
    for cut in np.linspace(0, len(blob) - 1, 12).astype(int):
        outcomes.append(_outcome(blob[:cut], X.iloc[:5, :3]))
    members = _members(blob)
    names = sorted(n for n in members if n.startswith("arrays/"))
    for a, b in zip(names, names[1:] + names[:1]):
        swapped = dict(members)
        swapped[a], swapped[b] = members[b], members[a]
        outcomes.append(_outcome(_zip(swapped).getvalue(), X.iloc[:5, :3]))
    assert outcomes.count("refused") > len(outcomes) // 2


def test_loading_encodes_the_probe_rows_once_with_typed_columns(tmp_path, monkeypatch):
    """The probe a load classifies is one table of typed columns (a wide model's load
    paid two encodings of object columns, hashed one by one)."""
    X = pd.DataFrame({"n": [0, 1, 2, 1] * 5, "f": np.linspace(0, 1, 20), "s": ["a", "b"] * 10})
    save(pybnc.NaiveBayes().fit(X, [0, 1] * 10), tmp_path / "m.pbnc")
    seen = []
    transform = pybnc.encode.Encoder.transform
    monkeypatch.setattr(pybnc.encode.Encoder, "transform",
                        lambda self, table: seen.append(table) or transform(self, table))
    load(tmp_path / "m.pbnc")
    assert len(seen) == 1 and seen[0]["n"].dtype.kind == "i" and seen[0]["f"].dtype.kind == "f"
