"""What each column is: the documented rules the encoder applies before coding.

* **Unsupported values** are refused at fit, naming the column and the fix: dates
  and durations (a model file stores labels as text, numbers or booleans only),
  bytes, and containers such as lists or dicts (they are not hashable labels).
* **Integer columns with many values are numbers.** An integer column (numpy or
  pandas nullable) with more than :data:`INTEGER_AS_NUMBER_ABOVE` distinct values
  is a measurement or an amount, not a code: it is discretised like a float
  column. Fewer values stay categories (codes, counts, small ordinals).
* **Identifier-like columns.** A categorical column whose distinct values make up
  at least :data:`ID_SHARE` of its observed rows (at least :data:`ID_MIN_DISTINCT`
  values), or at least :data:`ID_SHARE_BY_NAME` when its name says identifier
  (a word ``id``, ``identifier``, ``uuid``, ``guid`` or ``name``), names rows rather
  than describing them: nearly every level is seen once, so it cannot generalise,
  yet it enters every table and can swamp the model. An integer column with many
  values (a number, see above) is an identifier only when its name says so.

* **Numbers written as text are numbers.** A text column whose every value is a
  number (thousands commas too, where a value such as ``1,234.50`` shows them) or a
  missing-value token (:data:`MISSING_TOKENS`: ``?``, ``NA``, ``-``, ...),
  as ``pd.read_csv`` leaves a numeric column holding ``?``, is read as the numbers
  :func:`pybnc.io.read_table` would read, the tokens missing, when it holds a token, a
  fraction or more than :data:`INTEGER_AS_NUMBER_ABOVE` values (an
  :class:`EncodingWarning` names the column and its tokens); a few whole numbers and
  no token (codes ``"1"``, ``"2"``) stay text.

``categorical_features`` and ``numeric_features`` override the integer rule and
exempt a column from the identifier rule; pandas ``category`` columns are always
categorical (and ``categorical_features`` keeps numbers written as text as text).
"""

from __future__ import annotations

import datetime
import decimal
import re

import numpy as np
import pandas as pd

from .._utils.warn import warn

#: Integer columns with more distinct values than this are treated as numbers.
INTEGER_AS_NUMBER_ABOVE = 20
#: Share of distinct values among observed rows from which a column is an identifier.
ID_SHARE = 0.9
#: The same share for a column whose name says identifier.
ID_SHARE_BY_NAME = 0.5
#: Columns with fewer distinct values are never called identifiers (tiny tables).
ID_MIN_DISTINCT = 10
_ID_WORDS = {"id", "ids", "identifier", "uuid", "guid", "name"}
#: Numbers with thousands commas (``1,234.50``), plain numbers, and what only thousands
#: commas write (a decimal point or a second group after a group: not ``1,234`` alone,
#: which a decimal comma writes too).
_THOUSANDS_COMMAS = r"[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?"
_PLAIN = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_SURELY_GROUPED = r",\d{3}[.,]"
#: Cells of a column of numbers that say "no value" (compared stripped and lower-cased).
MISSING_TOKENS = frozenset({"", "?", "-", "--", ".", "na", "n/a", "nan", "null", "none", "#n/a", "missing"})


class EncodingWarning(UserWarning):
    """The encoder decided something about a column that changes the model: a column
    left out, an integer column taken as a number, values that became missing."""


def warn_columns(message: str, names) -> None:
    """One warning for the whole call, naming every column concerned (``{columns}`` in
    ``message``)."""
    names = list(names)
    if names:
        shown = ", ".join(repr(n) for n in names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        warn(message.replace("{columns}", shown), EncodingWarning)


def too_many_levels(name, n_levels: int, limit: int, n_present: int) -> ValueError:
    """The error for a categorical column with more than ``limit`` levels, ``n_present``
    of them seen in the rows (fewer when a pandas ``category`` declares unused ones)."""
    if n_present < n_levels:
        return ValueError(
            f"Column {name!r} declares {n_levels} categories, of which {n_present} occur, more than the "
            f"{limit} levels a column may have (limit max_levels={limit}): every table over it would hold a "
            f"row per declared category. Drop the unused ones with X[{name!r}] = "
            f"X[{name!r}].cat.remove_unused_categories() (categories not seen at fit are treated as "
            "missing at predict).")
    return ValueError(
        f"Column {name!r} has {n_levels} levels, more than the {limit} a categorical column may have "
        f"(limit max_levels={limit}): every table over it would hold a row per level, most of them "
        f"seen a few times. Group the rare levels, for example top = X[{name!r}].value_counts().index[:100]; "
        f"X[{name!r}] = X[{name!r}].where(X[{name!r}].isin(top), 'other'), or drop the column; if its "
        "values are numbers, cast it to float so that it is discretised.")


def parse_numbers(values, fitted: bool = False) -> tuple | None:
    """``(numbers, tokens)`` of distinct text values when each is a number or a missing-value
    token and at least one is a number: ``numbers[i]`` is ``values[i]`` as a float (NaN
    for a token), ``tokens`` the tokens seen, as written; None otherwise. Thousands commas
    are read where a value shows them (``1,234.50``), or in any value once ``fitted``
    (a column fitted so, at predict).

    Examples
    --------
    >>> numbers, tokens = parse_numbers(["1.5", " ?", "20", "NA"])
    >>> numbers.tolist()[::2], tokens
    ([1.5, 20.0], [' ?', 'NA'])
    >>> parse_numbers(["1.5", "high"]) is None
    True
    >>> parse_numbers(["1,234.50", "512", "?"])[0].tolist()
    [1234.5, 512.0, nan]
    """
    values = np.asarray(values, dtype=object)
    if not all(isinstance(v, str) for v in values):
        return None
    stripped = pd.Series(values, dtype=object).str.strip()
    token = stripped.str.lower().isin(MISSING_TOKENS).to_numpy()
    grouped = stripped.str.fullmatch(_THOUSANDS_COMMAS).to_numpy(dtype=bool)
    if grouped.any() and (grouped | token | stripped.str.fullmatch(_PLAIN).to_numpy(dtype=bool)).all() \
            and (fitted or stripped[grouped].str.contains(_SURELY_GROUPED).any()):
        stripped = stripped.str.replace(",", "", regex=False)  # "1,234.50": thousands commas, as written
    numbers = pd.to_numeric(stripped.where(~token), errors="coerce").to_numpy(dtype=np.float64)
    if token.all() or np.isnan(numbers[~token]).any() or np.isinf(numbers).any():
        return None
    return numbers, [str(v) for v in values[token]]


def text_as_numbers(levels) -> tuple | None:
    """:func:`parse_numbers` of a text column's distinct values at fit, when they are to be
    read as numbers: with a token, a fraction or more than :data:`INTEGER_AS_NUMBER_ABOVE`
    values (a few whole numbers and no token are codes: they stay text)."""
    found = parse_numbers(levels)
    if found is None:
        return None
    numbers, tokens = found
    seen = numbers[~np.isnan(numbers)]
    if tokens or np.any(seen != np.round(seen)) or np.unique(seen).size > INTEGER_AS_NUMBER_ABOVE:
        return found
    return None


def numbers_of_text(col: pd.Series) -> np.ndarray | None:
    """A text column as floats, its missing-value tokens NaN, or None when it holds other
    text (what a column fitted as numbers reads at predict)."""
    codes, uniques = pd.factorize(col)
    found = parse_numbers(uniques, fitted=True)
    return None if found is None else np.append(found[0], np.nan)[codes]


def warn_text_numbers(found: dict) -> None:
    """One :class:`EncodingWarning` for the text columns read as numbers, ``found``
    mapping each to its missing-value tokens."""
    if not found:
        return
    said = [f"{name!r}" + (f" (missing: {', '.join(map(repr, tokens[:5]))})" if tokens else "")
            for name, tokens in found.items()]
    warn(f"Text columns of numbers are read as numbers, their missing-value tokens as missing: "
         f"{', '.join(said[:10])}{' and more' if len(said) > 10 else ''}. To keep one as text, list it in "
         "encoder=pybnc.Encoder(categorical_features=[...]); to read such a file with the numbers typed, use "
         "pybnc.io.read_table or pd.read_csv(..., na_values=['?']).", EncodingWarning)


def name_says_identifier(name) -> bool:
    """True when a word of the column name is ``id``, ``name``, ... (``customerID``,
    ``animal_name``; not ``paid`` or ``valid``)."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", str(name))
    return any(w.lower() in _ID_WORDS for w in words)


def identifier_reason(name, n_distinct: int, n_observed: int, by_name_only: bool = False) -> str | None:
    """Why a column looks like a row identifier, or None if it does not. Integer
    columns taken as numbers are tested ``by_name_only``: a measurement too has nearly
    one value per row."""
    if n_distinct < ID_MIN_DISTINCT or n_observed == 0:
        return None
    share = n_distinct / n_observed
    if share >= ID_SHARE and not by_name_only:
        return f"{n_distinct} distinct values in {n_observed} observed rows ({share:.0%} >= {ID_SHARE:.0%})"
    if share >= ID_SHARE_BY_NAME and name_says_identifier(name):
        return (f"its name says identifier and it has {n_distinct} distinct values in {n_observed} "
                f"observed rows ({share:.0%} >= {ID_SHARE_BY_NAME:.0%})")
    return None


def is_integer_column(col: pd.Series) -> bool:
    return pd.api.types.is_integer_dtype(col.dtype) and not isinstance(col.dtype, pd.CategoricalDtype)


def is_float_column(col: pd.Series) -> bool:
    return pd.api.types.is_float_dtype(col.dtype)


def refuse_unsupported_dtype(col: pd.Series, name) -> None:
    """Dates, durations and periods cannot be labels of a saved model: say what to convert."""
    dtype = col.dtype
    if pd.api.types.is_datetime64_any_dtype(dtype) or isinstance(dtype, pd.PeriodDtype):
        raise TypeError(
            f"Column {name!r} holds dates ({dtype}); pybnc needs categories or numbers. Convert it, "
            f"for example X[{name!r}].dt.year, X[{name!r}].dt.dayofweek (categories), or "
            f"X[{name!r}].astype('int64') / 1e9 (seconds, a number that is discretised)."
        )
    arrow = getattr(dtype, "pyarrow_dtype", None)  # pandas ArrowDtype (read_csv(dtype_backend="pyarrow"))
    if arrow is not None and _arrow_kind(arrow, "is_nested"):
        raise TypeError(
            f"Column {name!r} holds nested values ({dtype}): a cell must be a string or a number, not a "
            f"container. Split it into columns, or convert it to text with X[{name!r}].astype(str)."
        )
    if arrow is not None and _arrow_kind(arrow, "is_decimal"):
        raise TypeError(f"Column {name!r} holds decimals ({dtype}); convert it to floats with "
                        f"X[{name!r}].astype(float) (discretised) or to text with X[{name!r}].astype(str).")
    if pd.api.types.is_timedelta64_dtype(dtype) or (arrow is not None and _arrow_kind(arrow, "is_duration")):
        raise TypeError(
            f"Column {name!r} holds durations ({dtype}); convert it to a number, for example "
            f"X[{name!r}].dt.total_seconds()."
        )
    if isinstance(dtype, pd.IntervalDtype) or pd.api.types.is_complex_dtype(dtype):
        raise TypeError(f"Column {name!r} has dtype {dtype}, which pybnc cannot encode; convert it to "
                        f"strings with X[{name!r}].astype(str) or to numbers.")


def _arrow_kind(arrow_type, test: str) -> bool:
    import pyarrow as pa  # present whenever a column has an ArrowDtype

    return bool(getattr(pa.types, test)(arrow_type))


def unhashable_error(col: pd.Series, name) -> TypeError:
    """The error for a column holding lists, dicts or sets, naming the first such row."""
    values = col.to_numpy(dtype=object)
    row = next(i for i, v in enumerate(values) if isinstance(v, (list, dict, set, np.ndarray)) or not _hashable(v))
    return TypeError(
        f"Column {name!r} holds a {type(values[row]).__name__} at row {row} ({str(values[row])[:40]}): "
        "a cell must be a string or a number, not a container. Split it into columns, or convert "
        f"it to text with X[{name!r}].astype(str)."
    )


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


_LABEL_TYPES = (str, bool, int, float, np.str_, np.bool_, np.integer, np.floating)


def refuse_unsupported_levels(levels: np.ndarray, name) -> None:
    """Levels a model file cannot store as text, numbers or booleans (checked on the
    few distinct values, not on every row)."""
    for level in levels:
        if isinstance(level, _LABEL_TYPES):
            continue
        if isinstance(level, (bytes, bytearray)):
            raise TypeError(f"Column {name!r} holds bytes ({level[:20]!r}); decode it to text first, "
                            f"for example X[{name!r}].str.decode('utf-8').")
        if isinstance(level, (pd.Timedelta, np.timedelta64, datetime.timedelta)):
            raise TypeError(f"Column {name!r} holds durations ({level!r}); convert them to numbers, for example "
                            f"pd.to_timedelta(X[{name!r}]).dt.total_seconds().")
        if isinstance(level, decimal.Decimal):
            raise TypeError(f"Column {name!r} holds decimals ({level!r}); convert them to floats with "
                            f"X[{name!r}].astype(float) (discretised) or to text with X[{name!r}].astype(str).")
        if isinstance(level, (pd.Timestamp, np.datetime64)) or \
                type(level).__module__ == "datetime":
            raise TypeError(f"Column {name!r} holds dates or times ({level!r}); convert them to numbers "
                            f"or categories, for example pd.to_datetime(X[{name!r}]).dt.year.")
        raise TypeError(f"Column {name!r} holds a {type(level).__name__} value ({str(level)[:40]}); a cell "
                        f"must be a string, a number or a boolean. Convert it with X[{name!r}].astype(str).")


def label_family(value) -> str:
    """``"text"``, ``"number"`` or ``"other"``: values of different families never match."""
    if isinstance(value, (str, np.str_)):
        return "text"
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return "number"
    return "other"
