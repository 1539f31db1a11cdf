"""One reader for the tables users have: CSV and its cousins, ARFF, Parquet, Excel.

:func:`read_table` serves the command line and the web page alike. It decides, from
the file itself, what a user would otherwise have to say: the format (Parquet, gzip
and Excel workbooks by their magic bytes, ARFF by its ``@relation`` line), the text
encoding (BOM, UTF-8, then Windows-1252 and Latin-1), the delimiter (comma,
semicolon, tab, pipe or runs of whitespace as in UCI ``.data`` files), the decimal mark
and thousands separators of its numbers (:mod:`pybnc.io._numbers`), and whether the
first row holds column names. Each decision can be given instead, and is reported
(:class:`ReadReport`). Problems are ``ValueError``\\ s that name the file, and the line
where there is one; a table is never read with other rows than the file's.
"""

from __future__ import annotations

import csv
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._fields import count_fields, no_field_limit, split_whitespace
from ._limits import MAX_BYTES, MAX_ROWS
from ._limits import check as check_limits
from ._numbers import THOUSANDS, decimal_marks, is_number_text, to_numbers
from ._sniff import GZIP_ERRORS, damaged_gzip, encoding_name, sniff, undecodable
from .arff import parse_arff

#: Delimiters tried, in the order that breaks ties: a file whose rows all hold as many
#: semicolons as commas is a European CSV with decimal commas.
DELIMITERS = ("\t", ";", "|", ",")
WHITESPACE = r"\s+"
#: Rows looked at to decide the delimiter and the header.
SAMPLE_ROWS = 1000
_SAMPLE_CELLS = 200_000  # wide tables: fewer rows, so the header vote stays quick
#: Cells read as missing besides pandas' defaults (empty, NA, NaN, null...): UCI's ``?``.
NA_VALUES = ["?"]
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", WHITESPACE: "whitespace"}
_MISSING_WORDS = {"?", "na", "n/a", "nan", "null", "none", "-"}
#: Characters of a cell the header vote looks at (a cell of megabytes is still one cell).
_CELL_CHARS = 100
#: Line ends as pandas sees them (``str.splitlines`` also splits at form feeds and others).
_LINE_END = re.compile(r"\r\n|\r|\n")
#: The name of a first column that a header one field short leaves unnamed (R's row names).
ROW_NAMES = "Unnamed: 0"


@dataclass
class ReadReport:
    """What :func:`read_table` decided about a file."""

    name: str
    format: str  # "text", "arff", "parquet" or "excel"
    encoding: str | None = None
    delimiter: str | None = None
    header: bool | None = None  # the first row held the column names
    row_names: bool = False  # the header was one field short: the first column is unnamed
    header_detected: bool = False  # decided from the file (not given)
    comment_lines: int = 0  # leading % or # lines skipped
    sheet: str | None = None  # of an Excel workbook, the sheet read (its first)
    n_sheets: int = 0
    decimal_comma: list = field(default_factory=list)  # columns of numbers read with decimal commas
    thousands: list = field(default_factory=list)  # columns of numbers read with thousands separators
    n_rows: int = 0
    n_columns: int = 0

    def describe(self) -> str:
        """One line, e.g. ``car.data: comma-separated text (UTF-8), no header row detected
        (columns named col1 ... col7); 1728 rows, 7 columns``."""
        size = f"{self.n_rows} rows, {self.n_columns} columns"
        if self.format == "parquet":
            return f"{self.name}: Parquet; {size}"
        if self.format == "excel":
            others = f" (the first of {self.n_sheets})" if self.n_sheets > 1 else ""
            return f"{self.name}: Excel workbook, sheet {self.sheet!r}{others}; {size}"
        if self.format == "arff":
            return f"{self.name}: ARFF ({encoding_name(self.encoding)}); {size}"
        how = "detected" if self.header_detected else "as told"
        if self.row_names:
            first = (f"first row taken as column names ({how}), one fewer than the fields below: the "
                     f"first column (row names) named {ROW_NAMES!r}")
        elif self.header:
            first = f"first row taken as column names ({how})"
        else:
            first = f"no header row ({how}): columns named col1 ... col{self.n_columns}"
        skipped = f", {self.comment_lines} comment lines skipped" if self.comment_lines else ""
        commas = "".join(f"; {what} read as numbers in {len(names)} column{'s' if len(names) > 1 else ''}"
                         for what, names in (("decimal commas", self.decimal_comma),
                                             ("thousands separators", self.thousands)) if names)
        return (f"{self.name}: {_DELIMITER_NAMES.get(self.delimiter, repr(self.delimiter))}-separated text "
                f"({encoding_name(self.encoding)}{skipped}), {first}{commas}; {size}")


def read_table(source, *, header=None, sep=None, encoding=None, decimal=None, thousands=None, name=None,
               return_report=False, max_bytes=MAX_BYTES, max_rows=MAX_ROWS):
    """Read a table file: delimited text (CSV, TSV, UCI ``.data``...), ARFF, Parquet or
    an Excel workbook (.xlsx: its first sheet, its first row the column names unless
    ``header=False``).

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file object
        The file. gzip-compressed text is read too. Text files are streamed.
    header : bool or None, default=None
        Whether the first row of a text file holds the column names; ``None`` decides
        from the file: a first row whose cells are text over numeric columns, or
        values that never recur in their column while the column's values do, is a
        header; a first row of numbers, repeated or recurring values is data.
        Without a header the columns are named ``col1``, ``col2``, ...
    sep : str or None, default=None
        Delimiter of a text file (``","``, ``";"``, ``"\\t"``, ``"|"``, or ``"\\s+"`` for
        runs of whitespace); ``None`` picks the one that splits the first rows into the
        same number (two or more) of fields most consistently.
    encoding : str or None, default=None
        Text encoding; ``None`` follows a BOM (UTF-8, UTF-16, UTF-32), else UTF-8,
        else Windows-1252, else Latin-1.
    decimal, thousands : {".", ","} or None, default=None
        The decimal mark of the numbers of a text file, or their thousands separator
        (the other mark); ``None`` decides from the file: ``0,649`` and ``1.234,5``
        have a decimal comma, ``0.649`` and ``1,234.5`` a decimal point; a column of
        ``42,520`` or ``42.520``, which read both ways, follows the other columns, else
        ``"42,520"`` is 42520 in a comma-separated file and 42.52 in a semicolon-separated
        one, and others are refused naming the column (``42.520`` with nothing to decide).
    name : str, optional
        How messages name the file (default: its path).
    return_report : bool, default=False
        Also return a :class:`ReadReport` of the decisions taken.
    max_bytes : int, default=2**30
        Largest uncompressed size (a gzip file decompressed, a workbook's members
        together); checked while streaming, before anything is parsed, so that a
        decompression bomb is refused in seconds.
    max_rows : int, default=10_000_000
        Most lines of a text file (rows of a sheet, of a Parquet file), checked the same way.

    Returns
    -------
    frame : pandas.DataFrame
        String column names. In text files ``?``, empty cells and pandas' missing
        words (``NA``, ``NaN``, ``null``...) are missing; columns of numbers are int64
        or float64, also numbers written with a decimal comma (``0,649``, as a European
        spreadsheet exports them) or thousands separators (``"42,520"``), others text.
        ARFF files follow :func:`~pybnc.io.read_arff`.
    report : ReadReport
        Only with ``return_report=True``.

    Raises
    ------
    ValueError
        Naming the file (and the line, where there is one): empty, binary or not a
        table (an Excel 97-2003 .xls workbook, a zip, a PDF...), not decodable in the
        encoding, a row with more fields than the others, a malformed ARFF file, a
        damaged workbook, one past ``max_bytes`` or ``max_rows``, an XML member of a
        workbook with a document type declaration (entities: an XML attack).
    ImportError
        For Parquet without pyarrow (``pip install "pybnc[parquet]"``), for a workbook
        without openpyxl (``pip install "pybnc[excel]"``).

    Examples
    --------
    >>> from pybnc.io import read_table
    >>> frame, report = read_table(b"vhigh;low;2;unacc\\nlow;?;4;good\\n", return_report=True)
    >>> frame.columns.tolist(), frame["col2"].isna().tolist()
    (['col1', 'col2', 'col3', 'col4'], [False, True])
    >>> report.delimiter, report.header
    (';', False)
    """
    if header not in (None, True, False):
        raise ValueError(f"header must be True, False or None (detect), got {header!r}.")
    for given, what in ((decimal, "decimal"), (thousands, "thousands")):
        if given not in (None, ".", ","):
            raise ValueError(f"{what} must be '.', ',' or None (detect), got {given!r}.")
    if thousands is not None and decimal not in (None, THOUSANDS[thousands]):
        raise ValueError(f"decimal={decimal!r} and thousands={thousands!r}: give different marks (one suffices).")
    decimal = decimal or (THOUSANDS[thousands] if thousands else None)
    sniffed = sniff(source, name, encoding)
    check_limits(sniffed, max_bytes, max_rows)
    report = ReadReport(sniffed.name, "parquet")
    if sniffed.kind == "parquet":
        frame = _read_parquet(sniffed)
    elif sniffed.kind == "xlsx":
        report.format = "excel"
        frame = _read_excel(sniffed, header, report)
    elif _is_arff(sniffed.head):
        text, report.encoding = sniffed.read_text()
        report.format = "arff"
        frame = parse_arff(text, sniffed.name)
    else:
        report.format = "text"
        try:
            frame = _read_text(sniffed, header, sep, decimal, report)
        except csv.Error as exc:  # a field past the csv module's bound (131,072 characters)
            raise ValueError(f"{sniffed.name} is not a table pybnc reads: {exc}; a cell this long is no "
                             "category or number (a wrong delimiter, or a stray quote?).") from None
    frame.columns = [str(c) for c in frame.columns]
    report.n_rows, report.n_columns = frame.shape
    return (frame, report) if return_report else frame


def _read_parquet(sniffed) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(f"{sniffed.name} is a Parquet file; reading it needs pyarrow: "
                          'pip install "pybnc[parquet]".') from None
    try:
        with sniffed.open() as handle:
            return pd.read_parquet(handle)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise ValueError(f"{sniffed.name} is a damaged Parquet file ({exc}).") from None


def _read_excel(sniffed, header, report) -> pd.DataFrame:
    """The first sheet of an Excel workbook (openpyxl), its first row the column names
    unless ``header`` is False."""
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise ImportError(f"{sniffed.name} is an Excel workbook; reading it needs openpyxl: "
                          'pip install "pybnc[excel]" (or save the sheet as CSV).') from None
    try:
        with sniffed.open() as handle, pd.ExcelFile(handle, engine="openpyxl") as workbook:
            report.sheet, report.n_sheets = str(workbook.sheet_names[0]), len(workbook.sheet_names)
            frame = pd.read_excel(workbook, sheet_name=0, header=None if header is False else 0,
                                  na_values=NA_VALUES)
    except ImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - openpyxl raises anything on a damaged archive or sheet
        raise ValueError(f"{sniffed.name} is a damaged Excel workbook ({type(exc).__name__}: "
                         f"{str(exc)[:200]}).") from None
    report.header = header is not False
    if header is False:
        frame.columns = [f"col{i + 1}" for i in range(frame.shape[1])]
    return frame.dropna(how="all").reset_index(drop=True)  # rows a sheet's formatting left empty


def _is_arff(head: str) -> bool:
    """ARFF when the first line past the comments is an ``@`` declaration (a damaged
    ``@relation`` too: the ARFF reader then says what is wrong with it)."""
    for line in _LINE_END.split(head):
        text = line.strip()
        if text and not text.startswith("%"):
            return text[:1] == "@"
    return False


def _sample_lines(sniffed) -> tuple:
    """``(leading comment lines, the first lines of the table)``: a block of ``%`` or ``#``
    lines before the table (as in MLC++ and UCI files), then of ``|`` lines (C4.5), is skipped."""
    lines = _LINE_END.split(sniffed.head)
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line
    elif not sniffed.head_is_all and len(lines) > 1:
        lines = lines[:-1]  # cut at the end of the head: not a whole line
    skip = 0
    while skip < len(lines) and (not lines[skip].strip() or lines[skip].lstrip()[:1] in ("%", "#")):
        skip += 1
    # C4.5's comments (UCI's adult.test) start with '|'; a table whose every line does is pipe-separated.
    piped = skip
    while piped < len(lines) and lines[piped].lstrip()[:1] == "|" and lines[piped].count("|") == 1:
        piped += 1
    if skip < piped < len(lines) and lines[piped].strip():
        skip = piped
    return skip, [line for line in lines[skip:] if line.strip()][:SAMPLE_ROWS]


def _field_counts(lines: list, delimiter: str) -> np.ndarray:
    return np.array([len(row) for row in _split(lines, delimiter)], dtype=int)


def _split(lines: list, delimiter: str) -> list:
    """The sample lines' fields, split as pandas splits them."""
    if delimiter == WHITESPACE:
        return [[_unquote(cell) for cell in split_whitespace(line)] for line in lines]
    with no_field_limit():  # a wide line split at another delimiter is one long field
        return list(csv.reader(lines, delimiter=delimiter, skipinitialspace=True))


def _unquote(cell: str) -> str:
    """A whitespace-separated field as pandas reads it: ``"a b"c`` is ``a bc``."""
    if cell[:1] != '"' or len(cell) < 2:
        return cell
    end = re.match(r'"(?:[^"]|"")*+"', cell).end()
    return cell[1:end - 1].replace('""', '"') + cell[end:]


def sniff_delimiter(lines: list) -> str:
    """The delimiter that splits ``lines`` most consistently into two or more fields."""
    best, best_score = ",", 0.0
    for delimiter in DELIMITERS:
        score = _consistency(_field_counts(lines, delimiter))
        if score > best_score:
            best, best_score = delimiter, score
    if best_score < 0.9 and _consistency(_field_counts(lines, WHITESPACE)) > best_score:
        return WHITESPACE
    return best


def _consistency(counts: np.ndarray) -> float:
    """Share of rows with the most common number of fields, if that is two or more."""
    if counts.size == 0:
        return 0.0
    values, freq = np.unique(counts, return_counts=True)
    mode = values[np.argmax(freq)]
    return float(freq.max() / counts.size) if mode >= 2 else 0.0


def _cells(lines: list, delimiter: str, width: int) -> np.ndarray:
    """The sample lines split into a ``(rows, width)`` array of stripped strings."""
    rows = _split(lines, delimiter)
    cells = np.full((len(rows), width), "", dtype=object)
    for i, row in enumerate(rows):  # the sample only: at most SAMPLE_ROWS lines
        cells[i, :min(len(row), width)] = [cell[:_CELL_CHARS] for cell in row[:width]]
    return np.char.strip(cells.astype(str))


def detect_header(cells: np.ndarray) -> tuple:
    """``(first row is a header, votes for header, votes for data)`` of the first rows of a
    text table, split into strings (``""`` for an empty or absent cell).

    Each column votes: a number over a numeric column, a missing word (``?``, ``NA``)
    or a value that recurs below votes data; text over a numeric column, or a value
    that never recurs in a column of repeated values, votes header. A first row that
    repeats a value votes data once more. With no vote at all (text columns of unique
    values) the first row is taken as a header, as in most CSV files.
    """
    if cells.shape[0] < 2:
        return True, 0, 0
    # Each distinct cell is classified once (a table repeats its values; this runs on
    # every upload of the web page), then the answers are spread back by code.
    values, codes = np.unique(cells, return_inverse=True)
    codes = codes.reshape(cells.shape)
    blank = cells == ""
    word = np.isin(np.char.lower(values), list(_MISSING_WORDS))[codes]
    number = (pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").notna().to_numpy()
              | is_number_text(pd.Series(values, dtype=object)))[codes]
    first, rest, observed = cells[0], cells[1:], ~(blank | word)[1:]
    n_observed = observed.sum(axis=0)
    numeric = (n_observed > 0) & ((number[1:] & observed).sum(axis=0) >= 0.99 * n_observed)
    recurs = ((codes[1:] == codes[0]) & observed).any(axis=0)
    ordered = np.sort(np.where(observed, codes[1:], -1), axis=0)  # -1 sorts first: unobserved cells
    distinct = (ordered[1:] != ordered[:-1]).sum(axis=0) + (ordered[0] != -1)
    repeated = distinct <= 0.5 * n_observed
    voting = ~blank[0] & (n_observed > 0)
    data_votes = voting & (word[0] | np.where(numeric, number[0], recurs))
    header_votes = voting & ~word[0] & ~number[0] & (numeric | (~recurs & repeated))
    named = first[~blank[0]]
    data, header = int(data_votes.sum()) + int(np.unique(named).size < named.size), int(header_votes.sum())
    return bool(header > data or header == data == 0), header, data


def _read_text(sniffed, header, sep, decimal, report) -> pd.DataFrame:
    report.comment_lines, lines = _sample_lines(sniffed)
    skip = report.comment_lines
    report.delimiter = sep = sep if sep is not None else sniff_delimiter(lines)
    records = count_fields(sniffed, sep, skip)
    if records.widths.size == 0:
        raise ValueError(f"{sniffed.name} holds no rows.")
    width = int(np.bincount(records.widths[1:] if records.widths.size > 1 else records.widths).argmax())
    first = int(records.widths[0])
    report.header_detected = header is None
    cells = _cells(lines[:max(20, _SAMPLE_CELLS // width)], sep, width)
    if header is None:
        header = _detect_header(cells, width, first)
    if header and first == width - 1 and width > 1:
        report.row_names = True
    elif header and first != width:
        raise ValueError(f"{sniffed.name}, line {records.lines[0]}: the header row has {first} fields, the "
                         f"rows below {width}; fix the header, or read the file with header=False "
                         "(--no-header).")
    report.header = header
    body = slice(1, None) if header else slice(None)
    _check_widths(sniffed, records.widths[body], records.lines[body], width, sep)
    options = dict(sep=sep, na_values=NA_VALUES, skipinitialspace=True, compression=sniffed.compression,
                   engine="c", skiprows=skip, index_col=False)
    if report.row_names:
        options.update(header=None, skiprows=skip + 1, names=_names([ROW_NAMES, *_split(lines[:1], sep)[0]]))
    elif not header:
        options.update(header=None, names=[f"col{i + 1}" for i in range(width)])
    data = cells[1:] if header else cells
    marks = decimal_marks(data, sep, decimal, options.get("names") or _split(lines[:1], sep)[0], sniffed.name)
    grouped = {pos for pos in marks if (np.char.find(data[:, pos], THOUSANDS[marks[pos]]) >= 0).any()}
    for encoding in sniffed.encodings():
        try:
            frame = _parse(sniffed, dict(options, encoding=encoding))
            _check_rows(sniffed, frame, records.lines[body])
            report.encoding = encoding
            return _read_numbers(sniffed, dict(options, encoding=encoding), frame, marks, grouped, report)
        except UnicodeDecodeError as exc:
            error = exc
    raise undecodable(sniffed.name, sniffed.encoding, error)


def _read_numbers(sniffed, options: dict, frame: pd.DataFrame, marks: dict, grouped: set,
                  report) -> pd.DataFrame:
    """The columns of numbers written with a decimal comma or thousands separators
    (``marks``: :func:`~._numbers.decimal_marks` of the sample), as numbers: text
    columns from their values, columns pandas read as numbers with a decimal point
    (``42.520`` where the point separates thousands) read again as text. A column whose
    values beyond the sample are no such numbers stays text, or, read as numbers by
    pandas, is refused."""
    columns, dtypes, again, new, blocks = list(frame.columns), list(frame.dtypes), {}, {}, []
    numeric = [pos for pos, mark in marks.items() if mark == "," and _is_numeric(dtypes[pos])]
    if numeric:
        read = _parse(sniffed, dict(options, usecols=numeric, dtype=str))
        again = dict(zip(numeric, (col for _, col in read.items())))
    # decimal commas and no thousands points: pandas' C parser reads them (a column that is
    # not all such numbers comes out as text and is checked value by value below)
    plain = [pos for pos, mark in marks.items() if mark == "," and pos not in again and pos not in grouped]
    if plain:
        read = _parse(sniffed, dict(options, usecols=plain, decimal=","))
        numbers = [k for k, dtype in enumerate(read.dtypes) if _is_numeric(dtype)]
        names = [columns[plain[k]] for k in numbers]
        blocks.append(read.iloc[:, numbers].astype(np.float64).set_axis(names, axis=1))  # one block: wide tables
        new.update((plain[k], None) for k in numbers)
        report.decimal_comma += [str(name) for name in names]
    for pos, mark in marks.items():
        if pos in new or (_is_numeric(dtypes[pos]) and pos not in again):
            continue  # read already, or a decimal point: read as pandas reads it
        found = to_numbers(again.get(pos, frame.iloc[:, pos]), mark)
        if found is None and pos in again:
            raise ValueError(f"{sniffed.name}: column {columns[pos]!r} holds numbers with a decimal comma and "
                             "numbers with a decimal point; write them one way, or say which with decimal=...")
        if found is None:
            continue
        new[pos] = found[0]
        if mark == "," and "decimal" in found[1]:
            report.decimal_comma.append(str(columns[pos]))
        if "thousands" in found[1]:
            report.thousands.append(str(columns[pos]))
    if not new:
        return frame
    one_by_one = {columns[pos]: col.to_numpy() for pos, col in new.items() if col is not None}
    if one_by_one:
        blocks.append(pd.DataFrame(one_by_one, index=frame.index))
    names = [name for block in blocks for name in block.columns]  # one concatenation, not a column at a time
    return pd.concat([frame.drop(columns=names), *blocks], axis=1)[columns]


def _is_numeric(dtype) -> bool:
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _detect_header(cells: np.ndarray, width: int, first: int) -> bool:
    """Is the first line a header (``cells``: the sample lines split)? Only a line with the
    rows' number of fields (or one fewer: names over a first column of row names) can be."""
    if first not in (width, width - 1) or len(cells) < 2:
        return first == width and len(cells) < 2
    if first == width - 1:  # the names shifted right, over the columns they name
        cells = cells.copy()
        cells[0] = ["", *cells[0, :-1]]
    return bool(detect_header(cells)[0])


def _check_widths(sniffed, widths: np.ndarray, lines: np.ndarray, width: int, sep: str) -> None:
    """Refuse rows with another number of fields than the table's, naming their lines."""
    bad = np.flatnonzero(widths != width)
    if bad.size == 0:
        return
    i = bad[0]
    more = f" (also line{'s' if bad.size > 2 else ''} {', '.join(map(str, lines[bad[1:6]]))}" \
           f"{', ...' if bad.size > 6 else ''})" if bad.size > 1 else ""
    if i == widths.size - 1 and widths[i] < width:
        hint = "the file may be truncated: complete or remove the last line"
    elif i == 0 and not sniffed.head.strip().startswith(("%", "#")) and widths.size > 1 and \
            np.all(widths[1:] == width):
        hint = "the first line is neither a header of this table nor one of its rows: fix or remove it"
    else:
        hint = "quote values that hold the delimiter, check for a stray quote, or give the delimiter (sep=... or --sep)"
    fields = f"{widths[i]} field{'s' if widths[i] != 1 else ''}"
    raise ValueError(f"{sniffed.name}: line {lines[i]} has {fields} where the {'rows above' if i else 'other rows'} "
                     f"have {width} (delimiter {_DELIMITER_NAMES.get(sep, repr(sep))}){more}; {hint}.")


def _check_rows(sniffed, frame: pd.DataFrame, lines: np.ndarray) -> None:
    """The rows pandas read are the records counted: never a table silently shorter or
    longer than the file (a quote read across lines, a line end inside a value)."""
    if len(frame) != lines.size:
        raise ValueError(f"{sniffed.name}: {len(frame)} rows were read where the file has {lines.size} (from "
                         f"line {lines[0] if lines.size else 1}); a quote (\") may open a value that runs over "
                         "lines: remove or close the stray quote, or give the delimiter (sep=... or --sep).")


def _names(names: list) -> list:
    """Column names as pandas makes them from a header: empty ones ``Unnamed: i``, repeated
    ones ``name.1``, ``name.2``..."""
    out, seen = [], {}
    for i, name in enumerate(names):
        name = name.strip() or f"Unnamed: {i}"
        base, k = name, seen.get(name, 0)
        while name in seen:
            k += 1
            name = f"{base}.{k}"
        seen[base], seen[name] = k, 0
        out.append(name)
    return out


def _parse(sniffed, options) -> pd.DataFrame:
    """``pd.read_csv`` whose errors name the file and the line."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.DtypeWarning)
            with sniffed.open() as handle:
                frame = pd.read_csv(handle, **options)
        if any(issubclass(w.category, pd.errors.DtypeWarning) for w in caught):
            # A column typed block by block came out mixed (numbers, then text): type it whole.
            with sniffed.open() as handle:
                frame = pd.read_csv(handle, low_memory=False, **options)
        return frame
    except pd.errors.EmptyDataError:
        raise ValueError(f"{sniffed.name} holds no rows.") from None
    except GZIP_ERRORS as exc:
        raise damaged_gzip(sniffed.name, exc) from None
    except pd.errors.ParserError as exc:
        message = " ".join(str(exc).split())
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
        if found:
            expected, line, saw = found.groups()
            message = (f"line {line} has {saw} fields where the rows above have {expected} "
                       f"(delimiter {_DELIMITER_NAMES.get(options['sep'], repr(options['sep']))}); "
                       "quote values that hold the delimiter, or give the delimiter (sep=... or --sep)")
        raise ValueError(f"{sniffed.name}: {message}.") from None
