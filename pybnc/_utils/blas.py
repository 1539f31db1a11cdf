"""One BLAS thread for the products that are memory-bound, and the cores a fit may use.

A threaded OpenBLAS on a busy machine (cross-validation in parallel, other jobs) spins
and runs small or memory-bound products several hundred times slower than one thread
would; the stages that call BLAS in a loop ask for one thread around those calls.
The limit belongs to the process and OpenBLAS lifts it only from the thread that set
it, so work that runs fits on several threads at once holds it around them all
(:func:`pybnc.selection.race.evaluate`); the fits' own requests then change nothing.
"""

from __future__ import annotations

import functools
import os

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


def available_cores() -> int:
    """The cores this process may run on, at most ``OMP_NUM_THREADS`` where that is set
    (as scikit-learn's and the BLAS's threads; joblib sets it in its worker processes).

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = os.environ.get("OMP_NUM_THREADS", "")
    return max(min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores, 1)
