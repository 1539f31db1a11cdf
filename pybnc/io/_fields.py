"""How many fields each record of a delimited text file holds, and on which line it starts.

pandas' parser fills a row that is short of fields with missing values, drops or
moves into the row index what a first line lacks or has too much, and says nothing:
a truncated or misaligned file would be read as a different table. So
:func:`pybnc.io.read_table` counts every record's fields itself first (this module)
and refuses a file whose rows disagree, naming the lines.

The count follows pandas' rules: records end at ``\\n``, ``\\r\\n`` or ``\\r``; a
line of only spaces and tabs is skipped; ``"`` quotes a field that starts with it
(after spaces), ``""`` inside is a quote, and a quoted field may run over lines;
with the whitespace delimiter, runs of spaces and tabs separate fields. A file
without a ``"`` is counted on its bytes with numpy, a chunk at a time (it streams). A
file with quotes of at most :data:`QUOTED_IN_MEMORY` bytes whose every quote opens or
closes a quoted field is counted on its bytes too, held whole (a quote's side of a
field follows from the parity of the quotes before it); any other goes through
Python's C ``csv`` module, streamed (a 200,000-row file with a quoted column: 0.25 s
there, 0.12 s on its bytes; ``benchmarks/bench_read.py``).
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ._sniff import GZIP_ERRORS, damaged_gzip

WHITESPACE = r"\s+"
#: Encodings whose delimiters, quotes and line ends are the ASCII bytes themselves.
_ASCII_COMPATIBLE = {"utf-8", "utf-8-sig", "cp1252", "latin-1", "ascii"}
_CHUNK = 1 << 23
#: Largest file with quotes counted in memory by numpy (about ten masks of its size are
#: made); a larger one streams through the csv module.
QUOTED_IN_MEMORY = 1 << 26
#: A field of a whitespace-separated line as pandas reads it: quoted (``""`` a quote inside,
#: text after the closing quote joined to it), a run of non-blanks, or a lone ``"`` that
#: opens a quote the line does not close (pandas would read on into the next lines).
_WHITE_FIELD = re.compile(r'"(?:[^"]|"")*+"[^ \t]*|[^ \t"][^ \t]*|"')


def split_whitespace(line: str) -> list:
    """The fields of one line of a whitespace-separated file, quotes read as pandas reads
    them (``"a b"`` is one field) but kept; a field ``'"'`` is a quote left open."""
    return _WHITE_FIELD.findall(line)


@contextmanager
def no_field_limit():
    """Lift the csv module's limit of 131,072 characters per field for a while: a long cell
    (or a wide line split by another delimiter) is the table's business, not an error."""
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)
    try:
        yield
    finally:
        csv.field_size_limit(limit)


@dataclass
class Records:
    """The non-blank records of a file after its skipped lines, in order."""

    widths: np.ndarray  # fields of each record
    lines: np.ndarray  # the physical line (1-based, the skipped lines counted) where it starts


def count_fields(sniffed, delimiter: str, skip: int) -> Records:
    """Fields of every record of ``sniffed`` (:class:`~._sniff.Sniffed`) after its first
    ``skip`` lines, split by ``delimiter`` (one character, or ``"\\s+"``)."""
    try:
        if sniffed.encoding in _ASCII_COMPATIBLE:
            records = _count_bytes(sniffed, delimiter, skip)
            if records is None and delimiter != WHITESPACE:
                records = _count_quoted_bytes(sniffed, delimiter, skip)
            if records is not None:
                return records
        return _count_text(sniffed, delimiter, skip)
    except GZIP_ERRORS as exc:
        raise damaged_gzip(sniffed.name, exc) from None


def _binary(sniffed):
    handle = sniffed.open()
    return gzip.GzipFile(fileobj=handle) if sniffed.compression == "gzip" else handle


def _count_bytes(sniffed, delimiter: str, skip: int) -> Records | None:
    """The numpy count of a file without quotes; ``None`` as soon as a ``"`` shows up."""
    widths, lines, line, carry = [], [], 0, b""
    with _binary(sniffed) as stream:
        while True:
            chunk = stream.read(_CHUNK)
            if b'"' in chunk:
                return None
            data = carry + chunk
            if chunk:
                # Complete lines only; a \r at the very end may be half of a \r\n.
                end = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1))
                carry, data = data[end + 1:], data[:end + 1]
            else:
                carry = b""
            if data:
                w, first = _line_fields(np.frombuffer(data, dtype=np.uint8), delimiter)
                skipped = max(0, min(skip - line, first.size))
                widths.append(w[skipped:])
                lines.append(first[skipped:] + line + 1)
                line += first.size
            if not chunk:
                break
    widths = np.concatenate(widths) if widths else np.zeros(0, dtype=np.int64)
    lines = np.concatenate(lines) if lines else np.zeros(0, dtype=np.int64)
    keep = widths > 0  # blank lines
    return Records(widths[keep], lines[keep])


def _line_ends(a: np.ndarray) -> np.ndarray:
    """Where every line of the bytes ``a`` ends: ``\\n``, and ``\\r`` not followed by ``\\n``."""
    cr, lf = a == 13, a == 10
    cr[:-1] &= ~lf[1:]
    return np.flatnonzero(lf | cr)


def _spans(ends: np.ndarray, size: int) -> tuple:
    """``(starts, ends)`` of the spans that ``ends`` close in ``size`` bytes, the last one
    without its end when the bytes do not end with one."""
    if ends.size == 0 or ends[-1] != size - 1:
        ends = np.append(ends, size)
    return np.concatenate(([0], ends[:-1] + 1)), ends


def _per_span(mask: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """How many of the marked bytes each span holds (from their positions: no cumulative
    sum over the bytes)."""
    at = np.flatnonzero(mask)
    return np.searchsorted(at, ends) - np.searchsorted(at, starts)


def _blank(a: np.ndarray, delimiter: str) -> np.ndarray:
    """Spaces, tabs unless they separate fields, and line ends."""
    blank = (a == 32) | (a == 13) | (a == 10)
    if delimiter != "\t":
        blank |= a == 9
    return blank


def _line_fields(a: np.ndarray, delimiter: str) -> tuple:
    """``(fields per line, 0 for blank lines; line index of each)`` of a block of whole
    lines (the file's last line may lack its end)."""
    starts, ends = _spans(_line_ends(a), a.size)
    blank = _blank(a, delimiter)
    has_content = ends - starts > _per_span(blank, starts, ends)
    if delimiter == WHITESPACE:
        opens = ~blank
        opens[1:] &= blank[:-1]  # a field starts after a space, a tab or a line end
        fields = _per_span(opens, starts, ends)
    else:
        fields = _per_span(a == ord(delimiter), starts, ends) + 1
    return np.where(has_content, fields, 0), np.arange(ends.size)


def _count_quoted_bytes(sniffed, delimiter: str, skip: int) -> Records | None:
    """The numpy count of a file with quotes, held in memory (at most
    :data:`QUOTED_IN_MEMORY` bytes); ``None`` when it is larger or when one of its quotes
    is not where the csv module would read it as opening or closing a quoted field (a
    quote inside an unquoted value, text after a closing quote): the csv module then
    counts it."""
    with _binary(sniffed) as stream:
        data = stream.read(QUOTED_IN_MEMORY + 1)
    if len(data) > QUOTED_IN_MEMORY:
        return None
    a = np.frombuffer(data, dtype=np.uint8)
    line_ends = _line_ends(a)  # every physical line's end, quoted or not
    if skip:
        if line_ends.size < skip:
            return Records(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        offset = int(line_ends[skip - 1]) + 1
        a, line_ends = a[offset:], line_ends[skip:] - offset
    is_quote = a == ord('"')
    quotes = np.flatnonzero(is_quote)
    if quotes.size % 2 or not _quotes_open_and_close_fields(a, quotes, ord(delimiter)):
        return None
    # a delimiter or line end after an odd number of quotes is inside a quoted field (the
    # count's parity survives uint8's wrapping)
    odd = (np.cumsum(is_quote, dtype=np.uint8) & 1).view(bool)
    record_end = ~odd[line_ends]
    starts, ends = _spans(line_ends[record_end], a.size)
    has_content = ends - starts > _per_span(_blank(a, delimiter), starts, ends)
    widths = np.where(has_content, _per_span((a == ord(delimiter)) & ~odd, starts, ends) + 1, 0)
    # the physical line each record starts on: the one after the previous record's end
    lines = np.concatenate(([0], np.flatnonzero(record_end)[: starts.size - 1] + 1)) + skip + 1
    return Records(widths[has_content], lines[has_content])


def _quotes_open_and_close_fields(a: np.ndarray, quotes: np.ndarray, delimiter: int) -> bool:
    """Whether every quote of ``a`` (their positions ``quotes``, an even number) is read
    by the csv module (``skipinitialspace``) as their order says: the 1st, 3rd, ... open
    a quoted field (after a delimiter or a line end, spaces between) or are the second of
    a ``""`` inside one, so that the 2nd, 4th, ... close it or are the first of a ``""``.
    (Text after a closing quote is read as part of the field, up to the next delimiter;
    a quote in it would be an odd one not at a field's start, which this refuses.)"""
    prev = _byte_before(a, quotes)
    pair = np.zeros(quotes.size, dtype=bool)  # a quote right after the one before it: a "" pair
    pair[1:] = quotes[1:] == quotes[:-1] + 1
    opening = np.arange(quotes.size) % 2 == 0
    at_start = (prev == delimiter) | (prev == 10) | (prev == 13)
    return bool(np.all(at_start[opening] | pair[opening]))


def _byte_before(a: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The byte before each position ``at`` of ``a``, spaces skipped; a line end (10)
    before the first byte."""
    j = at - 1
    while True:  # as many passes as the longest run of spaces before a quote
        within = j >= 0
        space = np.zeros(j.size, dtype=bool)
        space[within] = a[j[within]] == 32
        if not space.any():
            break
        j[space] -= 1
    found = np.full(j.size, 10, dtype=a.dtype)
    found[within] = a[j[within]]
    return found


def _count_text(sniffed, delimiter: str, skip: int) -> Records:
    """The count of a file with quotes (or in UTF-16/32), through the ``csv`` module."""
    widths, lines = [], []
    with io.TextIOWrapper(_binary(sniffed), encoding=sniffed.encoding, errors="replace", newline="") as text:
        raw = _Remember(itertools.islice(text, skip, None))
        if delimiter == WHITESPACE:
            for number, line in enumerate(raw, start=skip + 1):
                fields = split_whitespace(line.rstrip("\r\n"))
                if '"' in fields:
                    raise ValueError(f'{sniffed.name}, line {number}: a quote (") opens a value that does not '
                                     "close on its line, so the rows below would be read into it; remove the "
                                     "stray quote, close it, or give another delimiter (sep=... or --sep).")
                if fields:
                    widths.append(len(fields))
                    lines.append(number)
        else:
            reader = csv.reader(raw, delimiter=delimiter, skipinitialspace=True)
            start = skip + 1
            try:
                with no_field_limit():
                    for row in reader:
                        if len(row) > 1 or (row and raw.last.strip(" \t\r\n")):
                            widths.append(len(row))
                            lines.append(start)
                        start = skip + reader.line_num + 1
            except csv.Error as exc:
                raise ValueError(f"{sniffed.name}, line {skip + reader.line_num}: {exc}.") from None
    return Records(np.array(widths, dtype=np.int64), np.array(lines, dtype=np.int64))


class _Remember:
    """An iterator of lines that remembers the last one it gave (the csv reader's input)."""

    def __init__(self, lines):
        self.lines, self.last = iter(lines), ""

    def __iter__(self):
        return self

    def __next__(self):
        self.last = next(self.lines)
        return self.last
