"""pybnc's C kernels, compiled once when the package is installed (``setup.py``).

A stage that has a kernel module keeps a numpy version of the same computation; it
asks :func:`load_kernels` for the compiled module and runs numpy when that returns
``None`` (an install without a C compiler, or a source checkout where
``python setup.py build_ext --inplace`` has not been run). Then a
:class:`KernelsNotBuiltWarning` says so once, with the command that builds them. The
numpy versions give the same probabilities (to 1e-12: TBMATAN, the wrappers'
searches, the MDL discretisation, kDB, ESKDB with Dirichlet smoothing, the
discriminative weights; ``tests/test_native.py`` runs them with the kernels hidden),
several times slower. HDP smoothing's sampler has no numpy version: it refuses, naming
the build command (:func:`pybnc.parameters.hdp.require_sampler`). Loading a built module costs well
under a millisecond, and nothing is compiled while a model is fitted.

Examples
--------
>>> load_kernels("pybnc.no_such_kernels") is None
True
"""

from __future__ import annotations

import importlib
import warnings

#: Every compiled module (setup.py builds them).
KERNEL_MODULES = ("pybnc.averaging._laplacian_c", "pybnc.encode._mdl_c", "pybnc.parameters._design_c",
                  "pybnc.parameters._hdp_c", "pybnc.scores._pairs_c", "pybnc.search._leave_one_out_c",
                  "pybnc.search._rows_c", "pybnc.structure._forest_c")

HOW_TO_BUILD = ("pip install -e . (or pip install .) with a C compiler, or "
                "`python setup.py build_ext --inplace` in a source checkout used through PYTHONPATH")


class KernelsNotBuiltWarning(UserWarning):
    """pybnc's compiled kernels are missing: the slower numpy versions run."""


_warned = False


def load_kernels(name: str):
    """The compiled module ``name``, or ``None`` when it was not built (one warning per process)."""
    global _warned
    module, error = _import(name)
    if module is None and name in KERNEL_MODULES and not _warned:
        _warned = True
        warnings.warn(f"pybnc's compiled kernels are not built ({name}: {error}); the numpy versions run "
                      f"instead, with the same results but several times slower. Build them: {HOW_TO_BUILD}.",
                      KernelsNotBuiltWarning, stacklevel=2)
    return module


def _import(name: str):
    try:
        return importlib.import_module(name), None
    except ImportError as error:
        return None, error


def built() -> dict:
    """Which kernel modules are built, by name (the test suite's header reports it).

    Examples
    --------
    >>> sorted(built())[0]
    'pybnc.averaging._laplacian_c'
    """
    return {name: _import(name)[0] is not None for name in KERNEL_MODULES}
