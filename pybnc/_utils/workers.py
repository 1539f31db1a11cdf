"""The worker processes of one fit, forked from this process where that is safe.

A new pool of joblib's workers imports numpy, pandas, scikit-learn and pybnc in each
worker (2.3 s on a quiet 2-core machine, 20 s when it is loaded, and the workers'
imports take the cores this process needs meanwhile). Workers forked from this process
start in milliseconds with all of it imported. :func:`fit_workers` forks them for a
fit and ends them with it; :func:`parallel_map` runs jobs in them, or with joblib where
there are none.

Safe means: Linux; no other Python thread running in this process (a lock another
thread held at the fork would stay locked in the workers; pybnc's progress bars start
none, but joblib's pool, once used, keeps two threads for 300 s); joblib's default
backend (a backend the caller chose, Dask's or threads, is used as chosen); a BLAS on
pthreads (an OpenMP runtime cannot be used in a forked process once its threads ran;
pybnc's own kernels use none). Each worker's BLAS gets its share of the cores, as
joblib gives its own workers. ``PYBNC_FORK=0`` in the environment turns forking off.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

from joblib import Parallel, effective_n_jobs
from threadpoolctl import threadpool_info, threadpool_limits

_forked = {"in_fit": False, "executor": None, "workers": 0}  # this fit's forked workers


@contextmanager
def fit_workers(n_jobs):
    """Within it, :func:`parallel_map` runs jobs in up to ``n_jobs`` processes forked
    from this one (at its first call), where that is safe (see the module's notes); they
    end with it. Within another (a fit inside a fit), the outer one's."""
    if _forked["in_fit"]:
        yield
        return
    workers = effective_n_jobs(n_jobs)
    _forked.update(in_fit=True, executor=None, workers=workers if workers > 1 and _can_fork() else 0)
    finished = False
    try:
        yield
        finished = True
    finally:
        executor = _forked["executor"]
        _forked.update(in_fit=False, executor=None, workers=0)
        if executor is not None and finished:
            executor.shutdown(wait=True)
        elif executor is not None:  # an error or an interrupt: the workers' tasks are not waited for
            processes = list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()


def _can_fork() -> bool:
    """Whether this process can fork its workers (see the module's notes)."""
    if not sys.platform.startswith("linux") or os.environ.get("PYBNC_FORK", "1") == "0":
        return False
    if threading.active_count() > 1 or multiprocessing.current_process().daemon:
        return False
    from joblib._parallel_backends import LokyBackend
    from joblib.parallel import get_active_backend

    if type(get_active_backend()[0]) is not LokyBackend:
        return False
    return all(lib.get("internal_api") == "openblas" and lib.get("threading_layer") == "pthreads"
               for lib in threadpool_info() if lib.get("user_api") == "blas")


def _executor():
    """This fit's forked workers, forked at the first call (a fit whose rounds all run
    here forks none); None where the fit has none, or when a thread has started since
    the fit began, or the fork fails (joblib's workers run the rounds then)."""
    if _forked["executor"] is None and _forked["workers"]:
        if threading.active_count() > 1:
            _forked["workers"] = 0
            return None
        workers = _forked["workers"]
        executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                       initializer=_forked_worker_start,
                                       initargs=(max(1, (os.cpu_count() or 1) // workers),))
        # the workers start with this process's objects frozen: their garbage collector
        # does not walk them, so it does not copy the memory pages they share with it
        # (a process that froze its own objects keeps them so)
        ours = gc.get_freeze_count() == 0
        if ours:
            gc.freeze()
        try:
            with warnings.catch_warnings():  # Python 3.12+ counts the BLAS's idle threads (see _can_fork)
                warnings.filterwarnings("ignore", message=".*multi-threaded.*fork", category=DeprecationWarning)
                executor.submit(int)  # forks every worker, before the executor starts its own threads
        except OSError:  # no memory or processes left for a fork
            executor.shutdown(wait=False)
            _forked["workers"] = 0
            return None
        finally:
            if ours:
                gc.unfreeze()
        _forked["executor"] = executor
    return _forked["executor"]


def _forked_worker_start(n_threads: int) -> None:
    """A forked worker: its BLAS on its share of the cores, and no workers of its own."""
    global _worker_limits
    _worker_limits = threadpool_limits(n_threads)  # kept for the worker's life
    _forked.update(in_fit=True, executor=None, workers=0)


def available_cores() -> int:
    """The cores this process may run on, at most ``OMP_NUM_THREADS`` where that is set
    (as scikit-learn's and the BLAS's threads; joblib sets it in its own workers).

    A forked worker gets them all too, not its share: a fit's workers rarely finish
    together (the refit of an ensemble whose members differ in cost, a race's last
    folds), and a task's threads then take the idle cores. AutoBNC's whole fit with its
    workers' discriminative evaluations on every core rather than on their share, taking
    turns, twice: krkopt 64.7 / 61.3 -> 57.7 / 56.2 s, satellite 30.7 / 29.7 -> 26.8 /
    26.7 s, letter 34.6 / 33.5 -> 33.2 / 30.7 s, movement_libras the same.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = os.environ.get("OMP_NUM_THREADS", "")
    return max(min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores, 1)


def forked_workers() -> int:
    """How many forked workers this fit has (0: none; rounds go to joblib)."""
    return _forked["workers"]


def parallel_map(jobs, n_jobs, return_as: str = "list"):
    """``joblib.Parallel(n_jobs, return_as=return_as)(jobs)``, in this fit's forked
    workers when it has them (``jobs``: joblib's ``delayed`` calls; results in their order)."""
    executor = _executor() if effective_n_jobs(n_jobs) > 1 else None
    if executor is None:
        return Parallel(n_jobs=n_jobs, return_as=return_as)(jobs)
    futures = [executor.submit(function, *args, **kwargs) for function, args, kwargs in jobs]
    results = (future.result() for future in futures)
    return results if return_as == "generator" else list(results)
