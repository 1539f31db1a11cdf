"""The column report the page shows before learning: what each column is, and which
ones are left out and why.

For each feature column: its type as read, how the classifiers will see it
(categories, or numbers cut into bins), its number of levels, its share of missing
cells, the cut points the chosen discretiser gives, and a flag when it is left out:

* ``constant``: at most one distinct value (or nothing but missing cells); it cannot
  tell the classes apart.
* ``ID-like``: a column of labels or whole numbers with about one value per row
  (:data:`ID_SHARE`), such as a row number or a name; it cannot generalise to new rows
  and makes the learners' tables huge.
* ``too many levels``: more than :data:`MAX_LEVELS` distinct labels (free text).

Numbers with decimals are never ID-like: they are cut into bins.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: A non-float column with at least this share of distinct values among its observed
#: cells (and at least :data:`ID_MIN_ROWS` of them) is taken for an identifier.
ID_SHARE = 0.9
#: Fewer observed cells than this are never called ID-like (a tiny table is all distinct).
ID_MIN_ROWS = 20
#: A non-float column with more distinct values is left out (free text).
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


def _flag(kind: str, levels: int, observed: int) -> str | None:
    if levels <= 1:
        return "constant"
    if kind == "number":
        return None
    if observed >= ID_MIN_ROWS and levels >= ID_SHARE * observed:
        return "ID-like"
    if levels > MAX_LEVELS:
        return "too many levels"
    return None


_WHY = {"constant": "a single value (or none): it cannot tell the classes apart",
        "ID-like": "about one value per row (an identifier or a name): it cannot generalise",
        "too many levels": f"more than {MAX_LEVELS} distinct values (free text?)"}


def column_report(X: pd.DataFrame, y, *, discretizer: str = "quantile", n_bins: int = 5) -> dict:
    """Describe every feature column of ``X`` and choose the ones to learn from.

    Parameters
    ----------
    X : DataFrame
        The feature columns, as read.
    y : array-like of shape (n_samples,)
        The class, for the supervised discretiser (``"mdl"``).
    discretizer, n_bins
        How numbers with decimals are cut (:class:`pybnc.encode.TableEncoder`).

    Returns
    -------
    dict
        ``columns``: one dict per column with ``name``, ``type`` (as read: text,
        integer, number, category, yes/no), ``as`` (``"categories"`` or
        ``"N bins"``), ``levels`` (distinct observed values), ``missing`` (share of
        missing cells), ``cuts`` (cut points of binned columns, else ``None``),
        ``flag`` (``None``, ``"constant"``, ``"ID-like"``, ``"too many levels"``) and
        ``why``; ``kept`` and ``left_out``: the column names; ``note``: one sentence
        for the page, or ``None``.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"id": range(30), "same": ["a"] * 30, "x": [0.5 * i for i in range(30)]})
    >>> report = column_report(X, [0, 1] * 15)
    >>> report["kept"], report["left_out"]
    (['x'], ['id', 'same'])
    >>> [round(c, 2) for c in report["columns"][2]["cuts"]]
    [2.75, 5.75, 8.75, 11.75]
    """
    from ..encode import TableEncoder

    # One pass each over the table, not one per column: wide tables have thousands.
    observed, distinct = X.notna().sum().to_numpy(), X.nunique(dropna=True).to_numpy()
    rows = []
    for name, dtype, seen, levels in zip(X.columns, X.dtypes, observed.tolist(), distinct.tolist()):
        kind = _kind(dtype)
        flag = _flag(kind, levels, seen)
        rows.append({"name": str(name), "type": kind, "as": "categories", "levels": levels,
                     "missing": (len(X) - seen) / max(len(X), 1), "cuts": None, "flag": flag,
                     "why": _WHY.get(flag)})
    kept = [r["name"] for r in rows if r["flag"] is None]
    left_out = [r["name"] for r in rows if r["flag"] is not None]
    numbers = [j for j, r in enumerate(rows) if r["flag"] is None and r["type"] == "number"]
    if numbers:  # the cut points, by the encoder the models use
        y_codes = np.unique(np.asarray(y, dtype=object).astype(str), return_inverse=True)[1]
        encoder = TableEncoder(n_bins=n_bins, discretizer=discretizer).fit(X.iloc[:, numbers], y_codes)
        for j, kind, cuts in zip(numbers, encoder.kinds_, encoder.cut_points_):
            if kind == "discretised":
                rows[j].update({"as": f"{len(cuts) + 1} bins", "cuts": [float(c) for c in cuts]})
    note = None
    if left_out:
        named = ", ".join(f"{r['name']} ({r['flag']})" for r in rows if r["flag"])
        note = (f"Left out {len(left_out)} column(s): {named[:600]}{'…' if len(named) > 600 else ''}. "
                "Numbers written with a decimal point are binned instead of being left out.")
    return {"columns": rows, "kept": kept, "left_out": left_out, "note": note}
