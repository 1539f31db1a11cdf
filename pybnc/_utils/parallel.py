"""The one way pybnc runs independent work at once: :class:`joblib.Parallel`, on threads.

Threads cost nothing to start, where a new pool of processes first imports numpy,
pandas, scikit-learn and pybnc in each worker (seconds, more on a busy machine), and
pybnc's compiled kernels, scipy's sparse products and the HDP sampler release the GIL.
The structure searches' steps are the exception (:class:`open_pool` on processes, once a
step is slow enough to pay for their start): their scoring holds the GIL.
``joblib.parallel_config`` is honoured: ``backend="loky"`` runs the same jobs in
processes, Dask's backend on a cluster. While jobs run on threads, BLAS runs on one
thread: the limit belongs to the process and OpenBLAS lifts it only from the thread
that set it (:mod:`pybnc._utils.blas`), so it is held here, around them all. The
results never depend on ``n_jobs``: every job's inputs, seeds included, are fixed
before it runs.
"""

from __future__ import annotations

import contextlib

from joblib import Parallel, effective_n_jobs

from .blas import one_blas_thread


def run_jobs(jobs, n_jobs=None, return_as: str = "list"):
    """``joblib.Parallel(n_jobs, prefer="threads", return_as=return_as)(jobs)``: the
    results of ``jobs`` (joblib's ``delayed`` calls) in their order, as a list or a
    generator.

    Examples
    --------
    >>> from joblib import delayed
    >>> run_jobs((delayed(abs)(-i) for i in range(4)), n_jobs=2)
    [0, 1, 2, 3]
    """
    outputs = _outputs(jobs, n_jobs)
    return outputs if return_as == "generator" else list(outputs)


def _outputs(jobs, n_jobs):
    with open_pool(n_jobs) as pool:
        yield from pool.run(jobs, return_as="generator")


class open_pool(contextlib.AbstractContextManager):
    """One ``joblib.Parallel(n_jobs, prefer=prefer)`` kept open over many rounds of jobs
    (a search's steps), so that its workers start once; :meth:`run` runs a round and
    returns the results in order. On more than one thread, BLAS is held to one.

    Examples
    --------
    >>> from joblib import delayed
    >>> with open_pool(2) as pool:
    ...     [pool.run(delayed(abs)(-i) for i in range(r)) for r in (2, 3)]
    [[0, 1], [0, 1, 2]]
    """

    def __init__(self, n_jobs=None, prefer: str = "threads"):
        self._stack = contextlib.ExitStack()
        self._parallel = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")
        self._threads = prefer == "threads" and effective_n_jobs(n_jobs) > 1

    def __enter__(self):
        self._stack.enter_context(self._parallel)
        if self._threads:
            self._stack.enter_context(one_blas_thread())
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    def run(self, jobs, return_as: str = "list"):
        """The results of ``jobs`` in their order, as a list or a generator (to be read to
        its end before the next round)."""
        outputs = self._parallel(jobs)
        return outputs if return_as == "generator" else list(outputs)
