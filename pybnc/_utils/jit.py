"""numba (the ``fast`` extra), imported when a kernel is first needed, not by ``import pybnc``.

Importing numba costs about a third of a second and most fits never call a kernel
(TAN, naive Bayes and kDB are numpy throughout), so a module lists its kernels in a
:class:`Kernels` and calls :meth:`Kernels.ready` just before the first use; numba then
compiles them or, usually, loads them from its on-disk cache (``cache=True``).

Examples
--------
>>> import numpy as np
>>> def _add_one(a):
...     return a + 1
>>> kernels = Kernels(globals(), [("_add_one_fast", "_add_one", {"cache": False})])
>>> if kernels.available:
...     _ = kernels.ready()
...     assert _add_one_fast(np.arange(3)).tolist() == [1, 2, 3]
"""

from __future__ import annotations

from importlib.util import find_spec

#: Whether numba is installed (found without importing it).
HAVE_NUMBA = find_spec("numba") is not None


class Kernels:
    """A module's numba kernels, compiled on first use.

    Parameters
    ----------
    namespace : dict
        The module's ``globals()``.
    specs : list of (name, source, options)
        In order: ``namespace[name] = numba.njit(cache=True, **options)(namespace[source])``.
        A kernel that calls another calls it by its module-level name, so list the
        callee first and give it its own name as ``name`` (it is then rebound to its
        compiled version before the caller is compiled).
    """

    def __init__(self, namespace: dict, specs: list):
        self.namespace, self.specs, self.compiled = namespace, specs, False
        self.available = HAVE_NUMBA

    def ready(self) -> dict:
        """Import numba and compile (or load) every kernel once; returns the namespace."""
        if not self.compiled:
            import numba

            self.namespace["numba"] = numba  # kernels may read numba.prange
            for name, source, options in self.specs:
                self.namespace[name] = numba.njit(**{"cache": True, **options})(self.namespace[source])
            self.compiled = True
        return self.namespace
