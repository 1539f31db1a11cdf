"""Class counts per value of numeric columns over a Dask DataFrame, for MDL cut points.

Fayyad & Irani's MDLP needs, for each distinct value of a column in increasing
order, how many rows of each class have it (:func:`pybnc.discretize.mdl_cut_points`).
That table is a sum over row blocks, so ``fit_dask`` counts it partition by
partition and sums the partitions' tables in a tree: the cut points are exactly
those ``fit`` learns from the same rows.

A column with more than :data:`MDL_MAX_DISTINCT` distinct values would make that
table too large to hold, so its rows are first put in bins at
:data:`MDL_CANDIDATES` - 1 of Dask's approximate quantiles, the bins' class counts
are summed in a second pass, and MDLP chooses its cuts among those bin edges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..discretize import class_count_table, distinct_midpoints, mdl_cut_points
from .table import float_values

#: Most distinct values of a column whose exact (value, class) table fit_dask sums.
MDL_MAX_DISTINCT = 100_000
#: Bins of a column past that limit: its MDL cuts are chosen among their edges.
MDL_CANDIDATES = 1_000


def tree_sum(parts, add):
    """Pairwise sums, so no node holds more than two partitions' results at once."""
    while len(parts) > 1:
        paired = [add(a, b) for a, b in zip(parts[::2], parts[1::2])]
        parts = paired + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


_TABLE_META = {"column": np.int64, "value": np.float64, "label": object, "count": np.int64}


def _long_table(column, values, labels, counts) -> pd.DataFrame:
    return pd.DataFrame({"column": np.full(len(values), column, dtype=np.int64), "value": values,
                         "label": pd.Series(labels, dtype=object), "count": counts}).astype(_TABLE_META)


def _partition_tables(frame: pd.DataFrame, names: list, target, limit: int) -> pd.DataFrame:
    """The partition's class counts per value of every column in ``names``, in long
    form; a column with more than ``limit`` values gets one row with count -1."""
    labelled = frame[target].notna().to_numpy()  # an unlabelled row is refused by the count pass
    y_codes, labels = pd.factorize(frame[target][labelled])
    labels = np.asarray(labels, dtype=object)
    parts = []
    for j, name in enumerate(names):
        values = float_values(frame[name], name)[labelled]
        observed = ~np.isnan(values)
        distinct, inverse = np.unique(values[observed], return_inverse=True)
        if distinct.size > limit:
            parts.append(_long_table(j, [np.nan], [None], [-1]))
            continue
        table = class_count_table(inverse.ravel(), y_codes[observed], distinct.size, len(labels))
        rows, cols = np.nonzero(table)
        parts.append(_long_table(j, distinct[rows], labels[cols], table[rows, cols]))
    return pd.concat(parts, ignore_index=True) if parts else _long_table(0, [], [], [])


def _merge_tables(tables: pd.DataFrame, limit: int) -> pd.DataFrame:
    """Sum concatenated long tables; a column past ``limit`` values keeps only its -1 row."""
    over = tables["column"][tables["count"] < 0].unique()
    kept = tables[~tables["column"].isin(over)]
    summed = kept.groupby(["column", "value", "label"], sort=False)["count"].sum().reset_index()
    n_values = summed.groupby("column")["value"].nunique()
    over = np.union1d(over, n_values.index[n_values > limit])
    summed = summed[~summed["column"].isin(over)]
    return pd.concat([summed.astype(_TABLE_META), _long_table(over, np.full(over.size, np.nan),
                                                               [None] * over.size, np.full(over.size, -1))],
                     ignore_index=True)


def plan_class_tables(ddf, names: list, target, limit: int = MDL_MAX_DISTINCT):
    """Lazy long table (columns ``column, value, label, count``) of the class counts per
    value of the columns ``names`` of ``ddf``, summed over partitions in a tree."""
    meta = _long_table(0, [], [], [])
    return ddf[[*names, target]].reduction(_partition_tables, _merge_tables, _merge_tables, meta=meta,
                                           chunk_kwargs={"names": names, "target": target, "limit": limit},
                                           aggregate_kwargs={"limit": limit}, combine_kwargs={"limit": limit})


def split_class_tables(tables: pd.DataFrame, names: list) -> dict:
    """``{name: (values, labels, counts) or None}`` from the computed long table."""
    found = {}
    for j, rows in tables.groupby("column"):
        found[names[j]] = None if (rows["count"] < 0).any() else rows
    return {name: found.get(name) for name in names}


def exact_mdl_cuts(rows: pd.DataFrame, classes) -> np.ndarray:
    """MDL cut points from one column's summed (value, class, count) rows."""
    class_codes = pd.Index(classes).get_indexer(rows["label"])
    if (class_codes < 0).any():
        raise ValueError(f"y holds the label {rows['label'].to_numpy()[class_codes < 0][0]!r}, "
                         f"not in classes={list(classes)}.")
    values, value_codes = np.unique(rows["value"].to_numpy(), return_inverse=True)
    table = class_count_table(value_codes.ravel(), class_codes, values.size, len(classes),
                              weights=rows["count"].to_numpy())
    return mdl_cut_points(table, distinct_midpoints(values))


def candidate_edges(quantiles, lo) -> np.ndarray:
    """Bin edges from Dask's approximate quantiles: distinct, finite, above the minimum."""
    qs = np.asarray(quantiles, dtype=np.float64)
    return np.unique(qs[np.isfinite(qs) & (qs > lo)])


def _partition_bin_counts(frame: pd.DataFrame, edges: dict, target, classes) -> dict:
    y_codes = pd.Index(classes).get_indexer(frame[target])
    counts = {}
    for name, cuts in edges.items():
        values = float_values(frame[name], name)
        kept = ~np.isnan(values) & (y_codes >= 0)
        bins = np.searchsorted(cuts, values[kept], side="right")
        counts[name] = class_count_table(bins, y_codes[kept], cuts.size + 1, len(classes))
    return counts


def plan_bin_counts(ddf, edges: dict, target, classes):
    """Lazy ``{name: (len(edges) + 1, K) class counts}`` of the bins that ``edges`` make."""
    import dask

    part = dask.delayed(_partition_bin_counts)
    add = dask.delayed(lambda a, b: {name: a[name] + b[name] for name in a})
    return tree_sum([part(p, edges, target, classes) for p in ddf[[*edges, target]].to_delayed()], add)

