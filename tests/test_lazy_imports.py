"""``import pybnc`` leaves out the heavy optional pieces that most fits never use."""

import subprocess
import sys


def test_import_pybnc_does_not_import_numba_or_sklearn_tree():
    code = ("import sys, pybnc; "
            "print(sorted(m for m in ('numba', 'sklearn.tree', 'dask', 'flask', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
