"""One progress-bar convention for all long work (searches, cross-validation, experiments).

``verbose=0`` is silent; ``verbose=1`` (the default of long-running estimators) shows a
bar when stderr is a terminal, so logs and test output stay clean; ``verbose>=2``
always shows it. The environment variable ``PYBNC_PROGRESS=0`` silences every bar.

A program that shows progress its own way (the web page's jobs) installs a listener
with :func:`report_progress`: every bar then also sends its count to it, whatever
``verbose`` says, since ``verbose`` is about the terminal.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from tqdm.auto import tqdm

_listener = None


class _Bar(tqdm):
    # no monitor thread (tqdm starts one with every bar, shown or not, and leaves it
    # running): it only retunes bars that update too rarely
    monitor_interval = 0


def progress(iterable=None, *, total=None, desc=None, verbose=1, leave=False):
    """Wrap ``iterable`` in a tqdm bar according to ``verbose`` (see module doc)."""
    if os.environ.get("PYBNC_PROGRESS", "1") == "0" or not verbose:
        disable = True
    else:
        disable = None if verbose == 1 else False  # None: only on a terminal
    bar = _Bar(iterable, total=total, desc=desc, disable=disable, leave=leave)
    if _listener is None:
        return bar
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    return _Reported(bar, _listener, desc or "", total)


@contextmanager
def report_progress(listener):
    """Send every bar's progress to ``listener(desc, n, total, postfix)`` while inside.

    ``n`` counts the steps done, ``total`` is ``None`` when unknown (a search) and
    ``postfix`` is the bar's latest ``set_postfix`` text. The listener is global to the
    process: the web page runs each job in a process of its own.

    Examples
    --------
    >>> seen = []
    >>> with report_progress(lambda desc, n, total, postfix: seen.append((desc, n, total))):
    ...     for _ in progress(range(2), desc="folds", verbose=0):
    ...         pass
    >>> seen
    [('folds', 0, 2), ('folds', 1, 2), ('folds', 2, 2)]
    """
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous


class _Reported:
    """A tqdm bar that also tells the listener; tqdm skips ``update`` when disabled."""

    def __init__(self, bar, listener, desc, total):
        self.bar, self.listener, self.desc, self.total = bar, listener, desc, total
        self.n, self.postfix = 0, ""

    def _tell(self):
        self.listener(self.desc, self.n, self.total, self.postfix)

    def __iter__(self):
        self._tell()
        for item in self.bar:
            yield item
            self.n += 1
            self._tell()

    def update(self, n=1):
        self.n += n
        self._tell()
        return self.bar.update(n)

    def set_postfix(self, **values):
        self.postfix = ", ".join(f"{k} {v}" for k, v in values.items())
        return self.bar.set_postfix(**values)

    def close(self):
        return self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getattr__(self, name):
        return getattr(self.bar, name)
