"""Read Weka's ARFF files into a DataFrame.

Why not a library: scipy's ``scipy.io.arff`` reads no string attributes and no sparse
data and refuses UCI's soybean.arff (a declared value with a leading blank), and
liac-arff refuses Weka's own breast-w.arff (``integer [1,10]``); both are pure-Python
row loops. Here the header is parsed line by line (it is short) and the data section
goes to pandas' C parser, so a large ARFF file reads as fast as a CSV.

Supported: ``@relation``; ``@attribute`` of type numeric/real/integer (anything after
the type, such as Weka's ``[1,10]`` range, is ignored), nominal ``{a, b, 'c d'}``
(declared order kept), string and date (both read as text); quoted names and values
(single or double quotes, backslash escapes); ``%`` comments; ``?`` missing; dense and
sparse (``{index value, ...}``) data. Not supported: relational attributes and
instance weights (``{...}`` after a dense row), refused with a message that says so.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from ._sniff import sniff

_NUMERIC = ("numeric", "real", "integer")
_TOKEN = re.compile(r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^\s{},'"]+))""")
_ESCAPE = re.compile(r"\\(.)")
_VALUE = re.compile(r"""\s*(?:'((?:[^'\\]|\\.)*)'\s*|"((?:[^"\\]|\\.)*)"\s*|([^,]*))""")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_LINE_END = re.compile(r"\r\n|\r|\n")


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _token(text: str, pos: int):
    """``(value, end)`` of the quoted or bare word at ``pos``, or ``(None, pos)``."""
    match = _TOKEN.match(text, pos)
    if not match or match.end() == pos:
        return None, pos
    quoted = match.group(1) if match.group(1) is not None else match.group(2)
    return (_unescape(quoted) if quoted is not None else match.group(3)), match.end()


def _split_values(text: str, name: str, number: int) -> list:
    """The comma-separated, possibly quoted values of a nominal declaration."""
    values, pos = [], 0
    while pos < len(text):
        match = _VALUE.match(text, pos)
        quoted = match.group(1) if match.group(1) is not None else match.group(2)
        values.append(_unescape(quoted) if quoted is not None else match.group(3).strip())
        pos = match.end()
        if pos < len(text) and text[pos] != ",":
            raise ArffError(f"{name}, line {number}: cannot read the declared values {text[:60]!r}.")
        pos += 1
    return [v for v in values if v != ""]


class ArffError(ValueError):
    """A malformed ARFF file; the message names the file and the line."""


def _parse_header(lines, name):
    """``(relation, [(attribute, type, values)], index of the first data line)``."""
    relation, attributes = None, []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        keyword = text.split(None, 1)[0].lower()
        rest = text[len(keyword):].strip()
        if keyword == "@relation":
            relation = _token(rest, 0)[0] or rest
        elif keyword == "@attribute":
            attribute, end = _token(rest, 0)
            kind = rest[end:].strip()
            if attribute is None or not kind:
                raise ArffError(f"{name}, line {number}: cannot read the attribute declaration {text[:80]!r}.")
            attributes.append(_attribute_type(attribute, kind, name, number))
        elif keyword == "@data":
            if not attributes:
                raise ArffError(f"{name}, line {number}: @data before any @attribute.")
            return relation, attributes, number
        else:
            raise ArffError(f"{name}, line {number}: expected @relation, @attribute or @data, found {text[:60]!r}.")
    raise ArffError(f"{name}: no @data line; this is not a complete ARFF file.")


def _attribute_type(attribute, kind, name, number):
    if kind.startswith("{"):
        if "}" not in kind:
            raise ArffError(f"{name}, line {number}: the values of {attribute!r} lack a closing '}}'.")
        values = _split_values(kind[1:kind.rindex("}")], name, number)
        if len(set(values)) != len(values):
            raise ArffError(f"{name}, line {number}: attribute {attribute!r} declares a value twice.")
        return attribute, "nominal", values
    word = kind.split(None, 1)[0].lower()
    if word in _NUMERIC:
        return attribute, "numeric", None
    if word in ("string", "date"):
        return attribute, word, None
    if word == "relational":
        raise ArffError(f"{name}, line {number}: relational attribute {attribute!r} is not supported "
                        "(multi-instance data); flatten it first.")
    raise ArffError(f"{name}, line {number}: unknown type {kind[:40]!r} of attribute {attribute!r}.")


def _data_lines(lines, start):
    """``(line numbers, texts)`` of the data rows after line ``start``."""
    numbers, texts = [], []
    for number, line in enumerate(lines[start:], start=start + 1):
        text = line.strip()
        if text and not text.startswith("%"):
            numbers.append(number)
            texts.append(text)
    return numbers, texts


def _dense(texts, numbers, columns, name) -> pd.DataFrame:
    data = "\n".join(texts)
    if "'" in data and '"' in data:  # both quote styles: pandas takes one, so tokenise here
        return _dense_mixed(texts, numbers, columns, name)
    try:
        frame = pd.read_csv(io.StringIO(data), header=None, names=range(len(columns)), dtype=str,
                            keep_default_na=False, na_values=["?"], quotechar='"' if '"' in data else "'",
                            escapechar="\\", skipinitialspace=True, engine="c")
    except pd.errors.ParserError as exc:
        found = re.search(r"line (\d+), saw (\d+)", str(exc))
        where = f"line {numbers[int(found.group(1)) - 1]}" if found else "the data"
        saw = f" {found.group(2)} values" if found else ""
        raise ArffError(f"{name}, {where}: a row holds{saw or ' more values'} for the {len(columns)} "
                        "attributes declared.") from None
    # A missing last field reads as "", like an empty one: only a trailing comma or quotes write that.
    short = (frame.iloc[:, -1] == "") & ~pd.Series(texts).str.endswith((",", "''", '""'))
    if short.any():
        row = int(np.flatnonzero(short)[0])
        raise ArffError(f"{name}, line {numbers[row]}: the row holds fewer values than the "
                        f"{len(columns)} attributes declared.")
    return frame


_CELL = re.compile(r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^,]*?))\s*(?:,|$)""")


def _dense_mixed(texts, numbers, columns, name) -> pd.DataFrame:
    rows = []
    for number, text in zip(numbers, texts):
        cells = []
        for match in _CELL.finditer(text):
            quoted = match.group(1) if match.group(1) is not None else match.group(2)
            cells.append(_unescape(quoted) if quoted is not None else match.group(3))
            if match.end() == len(text):
                break
        if len(cells) != len(columns):
            raise ArffError(f"{name}, line {number}: a row holds {len(cells)} values for the {len(columns)} "
                            "attributes declared.")
        rows.append([None if c == "?" else c for c in cells])
    return pd.DataFrame(rows, columns=range(len(columns)), dtype=object)


def _sparse(texts, numbers, attributes, name) -> pd.DataFrame:
    # Weka's sparse rows omit zeros: numeric 0, and the first declared value of a nominal.
    columns = {j: [] for j in range(len(attributes))}
    defaults = [values[0] if kind == "nominal" and values else "0" if kind == "numeric" else ""
                for _, kind, values in attributes]
    for row, (number, text) in enumerate(zip(numbers, texts)):
        if not (text.startswith("{") and text.endswith("}")):
            raise ArffError(f"{name}, line {number}: a dense row in sparse data.")
        seen = {}
        for entry in next(csv.reader([text[1:-1]], skipinitialspace=True, quotechar="'", escapechar="\\")):
            index, _, value = entry.strip().partition(" ")
            if not index.isdigit() or int(index) >= len(attributes):
                raise ArffError(f"{name}, line {number}: {entry.strip()[:40]!r} is not 'index value' "
                                f"with an index below {len(attributes)}.")
            seen[int(index)] = value.strip()
        for j in columns:
            columns[j].append(seen.get(j, defaults[j]))
    frame = pd.DataFrame(columns, dtype=object)
    return frame.where(frame != "?", np.nan)


def _typed(frame, attributes, numbers, name) -> pd.DataFrame:
    out = {}
    for j, (attribute, kind, values) in enumerate(attributes):
        raw = frame[j].str.strip() if frame[j].dtype == object else frame[j]
        if kind == "numeric":
            column = pd.to_numeric(raw, errors="coerce").astype("float64")
            bad = column.isna() & raw.notna()
        elif kind == "nominal":
            bad = raw.notna() & ~raw.isin(values)
            column = pd.Series(pd.Categorical(raw.where(~bad), categories=values), name=attribute)
        else:
            column, bad = raw.astype(object), pd.Series(False, index=raw.index)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            expected = "a number" if kind == "numeric" else f"one of {values[:8]}{' ...' if len(values) > 8 else ''}"
            value = raw.iloc[row] if len(str(raw.iloc[row])) <= 60 else f"{str(raw.iloc[row])[:60]}..."
            raise ArffError(f"{name}, line {numbers[row]}: attribute {attribute!r} holds {value!r}, "
                            f"expected {expected} or ? for missing.")
        out[attribute] = column.to_numpy() if kind != "nominal" else column.array
    return pd.DataFrame(out)


def read_arff(source, *, encoding=None, name=None) -> pd.DataFrame:
    """Read an ARFF file (Weka's format) into a DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file object
        The file; gzip-compressed files are read too.
    encoding : str, optional
        Text encoding; by default detected (BOM, UTF-8, then Windows-1252, Latin-1).
    name : str, optional
        How error messages name the file (default: the path).

    Returns
    -------
    pandas.DataFrame
        One column per attribute, in declared order and named as declared. Nominal
        attributes are ``category`` columns whose categories are the declared values in
        declared order (values declared but absent stay categories); numeric ones
        float64; string and date ones text (``object``). ``?`` is missing (NaN). The
        relation name is in ``frame.attrs["relation"]``.

    Raises
    ------
    ValueError
        For a malformed file, naming the file and the line: a value not declared for
        its nominal attribute, a non-number in a numeric one, a row with too many or
        too few values, an unknown or relational attribute type.

    Examples
    --------
    >>> from pybnc.io import read_arff
    >>> text = b'''@relation weather
    ... @attribute outlook {sunny, overcast, rainy}
    ... @attribute 'wind speed' numeric
    ... @attribute play {yes, no}
    ... @data
    ... sunny, 12.5, no
    ... overcast, ?, yes
    ... '''
    >>> frame = read_arff(text)
    >>> frame.dtypes.astype(str).tolist(), frame["outlook"].cat.categories.tolist()
    (['category', 'float64', 'category'], ['sunny', 'overcast', 'rainy'])
    >>> frame["wind speed"].isna().tolist()
    [False, True]
    """
    sniffed = sniff(source, name, encoding)
    if sniffed.kind != "text":
        raise ValueError(f"{sniffed.name} is a {sniffed.kind} file, not an ARFF file.")
    text, _ = sniffed.read_text()
    return parse_arff(text, sniffed.name)


def parse_arff(text: str, name: str) -> pd.DataFrame:
    """:func:`read_arff` of decoded text."""
    lines = _LINE_END.split(text)  # not str.splitlines, which also splits at form feeds and others
    relation, attributes, start = _parse_header(lines, name)
    names = [a for a, _, _ in attributes]
    if len(set(names)) != len(names):
        twice = next(a for a in names if names.count(a) > 1)
        raise ArffError(f"{name}: attribute {twice!r} is declared twice.")
    numbers, texts = _data_lines(lines, start)
    if texts and texts[0].startswith("{"):
        frame = _sparse(texts, numbers, attributes, name)
    elif texts:
        if texts[0].rstrip().endswith("}"):
            raise ArffError(f"{name}, line {numbers[0]}: instance weights ({{...}} after a row) are not supported.")
        frame = _dense(texts, numbers, names, name)
    else:
        frame = pd.DataFrame({j: pd.Series([], dtype=object) for j in range(len(names))})
    typed = _typed(frame, attributes, numbers, name)
    typed.attrs["relation"] = relation
    return typed


_PLAIN = re.compile(r"[^\s,'\"{}%\\]+")


def _quote(value: str) -> str:
    """A name or value as ARFF writes it: bare when it can be, else single-quoted."""
    if _PLAIN.fullmatch(value) and value != "?":
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(frame: pd.DataFrame, path, relation: str = "data") -> None:
    """Write a DataFrame as an ARFF file that :func:`read_arff` (and Weka) read back.

    Float and integer columns become numeric attributes; every other column is
    nominal, with its categories (``category`` dtype) or its sorted distinct values.
    Missing values are written as ``?``. ``path``: a file name, or a file open for
    writing, binary (UTF-8 is written) or text.

    Examples
    --------
    >>> import io, pandas as pd
    >>> buffer = io.BytesIO()
    >>> write_arff(pd.DataFrame({"colour": ["red", None], "size": [1.5, 2.0]}), buffer, "demo")
    >>> print(buffer.getvalue().decode())
    @relation demo
    @attribute colour {red}
    @attribute size numeric
    @data
    red,1.5
    ?,2.0
    <BLANKLINE>
    """
    lines = [f"@relation {_quote(str(relation))}"]
    cells = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        column = frame[name]
        missing = column.isna().to_numpy()
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            lines.append(f"@attribute {_quote(str(name))} numeric")
            text = column.to_numpy().astype(str)
        else:
            values = column.astype(object).where(~missing, None).map(str, na_action="ignore")
            levels = ([str(v) for v in column.cat.categories] if isinstance(column.dtype, pd.CategoricalDtype)
                      else sorted(values.dropna().unique()))
            quoted = {v: _quote(v) for v in levels}  # a level at a time, not a cell at a time
            lines.append(f"@attribute {_quote(str(name))} {{{','.join(quoted.values())}}}")
            text = values.map(quoted)
        cells[name] = np.where(missing, "?", np.asarray(text, dtype=object))
    lines.append("@data")
    body = cells.astype(str).agg(",".join, axis=1) if len(cells.columns) else pd.Series([], dtype=str)
    content = "\n".join(lines + body.tolist()) + "\n"
    if isinstance(path, io.TextIOBase):  # an open text file or StringIO: its own encoding
        path.write(content)
    elif hasattr(path, "write"):
        path.write(content.encode("utf-8"))
    else:
        with open(path, "wb") as handle:
            handle.write(content.encode("utf-8"))
