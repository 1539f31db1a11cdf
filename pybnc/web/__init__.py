"""A small local web page: upload a table, see the learned network (``pybnc serve``).

Needs Flask and waitress (``pip install 'pybnc[web]'``). :func:`create_app` builds
the application; :func:`serve` runs it under waitress on ``127.0.0.1:8000`` by
default. See ``docs/web.md`` (its security section: sessions, same origin, limits).
"""

from .._utils.optional import require

require("flask", "pybnc.web (the web page, pybnc serve)")

from .app import MAX_UPLOAD_MB, create_app, serve  # noqa: E402  (after the check that names the extra)

__all__ = ["create_app", "serve", "MAX_UPLOAD_MB"]
