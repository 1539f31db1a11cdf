"""``pybnc serve``: the local web page of :mod:`pybnc.web`."""

from __future__ import annotations

import click

from . import cli

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@cli.command()
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              help="TCP port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; the default lets only this machine connect.")
@click.option("--max-upload-mb", default=50.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Largest CSV file accepted, in megabytes.")
def serve(port, host, max_upload_mb):
    """Open a local web page: upload a CSV (or pick a bundled dataset), choose the
    class column and a model, and see the learned network, its cross-validated
    accuracy next to naive Bayes, its arcs and conditional tables.

    Needs Flask (pip install 'pybnc[web]'). Stop with Ctrl+C.

    \b
    Example:
      pybnc serve --port 8000
      then open http://127.0.0.1:8000/
    """
    try:
        from ..web import serve as run
    except ImportError:
        raise click.UsageError("pybnc serve needs Flask: pip install 'pybnc[web]'.") from None
    if host not in _LOOPBACK:
        # Anyone who reaches this address can upload tables and run fits.
        click.echo(f"warning: listening on {host}: other machines can use this page.", err=True)
    click.echo(f"pybnc web page on http://{host}:{port}/ (Ctrl+C stops it)", err=True)
    run(host=host, port=port, max_upload_mb=max_upload_mb)
