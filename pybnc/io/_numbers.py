"""Numbers as people write them in text tables: decimal commas and thousands separators.

:func:`pybnc.io.read_table` reads a column of such numbers as numbers. A cell says how
it is written when only one way reads it: ``1.5``, ``0.649`` and ``1,234.5`` have a
decimal point (and thousands commas), ``1,5``, ``0,649`` and ``1.234,5`` a decimal
comma (and thousands points). ``1,234`` and ``42.520`` read both ways (a first group of
one to three digits, not ``0``, then groups of three): a column of them follows the
other columns of the file; where none decides, ``"42,520"`` is 42520 in a
comma-separated file (it must be quoted there: a thousands separator) and 42.52 in a
semicolon-separated one (the delimiter of decimal-comma countries), and any other
such column (``42.520`` anywhere, ``42,520`` in a tab-separated file) is refused,
naming the column: ``decimal=`` says which.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

#: The thousands separator that goes with each decimal mark.
THOUSANDS = {".": ",", ",": "."}
#: Cells pandas reads as missing (its defaults) and ``?``.
NA_CELLS = frozenset({"", "?", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                      "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


def _pattern(decimal: str) -> re.Pattern:
    d, t = re.escape(decimal), re.escape(THOUSANDS[decimal])
    return re.compile(rf"[+-]?(?:[1-9]\d{{0,2}}(?:{t}\d{{3}})+(?:{d}\d*)?|\d+(?:{d}\d*)?|{d}\d+)(?:[eE][+-]?\d+)?")


#: A number written with each decimal mark (its thousands separator the other mark).
NUMBER = {mark: _pattern(mark) for mark in THOUSANDS}


def is_number_text(values: pd.Series) -> np.ndarray:
    """Which stripped strings are numbers written with either decimal mark."""
    return (values.str.fullmatch(NUMBER["."]) | values.str.fullmatch(NUMBER[","])).to_numpy(dtype=bool)


def numbers_written(values) -> dict:
    """``{mark: which of the distinct stripped strings are numbers written with it}``, as
    :data:`NUMBER` matches them, the expressions run only where needed (a table of floats
    has hundreds of thousands of distinct cells): a value of digits, points, signs and
    exponents alone is a number with a decimal point when pandas parses it, and one with
    a decimal comma only when it has no point or ends in a group of three digits."""
    values = np.asarray(values, dtype=str)
    text = pd.Series(values, dtype=object)
    simple = np.char.strip(values, "0123456789.eE+-") == ""  # no comma, no space, no letter but e
    out = {mark: np.zeros(values.size, dtype=bool) for mark in THOUSANDS}
    out["."][simple] = pd.to_numeric(text[simple], errors="coerce").notna().to_numpy()
    out["."][~simple] = text[~simple].str.fullmatch(NUMBER["."]).to_numpy(dtype=bool)
    dot = np.char.rfind(values, ".")
    maybe = ~simple | (dot < 0) | (np.char.str_len(values) - dot == 4) | (np.char.find(np.char.lower(values), "e") >= 0)
    out[","][maybe] = text[maybe].str.fullmatch(NUMBER[","]).to_numpy(dtype=bool)
    return out


def decimal_marks(cells: np.ndarray, delimiter: str, decimal=None, names=(), name="the file") -> dict:
    """``{column position: decimal mark}`` of the columns of a sample of text cells
    (``(rows, columns)`` stripped strings) that hold numbers written with a ``.`` or a
    ``,``, every observed cell a number read with that mark; ``decimal`` (``"."`` or
    ``","``) imposes the mark. Raises ``ValueError`` for a column the file does not decide
    (the module docstring gives the rules).

    Examples
    --------
    >>> import numpy as np
    >>> cells = np.array([["42.520", "0,5", "x"], ["1.234", "1,25", "y"]])
    >>> decimal_marks(cells, ";")  # the second column has decimal commas: so has the first
    {0: ',', 1: ','}
    >>> decimal_marks(cells[:, [0, 2]], ";")
    Traceback (most recent call last):
    ValueError: the file: column 'col1' holds numbers such as '42.520', which read as 42.52 (decimal point, \
thousands commas) or as 42520 (decimal comma, thousands points); say which with decimal='.' or decimal=',' \
(--decimal on the command line).
    """
    values, codes = np.unique(cells, return_inverse=True)
    codes = codes.reshape(cells.shape)
    observed_value = ~np.isin(values, list(NA_CELLS))
    has_mark = ((np.char.find(values, ".") >= 0) | (np.char.find(values, ",") >= 0)) & observed_value
    shown = np.flatnonzero(has_mark[codes].any(axis=0))  # the columns with a mark: the others are left
    if shown.size == 0:  # most tables
        return {}
    cells, codes = cells[:, shown], codes[:, shown]
    observed = observed_value[codes]
    number = {mark: matches[codes] for mark, matches in numbers_written(values).items()}
    fits = {mark: (number[mark] | ~observed).all(axis=0) for mark in THOUSANDS}
    point, comma = number["."] & observed, number[","] & observed
    candidate = fits["."] | fits[","]
    if decimal is not None:
        return {int(shown[j]): decimal for j in np.flatnonzero(candidate & fits[decimal])}
    says = {".": (point & ~comma).any(axis=0), ",": (comma & ~point).any(axis=0)}
    marks = {}
    for mark, other in (".", ","), (",", "."):
        marks.update((int(j), mark) for j in np.flatnonzero(candidate & fits[mark] & (says[mark] | ~fits[other])))
    in_file = set(marks.values())
    for j in np.flatnonzero(candidate & fits["."] & fits[","] & ~says["."] & ~says[","]):
        written = [c for c in cells[:, j] if c not in NA_CELLS and ("," in c or "." in c)]
        commas_only = all("." not in c for c in written)
        if len(in_file) == 1:
            marks[int(j)] = next(iter(in_file))  # as the file's other columns
        elif not in_file and commas_only and delimiter in (",", ";"):
            # "42,520" quoted in a comma-separated file is thousands; in a semicolon-separated
            # file (the delimiter where the comma is decimal) a decimal comma
            marks[int(j)] = "." if delimiter == "," else ","
        else:
            cell = str(next((c for c in written if "." in c), written[0]))
            raise ValueError(
                f"{name}: column {_name(names, shown[j])!r} holds numbers such as {cell!r}, which read as "
                f"{float(cell.replace(',', '')):g} (decimal point, thousands commas) or as "
                f"{float(cell.replace('.', '').replace(',', '.')):g} (decimal comma, thousands points)"
                f"{', and the file has columns of both' if in_file else ''}; say which with decimal='.' or "
                "decimal=',' (--decimal on the command line).")
    return {int(shown[j]): mark for j, mark in sorted(marks.items())}


def _name(names, j: int) -> str:
    return str(names[j]) if j < len(names) else f"col{j + 1}"


def to_numbers(col: pd.Series, decimal: str) -> tuple | None:
    """``(numbers, marks)`` of a text column whose every value is a number written with
    the decimal mark ``decimal`` (int64 when all are whole and none is missing, as pandas
    types a column), ``marks`` the set of ``"decimal"`` and ``"thousands"`` its values
    hold; None when a value is no such number."""
    observed = col.notna().to_numpy()
    text = col[observed].astype(str).str.strip()
    if not text.str.fullmatch(NUMBER[decimal]).all():
        return None
    thousands = THOUSANDS[decimal]
    marks = {what for what, mark in (("decimal", decimal), ("thousands", thousands))
             if text.str.contains(mark, regex=False).any()}
    numbers = pd.to_numeric(text.str.replace(thousands, "", regex=False).str.replace(decimal, ".", regex=False))
    if observed.all():
        return numbers.set_axis(col.index), marks
    out = np.full(len(col), np.nan)
    out[observed] = numbers.to_numpy(dtype=np.float64)
    return pd.Series(out, index=col.index, name=col.name), marks
