"""The Flask application behind ``pybnc serve``: :func:`create_app` and :func:`serve`.

The pages are Flask blueprints, one module each under :mod:`pybnc.web.pages` (the
form, a job, a run's result, the evidence view, predictions of a second file,
downloads); this module sets up what they share: the settings, the run store
(:mod:`pybnc.web.runs`), the job manager (:mod:`pybnc.web.jobs`) and the error pages.

Uploads are never stored; they are parsed in reader processes of their own (with a
time and a memory limit, :data:`READ_TIME_LIMIT`), within bounds on their
decompressed size and rows (:func:`pybnc.io.read_table`'s ``max_bytes`` and
``max_rows``); :mod:`.guard` keeps other sites and other sessions out. The downloads of each run are written under one temporary directory,
removed when the server stops.
"""

from __future__ import annotations

import threading

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from . import guard, jobs
from .analysis import UserError
from .pages import BLUEPRINTS
from .pages.form import render_form
from .runs import Runs

#: Default upload limit in megabytes (``pybnc serve --max-upload-mb``).
MAX_UPLOAD_MB = 50
#: Default bound on an upload's lines (rows).
MAX_ROWS = 1_000_000
#: Seconds, and megabytes of memory (at least; 20 times the upload limit), that parsing one
#: upload may take in its reader process.
READ_TIME_LIMIT, READ_MEMORY_MB = 60.0, 1024.0
#: File types the upload fields offer (pybnc.io.read_table reads them all).
ACCEPT = ".csv,.tsv,.txt,.arff,.data,.parquet,.xlsx,.gz,text/csv"


def create_app(max_upload_mb: float = MAX_UPLOAD_MB, temp_root=None, *, max_jobs: int = jobs.MAX_JOBS,
               job_time_limit: float = jobs.TIME_LIMIT, client_timeout: float = jobs.CLIENT_TIMEOUT,
               job_memory_mb: float = jobs.MEMORY_LIMIT, max_queue: int = jobs.MAX_QUEUE,
               allowed_hosts=(), max_rows: int = MAX_ROWS) -> Flask:
    """The web application.

    Parameters
    ----------
    max_upload_mb : float, default=50
        Largest accepted request (the uploaded CSV) in megabytes; larger ones get
        an error message on the form. A compressed upload may grow to twice this
        when decompressed (a workbook's members together, too).
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
    allowed_hosts : iterable of str, default=()
        Host names the server answers to besides the loopback ones (``127.0.0.1``,
        ``localhost``, ``::1``): the address it listens on, a name other machines use.
        Any other ``Host`` header gets 400 (:mod:`pybnc.web.guard`).
    max_rows : int, default=1_000_000
        Most lines (rows) of an uploaded table.

    Returns
    -------
    flask.Flask

    Examples
    --------
    >>> client = create_app().test_client()
    >>> client.get("/").status_code
    200
    >>> client.get("/", headers={"Host": "attacker.example"}).status_code
    400
    """
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(max_upload_mb * 2**20)
    app.config["PYBNC"] = dict(max_upload_mb=max_upload_mb, job_time_limit=job_time_limit,
                               client_timeout=client_timeout,
                               read_limits=dict(max_bytes=int(2 * max_upload_mb * 2**20), max_rows=int(max_rows)))
    app.extensions["pybnc_runs"] = Runs(temp_root)
    app.extensions["pybnc_jobs"] = jobs.JobManager(max_jobs, job_time_limit, client_timeout,
                                                   user_errors=(UserError,), memory_limit=job_memory_mb,
                                                   max_queue=max_queue)
    app.extensions["pybnc_work"] = threading.BoundedSemaphore(max_jobs)  # pages._common.work_slot
    # Uploads are parsed in processes of their own (pages._common.in_reader), apart from the jobs' slots.
    app.extensions["pybnc_readers"] = jobs.JobManager(max_jobs, READ_TIME_LIMIT, client_timeout,
                                                      user_errors=(UserError,), max_queue=max_queue,
                                                      memory_limit=max(READ_MEMORY_MB, 20 * max_upload_mb))
    app.jinja_env.globals["accept"] = ACCEPT
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    hosts = guard.allowed(allowed_hosts)
    app.before_request(lambda: guard.check_request(hosts))
    app.after_request(guard.finish_response)

    def answer(message: str, status: int):
        """An error in the form the client asked for: JSON for the page's scripts, else the form."""
        if request.path.startswith("/api/"):
            return jsonify({"error": message}), status
        return render_form(message, status)

    @app.errorhandler(guard.Refused)
    def refused(exc):
        return answer(exc.message, exc.status)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc):
        return answer(f"The file is larger than the limit of {max_upload_mb:g} MB "
                      "(pybnc serve --max-upload-mb raises it).", 413)

    @app.errorhandler(Exception)
    def internal(exc):
        if isinstance(exc, HTTPException):  # 404, 405: their own short pages, or JSON
            if request.path.startswith("/api/"):
                return jsonify({"error": f"{exc.code} {exc.name}: {exc.description}"}), exc.code
            return exc
        # A bug, not the user's fault: the traceback goes to the server's log, not the page.
        app.logger.exception("pybnc web: internal error")
        return answer(f"Internal error ({type(exc).__name__}: {exc}). The server log has the details; "
                      "please report it.", 500)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, max_upload_mb: float = MAX_UPLOAD_MB, *,
          verbose: bool = False, threads: int = 32, allowed_hosts=(), **limits) -> None:
    """Run the web application with waitress until interrupted (Ctrl+C or SIGTERM).

    Parameters
    ----------
    host, port : str, int
        Where to listen (only this machine by default).
    max_upload_mb : float
        As in :func:`create_app`.
    verbose : bool, default=False
        Log one line per request (the access log) to the console.
    threads : int, default=32
        Requests served at once (the jobs run in processes of their own; a request that
        waits for a reader process or a work slot holds a thread, and the page's polls
        must not queue behind it).
    allowed_hosts : iterable of str
        More host names to answer to (``host`` is one already).
    **limits
        ``max_jobs``, ``max_queue``, ``job_time_limit``, ``client_timeout``, ``job_memory_mb``,
        ``max_rows`` of :func:`create_app`.
    """
    import logging
    import signal
    import sys

    try:
        from waitress import serve as run_waitress
    except ImportError:
        raise ImportError("pybnc serve needs waitress: pip install 'pybnc[web]'.") from None
    app = create_app(max_upload_mb, allowed_hosts=(host, *allowed_hosts), **limits)
    app.extensions["pybnc_readers"].warm(1)  # the first upload's column report comes at once
    wsgi = app.wsgi_app
    if verbose:
        wsgi = _access_log(wsgi)
    else:  # waitress says only what goes wrong
        logging.getLogger("waitress").setLevel(logging.ERROR)
    # `kill` (SIGTERM) ends the server like Ctrl+C does, so that atexit removes the run directory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_waitress(wsgi, host=host, port=port, threads=threads, ident="pybnc",
                 # Flask answers 413 with the reason up to four times the limit; beyond, waitress
                 # refuses the body before spooling it (a shorter 413 of its own).
                 max_request_body_size=int(4 * max_upload_mb * 2**20) + (1 << 20), _quiet=not verbose)


def _access_log(wsgi):
    """``wsgi`` logging one line per request to stderr: time, client, method, path, status."""
    import sys
    import time

    def logged(environ, start_response):
        def start(status, headers, exc_info=None):
            sys.stderr.write(f"{time.strftime('%H:%M:%S')} {environ.get('REMOTE_ADDR', '-')} "
                             f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')} {status.split()[0]}\n")
            return start_response(status, headers, exc_info)
        return wsgi(environ, start)

    return logged
