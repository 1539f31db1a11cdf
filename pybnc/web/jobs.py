"""Long work as jobs: each in a process of its own, with progress, limits and a cancel.

A job is one call ``target(payload, report)`` run in a child process. The child
sends its progress (``report(done, total, text)``) and finally its result through a
pipe; a watcher thread in the server reads them and stops the child when

* the job has run longer than its wall-clock limit (``time_limit``),
* the page that started it asked to cancel it,
* nobody has asked about it for ``client_timeout`` seconds (the page polls while it
  is open; a closed tab stops polling, and says so at once when it can),
* its resident memory passes ``memory_limit`` megabytes (read from ``/proc`` on
  Linux; elsewhere there is no memory limit),

and at most ``max_jobs`` run at once. Jobs beyond wait in a first-in, first-out queue of
at most ``max_queue`` (their pages show their place and can cancel them; a closed
page takes its job out of the queue); only when the queue is full is a job refused,
with :class:`Busy`.

Why processes, not threads: the work is numpy inside single long calls (a fit, a
fold, a search step). Python cannot stop a thread from outside, so a runaway fit in
a thread keeps its core and its memory until it ends by itself; a process is killed
at once and its memory goes back to the system. The processes are reused from job to
job, and killed (then replaced) to stop one (:mod:`pybnc.web._workers`).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

from ._workers import PRELOAD, Worker, context, resident_mb as _resident_mb  # noqa: F401 (PRELOAD: as before)

log = logging.getLogger("pybnc.web")

#: Default wall-clock limit of one job, in seconds (``pybnc serve --job-time-limit``).
TIME_LIMIT = 300.0
#: Default number of jobs that may run at once (``pybnc serve --max-jobs``).
MAX_JOBS = 2
#: Default number of jobs that may wait for a free slot (``pybnc serve --max-queue``).
MAX_QUEUE = 32
#: A job nobody has asked about for this many seconds is stopped (``--client-timeout``).
#: Browsers poll hidden tabs as rarely as once a minute, so this stays above 60.
CLIENT_TIMEOUT = 90.0
#: Default resident memory a job may use, in megabytes (``pybnc serve --job-memory-mb``).
MEMORY_LIMIT = 4096.0
#: After the page says it is leaving, a new poll within this many seconds (a reload)
#: keeps the job; otherwise it stops.
LEAVE_GRACE = 5.0
#: Finished jobs remembered for their status pages.
KEEP_JOBS = 100
QUEUED, RUNNING, DONE, FAILED, CANCELLED, TIMED_OUT, ABANDONED, TOO_BIG = (
    "queued", "running", "done", "failed", "cancelled", "timed out", "abandoned", "over memory")
_ACTIVE = (QUEUED, RUNNING)


class Busy(RuntimeError):
    """Every slot is taken and the queue is full; the message says what to do."""


@dataclass
class Job:
    """What the page shows about one job."""

    id: str
    title: str
    time_limit: float
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None  # when it left the queue
    state: str = QUEUED
    position: int = 0  # place in the queue (1 = next), 0 once it runs
    done: int = 0
    total: int = 0
    text: str = "starting"
    message: str = ""  # what happened, in words, once the job has ended
    result: object = None  # what ``on_done`` returned (the run's id)
    last_seen: float = field(default_factory=time.monotonic)
    left_at: float | None = None
    stop_reason: str | None = None  # set by cancel(); read by the watcher
    pid: int | None = None  # the worker process
    owner: str = ""  # the browser session that started it (pybnc.web.guard)
    on_end: object = None  # called once if the job ends without a result (failed, stopped, dropped)

    ended: float | None = None

    @property
    def elapsed(self) -> float:
        """Seconds it has run (0 while it waits)."""
        if self.started is None:
            return 0.0
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    @property
    def waited(self) -> float:
        """Seconds it waited in the queue (so far, while it waits)."""
        end = self.started if self.started is not None else self.ended
        return (end if end is not None else time.monotonic()) - self.submitted

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "state": self.state, "done": self.done,
                "total": self.total, "text": self.text, "message": self.message,
                "elapsed": round(self.elapsed, 1), "time_limit": self.time_limit,
                "position": self.position, "waited": round(self.waited, 1), "ran": self.started is not None,
                "result": self.result}


def sleep_job(seconds, report):
    """A job that waits ``seconds`` and returns them: a stand-in for a long fit, to try
    a server's limits (``report`` is the progress callback every job gets)."""
    time.sleep(float(seconds))
    return seconds


class JobManager:
    """Start, queue, watch, limit and stop jobs.

    Parameters
    ----------
    max_jobs : int, default=MAX_JOBS
        Jobs that may run at once; more wait in the queue.
    time_limit : float, default=TIME_LIMIT
        Seconds of wall-clock time a job may run before it is stopped (waiting in the
        queue does not count).
    client_timeout : float, default=CLIENT_TIMEOUT
        Seconds without a poll (:meth:`touch`) after which a job is stopped, or taken
        out of the queue.
    memory_limit : float, default=MEMORY_LIMIT
        Megabytes of resident memory a job may use (Linux only).
    user_errors : tuple of exception types
        Errors whose message is shown as it is (the user's table or choices);
        any other error is an internal one, logged with its traceback.
    max_queue : int, default=MAX_QUEUE
        Jobs that may wait for a free slot, first in first out; :meth:`submit` raises
        :class:`Busy` beyond.

    Examples
    --------
    >>> import operator
    >>> manager = JobManager(max_jobs=1, max_queue=1)
    >>> first = manager.submit("first", sleep_job, 2.0)  # still running when the next two come
    >>> second = manager.submit("second", operator.is_not, "payload")  # is_not(payload, report)
    >>> second.state, second.position
    ('queued', 1)
    >>> manager.submit("third", operator.is_not, "payload")
    Traceback (most recent call last):
    ...
    pybnc.web.jobs.Busy: The queue is full: 1 job(s) running (first) and 1 waiting, ...
    >>> manager.wait(second.id).result, manager.get(first.id).state
    (True, 'done')
    """

    def __init__(self, max_jobs=MAX_JOBS, time_limit=TIME_LIMIT, client_timeout=CLIENT_TIMEOUT,
                 user_errors=(ValueError,), memory_limit=MEMORY_LIMIT, max_queue=MAX_QUEUE):
        self.max_jobs = int(max_jobs)
        self.max_queue = int(max_queue)
        self.memory_limit = float(memory_limit)
        self.time_limit = float(time_limit)
        self.client_timeout = float(client_timeout)
        self.user_errors = tuple(user_errors)
        self._jobs: dict[str, Job] = {}
        self._queue: deque = deque()  # (job, target, payload, on_done), first in first out
        self._idle: list = []  # workers waiting for a job
        self._lock = threading.Lock()
        self._ctx = None

    def running(self, owner: str | None = None) -> list:
        """The running jobs (of ``owner`` only, when given)."""
        with self._lock:
            return [job for job in self._jobs.values() if job.state == RUNNING and owner in (None, job.owner)]

    def queued(self, owner: str | None = None) -> list:
        """The waiting jobs, next first (of ``owner`` only, when given)."""
        with self._lock:
            return [entry[0] for entry in self._queue if owner in (None, entry[0].owner)]

    def submit(self, title, target, payload, on_done=lambda result: result, *, owner: str = "",
               on_end=None) -> Job:
        """Run ``target(payload, report)`` in a child process, now if a slot is free,
        else once the jobs queued before it have started.

        ``on_done(result)`` runs in the server once the child has returned; what it
        returns becomes ``job.result``. It may raise one of ``user_errors``. ``on_end()``
        runs instead when the job ends any other way (failed, stopped, taken out of the
        queue). ``owner``: who may see the job (:meth:`get` with ``owner``).
        """
        with self._lock:
            busy = [job for job in self._jobs.values() if job.state == RUNNING]
            if len(busy) >= self.max_jobs and len(self._queue) >= self.max_queue:
                raise Busy(f"The queue is full: {len(busy)} job(s) running ({', '.join(j.title for j in busy)}) "
                           f"and {len(self._queue)} waiting, the limits of this server (pybnc serve --max-jobs, "
                           "--max-queue). Try again in a minute.")
            job = Job(uuid.uuid4().hex, title, self.time_limit, owner=owner, on_end=on_end)
            self._jobs[job.id] = job
            self._queue.append((job, target, payload, on_done))
            self._forget_old()
        self._dispatch()
        return job

    def _dispatch(self) -> None:
        """Start queued jobs while slots are free; number the ones left."""
        starting = []
        with self._lock:
            self._prune(time.monotonic())
            n_running = sum(job.state == RUNNING for job in self._jobs.values())
            while self._queue and n_running + len(starting) < self.max_jobs:
                entry = self._queue.popleft()
                entry[0].state, entry[0].started, entry[0].text = RUNNING, time.monotonic(), "starting"
                starting.append(entry)
            self._number()
        for job, target, payload, on_done in starting:
            job.position = 0
            try:
                self._start(job, target, payload, on_done)
            except Exception as exc:  # noqa: BLE001 - no process: the job fails, the slot frees
                log.exception("pybnc web: starting job %s failed", job.id)
                self._finish(job, ("error", f"The job could not be started ({type(exc).__name__}: {exc}).",
                                   True), on_done)

    def _start(self, job, target, payload, on_done) -> None:
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            if self._ctx is None:
                self._ctx = context()
            worker = Worker(self._ctx, self.user_errors)
        job.pid = worker.pid
        worker.run(target, payload)
        threading.Thread(target=self._watch, args=(job, worker, on_done), daemon=True,
                         name=f"pybnc-watch-{job.id[:8]}").start()

    def warm(self, n: int = 1) -> None:
        """Start ``n`` idle workers now, in the background, so that the first job does not
        wait for the forkserver to import pybnc (seconds)."""
        def start():
            try:
                if self._ctx is None:
                    self._ctx = context()
                workers = [Worker(self._ctx, self.user_errors) for _ in range(n)]
            except Exception:  # noqa: BLE001 - the first job then starts its worker itself
                log.exception("pybnc web: starting workers ahead failed")
                return
            with self._lock:
                self._idle.extend(workers)

        threading.Thread(target=start, daemon=True, name="pybnc-warm").start()

    def _release(self, worker) -> None:
        """A worker whose job has ended well: keep it for the next job, or retire it."""
        with self._lock:
            keep = len(self._idle) < self.max_jobs and worker.reusable()
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.retire()

    def _prune(self, now: float) -> None:
        """Take out of the queue the jobs cancelled or abandoned while waiting (lock held)."""
        for entry in list(self._queue):
            job = entry[0]
            reason = job.stop_reason or self._gone(job, now)
            if reason:
                self._queue.remove(entry)
                job.ended, job.position, job.state = now, 0, reason
                job.message = (f"Cancelled at your request after waiting {job.waited:.0f} s in the queue."
                               if reason == CANCELLED else
                               f"Taken out of the queue after {job.waited:.0f} s: the page that started it "
                               "was closed or stopped asking for news.")
                _ended(job)
        self._number()

    def _number(self) -> None:
        """Each waiting job's place in the queue, 1 for the next (lock held)."""
        for place, (job, *_) in enumerate(self._queue, start=1):
            job.position, job.text = place, "waiting in the queue"

    def get(self, job_id: str, owner: str | None = None) -> Job | None:
        """The job; None when there is none, or it is not ``owner``'s (when given)."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and owner in (None, job.owner) else None

    def touch(self, job_id: str, owner: str | None = None) -> Job | None:
        """Record that the page asked about the job (it is still wanted)."""
        job = self.get(job_id, owner)
        if job is not None:
            job.last_seen = time.monotonic()
        return job

    def leave(self, job_id: str, owner: str | None = None) -> None:
        """The page is going away: stop the job unless a new poll comes soon (a reload)."""
        job = self.get(job_id, owner)
        if job is not None:
            job.left_at = time.monotonic()

    def cancel(self, job_id: str, owner: str | None = None) -> bool:
        """Stop the job, or take it out of the queue; False when it has already ended (or is
        not ``owner``'s)."""
        job = self.get(job_id, owner)
        if job is None or job.state not in _ACTIVE:
            return False
        job.stop_reason = CANCELLED  # the watcher stops a running job; _dispatch a waiting one
        if job.state == QUEUED:
            self._dispatch()
        return True

    def wait(self, job_id: str, timeout: float = 60.0) -> Job:
        """Block until the job has ended (for scripts and tests; polls count as interest)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.touch(job_id)
            if job.state not in _ACTIVE or time.monotonic() > deadline:
                return job
            time.sleep(0.05)

    def _forget_old(self) -> None:
        ended = [j for j in self._jobs.values() if j.state not in _ACTIVE]
        for job in ended[: max(0, len(ended) - KEEP_JOBS)]:
            del self._jobs[job.id]

    # -- the watcher ------------------------------------------------------------------
    def _gone(self, job: Job, now: float) -> str | None:
        """ABANDONED when the job's page has gone: no poll for a while, or it said it left."""
        if now - job.last_seen > self.client_timeout:
            return ABANDONED
        if job.left_at is not None and job.last_seen < job.left_at and now - job.left_at > LEAVE_GRACE:
            return ABANDONED
        return None

    def _why_stop(self, job: Job, now: float) -> str | None:
        if job.stop_reason:
            return job.stop_reason
        if now - job.started > job.time_limit:
            return TIMED_OUT
        if _resident_mb(job.pid) > self.memory_limit:
            return TOO_BIG
        return self._gone(job, now)

    def _watch(self, job: Job, worker, on_done) -> None:
        outcome, pruned, receive = None, time.monotonic(), worker.conn
        while outcome is None:
            now = time.monotonic()
            if self._queue and now - pruned > 0.5:  # waiting jobs whose pages have gone
                pruned = now
                with self._lock:
                    self._prune(now)
            reason = self._why_stop(job, now)
            if reason:
                worker.kill()  # with the job it runs
                outcome = ("stopped", reason)
                break
            try:
                if not receive.poll(0.1):
                    continue
                message = receive.recv()
            except (EOFError, OSError):  # the worker died without a word (killed, crashed)
                worker.process.join(5)
                outcome = ("error", f"The worker process ended unexpectedly (exit code "
                           f"{worker.process.exitcode}); it may have run out of memory.", True)
                worker.retire()
                break
            if message[0] == "progress":
                _, job.done, job.total, job.text = message
            else:
                outcome = message
                self._release(worker)
        self._finish(job, outcome, on_done)

    def _finish(self, job: Job, outcome, on_done) -> None:
        took = f"after {time.monotonic() - job.started:.0f} s"
        kind = outcome[0]
        if kind == "done":
            try:
                job.result = on_done(outcome[1])
                state, message = DONE, f"Finished {took}."
            except self.user_errors as exc:
                state, message = FAILED, str(exc)
            except Exception as exc:  # noqa: BLE001 - a bug: to the log, one line on the page
                log.exception("pybnc web: storing the result of job %s failed", job.id)
                state, message = FAILED, f"Internal error ({type(exc).__name__}: {exc})."
        elif kind == "error":
            _, text, for_user = outcome
            if not for_user:
                log.error("pybnc web: job %s (%s) failed:\n%s", job.id, job.title, text)
                text = (f"Internal error ({text.splitlines()[0]}). The server log has the details; "
                        "please report it.")
            state, message = FAILED, text
        else:
            state = outcome[1]
            message = {
                CANCELLED: f"Cancelled at your request {took}.",
                TIMED_OUT: f"Stopped: the job reached the time limit of {job.time_limit:g} s "
                           "(pybnc serve --job-time-limit raises it). Try fewer or faster models, "
                           "or fewer columns.",
                TOO_BIG: f"Stopped {took}: the job used more than {self.memory_limit:g} MB of memory "
                         "(pybnc serve --job-memory-mb raises it). Models with big tables (kdb, fssj, bsej "
                         "on columns with many values) need the most; try others, or fewer values.",
                ABANDONED: f"Stopped {took}: the page that started it was closed or stopped asking "
                           f"for news (no request for {self.client_timeout:g} s).",
            }[state]
        job.ended = time.monotonic()
        job.message, job.state = message, state
        if state != DONE:
            _ended(job)
        self._dispatch()  # a slot is free: the next job in the queue starts


def _ended(job: Job) -> None:
    """Tell whoever asked (``on_end``) that the job ended without a result; once."""
    callback, job.on_end = job.on_end, None
    if callback is not None:
        try:
            callback()
        except Exception:  # noqa: BLE001 - a clean-up that fails must not stop the watcher
            log.exception("pybnc web: cleaning up after job %s failed", job.id)
