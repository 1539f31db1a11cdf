"""The one way pybnc runs independent work at once: :class:`joblib.Parallel` on threads.

Threads cost nothing to start, where a new pool of processes first imports numpy,
pandas, scikit-learn and pybnc in each worker (seconds, more on a busy machine), and
pybnc's compiled kernels, scipy's sparse products and the HDP sampler release the GIL.
``joblib.parallel_config`` is honoured: ``backend="loky"`` runs the same jobs in
processes, Dask's backend on a cluster. While jobs run on threads, BLAS runs on one
thread: the limit belongs to the process and OpenBLAS lifts it only from the thread
that set it (:mod:`pybnc._utils.blas`), so it is held here, around them all. The
results never depend on ``n_jobs``: every job's inputs, seeds included, are fixed
before it runs.
"""

from __future__ import annotations

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
    if effective_n_jobs(n_jobs) == 1:
        yield from Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
        return
    with one_blas_thread():
        yield from Parallel(n_jobs=n_jobs, return_as="generator", prefer="threads")(jobs)
