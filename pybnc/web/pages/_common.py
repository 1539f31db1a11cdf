"""What every page module reads from the running application: its run store, its job
manager and its settings (set once by :func:`pybnc.web.create_app`)."""

from __future__ import annotations

import contextlib

from flask import abort, current_app, request

from ..guard import Refused
from ..guard import session as owner  # noqa: F401 (for the pages: the request's session)
from ..runs import ID


def runs():
    """The application's :class:`~pybnc.web.runs.Runs`."""
    return current_app.extensions["pybnc_runs"]


def manager():
    """The application's :class:`~pybnc.web.jobs.JobManager`."""
    return current_app.extensions["pybnc_jobs"]


def setting(name: str):
    """One of :func:`~pybnc.web.create_app`'s options (``max_upload_mb``, ``job_time_limit``,
    ``client_timeout``...)."""
    return current_app.config["PYBNC"][name]


def job_or_404(job_id: str):
    """The job, recorded as asked about (its page is still there), or a 404 (also when it
    is another session's)."""
    job = manager().touch(job_id, owner()) if ID.match(job_id) else None
    if job is None:
        abort(404)
    return job


def chosen_models(values) -> list:
    """The short names ticked on the form (``models``, repeated or comma-separated)."""
    picked = values.getlist("models") or [values.get("model") or "tan"]
    return [m for value in picked for m in value.split(",")]


def bins(text: str) -> int | None:
    """The form's bin count: empty for the model's default, else a whole number 2-50."""
    from ..analysis import UserError

    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 2 <= value <= 50:
        raise UserError(f"The number of bins must be a whole number from 2 to 50, got {text!r}.")
    return value


#: Seconds a request waits for a free slot of in-request work before it is refused (429).
WORK_WAIT = 15.0


@contextlib.contextmanager
def work_slot():
    """One of the server's few slots for the work a request does itself (predictions of a
    file, explanations): at most ``max_jobs`` at once, so that many such requests queue
    instead of sharing the cores to a crawl; one that waits more than :data:`WORK_WAIT`
    seconds is refused with 429."""
    slots = current_app.extensions["pybnc_work"]
    if not slots.acquire(timeout=WORK_WAIT):
        raise Refused(429, f"The server is busy with other requests of this kind (waited {WORK_WAIT:g} s); "
                           "try again in a moment.")
    try:
        yield
    finally:
        slots.release()


def json_body() -> dict:
    """The request's JSON object, or a 400 saying what was sent instead."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise Refused(400, "Send a JSON object as the request body (Content-Type: application/json), "
                           'e.g. {"evidence": {"0": 1}}.')
    return body


def readers():
    """The application's reader processes (a :class:`~pybnc.web.jobs.JobManager` of their own)."""
    return current_app.extensions["pybnc_readers"]


def in_reader(target, task: dict):
    """``target(task)`` (:func:`~pybnc.web.analysis.upload_payload`...) in one of the reader
    processes, under their time and memory limits: a file that is slow or big to parse
    stops there, never in the server. Its result, or a ``UserError`` saying what happened."""
    from .. import jobs
    from ..analysis import UserError

    manager = readers()
    try:
        job = manager.submit(f"reading {task['name']}", target, task)
    except jobs.Busy:
        raise Refused(429, "The server is reading other files; try again in a moment.") from None
    job = manager.wait(job.id, timeout=manager.time_limit + 30)
    if job.state == jobs.DONE:
        result, job.result = job.result, None  # the manager remembers ended jobs, not their tables
        return result
    if job.state in (jobs.TIMED_OUT, jobs.TOO_BIG):
        took = (f"took more than {manager.time_limit:g} s" if job.state == jobs.TIMED_OUT else
                f"needed more than {manager.memory_limit:g} MB of memory")
        raise UserError(f"Could not read the file as a table: {task['name']} {took} to parse, a limit of this "
                        "server for one upload. Send fewer rows or columns, or a CSV file.")
    raise UserError(job.message)


def read_upload(task: dict) -> dict:
    """:func:`~pybnc.web.analysis.upload_payload` in a reader process (``table_payload``'s ``read``)."""
    from ..analysis import upload_payload

    return in_reader(upload_payload, task)
