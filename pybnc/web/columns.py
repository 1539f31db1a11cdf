"""The column report the page shows before learning: what each column is, and which
ones are left out and why.

The decisions are the encoder's own (:func:`pybnc.encode.column_report`, the rules
every classifier applies): categories or numbers cut into bins, and row identifiers
left out. The page adds its cut points, and flags two more kinds of column that it
leaves out of every model:

* ``constant``: at most one distinct value (or nothing but missing cells); it cannot
  tell the classes apart.
* ``too many levels``: a column of categories with more than :data:`MAX_LEVELS`
  distinct values (free text): its tables would be huge.

Columns the encoder refuses (dates, lists...) are flagged ``refused`` with its message.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: A column of categories with more distinct values is left out (free text).
MAX_LEVELS = 500


def _kind(dtype) -> str:
    if pd.api.types.is_float_dtype(dtype):
        return "number"
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_integer_dtype(dtype):
        return "integer"
    if pd.api.types.is_bool_dtype(dtype):
        return "yes/no"
    return "text"


def _flag(decision: str, n_distinct: int) -> str | None:
    if decision == "identifier":
        return "ID-like"
    if decision == "refused":
        return "refused"
    if n_distinct <= 1:
        return "constant"
    if decision == "categorical" and n_distinct > MAX_LEVELS:
        return "too many levels"
    return None


_WHY = {"constant": "a single value (or none): it cannot tell the classes apart",
        "too many levels": f"more than {MAX_LEVELS} distinct values (free text?)"}


def column_report(X: pd.DataFrame, y, **encoder_params) -> dict:
    """Describe every feature column of ``X`` and choose the ones to learn from.

    Parameters
    ----------
    X : DataFrame
        The feature columns, as read.
    y : array-like of shape (n_samples,)
        The class, for the supervised discretiser (``"mdl"``).
    **encoder_params
        The classifiers' encoding parameters (``discretizer``, ``n_bins``, ...), as
        :class:`pybnc.Encoder` takes them.

    Returns
    -------
    dict
        ``columns``: one dict per column with ``name``, ``type`` (as read: text,
        integer, number, category, yes/no), ``as`` (``"categories"`` or
        ``"N bins"``), ``levels`` (distinct observed values), ``missing`` (share of
        missing cells), ``cuts`` (cut points of binned columns, else ``None``),
        ``flag`` (``None``, ``"ID-like"``, ``"constant"``, ``"too many levels"``,
        ``"refused"``) and ``why`` (the reason, or the encoder's note);
        ``kept`` and ``left_out``: the column names; ``note``: one sentence for the
        page, or ``None``.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"id": range(30), "same": ["a"] * 30, "x": [0.5 * i for i in range(30)]})
    >>> report = column_report(X, [0, 1] * 15, discretizer="quantile")
    >>> report["kept"], report["left_out"]
    (['x'], ['id', 'same'])
    >>> [round(c, 2) for c in report["columns"][2]["cuts"]]
    [2.75, 5.75, 8.75, 11.75]
    """
    import warnings

    from ..encode import Encoder
    from ..encode import column_report as encoder_report

    y_codes = pd.factorize(np.asarray(y, dtype=object))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each row's reason says the same
        decided = encoder_report(X, y_codes, **encoder_params)
    rows = []
    for name, dtype, row in zip(X.columns, X.dtypes, decided.itertuples(index=False)):
        flag = _flag(row.decision, row.n_distinct)
        rows.append({"name": str(name), "type": _kind(dtype), "as": "categories", "levels": row.n_distinct,
                     "missing": row.n_missing / max(len(X), 1), "cuts": None, "flag": flag,
                     "why": _WHY.get(flag) or row.reason or None, "decision": row.decision})
    binned = [j for j, r in enumerate(rows) if r["flag"] is None and r["decision"] == "discretised"]
    if binned:  # the cut points, learned as the models will learn them
        params = {**encoder_params, "numeric_features": [X.columns[j] for j in binned]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoder = Encoder(**params).fit(X.iloc[:, binned], y_codes)
        for j, cuts in zip(binned, encoder.cut_points_):
            cuts = [] if cuts is None else [float(c) for c in cuts]
            rows[j].update({"as": f"{len(cuts) + 1} bin{'s' if cuts else ''}", "cuts": cuts})
    for r in rows:
        del r["decision"]
    kept = [r["name"] for r in rows if r["flag"] is None]
    left_out = [r["name"] for r in rows if r["flag"] is not None]
    note = None
    if left_out:
        named = ", ".join(f"{r['name']} ({r['flag']})" for r in rows if r["flag"])
        note = (f"Left out {len(left_out)} column(s): {named[:600]}{'…' if len(named) > 600 else ''}. "
                "Numbers are binned instead of being left out.")
    return {"columns": rows, "kept": kept, "left_out": left_out, "note": note}
