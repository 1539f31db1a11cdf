"""Bounds on what reading one table file may cost, checked while streaming, before parsing.

A file of a few hundred kilobytes can decompress to gigabytes (a gzip or zip bomb), or
hold millions of tiny rows, and the parser would hold all of it. :func:`check` streams
the file once (decompressing it a chunk at a time, keeping nothing) and refuses it as
soon as it passes ``max_bytes`` uncompressed bytes or ``max_rows`` lines (rows of a
sheet); an Excel workbook's members are checked by their declared sizes first (zip
reads never pass them), and every XML member is parsed by expat with document type
declarations refused: a workbook never has one, and entities (billion laughs, external
entities) live there. Every refusal is a :class:`TooLarge` or ``ValueError`` naming the
file (and the member) and the parameter that raises the bound.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from xml.parsers import expat

#: Default bound on the uncompressed bytes of one table file (``read_table(max_bytes=...)``).
MAX_BYTES = 1 << 30
#: Default bound on its lines (text) or rows (sheet) (``read_table(max_rows=...)``).
MAX_ROWS = 10_000_000
#: Rows of one Excel sheet (the format's own bound, whatever ``max_rows`` says).
EXCEL_ROWS = 1_048_576
_CHUNK = 1 << 22
#: A sheet's row element, with or without a namespace prefix.
_ROW = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s/>]")
_XML_MEMBER = (".xml", ".rels", ".vml")


class TooLarge(ValueError):
    """A file past one of the reading bounds; ``limit`` names the parameter (``max_bytes``
    or ``max_rows``)."""

    def __init__(self, message: str, limit: str):
        super().__init__(message)
        self.limit = limit


def check(sniffed, max_bytes: int = MAX_BYTES, max_rows: int = MAX_ROWS) -> None:
    """Refuse ``sniffed`` (:class:`~._sniff.Sniffed`) if it passes the bounds; cheap when
    it does not (one streamed pass, nothing kept)."""
    if sniffed.kind == "xlsx":
        _check_workbook(sniffed, max_bytes, max_rows)
    elif sniffed.kind == "parquet":
        _check_parquet(sniffed, max_bytes, max_rows)
    else:
        _check_text(sniffed, max_bytes, max_rows)


def _too_many_bytes(name: str, max_bytes: int, what: str = "") -> TooLarge:
    return TooLarge(f"{name}{what} holds more than {max_bytes:,} bytes uncompressed, the limit of one "
                    "table (a compressed file this small that grows this much is a decompression bomb); "
                    "if you trust it, raise the limit: read_table(..., max_bytes=...).", "max_bytes")


def _too_many_rows(name: str, max_rows: int, unit: str = "lines") -> TooLarge:
    return TooLarge(f"{name} holds more than {max_rows:,} {unit}, the limit of one table; if you trust it, "
                    f"raise the limit: read_table(..., max_rows=...).", "max_rows")


def _chunks(sniffed):
    """The uncompressed content of a text file, a chunk at a time (gzip members followed
    one after the other, as gzip itself does)."""
    with sniffed.open() as handle:
        if sniffed.compression != "gzip":
            yield from iter(lambda: handle.read(_CHUNK), b"")
            return
        inflate = zlib.decompressobj(wbits=31)
        for packed in iter(lambda: handle.read(1 << 16), b""):
            while packed:
                # At most _CHUNK bytes out per call: a bomb never sits whole in memory.
                yield inflate.decompress(packed, _CHUNK)
                packed = inflate.unconsumed_tail
                if inflate.eof:
                    packed, inflate = inflate.unused_data, zlib.decompressobj(wbits=31)


def _check_text(sniffed, max_bytes: int, max_rows: int) -> None:
    from ._sniff import GZIP_ERRORS, damaged_gzip

    if sniffed.data is not None and sniffed.compression is None:
        size, lines = len(sniffed.data), sniffed.data.count(b"\n") or sniffed.data.count(b"\r")
        if size > max_bytes:
            raise _too_many_bytes(sniffed.name, max_bytes)
        if lines > max_rows:
            raise _too_many_rows(sniffed.name, max_rows)
        return
    size = newlines = returns = 0
    try:
        for chunk in _chunks(sniffed):
            size += len(chunk)
            newlines += chunk.count(b"\n")
            returns += chunk.count(b"\r")  # a file of old Mac line ends has no \n
            if size > max_bytes:
                raise _too_many_bytes(sniffed.name, max_bytes)
            if (newlines or returns) > max_rows:
                raise _too_many_rows(sniffed.name, max_rows)
    except GZIP_ERRORS as exc:
        raise damaged_gzip(sniffed.name, exc) from None


def _check_parquet(sniffed, max_bytes: int, max_rows: int) -> None:
    """Rows and uncompressed bytes as the file's footer declares them (pyarrow reads no more)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return  # the reader says what is missing
    try:
        with sniffed.open() as handle:
            meta = pq.ParquetFile(handle).metadata
            rows = meta.num_rows
            size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception:  # noqa: BLE001 - a damaged file: the reader names what is wrong
        return
    if size > max_bytes:
        raise _too_many_bytes(sniffed.name, max_bytes)
    if rows > max_rows:
        raise _too_many_rows(sniffed.name, max_rows, "rows")


def _check_workbook(sniffed, max_bytes: int, max_rows: int) -> None:
    """Declared member sizes, then every XML member parsed (no DTD) and each sheet's rows
    counted, streamed."""
    name = sniffed.name
    source = sniffed.path if sniffed.path is not None else io.BytesIO(sniffed.data)
    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            if sum(info.file_size for info in infos) > max_bytes:
                raise _too_many_bytes(name, max_bytes, " (its members together)")
            bound = min(max_rows, EXCEL_ROWS)
            for info in infos:
                if not info.filename.lower().endswith(_XML_MEMBER):
                    continue
                sheet = info.filename.startswith("xl/worksheets/")
                rows = _parse_xml(archive, info, name, bound if sheet else None)
                if rows > max_rows:
                    raise _too_many_rows(f"{name} (sheet {info.filename})", max_rows, "rows")
                if rows > EXCEL_ROWS:
                    raise ValueError(f"{name} (sheet {info.filename}) holds more than {EXCEL_ROWS:,} rows, "
                                     "more than an Excel sheet can: the workbook is damaged or forged.")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error,
            RuntimeError) as exc:  # RuntimeError: an encrypted member
        raise ValueError(f"{name} is a damaged Excel workbook ({type(exc).__name__}: {exc}).") from None


class _Refused(Exception):
    pass


def _refuse(*_):
    raise _Refused


def _parse_xml(archive, info, name: str, max_rows: int | None = None) -> int:
    """Parse one member with expat, refusing a document type declaration; its rows
    (counted only when ``max_rows`` is given, and only up to just past it)."""
    parser = expat.ParserCreate()
    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    rows, tail = 0, b""
    try:
        with archive.open(info) as member:  # zipfile never reads past the declared size
            for chunk in iter(lambda: member.read(_CHUNK), b""):
                parser.Parse(chunk, False)
                if max_rows is not None:
                    # A tag holds one "<": those before the window's last "<" are whole.
                    window = tail + chunk
                    last = window.rfind(b"<")
                    rows += len(_ROW.findall(window, 0, max(last, 0)))
                    tail = window[max(last, 0):]
                    if rows > max_rows:
                        return rows
            parser.Parse(b"", True)
    except _Refused:
        raise ValueError(f"{name} is not a workbook pybnc reads: {info.filename} declares a document type "
                         "(entities), which Excel never writes; such a file attacks XML readers.") from None
    except expat.ExpatError as exc:
        raise ValueError(f"{name} is a damaged Excel workbook: {info.filename} is not well-formed XML "
                         f"({expat.errors.messages.get(exc.code, exc)}, line {exc.lineno}).") from None
    if max_rows is not None:
        rows += len(_ROW.findall(tail))
    return rows
