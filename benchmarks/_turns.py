"""Two ways of doing one thing, timed in the same run: what every speed claim is measured by."""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager


def timed(run):
    """``run`` as a function giving ``(seconds, result)``, the seconds of the whole call."""
    def call():
        start = time.perf_counter()
        result = run()
        return time.perf_counter() - start, result
    return call


def taking_turns(repeats: int, first, second) -> tuple:
    """Call ``first`` and ``second`` ``repeats`` times each, taking turns (first then
    second, then second then first, ...), so that both see the same load.

    Each is a function of no argument giving ``(seconds, result)``: it times what it
    measures (a fit, not the cleaning up around it; :func:`timed` times the whole call).
    Returns the least seconds of each and the last result of each:
    ``(first_seconds, second_seconds, first_result, second_result)``.
    """
    runs, seconds, last = (first, second), ([], []), [None, None]
    for r in range(repeats):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            took, last[i] = runs[i]()
            seconds[i].append(took)
    return min(seconds[0]), min(seconds[1]), last[0], last[1]


@contextmanager
def swapped(owner, name: str, value):
    """``owner.name`` set to ``value`` inside (a module constant or function: the other way)."""
    kept = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, kept)


def timed_fit(model, X, y):
    """``(seconds, model)`` of ``model.fit(X, y)``, its warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - start, model
