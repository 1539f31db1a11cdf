"""Encode a raw table into small integer codes: the first stage of every learner.

Every column becomes ``int32`` codes ``0 .. r_i - 1`` with ``-1`` for a missing
value (the convention of pandas categorical codes). The labels of each code are
kept so that learned tables can be shown with the user's own category names.

Column kinds
------------
* bool, category, string/object columns and integer columns with at most
  :data:`INTEGER_AS_NUMBER_ABOVE` (20) distinct values are categorical: their
  levels are the declared categories (pandas ``category``) or the sorted distinct
  non-missing values seen at fit time.
* float columns, and integer columns with more distinct values (an
  :class:`EncodingWarning` says so), are numbers: with more than ``n_bins``
  distinct values they are discretised with the cut points of
  :func:`pybnc.encode.discretize.cut_points` learned at fit time, else categorical.
* ``categorical_features=[...]`` and ``numeric_features=[...]`` override both rules.
* A categorical column that looks like a row identifier (distinct values in at
  least 90 % of its observed rows, or 50 % when its name says ``id`` or ``name``;
  at least 10 values) is left out with an :class:`EncodingWarning`
  (``id_columns="drop"``, the default: an error in one fold would fail a whole grid
  search), refused (``"error"``) or kept (``"keep"``).
* Dates, durations, bytes and containers are refused at fit, saying what to convert.

Policies
--------
* ``missing="sum"`` (default): missing values (NaN, None, ``pd.NA``) become code
  ``-1``, counted by available-case analysis and summed out exactly at prediction.
  ``missing="category"``: missing is a level of its own (``"(missing)"``, last) in
  every column with missing values at fit, right when the absence itself says
  something (``?`` for "not applicable", a test not ordered).
* ``min_frequency=m`` groups the levels of a categorical column seen fewer than ``m``
  times at fit into one level, ``"(rare)"``, placed after the others (when at least
  two are that rare, as scikit-learn's ``OneHotEncoder(min_frequency=m)``).
* A category never seen at fit time is treated as missing at predict time
  (documented policy; it never raises), except in a column with a ``"(rare)"``
  level, where it is read as that level. Values of another type than the fitted levels
  are treated so too, with an :class:`EncodingWarning` naming the column.
* Infinite values raise a ``ValueError`` naming the column.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._columns import (
    ID_MIN_DISTINCT,
    ID_SHARE,
    ID_SHARE_BY_NAME,
    INTEGER_AS_NUMBER_ABOVE,
    EncodingWarning,
    identifier_reason,
)
from ._levels import MISSING, sort_levels
from .grow import finish_encoder, grow_encoder, plan_encoder
from .table import ENCODING_CONSTRAINTS, MISSING_LABEL, Encoder, as_frame, float_values, interval_labels

# Model files name the encoder's class by module: keep the public one.
Encoder.__module__ = __name__

__all__ = ["Encoder", "EncodingWarning", "MISSING", "MISSING_LABEL", "column_report",
           "detect_id_columns", "grow_encoder", "plan_encoder", "finish_encoder", "INTEGER_AS_NUMBER_ABOVE",
           "ID_SHARE", "ID_SHARE_BY_NAME", "ID_MIN_DISTINCT"]

# Older names other modules import.
_as_frame, _float_values, _interval_labels, _sortable_levels = as_frame, float_values, interval_labels, sort_levels


def column_report(X, y=None, **encoder_params) -> pd.DataFrame:
    """What the encoder makes of each column of ``X``, one row per column.

    Parameters
    ----------
    X : table
    y : array-like, optional
        Class labels (only the supervised ``discretizer="mdl"``, the default, uses them;
        without them numeric columns are reported as ``discretizer="quantile"`` cuts them).
    **encoder_params
        :class:`Encoder` parameters (``n_bins``, ``discretizer``,
        ``categorical_features``, ...).

    Returns
    -------
    DataFrame
        Columns ``column, dtype, n_missing, n_distinct, decision, levels, reason``:
        ``decision`` is ``"categorical"``, ``"discretised"``, ``"identifier"`` (left
        out, or refused with ``id_columns="error"``) or ``"refused"`` (``reason``
        holds the message); ``levels`` is the number of codes the model gets.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"id": range(40), "colour": ["red", "blue"] * 20})
    >>> column_report(X)[["column", "decision", "levels"]].values.tolist()
    [['id', 'identifier', 0], ['colour', 'categorical', 2]]
    """
    frame = as_frame(X)
    y_codes = None if y is None else pd.factorize(np.asarray(y))[0]
    keep_ids = encoder_params.get("id_columns", "drop") == "keep"
    encoder = Encoder(**{**encoder_params, "id_columns": "keep" if keep_ids else "drop"})
    if y is None and encoder.discretizer == "mdl":
        encoder.set_params(discretizer="quantile")
    categorical, numeric = encoder._validate(frame)
    rows = []
    for pos, name in enumerate(frame.columns):
        col = frame.iloc[:, pos]
        row = {"column": name, "dtype": str(col.dtype), "n_missing": int(col.isna().sum())}
        try:
            row["n_distinct"] = int(col.nunique())
        except TypeError:  # lists or dicts: the encoder says so below
            row["n_distinct"] = -1
        single = Encoder(**{**encoder.get_params(),
                                 "categorical_features": [name] if name in categorical else None,
                                 "numeric_features": [name] if name in numeric else None})
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", EncodingWarning)
                single._learn(frame.iloc[:, [pos]], y_codes)
        except (TypeError, ValueError) as error:
            rows.append({**row, "decision": "refused", "levels": 0, "reason": str(error)})
            continue
        reason = " ".join(str(w.message) for w in caught)
        if single.dropped_columns_:
            number = pd.api.types.is_integer_dtype(col.dtype) or pd.api.types.is_float_dtype(col.dtype)
            why = identifier_reason(name, row["n_distinct"], len(frame) - row["n_missing"], by_name_only=number)
            rows.append({**row, "decision": "identifier", "levels": 0,
                         "reason": f"looks like a row identifier: {why}"})
            continue
        rows.append({**row, "decision": single.kinds_[0], "levels": int(len(single.categories_[0])),
                     "reason": reason})
    return pd.DataFrame(rows, columns=["column", "dtype", "n_missing", "n_distinct", "decision", "levels",
                                       "reason"])


def detect_id_columns(X, **encoder_params) -> list:
    """Names of the columns of ``X`` that the encoder would take for row identifiers.

    Examples
    --------
    >>> import pandas as pd
    >>> detect_id_columns(pd.DataFrame({"name": [f"n{i}" for i in range(30)], "a": [0, 1] * 15}))
    ['name']
    """
    report = column_report(X, **encoder_params)
    return report.loc[report["decision"] == "identifier", "column"].tolist()
