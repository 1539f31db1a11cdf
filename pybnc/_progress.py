"""One progress-bar convention for all long work (searches, cross-validation, experiments).

``verbose=0`` is silent; ``verbose=1`` (the default of long-running estimators) shows a
bar when stderr is a terminal, so logs and test output stay clean; ``verbose>=2``
always shows it. The environment variable ``PYBNC_PROGRESS=0`` silences every bar.
"""

from __future__ import annotations

import os

from tqdm.auto import tqdm


def progress(iterable=None, *, total=None, desc=None, verbose=1, leave=False):
    """Wrap ``iterable`` in a tqdm bar according to ``verbose`` (see module doc)."""
    if os.environ.get("PYBNC_PROGRESS", "1") == "0" or not verbose:
        disable = True
    else:
        disable = None if verbose == 1 else False  # None: only on a terminal
    return tqdm(iterable, total=total, desc=desc, disable=disable, leave=leave)
