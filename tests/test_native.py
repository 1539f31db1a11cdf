"""The compiled kernels (setup.py builds them at install): present, loaded without numba."""

import subprocess
import sys

from pybnc._utils.native import built


def test_the_compiled_kernels_are_built():
    """Without them every model still works (numpy), slowly; an install must build them."""
    missing = [name for name, ok in built().items() if not ok]
    assert not missing, (f"{missing} not built: pip install -e . (with a C compiler), or "
                         "python setup.py build_ext --inplace in a source checkout")


def test_loading_the_kernels_imports_no_jit_compiler():
    code = ("import sys; from pybnc._utils.native import built; built(); "
            "print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_without_the_kernels_a_warning_says_how_to_build_them_and_numpy_runs():
    """An unbuilt source checkout (simulated: the modules cannot be imported) warns once, naming
    the build command, and still fits and predicts, with the numpy versions."""
    code = """
import sys, warnings
import numpy as np
for name in ('pybnc.averaging._laplacian_c', 'pybnc.parameters._hdp_c', 'pybnc.search._rows_c'):
    sys.modules[name] = None  # import of it raises ImportError, as when it was never built
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    from pybnc import ESKDB, TBMATAN
    from pybnc.parameters import hdp
    from pybnc.datasets import load_dataset
    X, y = load_dataset('car')
    X, y = X[:300], y[:300]
    ESKDB(n_estimators=2, k=1, hdp_iterations=5, random_state=0, verbose=0).fit(X, y).predict_proba(X[:20])
    TBMATAN().fit(X, y).predict_proba(X[:20])
mine = [str(w.message) for w in caught if type(w.message).__name__ == 'KernelsNotBuiltWarning']
print(len(mine), hdp._native is None, 'build_ext --inplace' in mine[0])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "True", "True"]
