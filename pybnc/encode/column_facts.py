"""What ``fit_dask`` learns about every column, gathered in one task per partition.

The encoding pass needs, per column, the number of observed values, whether any is
missing, and by kind: the distinct levels (categorical columns); the smallest few
distinct values (as floats, enough to apply the integer rule), the minimum, the maximum and, for ``discretizer="quantile"``, Dask's
approximate quantiles (numeric columns); and for MDL the class counts per distinct
value (:mod:`pybnc.encode.class_tables`). One Dask expression per column and fact
made a graph whose optimisation grew faster than the number of columns (500 rows x
2,000 float columns took minutes); here one task per partition computes every
column's facts and the partitions' facts are merged by a pairwise tree, so the graph
has about two tasks per partition whatever the width.

The quantiles are those ``dask.dataframe.Series.quantile`` gives (``method="dask"``):
the same per-partition percentiles, merged by the same ``merge_percentiles``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .class_tables import _merge_tables, _partition_tables, tree_sum
from .table import float_values

#: Keys of the facts that are not column names (a column name is a str or a number).
ROWS, LABELS, CLASS_TABLES = ("facts", "rows"), ("facts", "labels"), ("mdl", "class tables")
IDENTIFIER = "identifier"  # (IDENTIFIER, name): a numeric column named like an identifier


def _percentile_points(q) -> np.ndarray:
    """The percentiles Dask computes per partition for quantiles ``q``: those, plus 0 and 100."""
    calc = np.pad(np.sort(np.asarray(q, dtype=np.float64)) * 100, 1, mode="constant")
    calc[-1] = 100
    return calc


def _float_matrix(frame: pd.DataFrame, names: list) -> np.ndarray:
    """The columns ``names`` as one float matrix, NaN for missing (infinities refused)."""
    block = frame[names]
    if all(isinstance(dtype, np.dtype) and dtype.kind in "fiub" for dtype in block.dtypes):
        values = block.to_numpy(dtype=np.float64)
        if not np.isinf(values).any():
            return values
    if not names:
        return np.empty((len(frame), 0))
    return np.column_stack([float_values(frame[name], name) for name in names])  # names the bad column


def _partition_facts(frame: pd.DataFrame, spec: dict) -> dict:
    from dask.array.dispatch import percentile_lookup

    facts = {ROWS: len(frame)}
    if spec["target"] is not None:
        facts[LABELS] = frame[spec["target"]].dropna().drop_duplicates()
    observed = frame.count().to_dict()  # a dict: indexing a Series per column costs more
    for name in spec["declared"]:  # the codes present: how many declared categories occur
        codes = frame[name].array.codes
        facts[name] = (np.unique(codes[codes >= 0]), int(observed[name]), bool(observed[name] < len(frame)))
    for name in spec["named_ids"]:  # numbers named like an identifier: distinct values, all whole?
        values = float_values(frame[name], name)
        values = values[~np.isnan(values)]
        facts[(IDENTIFIER, name)] = (np.unique(values), bool(np.array_equal(values, np.round(values))))
    for name in spec["levels"]:
        facts[name] = (frame[name].dropna().drop_duplicates(), int(observed[name]), bool(observed[name] < len(frame)))
    calc = _percentile_points(spec["quantiles"]) if spec["quantiles"] is not None else None
    numbers = _float_matrix(frame, spec["numeric"])
    for j, name in enumerate(spec["numeric"]):
        seen = numbers[:, j][~np.isnan(numbers[:, j])]
        lo, hi = (seen.min(), seen.max()) if seen.size else (np.nan, np.nan)
        percentiles = [percentile_lookup(frame[name].dropna(), calc)] if calc is not None else None
        facts[name] = ((np.unique(seen)[:spec["limit"]], lo, hi, percentiles),
                       int(observed[name]), bool(observed[name] < len(frame)))
    if spec["mdl"]:  # the MDL columns are the numeric ones
        facts[CLASS_TABLES] = _partition_tables(numbers, frame[spec["target"]], spec["mdl_limit"])
    return facts


def _merge_facts(a: dict, b: dict, spec: dict) -> dict:
    merged = {ROWS: a[ROWS] + b[ROWS]}
    if LABELS in a:
        merged[LABELS] = pd.concat([a[LABELS], b[LABELS]]).drop_duplicates()
    for name in spec["declared"]:
        merged[name] = (np.union1d(a[name][0], b[name][0]), a[name][1] + b[name][1], a[name][2] or b[name][2])
    for name in spec["named_ids"]:
        key = (IDENTIFIER, name)
        merged[key] = (np.union1d(a[key][0], b[key][0]), a[key][1] and b[key][1])
    for name in spec["levels"]:
        merged[name] = (pd.concat([a[name][0], b[name][0]]).drop_duplicates(), a[name][1] + b[name][1],
                        a[name][2] or b[name][2])
    for name in spec["numeric"]:
        (few_a, lo_a, hi_a, qs_a), (few_b, lo_b, hi_b, qs_b) = a[name][0], b[name][0]
        merged[name] = ((np.union1d(few_a, few_b)[:spec["limit"]], np.fmin(lo_a, lo_b), np.fmax(hi_a, hi_b),
                         None if qs_a is None else qs_a + qs_b), a[name][1] + b[name][1], a[name][2] or b[name][2])
    if spec["mdl"]:
        merged[CLASS_TABLES] = _merge_tables(pd.concat([a[CLASS_TABLES], b[CLASS_TABLES]], ignore_index=True),
                                             spec["mdl_limit"])
    return merged


def _finish_facts(facts: dict, spec: dict) -> dict:
    """The quantiles from the partitions' percentiles, as Dask's ``Series.quantile``."""
    from dask.array.percentile import merge_percentiles

    if spec["mdl"]:
        facts[CLASS_TABLES] = (spec["mdl"], facts[CLASS_TABLES])
    if spec["quantiles"] is None:
        return facts
    q = np.sort(np.asarray(spec["quantiles"], dtype=np.float64))
    calc = _percentile_points(q)
    for name in spec["numeric"]:
        (few, lo, hi, chunks), n_observed, has_missing = facts[name]
        qs = merge_percentiles(q * 100, [calc] * len(chunks), chunks, "lower", None, False)
        facts[name] = ((few, lo, hi, pd.Series(qs, index=q, name=name)), n_observed, has_missing)
    return facts


def plan_column_facts(partitions, spec: dict):
    """Lazy ``{column name or key: facts}`` over ``partitions`` (``ddf.to_delayed()``).

    ``spec`` lists the columns by kind (``"declared"``, ``"levels"``, ``"numeric"``),
    the numeric columns named like an identifier (``"named_ids"``: their distinct values and
    whether all are whole numbers), the numeric columns whose MDL tables to sum (``"mdl"``, up to ``"mdl_limit"``
    distinct values), the ``"quantiles"`` to approximate (or None), how many distinct
    numeric values to keep (``"limit"``) and the ``"target"`` column (or None). A numeric
    column's facts are ``(distinct values, min, max, quantiles or None)``, a categorical
    column's its distinct values (the codes present when declared), each with the number of observed
    values and whether any is missing."""
    import dask

    part = dask.delayed(_partition_facts)
    merge = dask.delayed(_merge_facts)
    parts = [part(p, spec) for p in partitions]
    return dask.delayed(_finish_facts)(tree_sum(parts, lambda a, b: merge(a, b, spec)), spec)
