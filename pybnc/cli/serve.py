"""``pybnc serve``: the local web page of :mod:`pybnc.web`."""

from __future__ import annotations

import click

from ._group import cli

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@cli.command()
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              help="TCP port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; the default lets only this machine connect.")
@click.option("--max-upload-mb", default=50.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Largest uploaded file accepted, in megabytes.")
@click.option("--max-jobs", default=2, show_default=True, type=click.IntRange(min=1),
              help="Jobs (fits and cross-validations) that may run at once; more wait in the queue.")
@click.option("--max-queue", default=32, show_default=True, type=click.IntRange(min=0),
              help="Jobs that may wait for a free slot (first in, first out); more are refused.")
@click.option("--job-time-limit", default=300.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Seconds a job may run before it is stopped.")
@click.option("--client-timeout", default=90.0, show_default=True, type=click.FloatRange(min=1),
              help="Seconds without news from a job's page (closed, lost) before the job is stopped.")
@click.option("--job-memory-mb", default=4096.0, show_default=True, type=click.FloatRange(min=1),
              help="Megabytes of memory a job may use before it is stopped (Linux).")
@click.option("--max-rows", default=1_000_000, show_default=True, type=click.IntRange(min=1),
              help="Most lines (rows) of an uploaded table; its decompressed size may be twice --max-upload-mb.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Answer to this host name too (besides 127.0.0.1, localhost and --host); repeatable.")
@click.option("--verbose", is_flag=True, help="Log one line per request (the access log).")
def serve(port, host, max_upload_mb, max_jobs, max_queue, job_time_limit, client_timeout, job_memory_mb,
          max_rows, allow_hosts, verbose):
    """Open a local web page: upload a table (CSV, ARFF, Parquet; or pick a bundled
    dataset), see its column report, choose the class column and the models, and
    compare them by cross-validation next to naive Bayes; question each learned
    network with evidence, and predict new files.

    Each fit runs as a job in a process of its own, with a progress bar, a cancel
    button, a time limit and a memory limit; jobs beyond --max-jobs wait in a queue
    whose place their page shows.

    Served by waitress; only the page's own forms and scripts can change anything, and
    each browser session sees only its own jobs (docs/web.md, "Security").

    Needs Flask and waitress (pip install 'pybnc[web]'). Stop with Ctrl+C.

    \b
    Example:
      pybnc serve --port 8000
      then open http://127.0.0.1:8000/
    """
    from ..web import serve as run  # without Flask or waitress: an ImportError naming the extra
    if host not in _LOOPBACK:
        # Anyone who reaches this address can upload tables and run fits.
        click.echo(f"warning: listening on {host}: other machines can use this page.", err=True)
    click.echo(f"pybnc web page on http://{host}:{port}/ (Ctrl+C stops it)", err=True)
    try:
        run(host=host, port=port, max_upload_mb=max_upload_mb, max_jobs=max_jobs, max_queue=max_queue,
            job_time_limit=job_time_limit, client_timeout=client_timeout, job_memory_mb=job_memory_mb,
            max_rows=max_rows, allowed_hosts=allow_hosts, verbose=verbose)
    except ImportError as exc:
        raise click.UsageError(str(exc)) from None
