"""Fit on data larger than memory: count each block, sum the counts, learn once.

Counts are additive (:mod:`pybnc.counts.tables`): the counts of a union of row blocks are
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

Encoding (``docs/large-data.md``): block by block, the first block decides each
column's kind and new levels are added as they come (:func:`pybnc.encode.grow_encoder`,
the running counts padded by :func:`remap_counts`); with Dask the encoding is learned
from all the data in one pass (:mod:`pybnc.encode.grow` says how, and what is
refused).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._utils.optional import require
from .counts.tables import count, remap_counts
from ._utils.sample_weight import check_sample_weight, take_rows
from .estimators.base import Encoding, run_passes
from .estimators.capabilities import block_refusal, capabilities
from .encode import finish_encoder, grow_encoder, plan_encoder
from .encode.class_tables import tree_sum as _tree_sum
from .encode.column_facts import LABELS
from .encode.grow import plan_encoder_bins
from .encode.labels import check_labels

__all__ = ["fit_blocks", "fit_dask", "grow_encoder", "predict_proba_dask", "remap_counts"]


def _split(block, target, weight=None):
    """``(X, y, sample_weight)`` of a block (the weights None when it has none)."""
    if target is None:
        if not isinstance(block, (tuple, list)) or len(block) not in (2, 3):
            raise ValueError("Without target=, each block must be an (X, y) or (X, y, sample_weight) pair; got "
                             f"{type(block).__name__}.")
        return (*block, None) if len(block) == 2 else tuple(block)
    frame = block.to_pandas() if hasattr(block, "to_pandas") else block
    for role, name in (("target", target), ("weight", weight)):
        if name is not None and name not in frame.columns:
            raise ValueError(f"{role}={name!r} is not a column of the block ({list(frame.columns)[:5]}...).")
    drop = [target] if weight is None else [target, weight]
    return frame.drop(columns=drop), frame[target], None if weight is None else frame[weight].to_numpy()


def fit_blocks(model, blocks, target=None, classes=None, weight=None):
    """Fit ``model`` on a stream of row blocks, one block in memory at a time.

    Parameters
    ----------
    model : pybnc estimator that learns from counts
        Fitted from scratch, as by ``fit`` (use ``partial_fit`` to continue a fit).
    blocks : iterable or callable
        DataFrames (or pyarrow tables / record batches) holding the ``target``
        column, or ``(X, y)`` pairs (``(X, y, sample_weight)`` triples for weighted
        rows) when ``target`` is None. Sahami's kDB reads them
        twice (pairs, then the families of the structure they chose), SKDB three
        times (then the leave-one-out losses): pass a list, or
        a function returning a fresh iterable (``lambda: pd.read_csv(path, chunksize=n)``).
    target : str, optional
        Name of the class column of each block.
    classes : array-like
        Every class label of the whole stream (the first block may not show all).
    weight : str, optional
        Name of the column of each block holding the rows' sample weights (with
        ``target``); the fit equals ``fit(X, y, sample_weight=w)`` on all the rows,
        for a model whose ``capabilities(model).sample_weight`` is ``"counts"``.

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
    model._begin_fit()
    found = capabilities(model)
    refusal = block_refusal(model, one_pass=False)
    if refusal:
        raise TypeError(refusal)
    if classes is None:
        raise ValueError("classes must list every class label of the stream: the first block may not show all.")
    if (found.passes > 1 or found.rereads_rows) and not callable(blocks) and iter(blocks) is blocks:
        how = ("again at every step of its optimiser" if found.rereads_rows else
               f"{found.passes} times (what the first pass counts decides what the next ones count)")
        raise TypeError(
            f"{type(model).__name__} reads the blocks {how}, and this iterator can be read only once. Pass a list "
            "of blocks, or a function that returns a fresh iterable, e.g. lambda: pd.read_csv(path, "
            "chunksize=100_000)."
        )
    source = blocks if callable(blocks) else (lambda: blocks)
    started = weighted = False
    for block in source():
        X, y, w = _split(block, target, weight)
        if w is not None and found.sample_weight != "counts":
            raise TypeError(f"{type(model).__name__} learns sample weights as repeated rows, which blocks cannot "
                            "give (capabilities(model).sample_weight == 'repeats'). Fit it in memory with "
                            "fit(X, y, sample_weight=w).")
        weighted = weighted or w is not None
        X, y, w = _positive_rows(X, y, w)
        if len(y) == 0:
            continue
        model._add_block(X, y, None if started else classes, w)
        started = True
        del block, X, y, w  # keep one block alive, not two, while the next one loads
    if not started:
        raise ValueError("blocks is empty: there are no rows to fit.")
    if found.passes == 1 and not found.rereads_rows:  # what the blocks added is all the model learns from
        model._fit_from_counts(model.counts_)
        return model

    def read():
        for block in source():
            X, y, w = _positive_rows(*_split(block, target, weight))
            if len(y) == 0:
                continue
            codes, y_codes = model._code_block(X, y)
            yield (codes, y_codes) if not weighted else (codes, y_codes, np.ones(len(y)) if w is None else w)

    run_passes(model._learn_in_passes(model.counts_), read)
    return model


def _positive_rows(X, y, sample_weight):
    """A block's rows of positive weight, their labels and weights (a block without
    weights as it is; one whose weights are all zero is empty: every row absent)."""
    if sample_weight is None:
        return X, y, None
    y = check_labels(y, len(sample_weight))
    weights = check_sample_weight(sample_weight, len(y), allow_all_zero=True)
    kept = np.flatnonzero(weights > 0)
    return take_rows(X, kept), y[kept], weights[kept]


# -- Dask ---------------------------------------------------------------------------------
def _partition_weights(frame, weight):
    """A partition's rows of positive weight and their weights (None without ``weight``)."""
    if weight is None:
        return frame, None
    weights = check_sample_weight(frame[weight].to_numpy(), len(frame), allow_all_zero=True) if len(frame) \
        else np.zeros(0)
    kept = weights > 0
    return frame[kept].drop(columns=[weight]), weights[kept]


def _count_partition(frame, encoder, classes, target, pairs, weight=None):
    frame, weights = _partition_weights(frame, weight)
    y = check_labels(frame[target], len(frame)) if len(frame) else frame[target].to_numpy()
    y_codes = pd.Index(classes).get_indexer(y)
    if (y_codes < 0).any():
        raise ValueError(f"y holds the label {y[y_codes < 0][0]!r}, not in classes={list(classes)}.")
    codes = encoder.transform(frame.drop(columns=[target]))
    return count(codes, y_codes, encoder.cardinalities_, len(classes), pairs=pairs, weights=weights)


def _code_partition(frame, encoder, classes, target, weight=None):
    frame, weights = _partition_weights(frame, weight)
    y_codes = pd.Index(classes).get_indexer(frame[target].to_numpy())
    codes = encoder.transform(frame.drop(columns=[target]))
    return (codes, y_codes) if weight is None else (codes, y_codes, weights)


def fit_dask(model, ddf, target, classes=None, weight=None, **compute_kwargs):
    """Fit ``model`` on a Dask DataFrame: count every partition in parallel, sum.

    Two passes over the data: one learns the encoding (distinct levels of
    categorical columns, the cut points of float columns: MDL from the exact class
    counts per distinct value, approximate quantiles or exact min/max; the classes),
    one counts every partition; the counts are summed by a
    tree reduction and the model is learned from the total. MDL on a column with more
    than 100,000 distinct values takes two more passes, its quantiles and the class
    counts of the bins they make (:mod:`pybnc.encode.grow`). Sahami's kDB takes one
    more: the families (several feature parents) of the structure the counts chose.

    Parameters
    ----------
    model : pybnc estimator that learns from counts
    ddf : dask.dataframe.DataFrame
    target : str
        Name of the class column.
    classes : array-like, optional
        Class labels; by default the distinct values of ``ddf[target]``.
    weight : str, optional
        Name of the column holding each row's sample weight, for a model whose
        ``capabilities(model).sample_weight`` is ``"counts"``: every partition is counted
        with its rows' weights (a row of weight 0 is absent, the encoding pass
        included), so the fit equals ``fit(X, y, sample_weight=w)`` in memory. The
        encoding pass itself is not weighted: numeric columns to discretise are refused
        with weights (cut them first, or use :func:`fit_blocks`), and the identifier
        rule counts the rows of positive weight once each.
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
    dask = require("dask", "fit_dask")

    model._begin_fit()
    refusal = block_refusal(model, one_pass=False)
    if refusal:
        raise TypeError(refusal)
    for role, name in (("target", target), ("weight", weight)):
        if hasattr(name, "dtype"):  # a Series (Dask's or pandas'), not a column's name
            raise TypeError(f"{role} is the name of a column of ddf, not a {type(name).__name__}: "
                            f"fit_dask(model, ddf, {role}={getattr(name, 'name', None) or 'class'!r}).")
        if name is not None and name not in ddf.columns:
            raise ValueError(f"{role}={name!r} is not a column of the Dask DataFrame; its columns: "
                             f"{', '.join(map(str, ddf.columns[:20]))}{' ...' if len(ddf.columns) > 20 else ''}.")
    weighted = ddf
    if weight is not None:
        if capabilities(model).sample_weight != "counts":
            raise TypeError(f"{type(model).__name__} learns sample weights as repeated rows, which partitions "
                            "cannot give (capabilities(model).sample_weight == 'repeats'). Fit it in memory with "
                            "fit(X, y, sample_weight=w).")
        ddf = ddf[ddf[weight] > 0].drop(columns=[weight])  # the encoding of the rows present
    X_meta = ddf._meta.drop(columns=[target])
    encoder = model._encoder()
    partitions = ddf.to_delayed()  # once: building a partition's task can cost (from_pandas converts strings)
    (found,) = dask.compute(plan_encoder(encoder, X_meta, ddf, target, partitions), **compute_kwargs)
    classes = np.unique(np.asarray(found[LABELS] if classes is None else classes))
    if classes.shape[0] < 2:
        raise ValueError(f"The classes are {list(classes)}; a classifier needs at least 2 classes.")
    bins = plan_encoder_bins(found, ddf, target, classes, **compute_kwargs)
    if bins is not None:  # MDL columns with too many distinct values: their bins' class counts
        (more,) = dask.compute(bins, **compute_kwargs)
        found = {**found, **more}
    encoder = finish_encoder(encoder, X_meta, found, classes)
    cut = [name for name, kind in zip(encoder.columns_, encoder.kinds_) if kind == "discretised"]
    if weight is not None and cut:
        raise ValueError(f"fit_dask(weight={weight!r}) cannot weigh the cut points of the numeric columns "
                         f"{cut[:5]} (they are learned in an unweighted pass of their own). Cut them first (pd.cut, "
                         "or categorical_features=), or fit in blocks with pybnc.streaming.fit_blocks(weight=).")
    if weight is not None:  # count the partitions with their weights (and their zero-weight rows left out)
        partitions = weighted.to_delayed()
    count_part = dask.delayed(_count_partition)
    pairs = capabilities(model).pair_counts
    parts = [count_part(p, encoder, classes, target, pairs, weight) for p in partitions]
    (counts,) = dask.compute(_tree_sum(parts, dask.delayed(lambda a, b: a + b)), **compute_kwargs)
    model._start_fit(Encoding.of(X_meta, classes, encoder), counts)
    code_part = dask.delayed(_code_partition)
    add = dask.delayed(lambda a, b: a + b)

    def total(per_block):  # every partition in parallel, summed in the partitions' order
        apply = dask.delayed(lambda coded, f: f(*coded))
        results = [apply(code_part(p, encoder, classes, target, weight), per_block) for p in partitions]
        out = results[0]
        for part in results[1:]:
            out = add(out, part)
        return dask.compute(out, **compute_kwargs)[0]

    run_passes(model._learn_in_passes(counts), total=total)
    return model


def predict_proba_dask(model, ddf):
    """Class probabilities of every row of a Dask DataFrame, partition by partition.

    Parameters
    ----------
    model : fitted pybnc classifier
    ddf : dask.dataframe.DataFrame
        The model's feature columns (a class column, if any, is left out by name).

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy; one column per class (``model.classes_``), the partitions' index.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from pybnc import NaiveBayes
    >>> frame = pd.DataFrame({"a": list("xyxzyx"), "y": list("nyynyn")})
    >>> model = NaiveBayes().fit(frame[["a"]], frame["y"])
    >>> proba = predict_proba_dask(model, dd.from_pandas(frame[["a"]], npartitions=2))
    >>> bool(abs(proba.compute().to_numpy() - model.predict_proba(frame[["a"]])).max() == 0)
    True
    """
    columns = [str(c) for c in model.classes_]
    features = list(getattr(model, "feature_names_in_", ddf.columns))
    meta = pd.DataFrame({c: pd.Series(dtype=np.float64) for c in columns})

    def part(frame):
        return pd.DataFrame(model.predict_proba(frame[features]), columns=columns, index=frame.index)

    return ddf.map_partitions(part, meta=meta)
