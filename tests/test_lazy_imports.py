"""``import pybnc`` leaves out the heavy optional pieces that most fits never use."""

import subprocess
import sys

import pytest


@pytest.mark.slow  # a fresh interpreter
def test_import_pybnc_does_not_import_numba_or_sklearn_tree():
    code = ("import sys, pybnc; "
            "print(sorted(m for m in ('numba', 'sklearn.tree', 'dask', 'flask', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_datasets_io_and_plotting_load_on_first_use():
    code = ("import sys, pybnc; "
            "print(sorted(m for m in ('pybnc.io', 'pybnc.datasets', 'pybnc.plotting') if m in sys.modules)); "
            "X, y = pybnc.datasets.load_dataset('car'); print(X.shape); "
            "from pybnc import load, save; print(save is pybnc.io.save, callable(pybnc.plotting.plot_network)); "
            "print('datasets' in dir(pybnc))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:4] == ["[]", "(1728, 6)", "True True", "True"]


def test_an_unknown_name_is_still_an_attribute_error():
    import pybnc
    import pytest

    with pytest.raises(AttributeError, match="module 'pybnc' has no attribute 'nope'"):
        pybnc.nope
