"""Warnings that point at the user's line, not at pybnc's."""

from __future__ import annotations

import os
import sys
import warnings

import joblib
import sklearn
import tqdm

#: Frames in these files are skipped: pybnc's own, tqdm's (its bars wrap pybnc's loops), scikit-learn's (its fit wrappers,
#: cross-validation and meta-estimators that call a pybnc model for the user) and joblib's
#: (which runs scikit-learn's folds, in the caller's process unless n_jobs says otherwise).
SKIPPED = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (sklearn, joblib, tqdm)) + (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)


def warn(message: str, category: type = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside pybnc, scikit-learn and
    joblib (:data:`SKIPPED`), so that the warning names the user's file and line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("a message")
    >>> caught[0].filename.endswith("warn.py")
    False
    """
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=SKIPPED)
        return
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is this function's caller
    while frame is not None and frame.f_code.co_filename.startswith(SKIPPED):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


__all__ = ["warn", "SKIPPED"]
