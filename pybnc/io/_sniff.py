"""What a table file is, from its first bytes: format, compression and text encoding.

Used by :func:`pybnc.io.read_table` and :func:`pybnc.io.read_arff`. A path is never
read whole here (pandas streams it); bytes and file objects are taken as they are.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

HEAD_BYTES = 1 << 20
#: Tried in order when a file is not UTF-8: Windows' Western code page, then Latin-1,
#: which decodes any byte (a legacy spreadsheet export still reads).
FALLBACK_ENCODINGS = ("cp1252", "latin-1")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_NOT_TEXT = {  # magic numbers of files people upload by mistake
    b"PK\x03\x04": "a zip archive: unzip it",
    b"\xd0\xcf\x11\xe0": "an Excel 97-2003 (.xls) workbook: export the sheet as CSV",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"BZh": None,  # bzip2 when followed by a block size digit: checked below
}
#: What a damaged gzip stream raises (bad header, bad data, truncated, bad CRC).
GZIP_ERRORS = (zlib.error, EOFError, gzip.BadGzipFile)
_ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with BOM", "utf-16": "UTF-16 (BOM)",
                   "utf-32": "UTF-32 (BOM)", "utf-16-le": "UTF-16 LE (no BOM)", "utf-16-be": "UTF-16 BE (no BOM)",
                   "cp1252": "Windows-1252", "latin-1": "Latin-1"}


def encoding_name(encoding: str) -> str:
    return _ENCODING_NAMES.get(encoding, encoding)


@dataclass
class Sniffed:
    """A table source and what its first bytes say about it."""

    name: str  # how messages call it
    path: Path | None  # a file on disk, streamed by pandas
    data: bytes | None  # else the whole content
    compression: str | None  # "gzip" or None
    kind: str  # "text", "parquet" or "xlsx"
    head: str  # the first decoded characters of a text file ("" otherwise)
    head_is_all: bool  # the head is the whole file
    encoding: str | None  # of a text file
    encoding_detected: bool  # False when the caller gave it

    def open(self):
        """A fresh binary handle on the (compressed) content."""
        return open(self.path, "rb") if self.path is not None else io.BytesIO(self.data)

    def encodings(self) -> list:
        """The detected encoding, then the fallbacks (a file can turn non-UTF-8 late)."""
        if not self.encoding_detected or self.encoding != "utf-8":
            return [self.encoding]
        return [self.encoding, *FALLBACK_ENCODINGS]

    def read_text(self) -> tuple[str, str]:
        """``(whole text, encoding used)``."""
        with self.open() as handle:
            raw = handle.read()
        if self.compression == "gzip":
            raw = _gunzip(raw, self.name)
        for encoding in self.encodings():
            try:
                return raw.decode(encoding), encoding
            except UnicodeDecodeError as exc:
                error = exc
        raise undecodable(self.name, self.encoding, error)


def undecodable(name: str, encoding: str, exc: UnicodeDecodeError) -> ValueError:
    return ValueError(f"{name} is not {encoding_name(encoding)} text: byte {exc.start} "
                      f"({exc.object[exc.start:exc.start + 1]!r}) cannot be decoded. Give the encoding "
                      "(encoding=... or --encoding), or save the file as UTF-8.")


def damaged_gzip(name: str, exc: Exception) -> ValueError:
    """The error for a gzip file that does not decompress."""
    return ValueError(f"{name} is a damaged gzip file ({str(exc) or type(exc).__name__}); it cannot be "
                      "decompressed. Compress the table again, or give it uncompressed.")


def _gunzip(raw: bytes, name: str) -> bytes:
    try:
        return gzip.decompress(raw)
    except GZIP_ERRORS as exc:
        raise damaged_gzip(name, exc) from None


def source_name(source, name=None) -> str:
    if name:
        return str(name)
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return str(getattr(source, "name", "") or "the uploaded file")


def sniff(source, name=None, encoding=None) -> Sniffed:
    """Look at a path, bytes or binary file object; raise ``ValueError`` for what is no table."""
    name = source_name(source, name)
    path = data = None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        with open(path, "rb") as handle:
            raw = handle.read(HEAD_BYTES)
        size = path.stat().st_size
    else:
        data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else source.read()
        if not isinstance(data, bytes):
            raise TypeError(f"{name}: read_table needs a path, bytes or a binary file object, "
                            f"got text from {type(source).__name__}.")
        raw, size = data[:HEAD_BYTES], len(data)
    if not raw.strip():
        raise ValueError(f"{name} is empty.")
    compression = None
    if raw[:2] == b"\x1f\x8b":
        compression = "gzip"
        try:
            raw = zlib.decompressobj(wbits=31).decompress(raw, HEAD_BYTES)
        except zlib.error as exc:
            raise damaged_gzip(name, exc) from None
        if not raw.strip():
            raise ValueError(f"{name} is an empty or damaged gzip file (nothing decompresses from its start).")
        size = None  # unknown until decompressed
    if raw[:4] == b"PAR1":
        return Sniffed(name, path, data, compression, "parquet", "", False, None, False)
    if raw[:4] == b"PK\x03\x04" and compression is None:
        workbook = _is_workbook(path if path is not None else data)
        if workbook is None:
            raise ValueError(f"{name} is a damaged zip archive (an .xlsx workbook cut short?), not a table: "
                             "save or upload it again.")
        if workbook:
            return Sniffed(name, path, data, None, "xlsx", "", False, None, False)
    for magic, what in _NOT_TEXT.items():
        if raw.startswith(magic) and (what or raw[3:4].isdigit()):
            raise ValueError(f"{name} is a binary file ({what or 'a bzip2 archive: decompress it first'}), "
                             "not a table.")
    whole = size is not None and len(raw) >= size
    detected = encoding is None
    encoding = encoding or _detect_encoding(raw, name)
    try:
        head = codecs.getincrementaldecoder(encoding)().decode(raw, final=whole)
    except UnicodeDecodeError as exc:
        if not detected:
            raise undecodable(name, encoding, exc) from None
        encoding = next(e for e in FALLBACK_ENCODINGS if _decodes(raw, e))
        head = raw.decode(encoding)
    except LookupError:
        raise ValueError(f"{name}: {encoding!r} is not a text encoding Python knows.") from None
    control = sum(1 for ch in head[:4096] if ord(ch) < 32 and ch not in "\t\n\r\x0c")
    if control > max(2, len(head[:4096]) // 100):
        raise ValueError(f"{name} is a binary file ({control} control characters in its first 4 KiB), "
                         "not a text table. Give a CSV/TSV text file, an ARFF file or a Parquet file.")
    return Sniffed(name, path, data, compression, "text", head, whole, encoding, detected)


def _is_workbook(source) -> bool | None:
    """Whether a zip archive (a path or bytes) is an Excel workbook (.xlsx, .xlsm); None
    when it cannot be opened."""
    try:
        with zipfile.ZipFile(source if isinstance(source, Path) else io.BytesIO(source)) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return None


def _decodes(raw: bytes, encoding: str) -> bool:
    try:
        codecs.getincrementaldecoder(encoding)().decode(raw, final=False)
        return True
    except UnicodeDecodeError:
        return False


def _detect_encoding(raw: bytes, name: str) -> str:
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return encoding
    if b"\x00" in raw:
        even, odd = raw[0::2], raw[1::2]
        # ASCII-range text in UTF-16 without a BOM: every other byte is zero.
        if odd.count(0) > 0.6 * len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) > 0.6 * len(even) and odd.count(0) == 0:
            return "utf-16-be"
        raise ValueError(f"{name} is a binary file (a NUL byte at byte {raw.index(0)}), not a text table. "
                         "Give a CSV/TSV text file, an ARFF file or a Parquet file.")
    return "utf-8" if _decodes(raw, "utf-8") else next(e for e in FALLBACK_ENCODINGS if _decodes(raw, e))
