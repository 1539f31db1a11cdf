"""Finished runs: their learned models in memory, their downloads on disk.

Each run's model files and prediction files are written under one temporary
directory (removed when the server stops); only the newest :data:`KEEP_RUNS` runs
are kept, each with its newest :data:`KEEP_PREDICTIONS` predictions of second files.
A run belongs to the browser session whose job made it: another session's is a 404.
The folder of a job that has not ended (queued or running) is never removed; the
folder of one that ended without a result is removed at once (:meth:`Runs.discard`).
Every id and file name from a URL is checked against a pattern before it reaches a
dictionary or the disk.
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

from flask import abort

#: Runs whose models and downloads are kept; older ones are forgotten.
KEEP_RUNS = 20
#: Predictions of second files kept per run (each a download); older ones are removed.
KEEP_PREDICTIONS = 3
ID = re.compile(r"^[0-9a-f]{32}$")
_FILE = re.compile(r"^[a-z]+(-predictions\.csv|\.pybnc)$|^new-[0-9a-f]{32}\.csv$")


class Runs:
    """The finished runs of one server.

    Examples
    --------
    >>> store = Runs()
    >>> run, folder = store.folder("session-a")
    >>> store.add(run, "the learned models") == run and store.get(run, "session-a")
    'the learned models'
    >>> store.get(run, "session-b")
    Traceback (most recent call last):
    ...
    werkzeug.exceptions.NotFound: 404 Not Found: ...
    """

    def __init__(self, root=None):
        self.root = Path(tempfile.mkdtemp(prefix="pybnc-web-", dir=root))
        self.lock = threading.Lock()
        self.runs: OrderedDict = OrderedDict()
        self.owners: dict = {}  # run id: its session, from the job's start
        self.pending: set = set()  # runs whose job has not ended: their folders stay
        atexit.register(shutil.rmtree, self.root, True)

    def folder(self, owner: str) -> tuple:
        """``(run id, its new folder)`` for the downloads of a job of session ``owner``."""
        run = uuid.uuid4().hex
        path = self.root / run
        path.mkdir()
        with self.lock:
            self.owners[run] = owner
            self.pending.add(run)
        return run, path

    def add(self, run: str, learned) -> str:
        """Keep a finished run (forgetting the oldest past :data:`KEEP_RUNS`); its id."""
        with self.lock:
            self.pending.discard(run)
            self.runs[run] = learned
            while len(self.runs) > KEEP_RUNS:
                old, _ = self.runs.popitem(last=False)
                self.owners.pop(old, None)
                shutil.rmtree(self.root / old, ignore_errors=True)  # finished: nothing writes there
        return run

    def discard(self, run: str) -> None:
        """The job of ``run`` ended without a result: its folder goes."""
        with self.lock:
            self.pending.discard(run)
            if run not in self.runs:
                self.owners.pop(run, None)
                shutil.rmtree(self.root / run, ignore_errors=True)

    def get(self, run: str, owner: str):
        """The run's learned models, or a 404 (also when it is another session's)."""
        with self.lock:
            learned = self.runs.get(run) if ID.match(run) and self.owners.get(run) == owner else None
        if learned is None:
            abort(404)
        return learned

    def model(self, run: str, key: str, owner: str):
        """``(learned, model)`` of one model of a run, or a 404."""
        learned = self.get(run, owner)
        if key not in learned.models:
            abort(404)
        return learned, learned.models[key]

    def keep_newest(self, run: str, pattern: str, n: int = KEEP_PREDICTIONS) -> None:
        """Remove all but the ``n`` newest files of a run's folder matching ``pattern``."""
        files = sorted((self.root / run).glob(pattern), key=lambda p: p.stat().st_mtime_ns)
        for old in files[:-n]:
            old.unlink(missing_ok=True)

    def path(self, run: str, name: str, owner: str) -> Path:
        """A download of a run, or a 404; no path from the URL reaches the disk unchecked."""
        if not ID.match(run) or not _FILE.match(name):
            abort(404)
        self.get(run, owner)
        path = self.root / run / name
        if not path.is_file():
            abort(404)
        return path
