"""Class counts per value of numeric columns over a Dask DataFrame, for MDL cut points.

Fayyad & Irani's MDLP needs, for each distinct value of a column in increasing
order, how many rows of each class have it (:func:`pybnc.encode.discretize.mdl_cut_points`).
That table is a sum over row blocks, so ``fit_dask`` counts it partition by
partition and sums the partitions' tables in a tree: the cut points are exactly
those ``fit`` learns from the same rows.

A column with more than :data:`MDL_MAX_DISTINCT` distinct values would make that
table too large to hold, so its rows are first put in bins at
:data:`MDL_CANDIDATES` - 1 of Dask's approximate quantiles, the bins' class counts
are summed in a further pass, and MDLP chooses its cuts among those bin edges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .discretize import class_count_table, distinct_midpoints, mdl_cut_points
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
    return pd.DataFrame({"column": np.broadcast_to(np.asarray(column, dtype=np.int64), (len(values),)),
                         "value": values, "label": pd.Series(labels, dtype=object), "count": counts}).astype(_TABLE_META)


def _partition_tables(values: np.ndarray, target: pd.Series, limit: int) -> pd.DataFrame:
    """The partition's class counts per value of every column of the float matrix
    ``values`` (NaN missing), in long form; a column with more than ``limit`` values
    gets one row with count -1."""
    labelled = target.notna().to_numpy()  # an unlabelled row is refused by the count pass
    y_codes, labels = pd.factorize(target[labelled])
    labels = np.append(np.asarray(labels, dtype=object), None)  # the last: a crowded column's -1 row
    columns, found_values, classes, counts = [], [], [], []
    values = values if labelled.all() else values[labelled]
    for j in range(values.shape[1]):
        column = values[:, j]
        observed = ~np.isnan(column)
        distinct, inverse = np.unique(column[observed], return_inverse=True)
        if distinct.size > limit:  # too many values: one row (NaN, None, -1) marks the column
            found, cols, found_counts = np.full(1, np.nan), np.full(1, labels.size - 1), np.full(1, -1)
        else:
            table = class_count_table(inverse.ravel(), y_codes[observed], distinct.size, labels.size - 1)
            rows, cols = np.nonzero(table)
            found, found_counts = distinct[rows], table[rows, cols]
        columns.append(np.full(cols.size, j, dtype=np.int64))
        found_values.append(found)
        classes.append(cols)
        counts.append(found_counts)
    if not columns:
        return _long_table(0, [], [], [])
    return _long_table(np.concatenate(columns), np.concatenate(found_values), labels[np.concatenate(classes)],
                       np.concatenate(counts))


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


def split_class_tables(tables: pd.DataFrame, names: list, classes) -> dict:
    """``{name: (values, class codes, counts) or None}`` from the computed long table;
    the class codes index ``classes``."""
    crowded = set(tables["column"][tables["count"] < 0].tolist())
    kept = tables[~tables["column"].isin(crowded)]
    class_codes = pd.Index(classes).get_indexer(kept["label"])
    if (class_codes < 0).any():
        raise ValueError(f"y holds the label {kept['label'].to_numpy()[class_codes < 0][0]!r}, "
                         f"not in classes={list(classes)}.")
    column = kept["column"].to_numpy()
    order = np.argsort(column, kind="stable")
    starts = np.searchsorted(column[order], np.arange(len(names) + 1))
    values, counts = kept["value"].to_numpy()[order], kept["count"].to_numpy()[order]
    class_codes = class_codes[order]
    return {name: None if j in crowded else (values[a:b], class_codes[a:b], counts[a:b])
            for j, (name, a, b) in enumerate(zip(names, starts[:-1], starts[1:]))}


def exact_mdl_cuts(table, n_classes: int) -> np.ndarray:
    """MDL cut points from one column's summed (values, class codes, counts)."""
    values, class_codes, counts = table
    values, value_codes = np.unique(values, return_inverse=True)
    table = class_count_table(value_codes.ravel(), class_codes, values.size, n_classes, weights=counts)
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

