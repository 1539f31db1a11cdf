"""A job: started from the form (``/result``), its progress page (``/jobs/<job>``), its
status for the page's script (``/api/jobs/<job>``), cancel and leave."""

from __future__ import annotations

from flask import Blueprint, jsonify, redirect, render_template, request, url_for

from .. import analysis, jobs
from ..analysis import UserError
from ..runs import ID
from ._common import bins, chosen_models, job_or_404, manager, owner, read_upload, runs, setting
from .form import render_form

bp = Blueprint("job", __name__)


def _chosen(values) -> dict:
    return dict(models=chosen_models(values), dataset=(values.get("dataset") or "").strip(),
                target=(values.get("target") or "").strip(),
                discretizer=values.get("discretizer") or "", n_bins=values.get("n_bins") or "")


@bp.get("/result")
def prefill():
    """A link such as ``/result?dataset=chess&models=tan`` opens the form with those
    choices; only the form's button (a ``POST``) starts the job."""
    return render_form(None, 200, **_chosen(request.args))


@bp.post("/result")
def start():
    """Start a job on the chosen table and models and go to its page."""
    chosen = _chosen(request.form)
    try:
        keys = analysis.model_keys(chosen["models"])
        if chosen["discretizer"] and chosen["discretizer"] not in analysis.DISCRETIZERS:
            raise UserError(f"unknown discretiser {chosen['discretizer']!r}; choose one of "
                            f"{', '.join(analysis.DISCRETIZERS)}.")
        n_bins = bins(chosen["n_bins"])
        # The table is read now (in a reader process), so that a bad file is a message on
        # the form with the choices kept; the job gets the parsed table.
        payload = analysis.table_payload(request.files.get("file"), chosen["dataset"], chosen["target"],
                                         setting("read_limits"),
                                         read=read_upload)
        store = runs()
        run, folder = store.folder(owner())
        payload.update(models=keys, discretizer=chosen["discretizer"], n_bins=n_bins, folder=str(folder))
        try:
            job = manager().submit(f"{', '.join(keys)} on {payload['source']}", analysis.learn, payload,
                                   on_done=lambda learned: store.add(run, learned), owner=owner(),
                                   on_end=lambda: store.discard(run))
        except jobs.Busy:
            store.discard(run)
            raise
    except UserError as exc:
        return render_form(str(exc), 400, **chosen)
    except jobs.Busy as exc:  # every slot taken and the queue full
        page, status = render_form(str(exc), 429, **chosen)
        return page, status, {"Retry-After": "30"}
    return redirect(url_for("job.page", job_id=job.id), 303)


@bp.get("/jobs/<job_id>")
def page(job_id):
    job = job_or_404(job_id)
    if job.state == jobs.DONE:
        return redirect(url_for("run.page", run=job.result), 303)
    return render_template("job.html", job=job.as_dict(), client_timeout=setting("client_timeout"),
                           max_jobs=manager().max_jobs)


@bp.get("/api/jobs/<job_id>")
def status(job_id):
    job = job_or_404(job_id).as_dict()
    if job["state"] == jobs.DONE:
        job["url"] = url_for("run.page", run=job["result"])
    return jsonify(job)


@bp.post("/jobs/<job_id>/cancel")
def cancel(job_id):
    """The page's cancel button without a script."""
    job_or_404(job_id)
    manager().cancel(job_id, owner())
    return redirect(url_for("job.page", job_id=job_id), 303)


@bp.post("/api/jobs/<job_id>/cancel")
def api_cancel(job_id):
    job_or_404(job_id)
    return jsonify({"cancelled": manager().cancel(job_id, owner())})


@bp.post("/api/jobs/<job_id>/leave")
def leave(job_id):
    """The page is closing (``navigator.sendBeacon``): stop the job unless it comes back."""
    if ID.match(job_id):
        manager().leave(job_id, owner())
    return "", 204
