"""The Flask application behind ``pybnc serve``: :func:`create_app` and :func:`serve`.

The pages are Flask blueprints, one module each under :mod:`pybnc.web.pages` (the
form, a job, a run's result, the evidence view, predictions of a second file,
downloads); this module sets up what they share: the settings, the run store
(:mod:`pybnc.web.runs`), the job manager (:mod:`pybnc.web.jobs`) and the error pages.

Uploads are read in memory (Werkzeug spools big ones to the system temp dir) and
never stored; the downloads of each run are written under one temporary directory,
removed when the server stops.
"""

from __future__ import annotations

from flask import Flask
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import jobs
from .analysis import UserError
from .pages import BLUEPRINTS
from .pages.form import render_form
from .runs import Runs

#: Default upload limit in megabytes (``pybnc serve --max-upload-mb``).
MAX_UPLOAD_MB = 50
#: File types the upload fields offer (pybnc.io.read_table reads them all).
ACCEPT = ".csv,.tsv,.txt,.arff,.data,.parquet,.xlsx,.gz,text/csv"


def create_app(max_upload_mb: float = MAX_UPLOAD_MB, temp_root=None, *, max_jobs: int = jobs.MAX_JOBS,
               job_time_limit: float = jobs.TIME_LIMIT, client_timeout: float = jobs.CLIENT_TIMEOUT,
               job_memory_mb: float = jobs.MEMORY_LIMIT, max_queue: int = jobs.MAX_QUEUE) -> Flask:
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
    max_queue : int, default=32
        Jobs that may wait for a free slot, first in first out (their pages show their
        place in the queue); one more is refused (HTTP 429).
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
    app.config["PYBNC"] = dict(max_upload_mb=max_upload_mb, job_time_limit=job_time_limit,
                               client_timeout=client_timeout)
    app.extensions["pybnc_runs"] = Runs(temp_root)
    app.extensions["pybnc_jobs"] = jobs.JobManager(max_jobs, job_time_limit, client_timeout,
                                                   user_errors=(UserError,), memory_limit=job_memory_mb,
                                                   max_queue=max_queue)
    app.jinja_env.globals["accept"] = ACCEPT
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc):
        return render_form(f"The file is larger than the limit of {max_upload_mb:g} MB "
                           "(pybnc serve --max-upload-mb raises it).", 413)

    @app.errorhandler(Exception)
    def internal(exc):
        if isinstance(exc, HTTPException):  # 404, 405: their own short pages
            return exc
        # A bug, not the user's fault: the traceback goes to the server's log, not the page.
        app.logger.exception("pybnc web: internal error")
        return render_form(f"Internal error ({type(exc).__name__}: {exc}). The server log has the details; "
                           "please report it.", 500)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = MAX_UPLOAD_MB, **limits) -> None:
    """Run the web application until interrupted (Ctrl+C).

    Werkzeug's threaded server: one user on one machine is its purpose; put a
    production WSGI server in front of :func:`create_app` for anything else.
    ``limits``: ``max_jobs``, ``max_queue``, ``job_time_limit``, ``client_timeout``, ``job_memory_mb`` of
    :func:`create_app`.
    """
    import signal
    import sys

    from werkzeug.serving import run_simple

    # `kill` (SIGTERM) ends the server like Ctrl+C does, so that atexit removes the run directory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(host, port, create_app(max_upload_mb, **limits), threaded=True)
