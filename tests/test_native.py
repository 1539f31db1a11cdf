"""The compiled kernels (setup.py builds them at install): present, loaded without numba."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pybnc._utils.native import KERNEL_MODULES, built


def test_the_compiled_kernels_are_built():
    """Without them every model still works (numpy), slowly; an install must build them."""
    missing = [name for name, ok in built().items() if not ok]
    assert not missing, (f"{missing} not built: pip install -e . (with a C compiler), or "
                         "python setup.py build_ext --inplace in a source checkout")


@pytest.mark.slow  # a fresh interpreter
def test_loading_the_kernels_imports_no_jit_compiler():
    code = ("import sys; from pybnc._utils.native import built; built(); "
            "print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


_HIDE = """
import sys
for name in {modules!r}:
    sys.modules[name] = None  # import of it raises ImportError, as when it was never built
"""


def _without_kernels(code: str) -> str:
    """``code``'s output, run in a new interpreter where no compiled kernel can be imported."""
    return subprocess.run([sys.executable, "-c", _HIDE.format(modules=KERNEL_MODULES) + code], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.slow  # fresh interpreters without the kernels
def test_without_the_kernels_a_warning_says_how_to_build_them_and_hdp_refuses():
    """An unbuilt source checkout (simulated: the modules cannot be imported) warns once, naming
    the build command, and fits and predicts with the numpy versions, except HDP smoothing,
    whose sampler has no numpy copy: it refuses, naming the command and the alternative."""
    code = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    from pybnc import ESKDB, TBMATAN
    from pybnc.parameters.hdp import SamplerNotBuiltError
    from pybnc.datasets import load_dataset
    X, y = load_dataset('car')
    X, y = X[:300], y[:300]
    TBMATAN().fit(X, y).predict_proba(X[:20])
    ESKDB(n_estimators=2, k=1, smoothing='bayes', random_state=0, verbose=0).fit(X, y).predict_proba(X[:20])
    try:
        ESKDB(n_estimators=2, k=1, hdp_iterations=5, random_state=0, verbose=0).fit(X, y)
        refused = 'no'
    except SamplerNotBuiltError as error:
        refused = str('build_ext --inplace' in str(error) and "smoothing='bayes'" in str(error))
mine = [str(w.message) for w in caught if type(w.message).__name__ == 'KernelsNotBuiltWarning']
print(len(mine), 'build_ext --inplace' in mine[0], refused)
"""
    assert _without_kernels(code).split() == ["1", "True", "True"]


def _kernel_fits(out: dict) -> None:
    """Probabilities of the learners whose stages have a compiled kernel and its numpy twin,
    the discriminative weights included (L-BFGS amplifies a last-bit difference of the
    softmax: 6e-3 on car from one rounding step)."""
    import warnings

    from pybnc import AODE, ESKDB, KDB, TAN, TBMATAN, Encoder, NaiveBayes
    from pybnc.datasets import load_dataset
    from pybnc.search.tan_hc import TANHC

    warnings.simplefilter("ignore")
    for name in ("car", "glass", "crx"):
        X, y = load_dataset(name)
        out[f"tbmatan {name}"] = TBMATAN().fit(X, y).predict_proba(X)
        out[f"tanhc {name}"] = TANHC(verbose=0, random_state=0).fit(X, y).predict_proba(X)
        out[f"mdl naive Bayes {name}"] = NaiveBayes(encoder=Encoder(discretizer="mdl")).fit(X, y).predict_proba(X)
        out[f"tan {name}"] = TAN().fit(X, y).predict_proba(X)
        out[f"kdb {name}"] = KDB(k=2, verbose=0).fit(X, y).predict_proba(X)
        out[f"discriminative tan {name}"] = TAN(weighting="discriminative").fit(X, y).predict_proba(X)
        out[f"discriminative aode {name}"] = AODE(weighting="discriminative").fit(X, y).predict_proba(X)
        out[f"eskdb bayes {name}"] = ESKDB(n_estimators=3, k=2, smoothing="bayes", random_state=0,
                                           verbose=0).fit(X, y).predict_proba(X)


@pytest.mark.slow  # a fresh interpreter without the kernels
def test_the_numpy_twins_give_the_compiled_kernels_probabilities(tmp_path):
    """Every learner with a compiled stage, fitted where no kernel can be imported, gives
    the probabilities of this process's compiled kernels (to 1e-12)."""
    missing = [name for name, ok in built().items() if not ok]
    if missing:
        pytest.skip(f"{missing} not built")
    path = tmp_path / "numpy.npz"
    _without_kernels(f"sys.path.insert(0, {str(Path(__file__).parent)!r}); import numpy as np, test_native as t; "
                     f"out = {{}}; t._kernel_fits(out); np.savez({str(path)!r}, **out)")
    compiled = {}
    _kernel_fits(compiled)
    numpy_twins = np.load(path)
    assert sorted(numpy_twins.files) == sorted(compiled)
    for name, proba in compiled.items():
        np.testing.assert_allclose(numpy_twins[name], proba, rtol=0, atol=1e-12, err_msg=name)
