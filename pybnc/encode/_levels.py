"""Column values to level codes at hash speed.

Strings (object, pandas ``str``, pyarrow strings), nullable integers and mixed
columns are factorised by :func:`pandas.factorize` (one hash pass in C, pyarrow's
``dictionary_encode`` for Arrow-backed columns); only the few distinct values are
then sorted and matched against the fitted levels. Plain numpy integer and
boolean columns skip hashing: a lookup table over their value range (or a sort
when the range is much wider than the column) gives the codes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._columns import label_family, unhashable_error

MISSING = -1


def sort_levels(uniques) -> np.ndarray:
    """Distinct values as an object array, sorted when they are mutually comparable
    (else by their text), the order every encoder and block-wise fit shares."""
    uniques = np.asarray(uniques, dtype=object)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:
        order = np.argsort(np.array([str(u) for u in uniques], dtype=object), kind="stable")
    return uniques[order]


#: At most this many values matched against at most this many levels are looked up in a
#: dict: building a pandas index costs more than such lookups (0.2 to 0.5 ms a column in
#: pandas 3.1, against a few microseconds).
DICT_MATCH_MAX_LEVELS = 256
DICT_MATCH_MAX_VALUES = 4096


def match_levels(levels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The position of each of ``values`` among the distinct ``levels``, ``-1`` where it
    is none of them (equality as pandas' object hashing: ``1 == 1.0``).

    Examples
    --------
    >>> match_levels(np.array(["a", "b"], dtype=object), np.array(["b", "z", "a"], dtype=object)).tolist()
    [1, -1, 0]
    """
    if len(levels) <= DICT_MATCH_MAX_LEVELS and len(values) <= DICT_MATCH_MAX_VALUES:
        position = {level: i for i, level in enumerate(levels)}
        if len(position) == len(levels):  # else levels equal as keys (1 and 1.0): pandas decides
            return np.fromiter((position.get(v, -1) for v in values), dtype=np.int64, count=len(values))
    return pd.Index(levels, dtype=object).get_indexer(values)


def _plain_integers(col: pd.Series) -> np.ndarray | None:
    """The values of a numpy integer or boolean column (no missing values), else None."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        values = col.to_numpy()
        return values.view(np.uint8) if dtype.kind == "b" else values
    return None


def _float_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, uniques)`` of a numpy float column by numpy, ``-1`` where a value is NaN,
    the uniques increasing (the order :func:`sort_levels` gives them); None for another
    column. pandas' fixed cost (about 50 to 90 microseconds a column in pandas 3.1) is
    most of the work on a test fold of a few hundred rows."""
    if not (isinstance(col.dtype, np.dtype) and col.dtype.kind == "f"):
        return None
    values = col.to_numpy()
    observed = ~np.isnan(values)
    uniques, inverse = np.unique(values[observed], return_inverse=True)
    codes = np.full(values.shape[0], MISSING, dtype=np.intp)
    codes[observed] = inverse.ravel()
    return codes, uniques.astype(object)


def _factorize(col: pd.Series, name) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)``: codes into the distinct values (an object array), ``-1`` where a
    value is missing, as :func:`pandas.factorize` gives them (uniques in any order)."""
    floats = _float_codes(col)
    if floats is not None:
        return floats
    try:
        codes, uniques = pd.factorize(col, sort=False)
    except TypeError:
        raise unhashable_error(col, name) from None
    return codes, np.asarray(uniques, dtype=object)


def _dense_range(values: np.ndarray) -> tuple[int, int] | None:
    """``(low, high)`` when a lookup table over the range is cheaper than sorting."""
    if values.size == 0:
        return None
    low, high = int(values.min()), int(values.max())
    return (low, high) if high - low <= 4 * values.size + 1024 else None


def factorize_column(col: pd.Series, name) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, levels)`` of a non-categorical column: int32 codes into the sorted
    distinct observed values (an object array), ``-1`` where the value is missing."""
    values = _plain_integers(col)
    if values is not None:
        span = _dense_range(values)
        if span is None:
            levels, codes = np.unique(values, return_inverse=True)
        else:
            present = np.bincount(values - span[0], minlength=span[1] - span[0] + 1) > 0
            rank = np.cumsum(present, dtype=np.int32) - 1
            codes, levels = rank[values - span[0]], np.flatnonzero(present) + span[0]
        levels = levels.astype(col.dtype)
        return codes.astype(np.int32, copy=False).ravel(), levels.astype(object)
    floats = _float_codes(col)
    if floats is not None:  # the uniques are the sorted levels already
        return floats[0].astype(np.int32), floats[1]
    codes, uniques = _factorize(col, name)
    levels = sort_levels(uniques)
    rank = np.empty(len(uniques) + 1, dtype=np.int32)
    rank[:-1] = match_levels(levels, uniques)
    rank[-1] = MISSING
    return rank[codes], levels


def factorize_integer_matrix(arr: np.ndarray) -> tuple[np.ndarray, list] | None:
    """``(codes, levels)`` of every column of a 2-D numpy integer array at once: int32
    codes of shape ``(n, k)`` (C order, what the counts read) and each column's sorted
    distinct values; None when the value ranges are too wide for one lookup table.
    The same codes and levels as :func:`factorize_column` column by column, without a
    Python step per column (thousands of columns)."""
    low, high = arr.min(axis=0).astype(np.int64), arr.max(axis=0).astype(np.int64)
    spans = high - low + 1
    if int(spans.sum()) > 4 * arr.size + 1024:
        return None
    offsets = np.concatenate([[0], np.cumsum(spans)])
    shifted = arr - (low - offsets[:-1])  # column j's values land in [offsets[j], offsets[j+1])
    present = np.bincount(shifted.ravel(), minlength=int(offsets[-1])) > 0
    n_levels = np.add.reduceat(present, offsets[:-1]).astype(np.int64)
    base = np.concatenate([[0], np.cumsum(n_levels)[:-1]])
    # each slot's code within its column, as int32: one gather gives the codes
    code_of_slot = (np.cumsum(present, dtype=np.int64) - 1 - np.repeat(base, spans)).astype(np.int32)
    codes = code_of_slot[shifted]
    values = np.flatnonzero(present) - np.repeat(offsets[:-1] - low, n_levels)
    levels = np.split(values.astype(arr.dtype).astype(object), np.cumsum(n_levels)[:-1])
    return codes, levels


def lookup_integer_matrix(arr: np.ndarray, levels: list) -> np.ndarray | None:
    """Codes of every column of a 2-D integer array among sorted integer ``levels``
    (one list per column), ``-1`` for values not among them; None when the levels'
    ranges are too wide for one lookup table."""
    low = np.array([lv[0] for lv in levels], dtype=np.int64)
    high = np.array([lv[-1] for lv in levels], dtype=np.int64)
    spans = high - low + 2  # the last slot of each column: a value out of its range
    if int(spans.sum()) > 4 * arr.size + 1024:
        return None
    offsets = np.concatenate([[0], np.cumsum(spans)])
    table = np.full(int(offsets[-1]), MISSING, dtype=np.int32)
    for j, lv in enumerate(levels):  # a few entries per column
        table[offsets[j] + np.asarray(lv, dtype=np.int64) - low[j]] = np.arange(len(lv), dtype=np.int32)
    index = arr.astype(np.int64) - low
    outside = (index < 0) | (index > high - low)
    index = np.where(outside, spans - 1, index) + offsets[:-1]
    return table[index]


def lookup_column(col: pd.Series, levels: np.ndarray, name) -> tuple[np.ndarray, object]:
    """Codes of a column's values among fitted ``levels`` (``-1`` for a missing or unseen
    value), and an example of an unseen value of another kind than the levels (an
    integer where strings were fitted), or None."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        # Map the few categories, then take by the column's codes (-1 is missing there too).
        categories = col.dtype.categories.to_numpy(dtype=object)
        if categories.size == levels.size and all(a == b and type(a) is type(b) for a, b in zip(categories, levels)):
            return col.array.codes.astype(np.int32), None  # the levels are the categories
        uniques, codes = categories, col.array.codes
    else:
        values = _plain_integers(col)
        if values is not None and levels.size and all(isinstance(v, (int, np.integer)) for v in levels):
            codes = _integer_lookup(values, np.asarray(levels, dtype=np.int64))
            if codes is not None:
                return codes, None
        if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f" and levels.size \
                and all(isinstance(v, (float, np.floating)) for v in levels):
            codes = _float_lookup(col.to_numpy(), np.asarray(levels, dtype=np.float64))
            if codes is not None:  # an unseen number is of the levels' kind: no example
                return codes, None
        codes, uniques = _factorize(col, name)
    mapping = np.append(match_levels(levels, uniques), MISSING).astype(np.int32)
    return mapping[codes], _foreign_example(uniques[mapping[:-1] < 0], levels)


def lookup_grouped_column(col: pd.Series, kept: np.ndarray, rare: np.ndarray, name) -> tuple[np.ndarray, object]:
    """:func:`lookup_column` for a column whose ``rare`` levels were grouped into one level,
    coded ``kept.size`` after the ``kept`` ones: a rare level, and a value never seen at fit
    of the levels' kind, get that code (a level never seen is rarer still); a missing
    value, and one of another kind than the levels, stay ``-1``."""
    codes, example = lookup_column(col, np.concatenate([kept, rare]), name)
    codes[codes >= kept.size] = kept.size
    unseen = (codes < 0) & ~col.isna().to_numpy()
    if unseen.any():
        fitted = _fitted_kinds(kept) | _fitted_kinds(rare)
        which, values = pd.factorize(col[unseen], sort=False)  # the distinct unseen values, once each
        of_kind = np.array([label_family(v) in fitted for v in np.asarray(values, dtype=object)], dtype=bool)
        rows = np.flatnonzero(unseen)
        codes[rows[of_kind[which]]] = kept.size
    return codes, example


#: Cells hashed at once by :func:`lookup_text_columns` (a block of columns of a wide table).
BLOCK_CELLS = 1 << 21


def is_text_column(col: pd.Series) -> bool:
    return col.dtype == object or isinstance(col.dtype, pd.StringDtype)


def lookup_text_columns(columns: list, levels: list) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lookup_column` for many object or string columns at once: the codes of each
    column's values among its fitted ``levels`` (``-1`` for a missing or unseen value),
    shape ``(n, len(columns))``, and which columns hold a value that matches no level.

    One :func:`pandas.factorize` hashes a block of columns' cells together and the pairs
    (column, value) are matched by a binary search, instead of a factorisation and an
    index per column, whose fixed costs make a wide table (thousands of columns, few
    rows) slow. Matching is by value as in :func:`lookup_column`."""
    n = len(columns[0])
    codes = np.empty((n, len(columns)), dtype=np.int32)
    unseen = np.zeros(len(columns), dtype=bool)
    step = max(1, BLOCK_CELLS // max(n, 1))
    for start in range(0, len(columns), step):
        part, part_levels = columns[start:start + step], levels[start:start + step]
        b = len(part)
        values = np.stack([col.to_numpy(dtype=object) for col in part])  # (b, n): one column a row
        found, uniques = pd.factorize(values.ravel())
        sizes = np.array([len(lv) for lv in part_levels], dtype=np.int64)
        fitted = np.concatenate([np.asarray(lv, dtype=object) for lv in part_levels]) if sizes.sum() \
            else np.empty(0, dtype=object)
        which = pd.Index(uniques, dtype=object).get_indexer(fitted)  # -1: a level absent from the block
        owner = np.repeat(np.arange(b, dtype=np.int64), sizes)
        local = np.arange(sizes.sum(), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        keep = which >= 0
        keys = owner[keep] * len(uniques) + which[keep]
        order = np.argsort(keys)
        keys, local = keys[order], local[keep][order]
        wanted = np.repeat(np.arange(b, dtype=np.int64) * len(uniques), n) + found
        if keys.size:
            at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
            hit = (keys[at] == wanted) & (found >= 0)
            block = np.where(hit, local[at], MISSING).reshape(b, n)
        else:
            hit, block = np.zeros(found.size, dtype=bool), np.full((b, n), MISSING)
        codes[:, start:start + b] = block.T
        unseen[start:start + b] = ((found >= 0) & ~hit).reshape(b, n).any(axis=1)
    return codes, unseen


def _integer_lookup(values: np.ndarray, levels: np.ndarray) -> np.ndarray | None:
    """Codes of integer ``values`` among sorted integer ``levels`` by a lookup table over
    the levels' range (or a binary search when the range is wide); None if unsorted."""
    if np.any(np.diff(levels) <= 0):
        return None
    low, high = int(levels[0]), int(levels[-1])
    if high - low > 4 * levels.size + 1024:
        pos = np.minimum(np.searchsorted(levels, values), levels.size - 1)
        return np.where(levels[pos] == values, pos, MISSING).astype(np.int32)
    table = np.full(high - low + 2, MISSING, dtype=np.int32)  # the last slot: out of range
    table[levels - low] = np.arange(levels.size, dtype=np.int32)
    if values.dtype.kind == "u" and low == 0:
        offset = values
    else:
        offset = values.astype(np.int64) - low
        offset[offset < 0] = high - low + 1
    return table[np.minimum(offset, high - low + 1)]


def _fitted_kinds(levels: np.ndarray) -> set:
    """The kinds of label (text, number, ...) of fitted levels, read from the first 50."""
    return {label_family(v) for v in levels[:50]}


def _float_lookup(values: np.ndarray, levels: np.ndarray) -> np.ndarray | None:
    """Codes of float ``values`` among increasing float ``levels`` by a binary search
    (``-1`` for NaN and unseen values), None if the levels are not increasing: a
    factorisation of the column costs ten times more on a few hundred rows."""
    if not (levels[1:] > levels[:-1]).all():
        return None
    pos = np.searchsorted(levels, values)
    np.minimum(pos, levels.size - 1, out=pos)
    return np.where(levels[pos] == values, pos, MISSING).astype(np.int32)


def _foreign_example(unseen: np.ndarray, levels: np.ndarray):
    if unseen.size == 0 or levels.size == 0:
        return None
    fitted = _fitted_kinds(levels)
    return next((v for v in unseen if label_family(v) not in fitted), None)
