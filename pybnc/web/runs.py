"""Finished runs: their learned models in memory, their downloads on disk.

Each run's model files and prediction files are written under one temporary
directory (removed when the server stops); only the newest :data:`KEEP_RUNS` runs
are kept. Every id and file name from a URL is checked against a pattern before it
reaches a dictionary or the disk.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path

from flask import abort

#: Runs whose models and downloads are kept; older ones are forgotten.
KEEP_RUNS = 20
#: Seconds the folder of a job that did not finish is left alone before it is swept (the
#: job may still be writing there); a forgotten finished run's folder goes at once.
YOUNG = 3600
ID = re.compile(r"^[0-9a-f]{32}$")
_FILE = re.compile(r"^[a-z]+(-predictions\.csv|\.pybnc)$|^new-[0-9a-f]{32}\.csv$")


class Runs:
    """The finished runs of one server.

    Examples
    --------
    >>> store = Runs()
    >>> run, folder = store.folder()
    >>> store.add(run, "the learned models") == run and store.get(run)
    'the learned models'
    """

    def __init__(self, root=None):
        self.root = Path(tempfile.mkdtemp(prefix="pybnc-web-", dir=root))
        self.lock = threading.Lock()
        self.runs: OrderedDict = OrderedDict()
        atexit.register(shutil.rmtree, self.root, True)

    def folder(self) -> tuple:
        """``(run id, its new folder)`` for a job's downloads."""
        run = uuid.uuid4().hex
        path = self.root / run
        path.mkdir()
        return run, path

    def add(self, run: str, learned) -> str:
        """Keep a finished run (forgetting the oldest past :data:`KEEP_RUNS`); its id."""
        with self.lock:
            self.runs[run] = learned
            while len(self.runs) > KEEP_RUNS:
                old, _ = self.runs.popitem(last=False)
                shutil.rmtree(self.root / old, ignore_errors=True)  # finished: nothing writes there
            for path in self.root.iterdir():  # folders of failed or stopped jobs, once surely idle
                if path.name not in self.runs and time.time() - path.stat().st_mtime > YOUNG:
                    shutil.rmtree(path, ignore_errors=True)
        return run

    def get(self, run: str):
        """The run's learned models, or a 404."""
        with self.lock:
            learned = self.runs.get(run) if ID.match(run) else None
        if learned is None:
            abort(404)
        return learned

    def model(self, run: str, key: str):
        """``(learned, model)`` of one model of a run, or a 404."""
        learned = self.get(run)
        if key not in learned.models:
            abort(404)
        return learned, learned.models[key]

    def path(self, run: str, name: str) -> Path:
        """A download of a run, or a 404; no path from the URL reaches the disk unchecked."""
        if not ID.match(run) or not _FILE.match(name):
            abort(404)
        path = self.root / run / name
        if not path.is_file():
            abort(404)
        return path
