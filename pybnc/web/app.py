"""The Flask application behind ``pybnc serve``.

Routes
------
``GET /``
    The form: a CSV file or a bundled dataset, the class column, the models.
``POST /result`` (also ``GET /result?dataset=chess&models=tan``)
    Start a job (:mod:`pybnc.web.jobs`) and go to its page.
``POST /api/columns``
    The column report of the chosen table (an HTML fragment the form shows).
``GET /jobs/<job>``, ``GET /api/jobs/<job>``, ``POST /jobs/<job>/cancel``
    The job's progress page, its status as JSON (each poll says the page is still
    there), and its cancel button. ``POST /api/jobs/<job>/leave``: the page is closing.
``GET /runs/<run>?model=tan``
    The result: the comparison of every model, and the chosen model's network, its
    evidence panel and its tables.
``POST /api/runs/<run>/<model>/posterior``
    ``{"evidence": {feature index: level index}, "influence": true}`` to the class
    posterior and each set feature's influence (JSON; ``"influence": false`` skips it).
``POST /runs/<run>/<model>/predict``
    Predictions for the rows of a second file.
``GET /download/<run>/<file>``
    Model files, in-sample predictions, and predictions of second files.

Uploads are read in memory (Werkzeug spools big ones to the system temp dir) and
never stored; the downloads of each run are written under one temporary directory,
removed when the server stops. Only the newest :data:`KEEP_RUNS` runs are kept.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
import threading
import uuid
from collections import OrderedDict
from pathlib import Path

from flask import Flask, abort, jsonify, redirect, render_template, request, send_file, url_for
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import analysis, compare, jobs, network
from .analysis import UserError

#: Default upload limit in megabytes (``pybnc serve --max-upload-mb``).
MAX_UPLOAD_MB = 50
#: Runs whose models and downloads are kept; older ones are forgotten.
KEEP_RUNS = 20
#: Rows of a second file's predictions shown on the page (the download has them all).
SHOWN_PREDICTIONS = 200
#: File types the upload fields offer (pybnc.io.read_table reads them all).
ACCEPT = ".csv,.tsv,.txt,.arff,.data,.parquet,.gz,text/csv"
_ID = re.compile(r"^[0-9a-f]{32}$")
_FILE = re.compile(r"^[a-z]+(-predictions\.csv|\.pybnc)$|^new-[0-9a-f]{32}\.csv$")


class _Runs:
    """Finished runs: their results in memory, their downloads under one temporary directory."""

    def __init__(self, root=None):
        self.root = Path(tempfile.mkdtemp(prefix="pybnc-web-", dir=root))
        self.lock = threading.Lock()
        self.runs: OrderedDict = OrderedDict()
        atexit.register(shutil.rmtree, self.root, True)

    def folder(self) -> tuple:
        run = uuid.uuid4().hex
        path = self.root / run
        path.mkdir()
        return run, path

    def add(self, run: str, learned) -> str:
        with self.lock:
            self.runs[run] = learned
            known = set(self.runs)
            while len(self.runs) > KEEP_RUNS:
                old, _ = self.runs.popitem(last=False)
                known.discard(old)
            for path in self.root.iterdir():  # also folders of failed or stopped jobs
                if path.name not in known and not self._young(path):
                    shutil.rmtree(path, ignore_errors=True)
        return run

    @staticmethod
    def _young(path: Path) -> bool:
        import time

        return time.time() - path.stat().st_mtime < 3600  # a job may still be writing there

    def get(self, run: str):
        with self.lock:
            learned = self.runs.get(run) if _ID.match(run) else None
        if learned is None:
            abort(404)
        return learned

    def path(self, run: str, name: str) -> Path:
        if not _ID.match(run) or not _FILE.match(name):  # no path from the URL reaches the disk
            abort(404)
        path = self.root / run / name
        if not path.is_file():
            abort(404)
        return path


def create_app(max_upload_mb: float = MAX_UPLOAD_MB, temp_root=None, *, max_jobs: int = jobs.MAX_JOBS,
               job_time_limit: float = jobs.TIME_LIMIT, client_timeout: float = jobs.CLIENT_TIMEOUT,
               job_memory_mb: float = jobs.MEMORY_LIMIT) -> Flask:
    """The web application.

    Parameters
    ----------
    max_upload_mb : float, default=50
        Largest accepted request (the uploaded CSV) in megabytes; larger ones get
        an error message on the form.
    temp_root : path, optional
        Where the run directory is created (default: the system temp dir).
    max_jobs : int, default=2
        Jobs (fits and cross-validations) that may run at once.
    job_time_limit : float, default=300
        Seconds a job may run before it is stopped.
    client_timeout : float, default=90
        Seconds without news from the job's page after which the job is stopped.
    job_memory_mb : float, default=4096
        Megabytes of resident memory a job may use before it is stopped (Linux).

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
    manager = jobs.JobManager(max_jobs, job_time_limit, client_timeout, user_errors=(UserError,),
                              memory_limit=job_memory_mb)
    app.extensions["pybnc_runs"] = runs
    app.extensions["pybnc_jobs"] = manager
    app.jinja_env.globals["accept"] = ACCEPT

    def form(error=None, status=200, **chosen):
        # The form comes back with the user's choices, so a fix is one change away.
        chosen.setdefault("models", ["tan"])
        page = render_template("index.html", error=error, models=analysis.model_choices(),
                               datasets=analysis.dataset_choices(), max_mb=max_upload_mb,
                               slow=analysis.SLOW_MODELS, discretizers=analysis.DISCRETIZERS,
                               chosen=chosen, running=manager.running(), limit=job_time_limit)
        return page, status

    def chosen_models(values) -> list:
        picked = values.getlist("models") or [values.get("model") or "tan"]
        return [m for value in picked for m in value.split(",")]

    @app.get("/")
    def index():
        return form(models=chosen_models(request.args), dataset=request.args.get("dataset", ""))

    @app.post("/api/columns")
    def columns():
        """The column report of the chosen table: ``{"html": fragment, "columns": names,
        "target": class column}``, for the form."""
        values = request.values
        try:
            payload = analysis.table_payload(request.files.get("file"), (values.get("dataset") or "").strip(),
                                             (values.get("target") or "").strip())
            X, y, source, target, notes = analysis.load_input(payload)
            discretizer = values.get("discretizer") or None
            if discretizer and discretizer not in analysis.DISCRETIZERS:
                raise UserError(f"unknown discretiser {discretizer!r}.")
            report = analysis.report_columns(X, y, discretizer, _bins(values.get("n_bins") or ""))
        except (UserError, ValueError) as exc:
            return jsonify({"html": render_template("_columns.html", error=str(exc))}), 400
        page = render_template("_columns.html", report=report, source=source, target=target, notes=notes,
                               n_rows=len(X), n_classes=int(y.nunique()))
        return jsonify({"html": page, "columns": payload["columns"], "target": target})

    @app.route("/result", methods=["GET", "POST"])
    def result():
        values = request.values
        models = chosen_models(values)
        chosen = dict(models=models, dataset=(values.get("dataset") or "").strip(),
                      target=(values.get("target") or "").strip(),
                      discretizer=values.get("discretizer") or "", n_bins=values.get("n_bins") or "")
        try:
            keys = analysis.model_keys(models)
            if chosen["discretizer"] and chosen["discretizer"] not in analysis.DISCRETIZERS:
                raise UserError(f"unknown discretiser {chosen['discretizer']!r}; choose one of "
                                f"{', '.join(analysis.DISCRETIZERS)}.")
            n_bins = _bins(chosen["n_bins"])
            # The table is read here, so that a bad file is a message on the form with the
            # choices kept; the job gets the parsed table.
            payload = analysis.table_payload(request.files.get("file"), chosen["dataset"], chosen["target"])
            source = payload["source"]
            run, folder = runs.folder()
            payload.update(models=keys, discretizer=chosen["discretizer"], n_bins=n_bins, folder=str(folder))
            job = manager.submit(f"{', '.join(keys)} on {source}", analysis.learn, payload,
                                 on_done=lambda learned: runs.add(run, learned))
        except UserError as exc:
            return form(str(exc), 400, **chosen)
        except jobs.Busy as exc:
            return form(str(exc), 429, **chosen)
        return redirect(url_for("job_page", job_id=job.id), 303)

    def job_or_404(job_id):
        job = manager.touch(job_id) if _ID.match(job_id) else None
        if job is None:
            abort(404)
        return job

    @app.get("/jobs/<job_id>")
    def job_page(job_id):
        job = job_or_404(job_id)
        if job.state == jobs.DONE:
            return redirect(url_for("run_page", run=job.result), 303)
        return render_template("job.html", job=job.as_dict(), client_timeout=client_timeout)

    @app.get("/api/jobs/<job_id>")
    def job_status(job_id):
        job = job_or_404(job_id).as_dict()
        if job["state"] == jobs.DONE:
            job["url"] = url_for("run_page", run=job["result"])
        return jsonify(job)

    @app.post("/jobs/<job_id>/cancel")
    def job_cancel(job_id):
        job_or_404(job_id)
        manager.cancel(job_id)
        return redirect(url_for("job_page", job_id=job_id), 303)

    @app.post("/api/jobs/<job_id>/cancel")
    def api_job_cancel(job_id):
        job_or_404(job_id)
        return jsonify({"cancelled": manager.cancel(job_id)})

    @app.post("/api/jobs/<job_id>/leave")
    def job_leave(job_id):
        if _ID.match(job_id):
            manager.leave(job_id)
        return "", 204

    @app.get("/runs/<run>")
    def run_page(run):
        learned = runs.get(run)
        key = request.args.get("model") or _default_view(learned)
        if key not in learned.models:
            abort(404)
        view = learned.views[key]
        prior = network.posterior(learned.models[key], view["domains"], {}, influence=False)
        return render_template("result.html", o=learned, run=run, key=key, view=view, prior=prior)

    @app.post("/api/runs/<run>/<key>/posterior")
    def posterior(run, key):
        learned = runs.get(run)
        if key not in learned.models:
            abort(404)
        domains = learned.views[key]["domains"]
        question = request.get_json(silent=True)
        try:
            evidence = {int(f): int(v) for f, v in ((question or {}).get("evidence") or {}).items()}
            if any(not (0 <= f < len(domains) and 0 <= v < len(domains[f][1])) for f, v in evidence.items()):
                raise ValueError
        except (TypeError, ValueError, AttributeError):
            return jsonify({"error": "evidence must map feature indices to level indices of this model"}), 400
        influence = question.get("influence", True) is not False
        return jsonify(network.posterior(learned.models[key], domains, evidence, influence))

    @app.post("/runs/<run>/<key>/predict")
    def predict(run, key):
        learned = runs.get(run)
        if key not in learned.models:
            abort(404)
        upload = request.files.get("file")
        try:
            if upload is None or not upload.filename:
                raise UserError("Choose a CSV file with the rows to predict.")
            frame = analysis.read_csv(upload.read())
            table, score, notes = compare.predict_table(learned.models[key], frame, learned.target)
        except (UserError, ValueError) as exc:
            return render_template("predict.html", o=learned, run=run, key=key, error=str(exc)), 400
        name = f"new-{uuid.uuid4().hex}.csv"
        table.to_csv(runs.root / run / name, index=False)
        shown = table.head(SHOWN_PREDICTIONS)
        return render_template("predict.html", o=learned, run=run, key=key, file=Path(upload.filename).name,
                               table=shown, n_rows=len(table), score=score, notes=notes, download=name)

    @app.get("/download/<run>/<name>")
    def download(run, name):
        path = runs.path(run, name)
        kind = "text/csv" if name.endswith(".csv") else "application/octet-stream"
        nice = "predictions-new.csv" if name.startswith("new-") else name
        return send_file(path, mimetype=kind, as_attachment=True, download_name=nice)

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


def _bins(text: str) -> int | None:
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 2 <= value <= 50:
        raise UserError(f"The number of bins must be a whole number from 2 to 50, got {text!r}.")
    return value


def _default_view(learned) -> str:
    """The model shown first: the first one chosen besides the baseline that has a network."""
    others = [k for k in learned.keys if k != analysis.BASELINE] or learned.keys
    drawn = [k for k in others if learned.views[k]["drawing"] is not None]
    return (drawn or others)[0]


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = MAX_UPLOAD_MB, **limits) -> None:
    """Run the web application until interrupted (Ctrl+C).

    Werkzeug's threaded server: one user on one machine is its purpose; put a
    production WSGI server in front of :func:`create_app` for anything else.
    ``limits``: ``max_jobs``, ``job_time_limit``, ``client_timeout``, ``job_memory_mb`` of
    :func:`create_app`.
    """
    import signal
    import sys

    from werkzeug.serving import run_simple

    # `kill` (SIGTERM) ends the server like Ctrl+C does, so that atexit removes the run directory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, create_app(max_upload_mb, **limits), threaded=True)
