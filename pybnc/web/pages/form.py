"""The form (``GET /``) and the column report it shows as soon as a table is chosen
(``POST /api/columns``)."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template, request

from .. import analysis
from ..analysis import UserError
from ._common import bins, chosen_models, manager, owner, read_upload, setting

bp = Blueprint("form", __name__)


def render_form(error=None, status=200, **chosen):
    """The form with a message, coming back with the user's choices so that a fix is one
    change away; also the page of errors that have no page of their own."""
    chosen.setdefault("models", ["tan"])
    page = render_template("index.html", error=error, models=analysis.model_choices(),
                           datasets=analysis.dataset_choices(), max_mb=setting("max_upload_mb"),
                           slow=analysis.SLOW_MODELS, discretizers=analysis.DISCRETIZERS,
                           chosen=chosen, running=manager().running(owner()), waiting=len(manager().queued()),
                           others=len(manager().running()) - len(manager().running(owner())),
                           limit=setting("job_time_limit"))
    return page, status


@bp.get("/")
def index():
    return render_form(models=chosen_models(request.args), dataset=request.args.get("dataset", ""))


@bp.post("/api/columns")
def columns():
    """The column report of the chosen table: ``{"html": fragment, "columns": names,
    "target": class column}``."""
    values = request.values
    try:
        payload = analysis.table_payload(request.files.get("file"), (values.get("dataset") or "").strip(),
                                         (values.get("target") or "").strip(), setting("read_limits"),
                                         read=read_upload)
        X, y, source, target, notes = analysis.load_input(payload)
        discretizer = values.get("discretizer") or None
        if discretizer and discretizer not in analysis.DISCRETIZERS:
            raise UserError(f"unknown discretiser {discretizer!r}.")
        report = analysis.report_columns(X, y, discretizer, bins(values.get("n_bins") or ""))
    except (UserError, ValueError) as exc:
        return jsonify({"html": render_template("_columns.html", error=str(exc))}), 400
    page = render_template("_columns.html", report=report, source=source, target=target, notes=notes,
                           n_rows=len(X), n_classes=int(y.nunique()))
    return jsonify({"html": page, "columns": payload["columns"], "target": target})
