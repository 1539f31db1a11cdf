"""Fit on data larger than memory: count each block, sum the counts, learn once.

Counts are additive (:mod:`pybnc.counts`): the counts of a union of row blocks are
the sum of the blocks' counts, and the estimators that learn from counts alone
(:class:`~pybnc.NaiveBayes`, :class:`~pybnc.TAN`, :class:`~pybnc.FAN`,
:class:`~pybnc.MANB`, :class:`~pybnc.AODE`, :class:`~pybnc.TBMATAN`,
:class:`~pybnc.SSTBMATAN`, without ``weighting``) never need the rows again. So
memory is bounded by one block plus the counts (``K x W x W`` floats, ``W`` the
sum of the cardinalities), whatever the number of rows.

* :func:`fit_blocks`: any iterable of blocks (``pd.read_csv(..., chunksize=...)``,
  ``pyarrow`` record batches), through ``partial_fit``.
* :func:`fit_dask`: a Dask DataFrame; the encoding is learned in one Dask pass,
  every partition is counted in parallel and the counts are summed by a tree.

Encoding policies (``docs/large-data.md``)
------------------------------------------
* Block by block, the encoding is learned on the first block. A categorical level
  first seen in a later block is added (:func:`grow_encoder`) and the running
  counts are padded to the new width (:func:`remap_counts`); the levels stay in the
  order :class:`~pybnc.encode.TableEncoder` gives the whole table (sorted distinct
  values; declared categories of a pandas ``category`` column first, categories
  declared only by a later block appended), so the block-wise model equals the
  in-memory one. A float column keeps the kind (discretised or categorical) and
  the cut points it got on the first block.
* With Dask the encoding is learned from all the data: distinct levels of every
  categorical column exactly, cut points of float columns from Dask's approximate
  quantiles (``discretizer="quantile"``) or its exact minimum and maximum
  (``"uniform"``); ``"mdl"`` needs the sorted column with its classes and is
  refused.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from .counts import Counts, count
from .discretize import cut_points
from .encode import (
    TableEncoder,
    _as_frame,
    _float_values,
    _interval_labels,
    _is_float_column,
    _lookup_levels,
    _sortable_levels,
)

__all__ = ["fit_blocks", "fit_dask", "grow_encoder", "remap_counts"]


def _too_many_levels(name, n_levels: int, limit: int) -> ValueError:
    return ValueError(
        f"Column {name!r} has {n_levels} levels (limit max_levels={limit}). A column with about "
        "one level per row (an identifier) carries no class information; drop it, cast it to "
        "float so that it is discretised, or raise max_levels."
    )


def _merged_levels(col: pd.Series, old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """The levels ``TableEncoder.fit`` would give the rows seen so far plus ``col``."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        # Declared categories keep their declared order; new ones go after the old.
        known = set(old.tolist())
        extra = [c for c in col.cat.categories if c not in known]
        return np.concatenate([old, np.asarray(extra, dtype=object)])
    return _sortable_levels(np.concatenate([old, fresh]))


def grow_encoder(encoder: TableEncoder, X) -> tuple[TableEncoder, list | None]:
    """Add the categorical levels of ``X`` that ``encoder`` has not seen.

    Parameters
    ----------
    encoder : TableEncoder
        A fitted encoder; it is not modified.
    X : table
        A block with the encoder's columns, in its column order.

    Returns
    -------
    encoder : TableEncoder
        ``encoder`` itself when nothing is new, else a grown copy.
    moves : list of ndarray or None
        Per column, the new code of each old code (``None`` when nothing is new);
        pass it to :func:`remap_counts`.

    Examples
    --------
    >>> import pandas as pd
    >>> enc = TableEncoder().fit(pd.DataFrame({"a": ["b", "d"]}))
    >>> grown, moves = grow_encoder(enc, pd.DataFrame({"a": ["c", "a", None]}))
    >>> grown.categories_[0].tolist(), moves[0].tolist()
    (['a', 'b', 'c', 'd'], [1, 3])
    """
    frame = _as_frame(X)
    categories = list(encoder.categories_)
    changed = False
    for j, (kind, old) in enumerate(zip(encoder.kinds_, encoder.categories_)):
        if kind != "categorical":
            continue  # discretised columns keep their cut points: every value has a bin
        col = frame.iloc[:, j]
        if _is_float_column(col):
            _float_values(col, encoder.columns_[j])  # an infinity is an error, not a level
        unseen = (_lookup_levels(col, old) < 0) & col.notna().to_numpy()
        declared_more = isinstance(col.dtype, pd.CategoricalDtype) and len(col.cat.categories) > len(old)
        if not unseen.any() and not declared_more:
            continue
        fresh = pd.unique(col.to_numpy(dtype=object)[unseen])
        levels = _merged_levels(col, np.asarray(old, dtype=object), np.asarray(fresh, dtype=object))
        if len(levels) == len(old):
            continue
        if len(levels) > encoder.max_levels:
            raise _too_many_levels(encoder.columns_[j], len(levels), encoder.max_levels)
        categories[j], changed = levels, True
    if not changed:
        return encoder, None
    moves = [pd.Index(new, dtype=object).get_indexer(np.asarray(old, dtype=object)).astype(np.int64)
             for new, old in zip(categories, encoder.categories_)]
    grown = copy.copy(encoder)
    grown.categories_ = categories
    grown.cardinalities_ = np.array([len(c) for c in categories], dtype=np.int64)
    return grown, moves


def remap_counts(counts: Counts, moves: list, cardinalities) -> Counts:
    """Counts re-indexed to a grown encoding: old level ``a`` of feature ``i`` moves to
    ``moves[i][a]``; new levels get zero counts (they were never seen).

    Examples
    --------
    >>> import numpy as np
    >>> c = count(np.array([[0], [1], [1]]), np.array([0, 0, 1]), [2], 2)
    >>> remap_counts(c, [np.array([1, 2])], [3]).feature(0).tolist()
    [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(cards)])
    columns = np.concatenate([offsets[i] + np.asarray(m) for i, m in enumerate(moves)])
    width = int(offsets[-1])
    joint = np.zeros((counts.n_classes, width, width), dtype=np.float64)
    joint[:, columns[:, None], columns[None, :]] = counts.joint
    return Counts(cards, counts.class_counts.copy(), joint)


def _split(block, target):
    if target is None:
        X, y = block
        return X, y
    frame = block.to_pandas() if hasattr(block, "to_pandas") else block
    if target not in frame.columns:
        raise ValueError(f"target={target!r} is not a column of the block ({list(frame.columns)[:5]}...).")
    return frame.drop(columns=[target]), frame[target]


def fit_blocks(model, blocks, target=None, classes=None):
    """Fit ``model`` on a stream of row blocks, one block in memory at a time.

    Parameters
    ----------
    model : pybnc estimator that learns from counts
        Fitted from scratch, as by ``fit`` (use ``partial_fit`` to continue a fit).
    blocks : iterable
        DataFrames (or pyarrow tables / record batches) holding the ``target``
        column, or ``(X, y)`` pairs when ``target`` is None.
    target : str, optional
        Name of the class column of each block.
    classes : array-like
        Every class label of the whole stream (the first block may not show all).

    Returns
    -------
    model
        Fitted; ``model.counts_`` holds the summed counts.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> from pybnc import TAN
    >>> csv = io.StringIO("a,b,y\\nx,0,no\\ny,1,yes\\nx,1,yes\\nz,0,no\\n")
    >>> model = fit_blocks(TAN(), pd.read_csv(csv, chunksize=2), target="y", classes=["no", "yes"])
    >>> int(model.counts_.n_rows), model.encoder_.categories_[0].tolist()
    (4, ['x', 'y', 'z'])
    """
    model._check_learns_from_counts()
    if classes is None:
        raise ValueError("classes must list every class label of the stream: the first block may not show all.")
    model.__dict__.pop("counts_", None)  # start afresh, as fit does
    started = False
    for block in blocks:
        X, y = _split(block, target)
        model.partial_fit(X, y, classes=None if started else classes)
        started = True
        del block, X, y  # keep one block alive, not two, while the next one loads
    if not started:
        raise ValueError("blocks is empty: there are no rows to fit.")
    return model


# -- Dask ---------------------------------------------------------------------------------
def _few_distinct(series: pd.Series, limit: int) -> pd.Series:
    """At most ``limit`` distinct observed values of one partition: enough to tell a
    float column with few values (categorical) from a continuous one."""
    return series.dropna().drop_duplicates().iloc[:limit]


def _plan_encoder(model, X_meta, ddf):
    """Lazy Dask results describing every column, computed later in one pass."""
    encoder = model._encoder()
    if encoder.discretizer not in ("quantile", "uniform"):
        raise ValueError(
            f"fit_dask supports discretizer='quantile' or 'uniform', not {encoder.discretizer!r}: "
            "MDL cut points need each column sorted with its classes in one place."
        )
    quantiles = np.arange(1, encoder.n_bins) / encoder.n_bins
    plan = {}
    for name in X_meta.columns:
        col, meta = ddf[name], X_meta[name]
        if _is_float_column(meta):
            plan[name] = (col.map_partitions(_few_distinct, encoder.n_bins + 1, meta=meta),
                          col.min(), col.max(), col.quantile(quantiles))
        elif isinstance(meta.dtype, pd.CategoricalDtype) and col.cat.known:
            plan[name] = None  # declared categories: the levels are in the metadata
        else:
            plan[name] = col.dropna().drop_duplicates()
    return encoder, plan


def _finish_encoder(encoder, X_meta, found):
    encoder.columns_ = list(X_meta.columns)
    encoder.kinds_, encoder.categories_, encoder.cut_points_ = [], [], []
    for name in encoder.columns_:
        meta = X_meta[name]
        kind, cuts = "categorical", None
        if _is_float_column(meta):
            distinct, lo, hi, qs = found[name]
            distinct = np.unique(distinct.to_numpy(dtype=np.float64))
            if distinct.size > encoder.n_bins:
                kind = "discretised"
                if encoder.discretizer == "uniform":
                    cuts = cut_points(np.array([lo, hi], dtype=np.float64), "uniform", encoder.n_bins)
                else:
                    # Dask's quantiles are approximate and may be observed values (they then
                    # open the upper bin); a cut at the minimum would leave bin 0 empty.
                    qs = np.asarray(qs, dtype=np.float64)
                    cuts = np.unique(qs[np.isfinite(qs) & (qs > lo)])
                levels = _interval_labels(cuts)
            else:
                levels = distinct.astype(object)
        elif found[name] is None:
            levels = np.asarray(meta.cat.categories, dtype=object)
        else:
            levels = _sortable_levels(found[name].to_numpy(dtype=object))
        if kind == "categorical" and len(levels) > encoder.max_levels:
            raise _too_many_levels(name, len(levels), encoder.max_levels)
        encoder.kinds_.append(kind)
        encoder.cut_points_.append(cuts)
        encoder.categories_.append(levels)
    encoder.cardinalities_ = np.array([len(c) for c in encoder.categories_], dtype=np.int64)
    return encoder


def _count_partition(frame, encoder, classes, target):
    from .estimators.base import _check_labels  # the estimators import this module

    y = _check_labels(frame[target], len(frame)) if len(frame) else frame[target].to_numpy()
    y_codes = pd.Index(classes).get_indexer(y)
    if (y_codes < 0).any():
        raise ValueError(f"y holds the label {y[y_codes < 0][0]!r}, not in classes={list(classes)}.")
    codes = encoder.transform(frame[encoder.columns_])
    return count(codes, y_codes, encoder.cardinalities_, len(classes))


def _tree_sum(parts, add):
    """Pairwise sums, so no node holds more than two partitions' counts at once."""
    while len(parts) > 1:
        paired = [add(a, b) for a, b in zip(parts[::2], parts[1::2])]
        parts = paired + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def fit_dask(model, ddf, target, classes=None, **compute_kwargs):
    """Fit ``model`` on a Dask DataFrame: count every partition in parallel, sum.

    Two passes over the data: one learns the encoding (distinct levels of
    categorical columns, approximate quantile or exact min/max cut points of float
    columns, the classes), one counts every partition; the counts are summed by a
    tree reduction and the model is learned from the total.

    Parameters
    ----------
    model : pybnc estimator that learns from counts
    ddf : dask.dataframe.DataFrame
    target : str
        Name of the class column.
    classes : array-like, optional
        Class labels; by default the distinct values of ``ddf[target]``.
    **compute_kwargs
        Passed to ``dask.compute`` (for instance ``scheduler="synchronous"``).

    Returns
    -------
    model
        Fitted; ``model.counts_`` holds the summed counts.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from pybnc import TAN
    >>> frame = pd.DataFrame({"a": list("xyxzyx"), "b": [0, 1, 1, 0, 1, 0], "y": list("nyynyn")})
    >>> model = fit_dask(TAN(), dd.from_pandas(frame, npartitions=3), "y", scheduler="synchronous")
    >>> int(model.counts_.n_rows), model.classes_.tolist()
    (6, ['n', 'y'])
    """
    import dask
    from sklearn.utils.validation import _check_feature_names

    model._check_learns_from_counts()
    if target not in ddf.columns:
        raise ValueError(f"target={target!r} is not a column of the Dask DataFrame.")
    X_meta = ddf._meta.drop(columns=[target])
    encoder, plan = _plan_encoder(model, X_meta, ddf)
    labels = ddf[target].dropna().drop_duplicates() if classes is None else None
    found, labels = dask.compute(plan, labels, **compute_kwargs)
    encoder = _finish_encoder(encoder, X_meta, found)
    classes = np.unique(np.asarray(labels if classes is None else classes))
    if classes.shape[0] < 2:
        raise ValueError(f"The classes are {list(classes)}; a classifier needs at least 2 classes.")
    count_part = dask.delayed(_count_partition)
    parts = [count_part(p, encoder, classes, target) for p in ddf.to_delayed()]
    (counts,) = dask.compute(_tree_sum(parts, dask.delayed(lambda a, b: a + b)), **compute_kwargs)
    _check_feature_names(model, X_meta, reset=True)
    model.classes_, model.encoder_, model.n_features_in_ = classes, encoder, X_meta.shape[1]
    model._fit_from_counts(counts)
    return model
