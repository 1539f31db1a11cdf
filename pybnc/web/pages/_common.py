"""What every page module reads from the running application: its run store, its job
manager and its settings (set once by :func:`pybnc.web.create_app`)."""

from __future__ import annotations

from flask import abort, current_app

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
    """The job, recorded as asked about (its page is still there), or a 404."""
    job = manager().touch(job_id) if ID.match(job_id) else None
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
