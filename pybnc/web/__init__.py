"""A small local web page: upload a table, see the learned network (``pybnc serve``).

Needs Flask (``pip install 'pybnc[web]'``). :func:`create_app` builds the
application; :func:`serve` runs it on ``127.0.0.1:8000`` by default. See
``docs/web.md``.
"""

from .app import MAX_UPLOAD_MB, create_app, serve

__all__ = ["create_app", "serve", "MAX_UPLOAD_MB"]
