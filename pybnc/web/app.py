"""The Flask application behind ``pybnc serve``.

Routes
------
``GET /``
    The upload form: a CSV file or a bundled dataset, the class column, the model.
``POST /result``
    Fit, cross-validate and draw the uploaded table; the result page.
``GET /result?dataset=chess&model=tan``
    The same for a bundled dataset (a plain link, handy for bookmarks and screenshots).
``GET /download/<run>/model.pybnc``, ``GET /download/<run>/predictions.csv``
    The fitted model (:func:`pybnc.save`) and its predictions on the table.

Uploads are read in memory (Werkzeug spools big ones to the system temp dir) and
never stored; the two downloads of each run are written under one temporary
directory, removed when the server stops. Only the newest :data:`KEEP_RUNS` runs
are kept there, so a long session does not fill the disk.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
import threading
import uuid
from pathlib import Path

from flask import Flask, abort, render_template, request, send_file
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import analysis
from .analysis import UserError

#: Default upload limit in megabytes (``pybnc serve --max-upload-mb``).
MAX_UPLOAD_MB = 50
#: Runs whose downloads are kept; older ones are deleted.
KEEP_RUNS = 20
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")
_DOWNLOADS = {"model.pybnc": "application/octet-stream", "predictions.csv": "text/csv"}


class _Runs:
    """Downloads of recent runs, one sub-directory each, under one temporary directory."""

    def __init__(self, root=None):
        self.root = Path(tempfile.mkdtemp(prefix="pybnc-web-", dir=root))
        self.lock = threading.Lock()
        atexit.register(shutil.rmtree, self.root, True)

    def store(self, outcome) -> str:
        from ..io import save

        run = uuid.uuid4().hex
        folder = self.root / run
        folder.mkdir()
        save(outcome.model, folder / "model.pybnc")
        analysis.predictions(outcome).to_csv(folder / "predictions.csv", index=False)
        with self.lock:
            old = sorted(self.root.iterdir(), key=lambda p: p.stat().st_mtime)[:-KEEP_RUNS]
            for path in old:
                shutil.rmtree(path, ignore_errors=True)
        return run

    def path(self, run: str, name: str) -> Path:
        if not _RUN_ID.match(run) or name not in _DOWNLOADS:  # no path from the URL reaches the disk
            abort(404)
        path = self.root / run / name
        if not path.is_file():
            abort(404)
        return path


def create_app(max_upload_mb: float = MAX_UPLOAD_MB, temp_root=None) -> Flask:
    """The web application.

    Parameters
    ----------
    max_upload_mb : float, default=50
        Largest accepted request (the uploaded CSV) in megabytes; larger ones get
        an error message on the form.
    temp_root : path, optional
        Where the run directory is created (default: the system temp dir).

    Returns
    -------
    flask.Flask

    Examples
    --------
    >>> client = create_app().test_client()
    >>> client.get("/").status_code
    200
    """
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(max_upload_mb * 2**20)
    runs = _Runs(temp_root)
    app.extensions["pybnc_runs"] = runs

    def form(error=None, status=200, **chosen):
        # The form comes back with the user's choices, so a fix is one change away.
        page = render_template("index.html", error=error, models=analysis.model_choices(),
                               datasets=analysis.dataset_choices(), max_mb=max_upload_mb,
                               slow=analysis.SLOW_MODELS, chosen=chosen)
        return page, status

    @app.get("/")
    def index():
        return form(model=request.args.get("model", "tan"), dataset=request.args.get("dataset", ""))

    @app.route("/result", methods=["GET", "POST"])
    def result():
        values = request.values
        model_key = (values.get("model") or "tan").strip().lower()
        dataset = (values.get("dataset") or "").strip()
        target = (values.get("target") or "").strip()
        chosen = dict(model=model_key, dataset=dataset, target=target)
        try:
            upload = request.files.get("file")
            uploaded = upload is not None and bool(upload.filename)
            if uploaded:
                frame = analysis.read_csv(upload.read())
                X, y, target, notes = analysis.split_target(frame, target)
                source = Path(upload.filename).name
            elif dataset:
                X, y = analysis.load_bundled(dataset)
                source, target, notes = dataset, str(y.name), []
            else:
                raise UserError("Choose a CSV file to upload, or a bundled dataset.")
            outcome = analysis.analyse(X, y, model_key, source, target, notes)
            run = runs.store(outcome)
        except UserError as exc:
            return form(str(exc), 400, **chosen)
        return render_template("result.html", o=outcome, run=run, bundled="" if uploaded else dataset,
                               classes=[str(c) for c in outcome.model.classes_])

    @app.get("/download/<run>/<name>")
    def download(run, name):
        path = runs.path(run, name)
        return send_file(path, mimetype=_DOWNLOADS[name], as_attachment=True, download_name=name)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc):
        return form(f"The file is larger than the limit of {max_upload_mb:g} MB "
                    "(pybnc serve --max-upload-mb raises it).", 413)

    @app.errorhandler(Exception)
    def internal(exc):
        if isinstance(exc, HTTPException):  # 404, 405: their own short pages
            return exc
        # A bug, not the user's fault: the traceback goes to the server's log, not the page.
        app.logger.exception("pybnc web: internal error")
        return form(f"Internal error ({type(exc).__name__}: {exc}). The server log has the details; "
                    "please report it.", 500)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = MAX_UPLOAD_MB) -> None:
    """Run the web application until interrupted (Ctrl+C).

    Werkzeug's threaded server: one user on one machine is its purpose; put a
    production WSGI server in front of :func:`create_app` for anything else.
    """
    import signal
    import sys

    from werkzeug.serving import run_simple

    # `kill` (SIGTERM) ends the server like Ctrl+C does, so that atexit removes the run directory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, create_app(max_upload_mb), threaded=True)
