"""Sample weights: checked once, then rows absent, counted with a weight, or repeated.

A weight is a non-negative finite number per row. A row of weight 0 is the row
absent: it is dropped before anything is learned, the encoding included (a level or a
class seen only in rows of weight 0 is not learned). A row of weight ``w`` counts ``w``
times in every count (:func:`pybnc.counts.tables.count`,
:func:`pybnc.counts.families.count_families`), so integer weights equal repeated rows
exactly, and fractional weights are exact too where a model learns from counts
(:attr:`Capabilities.sample_weight <pybnc.estimators.capabilities.Capabilities>` is
``"counts"``). A model that reads its training rows themselves (an inner
cross-validation, feature weights fitted to the rows) learns from the rows repeated
(``"repeats"``): integer weights only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["check_sample_weight", "take_rows", "repeat_rows"]

#: Repeated rows a model that reads its rows may be given: at most this many times the
#: rows, or this bound, whichever is larger (weights in the thousands would fill memory).
REPEAT_FACTOR = 64
REPEAT_MIN_ROWS = 1 << 20


def check_sample_weight(sample_weight, n_rows: int, allow_all_zero: bool = False) -> np.ndarray | None:
    """``sample_weight`` as float64 of length ``n_rows`` (a copy), or None when absent.

    Raises ``ValueError`` naming ``sample_weight`` when it is not one finite,
    non-negative number per row, or when every weight is zero (unless
    ``allow_all_zero``: a later block of a stream may add nothing).

    Examples
    --------
    >>> check_sample_weight([1, 0, 2.5], 3).tolist()
    [1.0, 0.0, 2.5]
    >>> check_sample_weight([0, 0], 2)
    Traceback (most recent call last):
    ...
    ValueError: sample_weight is zero for every row: at least one row must have a positive weight.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, pd.Series):
        sample_weight = sample_weight.to_numpy()
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must hold numbers, one per row of X: {exc}") from None
    if weights.ndim == 0:
        raise ValueError(f"sample_weight must be one number per row ({n_rows}), got the scalar {sample_weight!r}; "
                         "pass np.full(n, value) for equal weights.")
    if weights.shape != (n_rows,):
        raise ValueError(f"sample_weight must have shape ({n_rows},), one number per row of X, got {weights.shape}.")
    if not np.isfinite(weights).all():
        bad = int(np.flatnonzero(~np.isfinite(weights))[0])
        raise ValueError(f"sample_weight must be finite, got {weights[bad]} at row {bad}.")
    if (weights < 0).any():
        bad = int(np.flatnonzero(weights < 0)[0])
        raise ValueError(f"sample_weight must be non-negative, got {weights[bad]} at row {bad}; a row of weight 0 "
                         "is left out.")
    if not allow_all_zero and not (weights > 0).any():
        raise ValueError("sample_weight is zero for every row: at least one row must have a positive weight.")
    return np.array(weights, dtype=np.float64)  # a copy: the caller's array is never written


def take_rows(X, rows):
    """Rows ``rows`` (integer positions) of a table: a DataFrame, an Arrow/polars table or an array."""
    if hasattr(X, "to_pandas") and not isinstance(X, pd.DataFrame):
        X = X.to_pandas()
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else np.asarray(X)[rows]


def integral(weights: np.ndarray) -> bool:
    """Every weight a whole number."""
    return bool(np.array_equal(weights, np.round(weights)))


def repeat_rows(weights: np.ndarray, who: str) -> np.ndarray:
    """Row positions, each repeated its (integer) weight times, in order.

    ``who`` names the model in the errors: fractional weights, or more repeated rows
    than :data:`REPEAT_FACTOR` times the rows (and :data:`REPEAT_MIN_ROWS`), are refused.
    """
    if not integral(weights):
        bad = int(np.flatnonzero(weights != np.round(weights))[0])
        raise ValueError(
            f"sample_weight holds the fractional weight {weights[bad]} (row {bad}); {who} reads its training rows "
            "themselves, not only their counts, so it takes integer weights, learned as repeated rows. Round or "
            "scale them (np.rint(w * 10)), or use a classifier that weighs its counts: pybnc.capabilities(model)"
            ".sample_weight == 'counts'.")
    total = float(weights.sum())
    bound = max(REPEAT_FACTOR * weights.size, REPEAT_MIN_ROWS)
    if total > bound:
        raise ValueError(
            f"sample_weight sums to {total:,.0f}: {who} learns from the rows repeated by their weights, and "
            f"that many rows exceed the bound of {bound:,} (pybnc._utils.sample_weight.REPEAT_FACTOR x rows). Scale "
            "the weights down, or use a classifier that weighs its counts (capabilities(model).sample_weight "
            "== 'counts').")
    return np.repeat(np.arange(weights.size), weights.astype(np.int64))
