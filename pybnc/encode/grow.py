"""Encodings learned from data seen in parts: grown block by block, or planned and
finished over a Dask DataFrame in one pass (``docs/large-data.md``).

* Block by block (:func:`grow_encoder`), the first block decides each column's kind
  (categorical, discretised or left out as an identifier) and the cut points; with
  ``discretizer="mdl"`` (the default) those are the MDL cuts of the first block's rows
  and classes, exactly as ``fit`` on that block would learn them. A
  categorical level first seen in a later block is added, in the order
  :class:`Encoder` gives the whole table (sorted distinct values; declared
  categories of a pandas ``category`` column first, categories declared only by a
  later block appended), and with ``missing="category"`` a missing level is added
  (last) to a column whose first missing value comes in a later block; so the
  block-wise model equals the in-memory one whenever the first block fixes the
  kinds (and, for discretised columns, the cut points).
* With Dask (:func:`plan_encoder`, :func:`finish_encoder`), every column's facts
  come from all the data in one pass: the distinct levels of categorical columns
  exactly, the distinct values of numeric columns up to the integer rule's limit,
  Dask's approximate quantiles (``discretizer="quantile"``) or the exact minimum
  and maximum (``"uniform"``). For ``"mdl"`` the pass sums each numeric column's
  class counts per distinct value (:mod:`pybnc.encode.class_tables`), all MDLP
  needs, so the cut points are exactly ``fit``'s; a column with more than
  ``MDL_MAX_DISTINCT`` (100,000) distinct values is instead put in bins at 999 of
  Dask's approximate quantiles, two more passes (:func:`plan_encoder_bins`: the
  quantiles, then the bins' class counts) follow, and its MDL cuts are chosen among
  those bin edges (an :class:`EncodingWarning` names such columns). The first pass
  is one task per partition for all the columns (:mod:`pybnc.encode.column_facts`).
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from .discretize import cut_points, mdl_cut_points
from ._columns import (INTEGER_AS_NUMBER_ABOVE, is_float_column, is_integer_column, name_says_identifier,
                       refuse_unsupported_levels, text_as_numbers, too_many_levels, warn_columns)
from ._levels import MISSING, lookup_column, match_levels, sort_levels
from .class_tables import (MDL_CANDIDATES, MDL_MAX_DISTINCT, candidate_edges, exact_mdl_cuts, plan_bin_counts,
                           split_class_tables)
from .column_facts import CLASS_TABLES, IDENTIFIER, plan_column_facts
from .table import Encoder, as_frame, float_values, interval_labels, unused_label

# A key of the plan's results that is not a column name (a column name is a str or a number).
_BIN_COUNTS = ("mdl", "bin counts")


def _merged_levels(col: pd.Series, old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """The levels ``Encoder.fit`` would give the rows seen so far plus ``col``."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        # Declared categories keep their declared order; new ones go after the old.
        known = set(old.tolist())
        extra = [c for c in col.cat.categories if c not in known]
        return np.concatenate([old, np.asarray(extra, dtype=object)])
    return sort_levels(np.concatenate([old, fresh]))


def _refuse_grouping(encoder: Encoder) -> None:
    if getattr(encoder, "min_frequency", 1) > 1:
        raise ValueError(f"min_frequency={encoder.min_frequency} groups the levels rare among all the rows, which "
                         "an encoding learned block by block does not know until the last block. Pass "
                         "min_frequency=1, or group the rare levels of the table before.")


def grow_encoder(encoder: Encoder, X) -> tuple[Encoder, list | None]:
    """Add the categorical levels of ``X`` that ``encoder`` has not seen.

    Parameters
    ----------
    encoder : Encoder
        A fitted encoder; it is not modified.
    X : table
        A block with the encoder's input columns, in its column order.

    Returns
    -------
    encoder : Encoder
        ``encoder`` itself when nothing is new, else a grown copy.
    moves : list of ndarray or None
        Per column, the new code of each old code (``None`` when nothing is new);
        pass it to :func:`pybnc.streaming.remap_counts`.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = Encoder().fit(pd.DataFrame({"a": ["b", "d"]}))
    >>> grown, moves = grow_encoder(enc, pd.DataFrame({"a": ["c", "a", None]}))
    >>> grown.categories_[0].tolist(), moves[0].tolist()
    (['a', 'b', 'c', 'd'], [1, 3])
    """
    frame = as_frame(X)
    _refuse_grouping(encoder)
    positions, _, missing_codes = encoder._layout()
    missing_codes = np.array(missing_codes, dtype=np.int64)
    as_category = getattr(encoder, "missing", "sum") == "category"
    categories = list(encoder.categories_)
    for j, (kind, current) in enumerate(zip(encoder.kinds_, encoder.categories_)):
        col, name = frame.iloc[:, positions[j]], encoder.columns_[j]
        new_missing = as_category and missing_codes[j] < 0 and bool(col.isna().any())
        levels = old = encoder.observed_levels(j)
        if kind == "categorical":  # discretised columns keep their cut points: every value has a bin
            if is_float_column(col):
                float_values(col, name)  # an infinity is an error, not a level
            unseen = (lookup_column(col, old, name)[0] < 0) & col.notna().to_numpy()
            declared_more = isinstance(col.dtype, pd.CategoricalDtype) and len(col.cat.categories) > len(old)
            if unseen.any() or declared_more:
                fresh = np.asarray(pd.unique(col.to_numpy(dtype=object)[unseen]), dtype=object)
                refuse_unsupported_levels(fresh, name)
                levels = _merged_levels(col, np.asarray(old, dtype=object), fresh)
                if len(levels) > encoder.max_levels:
                    raise too_many_levels(name, len(levels), encoder.max_levels, len(levels))
        if len(levels) == len(old) and not new_missing:
            continue
        if missing_codes[j] >= 0 or new_missing:
            label = current[-1] if missing_codes[j] >= 0 else unused_label(levels)
            missing_codes[j] = len(levels)
            levels = np.append(levels, np.array([label], dtype=object))
        categories[j] = levels
    if all(new is old for new, old in zip(categories, encoder.categories_)):
        return encoder, None
    moves = [match_levels(new, np.asarray(old, dtype=object)).astype(np.int64)
             for new, old in zip(categories, encoder.categories_)]
    grown = copy.copy(encoder)
    grown.categories_ = categories
    grown.cardinalities_ = np.array([len(c) for c in categories], dtype=np.int64)
    grown.missing_codes_ = missing_codes
    return grown, moves


# -- Dask ---------------------------------------------------------------------------------
def plan_encoder(encoder: Encoder, X_meta: pd.DataFrame, ddf, target=None, partitions=None):
    """Lazy facts describing every column (:mod:`pybnc.encode.column_facts`), computed
    later in one pass of one task per partition.

    With ``discretizer="mdl"`` the numeric columns' (value, class) count tables are
    summed from ``ddf[target]`` too; the distinct values of ``ddf[target]`` come along.
    ``partitions`` (default ``ddf.to_delayed()``) lets the caller build them once."""
    categorical, numeric = encoder._validate(X_meta)
    _refuse_grouping(encoder)
    mdl = encoder.discretizer == "mdl"
    spec = {"declared": [], "levels": [], "numeric": [], "named_ids": [], "target": target,
            "limit": max(encoder.n_bins, INTEGER_AS_NUMBER_ABOVE) + 1,
            "quantiles": np.arange(1, encoder.n_bins) / encoder.n_bins if encoder.discretizer == "quantile" else None}
    for name in X_meta.columns:
        meta = X_meta[name]
        if isinstance(meta.dtype, pd.CategoricalDtype) and name not in numeric and ddf[name].cat.known:
            spec["declared"].append(name)  # declared categories: the levels are in the metadata
        elif (is_float_column(meta) or is_integer_column(meta) or name in numeric) and name not in categorical:
            spec["numeric"].append(name)
            if encoder.id_columns != "keep" and name not in numeric and name_says_identifier(name):
                spec["named_ids"].append(name)
        else:
            spec["levels"].append(name)
    if mdl and spec["numeric"] and target is None:
        raise ValueError("discretizer='mdl' learns cut points from the classes: pass target.")
    spec["mdl"] = spec["numeric"] if mdl else []
    spec["mdl_limit"] = max(MDL_MAX_DISTINCT, spec["limit"])
    return plan_column_facts(ddf.to_delayed() if partitions is None else partitions, spec)


def _class_tables(found: dict, classes=()) -> dict:
    return split_class_tables(found[CLASS_TABLES][1], found[CLASS_TABLES][0], classes) if CLASS_TABLES in found else {}


def plan_encoder_bins(found: dict, ddf, target, classes, **compute_kwargs):
    """Lazy second pass of :func:`plan_encoder` (None when not needed): the class counts
    in candidate bins of the MDL columns with too many distinct values for a table. The
    bins' edges are Dask's approximate quantiles of those columns, computed first."""
    import dask

    crowded = [name for name, table in _class_tables(found, classes).items() if table is None]
    if not crowded:
        return None
    quantiles = np.arange(1, MDL_CANDIDATES) / MDL_CANDIDATES
    (qs,) = dask.compute([ddf[name].quantile(quantiles) for name in crowded], **compute_kwargs)
    edges = {name: candidate_edges(q, found[name][0][1]) for name, q in zip(crowded, qs)}
    return {_BIN_COUNTS: (edges, plan_bin_counts(ddf, edges, target, classes))}


def finish_encoder(encoder: Encoder, X_meta: pd.DataFrame, found: dict, classes=None) -> Encoder:
    """The fitted encoder from the computed ``plan_encoder`` (and ``plan_encoder_bins``)
    results; ``classes`` orders the class counts of MDL."""
    categorical, numeric = encoder._validate(X_meta)
    binned, tables = [], _class_tables(found, classes)
    encoder.columns_, encoder.kinds_, encoder.categories_, encoder.cut_points_ = [], [], [], []
    encoder.dropped_columns_ = []
    positions, missing_codes, numbered, text_numbers = [], [], [], []
    for pos, name in enumerate(X_meta.columns):
        meta = X_meta[name]
        seen, n_observed, has_missing = found[name]
        kind, cuts = "categorical", None
        named_id = found.get((IDENTIFIER, name))
        if named_id is not None and (named_id[1] or is_integer_column(meta)) and name not in categorical:
            # a whole number named like an identifier: the rule Encoder applies
            if encoder._left_out(name, named_id[0].size, int(n_observed), 0, categorical, by_name_only=True):
                continue
        if isinstance(seen, np.ndarray):  # declared categories, and the codes present
            levels = np.asarray(meta.cat.categories, dtype=object)
        elif isinstance(seen, tuple):
            distinct, lo, hi, qs = seen
            distinct = np.asarray(distinct, dtype=np.float64)  # sorted, distinct
            integer_levels = is_integer_column(meta) and name not in numeric
            if integer_levels and distinct.size <= INTEGER_AS_NUMBER_ABOVE:
                levels = distinct.astype(meta.dtype.numpy_dtype if hasattr(meta.dtype, "numpy_dtype")
                                         else meta.dtype).astype(object)
            elif distinct.size > encoder.n_bins:
                numbered += [name] if integer_levels else []
                kind = "discretised"
                table = tables.get(name)
                if encoder.discretizer == "mdl" and table is not None:
                    cuts = exact_mdl_cuts(table, len(classes))
                elif encoder.discretizer == "mdl":
                    edges, counts = found[_BIN_COUNTS]
                    cuts = mdl_cut_points(counts[name], edges[name])
                    binned.append(name)
                elif encoder.discretizer == "uniform":
                    cuts = cut_points(np.array([lo, hi], dtype=np.float64), "uniform", encoder.n_bins)
                else:
                    # Dask's quantiles are approximate and may be observed values (they then
                    # open the upper bin); a cut at the minimum would leave bin 0 empty.
                    qs = np.asarray(qs, dtype=np.float64)
                    cuts = np.unique(qs[np.isfinite(qs) & (qs > lo)])
                levels = interval_labels(cuts)
            else:
                levels = distinct.astype(object)
        else:
            levels = sort_levels(seen.to_numpy(dtype=object))
            if name not in categorical and text_as_numbers(levels) is not None:
                text_numbers.append(name)  # kinds are planned from the dtypes, before the pass
        if kind == "categorical":
            refuse_unsupported_levels(levels, name)
            n_distinct = seen.size if isinstance(seen, np.ndarray) else len(levels)
            if encoder._left_out(name, n_distinct, int(n_observed), len(levels), categorical):
                continue
        if encoder.missing == "category" and has_missing:
            missing_codes.append(len(levels))
            levels = np.append(levels, np.array([unused_label(levels)], dtype=object))
        else:
            missing_codes.append(MISSING)
        encoder.columns_.append(name)
        encoder.kinds_.append(kind)
        encoder.cut_points_.append(cuts)
        encoder.categories_.append(levels)
        positions.append(pos)
    warn_columns(f"Columns with more than {MDL_MAX_DISTINCT:,} distinct values: {{columns}}. fit_dask chose "
                 f"their MDL cut points among {MDL_CANDIDATES - 1} approximate quantiles of each column (bin "
                 "edges), not among all the midpoints between distinct values as fit does.", binned)
    warn_columns("Text columns of numbers (missing values written '?', 'NA', ...) are categories in fit_dask, "
                 "which fit reads as numbers: {columns}. Convert them before, for example ddf[col] = "
                 "dd.to_numeric(ddf[col], errors='coerce'), or list them in categorical_features.", text_numbers)
    encoder._store(missing_codes, positions, X_meta.shape[1], numbered)
    encoder._check_not_empty()
    return encoder
