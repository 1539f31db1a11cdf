"""Imported once by the jobs' forkserver (:data:`pybnc.web._workers.PRELOAD`): one tiny job.

Every worker is a fork of the forkserver, so what a job imports on first use (the
command line's model builders, scikit-learn's dataframe layer, pandas' CSV and HTML
writers...) would be imported again by every worker. Running one tiny job here
imports all of it once, where every worker inherits it.
"""

from __future__ import annotations

import logging
import tempfile

import numpy as np
import pandas as pd


def warm_up() -> None:
    """Learn naive Bayes and TAN on a small table as a page's job does (files included)."""
    from .analysis import learn

    rng = np.random.default_rng(0)
    n = 60
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n),
                      "c": rng.normal(size=n).round(2)})
    y = pd.Series(np.where(rng.random(n) < 0.5, "yes", "no"), name="class")
    with tempfile.TemporaryDirectory() as folder:
        learn({"X": X, "y": y, "target": "class", "notes": [], "source": "warm-up", "columns": [*X, "class"],
               "models": ["nb", "tan"], "folder": folder})


try:
    warm_up()
except Exception:  # noqa: BLE001 - a warm-up that fails costs time, never a job
    logging.getLogger("pybnc.web").warning("pybnc web: the jobs' warm-up failed", exc_info=True)

