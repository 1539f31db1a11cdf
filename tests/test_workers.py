"""A fit's forked workers: forked only where safe, the same results as in this process,
ended with the fit."""

import multiprocessing
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest
from joblib import delayed, parallel_config

from pybnc.datasets import load_dataset
from pybnc.selection import AutoBNC, race
from pybnc._utils import workers
from pybnc._utils.workers import fit_workers, forked_workers, parallel_map

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")


def _pid(_):
    return os.getpid()


_FRESH = "_PYBNC_TEST_IN_A_NEW_PROCESS"


@pytest.fixture
def no_other_thread(request):
    """True where the test ran in a new interpreter and passed there (the test stops
    here then): earlier tests leave threads in this one (Dask's, joblib's pool, TBMATAN's
    pool) that rightly keep it from forking. False in that new interpreter."""
    if os.environ.get(_FRESH) == "1":
        race.shutdown_pool()
        assert threading.active_count() == 1, [t.name for t in threading.enumerate()]
        return False
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", request.node.nodeid],
                         cwd=request.config.rootpath, env={**os.environ, _FRESH: "1"}, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and " skipped" not in run.stdout, run.stdout[-2000:]
    return True


def test_workers_are_forked_run_jobs_in_order_and_end_with_the_fit(no_other_thread):
    if no_other_thread:
        return
    with fit_workers(2):
        assert forked_workers() == 2 and not multiprocessing.active_children()  # forked when first needed
        pids = set(parallel_map((delayed(_pid)(i) for i in range(8)), 2))
        children = {p.pid for p in multiprocessing.active_children()}
        assert pids and os.getpid() not in pids and pids <= children and len(children) == 2
        assert parallel_map((delayed(abs)(-i) for i in range(5)), 2) == [0, 1, 2, 3, 4]
        assert list(parallel_map((delayed(abs)(-i) for i in range(3)), 2, return_as="generator")) == [0, 1, 2]
        assert parallel_map((delayed(_pid)(i) for i in range(2)), 1) == [os.getpid()] * 2  # n_jobs=1: here
        with fit_workers(2):  # a fit inside a fit: the outer one's workers
            assert forked_workers() == 2
        assert forked_workers() == 2
    assert forked_workers() == 0
    assert not children & {p.pid for p in multiprocessing.active_children()}
    assert parallel_map((delayed(_pid)(i) for i in range(2)), 1) == [os.getpid()] * 2


def _wait_for_the_other_threads(seconds: float = 30.0) -> None:
    """Joblib's thread pool of the block above may still be ending its threads (a
    ThreadPool's terminate does not join its workers; seen once on a loaded machine, one
    more thread alive right after the block): wait until only this one is left, and say
    which were not."""
    deadline = time.monotonic() + seconds
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == 1, [t.name for t in threading.enumerate()]


def test_no_fork_with_another_thread_a_chosen_backend_or_when_turned_off(no_other_thread, monkeypatch):
    if no_other_thread:
        return
    assert workers._can_fork()
    with parallel_config(backend="threading"):
        assert not workers._can_fork()
        with fit_workers(2):
            assert forked_workers() == 0
            assert parallel_map((delayed(_pid)(i) for i in range(4)), 2) == [os.getpid()] * 4  # joblib's threads
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not workers._can_fork()
    finally:
        stop.set()
        thread.join()
    _wait_for_the_other_threads()
    assert workers._can_fork()
    monkeypatch.setenv("PYBNC_FORK", "0")
    assert not workers._can_fork()
    with fit_workers(2):
        assert forked_workers() == 0
    monkeypatch.delenv("PYBNC_FORK")
    assert workers._can_fork()
    # an OpenMP runtime cannot run in a forked process once its threads ran
    monkeypatch.setattr(workers, "threadpool_info", lambda: [{"user_api": "blas", "internal_api": "openblas",
                                                               "threading_layer": "openmp"}])
    assert not workers._can_fork()


def test_progress_bars_leave_no_thread_behind(no_other_thread):
    if no_other_thread:
        return
    from pybnc._utils.progress import progress

    for verbose in (0, 2):
        with progress(total=2, desc="x", verbose=verbose) as bar:
            bar.update(2)
    assert threading.active_count() == 1 and workers._can_fork()


def test_autobnc_in_forked_workers_gives_the_same_results(no_other_thread, monkeypatch):
    """Every round in the workers (their cost set to nothing), the same scores and choice
    as in this process alone."""
    if no_other_thread:
        return
    monkeypatch.setattr(race, "FORK_SECONDS", 0.0)
    seen = []
    real_map = race.parallel_map
    monkeypatch.setattr(race, "parallel_map", lambda *a, **k: seen.append(forked_workers()) or real_map(*a, **k))
    X, y = load_dataset("glass")
    alone = AutoBNC(random_state=0, verbose=0).fit(X, y)
    forked = AutoBNC(n_jobs=2, random_state=0, verbose=0).fit(X, y)
    assert seen and set(seen) == {2}
    a, b = pd.DataFrame(alone.cv_results_), pd.DataFrame(forked.cv_results_)
    scores = [c for c in a.columns if "_test_" in c]
    pd.testing.assert_frame_equal(a[scores], b[scores])
    assert alone.best_candidate_ == forked.best_candidate_
    np.testing.assert_allclose(forked.predict_proba(X), alone.predict_proba(X), rtol=0, atol=1e-12)


def test_an_average_fits_its_members_in_forked_workers(no_other_thread, monkeypatch):
    if no_other_thread:
        return
    from pybnc import TAN, NaiveBayes
    from pybnc.averaging import AveragedBNC, ensembles

    seen = []
    real_map = ensembles.parallel_map
    monkeypatch.setattr(ensembles, "parallel_map", lambda *a, **k: seen.append(forked_workers()) or real_map(*a, **k))
    X, y = load_dataset("car")
    pooled = AveragedBNC([NaiveBayes(), TAN()], weights=[1, 3], n_jobs=2).fit(X, y)
    alone = AveragedBNC([NaiveBayes(), TAN()], weights=[1, 3]).fit(X, y)
    assert seen == [2, 0] and forked_workers() == 0
    np.testing.assert_array_equal(pooled.predict_proba(X), alone.predict_proba(X))


def test_an_interrupted_fit_ends_its_workers_without_waiting_for_their_tasks(no_other_thread):
    if no_other_thread:
        return
    import time

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with fit_workers(2):
            parallel_map((delayed(time.sleep)(60) for _ in range(2)), 2, return_as="generator")  # sent, not read
            children = multiprocessing.active_children()
            raise KeyboardInterrupt
    # the executor's own thread reaps them too: a child it reaped first looks alive here
    # until that thread records its exit code, so this waits for the record, not a join
    while any(child.is_alive() for child in children) and time.monotonic() - start < 20:
        time.sleep(0.02)
    assert len(children) == 2 and not any(child.is_alive() for child in children)
    assert time.monotonic() - start < 30 and forked_workers() == 0


def _private_mib(_):
    import gc

    import psutil

    garbage = [[] for _ in range(200_000)]  # allocations that start the garbage collector
    del garbage
    gc.collect()
    return psutil.Process().memory_full_info().uss / 2**20


def test_forked_workers_share_this_process_objects_pages(no_other_thread):
    """A worker's garbage collector leaves the objects it was forked with alone, so it
    does not copy their pages: 1,000,000 small containers here (about 400 MiB) cost a
    worker about 20 MiB of its own, against 150 MiB when they are not frozen at the fork."""
    if no_other_thread:
        return
    pytest.importorskip("psutil")
    heap = [{"a": i, "b": [i]} for i in range(1_000_000)]
    with fit_workers(2):
        private = parallel_map((delayed(_private_mib)(i) for i in range(2)), 2)
    assert len(heap) and max(private) < 80, private
