"""The processes that run the page's jobs (:mod:`pybnc.web.jobs`): one job at a time
each, reused from job to job, killed to stop one.

A worker comes from a "forkserver" that has imported pybnc once and run one tiny job
(:mod:`pybnc.web._warm`), so it starts in milliseconds, forked from a single-threaded
process, never from the multi-threaded web server; where there is no forkserver
(Windows) "spawn" starts a fresh interpreter. A worker then serves job after job:
forking a process for every job, and touching the pages a fresh process must copy,
cost about a quarter of the CPU time of a small job (TAN on car). A worker is retired
after :data:`MAX_JOBS_PER_WORKER` jobs, or when a job has left it holding more than
:data:`RETIRE_GROWTH_MB` more memory than after its first, and killed, with the job it
runs, when that job must stop.
"""

from __future__ import annotations

import multiprocessing
import os
import time
import traceback

from joblib import parallel_config

#: Modules the forkserver imports once, so that each job starts without importing them;
#: the last runs one tiny job, which imports what a job imports on first use.
PRELOAD = ["numpy", "pandas", "sklearn", "pybnc", "pybnc.evaluation", "pybnc.search",
           "pybnc.averaging", "pybnc.web.analysis", "pybnc.web._warm"]
#: Jobs one worker runs before a fresh one replaces it.
MAX_JOBS_PER_WORKER = 200
#: A worker whose resident memory has grown this much since its first job is replaced.
RETIRE_GROWTH_MB = 256.0
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def context():
    """The multiprocessing context the workers come from."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def resident_mb(pid) -> float:
    """Resident memory of process ``pid`` in megabytes; 0 where ``/proc`` cannot tell."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


class Worker:
    """One worker process and the server's end of its pipe."""

    def __init__(self, ctx, user_errors: tuple):
        self.conn, theirs = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_serve, args=(theirs, user_errors), daemon=True, name="pybnc-worker")
        self.process.start()
        theirs.close()  # the worker holds the only other end: its death is an EOF here
        self.jobs, self.baseline = 0, None

    @property
    def pid(self) -> int:
        return self.process.pid

    def run(self, target, payload) -> None:
        """Hand the worker ``target(payload, report)``; its messages come through :attr:`conn`."""
        self.jobs += 1
        self.conn.send((target, payload))

    def reusable(self) -> bool:
        """Alive, not worn out, and not holding much more memory than after its first job."""
        if not self.process.is_alive() or self.jobs >= MAX_JOBS_PER_WORKER:
            return False
        memory = resident_mb(self.pid)
        if self.baseline is None:
            self.baseline = memory
        return memory - self.baseline <= RETIRE_GROWTH_MB

    def kill(self) -> None:
        """SIGKILL: numpy cannot hold it off, and the memory goes back to the system."""
        self.process.kill()
        self.retire()

    def retire(self) -> None:
        self.conn.close()  # an idle worker reads the EOF and exits
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


def _serve(conn, user_errors) -> None:
    """The worker's life: run each job that comes, until the server's end closes."""
    while True:
        try:
            target, payload = conn.recv()
        except (EOFError, OSError):
            return
        _run(target, payload, conn, user_errors)


def _run(target, payload, conn, user_errors) -> None:
    """Run one job and send what happened through ``conn``."""
    last = [0.0]

    def report(done, total, text=""):
        now = time.monotonic()
        if now - last[0] >= 0.1 or (total and done >= total):  # a few messages per second at most
            last[0] = now
            conn.send(("progress", int(done), int(total or 0), str(text)))

    try:
        # A job's parallel work stays on this process's threads: a worker is killed to
        # stop its job, which processes of its own would outlive.
        with parallel_config(backend="threading"):
            result = target(payload, report)
    except user_errors as exc:
        conn.send(("error", str(exc), True))
    except MemoryError:
        conn.send(("error", "The job ran out of memory. Use fewer columns, fewer levels or a "
                   "simpler model.", True))
    except BaseException as exc:  # noqa: BLE001 - reported to the server log and the page
        conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}", False))
    else:
        conn.send(("done", result))
