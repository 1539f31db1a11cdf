"""Simulated people using the web page at once (``benchmarks/web_load.py`` and
``tests/test_web_queue.py``): each runs the page's whole loop, over HTTP to 127.0.0.1.

One loop: upload a table and start a TAN job (``POST /result``), poll the job's status
until it is done (every second while it waits, as the page does; every quarter of a
second while it runs, twice as often as the page), open the result page, set random evidence
(``POST .../posterior``, checked to be a distribution; then ``.../contributions``), and
predict a second file (``POST .../predict``). Each person is one browser session (it keeps
the server's cookie, and sends its ``Origin`` as a browser does). A job refused with 429
(queue full) is retried after a pause, and counted. Standard library only.
"""

from __future__ import annotations

import http.client
import json
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np


@dataclass
class Loop:
    """What one loop met."""

    seconds: float = 0.0
    refused: int = 0  # 429 answers to the job's submission
    statuses: list = field(default_factory=list)  # every HTTP status received
    queued_at: int = 0  # the place in the queue the first poll showed (0: started at once)
    state: str = ""  # how the job ended
    posterior_sum: float = float("nan")
    error: str = ""


def _multipart(fields: dict, files: dict) -> tuple:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        for item in value if isinstance(value, list) else [value]:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{item}\r\n'.encode())
    for name, (filename, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     "Content-Type: text/csv\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class User:
    """One person: ``loop()`` runs the page's loop once and returns a :class:`Loop`."""

    def __init__(self, base: str, table: bytes, new_rows: bytes, target: str, seed: int, poll: float = 0.25,
                 poll_queued: float = 1.0, timeout: float = 300.0):
        split = urlsplit(base)
        self.host, self.port = split.hostname, split.port
        self.table, self.new_rows, self.target = table, new_rows, target
        self.rng = np.random.default_rng(seed)
        self.poll, self.poll_queued, self.timeout = poll, poll_queued, timeout
        self.origin, self.cookie = f"{split.scheme}://{split.netloc}", ""

    def request(self, loop: Loop, method: str, path: str, body: bytes | None = None, kind: str | None = None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            headers = {"Content-Type": kind} if kind else {}
            if self.cookie:
                headers["Cookie"] = self.cookie
            if method == "POST":
                headers["Origin"] = self.origin
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            given = response.getheader("Set-Cookie")
            if given:  # the session: its jobs and runs are this person's only
                self.cookie = given.split(";", 1)[0]
        finally:
            connection.close()
        loop.statuses.append(response.status)
        return response.status, response.getheader("Location") or "", data

    def loop(self, deadline: float | None = None) -> Loop:
        loop, start = Loop(), time.perf_counter()
        try:
            self._run(loop, deadline)
        except Exception as exc:  # noqa: BLE001 - reported in the table, never hidden
            loop.error = f"{type(exc).__name__}: {exc}"
        loop.seconds = time.perf_counter() - start
        return loop

    def _run(self, loop: Loop, deadline) -> None:
        body, kind = _multipart({"models": "tan", "target": self.target}, {"file": ("table.csv", self.table)})
        while True:
            status, location, _ = self.request(loop, "POST", "/result", body, kind)
            if status != 429:
                break
            loop.refused += 1
            if deadline is not None and time.monotonic() > deadline + 120:
                raise RuntimeError("refused for two minutes past the end")
            time.sleep(0.5)
        if status != 303:
            raise RuntimeError(f"POST /result answered {status}")
        job = location.rsplit("/", 1)[1]
        first = True
        while True:
            status, _, data = self.request(loop, "GET", f"/api/jobs/{job}")
            answer = json.loads(data)
            if first:
                loop.queued_at, first = int(answer.get("position") or 0), False
            if answer["state"] not in ("queued", "running"):
                break
            time.sleep(self.poll_queued if answer["state"] == "queued" else self.poll)
        loop.state = answer["state"]
        if loop.state != "done":
            raise RuntimeError(f"the job ended {loop.state}: {answer['message']}")
        run = answer["result"]
        status, _, page = self.request(loop, "GET", f"/runs/{run}?model=tan")
        if status != 200:
            raise RuntimeError(f"the result page answered {status}")
        levels = json.loads(page.split(b'id="network-data">', 1)[1].split(b"</script>", 1)[0])["levels"]
        chosen = self.rng.choice(len(levels), size=self.rng.integers(1, len(levels) + 1), replace=False)
        evidence = {str(int(f)): int(self.rng.integers(len(levels[f]))) for f in chosen}
        status, _, data = self.request(loop, "POST", f"/api/runs/{run}/tan/posterior",
                                       json.dumps({"evidence": evidence}).encode(), "application/json")
        loop.posterior_sum = float(np.sum(json.loads(data)["proba"]))
        status, _, data = self.request(loop, "POST", f"/api/runs/{run}/tan/contributions",
                                       json.dumps({"evidence": evidence}).encode(), "application/json")
        if status != 200 or "values" not in json.loads(data):
            raise RuntimeError(f"contributions answered {status}: {data[:200]!r}")
        body, kind = _multipart({}, {"file": ("new.csv", self.new_rows)})
        status, _, _ = self.request(loop, "POST", f"/runs/{run}/tan/predict", body, kind)
        if status != 200:
            raise RuntimeError(f"predict answered {status}")
