"""A run's downloads (``GET /download/<run>/<file>``): model files, in-sample
predictions and the predictions of second files."""

from __future__ import annotations

from flask import Blueprint, send_file

from ._common import runs

bp = Blueprint("download", __name__)


@bp.get("/download/<run>/<name>")
def file(run, name):
    path = runs().path(run, name)
    kind = "text/csv" if name.endswith(".csv") else "application/octet-stream"
    nice = "predictions-new.csv" if name.startswith("new-") else name
    return send_file(path, mimetype=kind, as_attachment=True, download_name=nice)
