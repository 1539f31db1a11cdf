"""One BLAS thread for the products that are memory-bound.

A threaded OpenBLAS on a busy machine (cross-validation in parallel, other jobs) spins
and runs small or memory-bound products several hundred times slower than one thread
would; the stages that call BLAS in a loop ask for one thread around those calls.
"""

from __future__ import annotations

import functools

from threadpoolctl import ThreadpoolController


@functools.lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    # Finding the loaded BLAS libraries reads the process's memory map: do it once,
    # not on every call (it cost more than counting a small table).
    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs on one thread (about 0.05 ms to enter).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.ones(3) @ np.ones(3))
    3.0
    """
    return _controller().limit(limits=1, user_api="blas")
