"""What keeps other web pages and other people's browsers out of a pybnc server.

A server on 127.0.0.1 is reachable from every page the user's browser opens: a page
elsewhere can send a form to it, point an image at it, or rename itself to it by DNS
(rebinding) and read its answers. So every request passes :func:`check_request`:

* **Host allow-list**: the ``Host`` header must name the server (loopback names, the
  address it listens on, and ``allowed_hosts``); a rebound name gets 400.
* **Same origin for every change**: a ``POST`` whose ``Origin`` (else ``Referer``) is
  another site's, or ``null``, gets 403. Browsers always send one of them with a
  cross-site ``POST``; a script or ``curl`` sends neither, and is served. Every change
  (a job, a cancel, an upload) is a ``POST``; a ``GET`` changes nothing.
* **Sessions**: each browser gets a random, HTTP-only, same-site cookie; the jobs and
  runs it starts are its own (:func:`session`), and another session's are 404.

Every response carries the security headers (:data:`HEADERS`): a content security
policy of the server's own scripts and styles only, no framing, no MIME sniffing, no
referrer to other sites.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from flask import g, request

from .runs import ID

#: The session cookie (a random token: the key to the session's jobs and runs).
COOKIE = "pybnc_session"
#: Names of this machine a browser may use for the server.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: Sent with every response. Inline ``style=`` attributes (bar widths) are allowed; scripts
#: come from ``/static`` only.
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
_SAFE = ("GET", "HEAD", "OPTIONS")


class Refused(Exception):
    """A request turned away before any page sees it: ``status`` and a reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def allowed(hosts) -> frozenset:
    """The host names the server answers to: loopback, and ``hosts`` (the ``--host``
    address and any ``--allow-host``; a wildcard bind adds nothing)."""
    extra = {str(h).strip().strip("[]").lower() for h in hosts or () if h}
    return LOOPBACK | (extra - {"", "0.0.0.0", "::"})


def _split(url: str) -> tuple:
    """``(scheme, host[:port], host name)`` of a URL, lower case; empty for one that does not parse."""
    try:
        where = urlsplit(url)
        return where.scheme, where.netloc.lower(), (where.hostname or "").lower()
    except ValueError:  # "http://[nonsense", a port that is no number...
        return "", "", ""


def check_request(hosts: frozenset) -> None:
    """Refuse a forged ``Host`` or a cross-site change; note the request's session."""
    token = request.cookies.get(COOKIE, "")
    g.pybnc_new_session = not ID.match(token)
    g.pybnc_session = secrets.token_hex(16) if g.pybnc_new_session else token
    if _split(f"//{request.host}")[2] not in hosts:
        raise Refused(400, f"This server does not answer to the host name {request.host[:100]!r} (a page that "
                           "renamed itself to reach it?). Open it as http://127.0.0.1:<port>/, or start it "
                           "with pybnc serve --allow-host NAME.")
    if request.method not in _SAFE:
        sender = request.headers.get("Origin") or request.headers.get("Referer")
        if sender is not None and _split(sender)[:2] != (request.scheme, request.host.lower()):  # "null" too
            raise Refused(403, f"Refused: this request comes from another site ({sender[:100]!r}); "
                               "the page's own forms and buttons work.")


def session() -> str:
    """The id of the browser session of this request."""
    return g.pybnc_session


def finish_response(response):
    """Add the security headers, and the cookie of a new session."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if g.get("pybnc_new_session"):
        response.set_cookie(COOKIE, g.pybnc_session, httponly=True, samesite="Lax", path="/")
    return response
