"""Model files written by pybnc 0.1.0 at commit 01750ec (before the estimator protocol)
load and predict as they did, to rounding (tests/data/saved_models/make_models.py)."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import pybnc
from pybnc.datasets import load_dataset

FOLDER = Path(__file__).parent / "data" / "saved_models"
MADE = json.loads((FOLDER / "tables.json").read_text())


@pytest.mark.parametrize("name", sorted(MADE["tables"]))
def test_an_older_model_file_loads_and_predicts_as_before(name):
    X, _ = load_dataset(MADE["tables"][name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pybnc.load(FOLDER / f"{name}.pybnc")
        proba = model.predict_proba(X.iloc[: MADE["rows"]])
    expected = np.load(FOLDER / "expected.npz")[name]
    # To rounding, not to the bit: the recorded probabilities were computed on another
    # CPU, and numpy's exp and log take the SIMD code of the CPU they run on (on an AMD
    # EPYC with AVX-512, 11 of these 18 models came out 1 ulp apart, 1.1e-16; with
    # numpy's AVX-512 turned off, 1). TBMATAN's and SSTBMATAN's tree sums are also now
    # eliminated in linear arithmetic (the compiled kernels of issue 21), the recorded
    # ones in logs. A file read wrongly moves the probabilities far more than this.
    np.testing.assert_allclose(proba, expected, rtol=1e-12, atol=1e-15)
    assert pybnc.capabilities(model) == pybnc.capabilities(type(model)(**model.get_params()))


def _changed_copy(tmp_path, change):
    """tan_car.pybnc with its header changed by ``change(header)``."""
    import zipfile

    target = tmp_path / "changed.pybnc"
    with zipfile.ZipFile(FOLDER / "tan_car.pybnc") as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            if item.filename == "model.json":
                header = json.loads(data)
                change(header)
                data = json.dumps(header).encode()
            new.writestr(item, data)
    return target


def test_a_newer_format_is_refused_with_a_versioned_message(tmp_path):
    target = _changed_copy(tmp_path, lambda header: header.update(format_version=99))
    with pytest.raises(ValueError, match=r"format version 99 .*reads versions 1 to \d+.*Upgrade pybnc"):
        pybnc.load(target)


def test_a_parameter_fit_would_refuse_is_refused_at_load(tmp_path):
    target = _changed_copy(tmp_path, lambda header: header["estimator"]["params"]["criterion"].update(value="gini"))
    with pytest.raises(ValueError, match=r"not a valid pybnc model file: TAN.get_params\(\): The 'criterion' "
                                         r"parameter of TAN must be a str among"):
        pybnc.load(target)


def test_a_file_of_another_version_that_cannot_load_names_that_version_and_what_to_do(tmp_path):
    def renamed(header):  # an earlier version's parameter name, as a rename between versions leaves it
        header["pybnc_version"] = "0.0.9"
        params = header["estimator"]["params"]
        params["old_name"] = params.pop("alpha")

    with pytest.raises(ValueError, match=r"TAN does not accept the saved parameters .*written by pybnc 0\.0\.9 "
                                         r"\(model format \d+\), this is pybnc .*fit the model again with this "
                                         r"version .*pip install pybnc==0\.0\.9"):
        pybnc.load(_changed_copy(tmp_path, renamed))
