"""Small files made to hurt a reader: decompression bombs, huge sheets, hostile XML, wide lines.

Used by ``fuzz_readers.py --hostile`` and ``tests/test_web_limits.py``. Each maker
returns ``(file name, bytes)``; the bombs are a few hundred kilobytes to 2 MB.
"""

from __future__ import annotations

import io
import zipfile
import zlib

_SHEET = "xl/worksheets/sheet1.xml"
_HEAD = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
_TAIL = b"</sheetData></worksheet>"


def _deflate(parts, level: int = 9) -> bytes:
    """Raw deflate of the concatenated parts (an iterable of bytes), made a piece at a time."""
    packer, out = zlib.compressobj(level, zlib.DEFLATED, -15), []
    for part in parts:
        out.append(packer.compress(part))
    out.append(packer.flush())
    return b"".join(out)


def _repeat(unit: bytes, total: int, block: int = 1 << 24):
    """``unit`` repeated to ``total`` bytes, in blocks (nothing that size is ever held)."""
    piece = unit * max(1, block // len(unit))
    while total > 0:
        yield piece[:total]
        total -= len(piece)


def gzip_bomb(megabytes: int = 256) -> tuple:
    """A ``.csv.gz`` of ``a,b`` then ``megabytes`` MB of ``1,2`` lines (about 250 KB at 256 MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [packer.compress(b"a,b\n")]
    out += [packer.compress(part) for part in _repeat(b"1,2\n", megabytes << 20)]
    return "bomb.csv.gz", b"".join(out) + packer.flush()


def _workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["a", "b"])
    book.active.append([1, 2])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _with_member(name: str, parts, size: int) -> bytes:
    """A real workbook whose ``name`` member is replaced by ``parts`` (``size`` bytes,
    deflated a piece at a time: a 2 GiB member is never held whole)."""
    source = zipfile.ZipFile(io.BytesIO(_workbook()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename != name:
                out.writestr(info.filename, source.read(info))
    crc, chunks = 0, []
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    for part in parts:
        crc = zlib.crc32(part, crc)
        chunks.append(packer.compress(part))
    chunks.append(packer.flush())
    packed = b"".join(chunks)
    # Append the member by hand: zipfile would want the whole content in memory.
    archive = zipfile.ZipFile(buffer, "a")
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type, info.CRC, info.file_size, info.compress_size = zipfile.ZIP_DEFLATED, crc, size, len(packed)
    archive.fp.seek(archive.start_dir)
    info.header_offset = archive.fp.tell()
    archive.fp.write(info.FileHeader(zip64=size > zipfile.ZIP64_LIMIT))
    archive.fp.write(packed)
    archive.start_dir = archive.fp.tell()
    archive.filelist.append(info)
    archive.NameToInfo[name] = info
    archive._didModify = True
    archive.close()
    return buffer.getvalue()


def xlsx_spaces(gigabytes: float = 2.0) -> tuple:
    """A workbook whose sheet holds ``gigabytes`` GiB of spaces (2 MB at 2 GiB)."""
    size = int(gigabytes * (1 << 30))
    parts = [_HEAD, *_repeat(b" ", size - len(_HEAD) - len(_TAIL)), _TAIL]
    return "spaces.xlsx", _with_member(_SHEET, iter(parts), size)


def xlsx_rows(n_rows: int = 5_000_000) -> tuple:
    """A workbook of ``n_rows`` rows of one cell (0.9 MB at 5 million)."""
    row = b"<row><c><v>1</v></c></row>"
    parts = [_HEAD, b'<row><c t="inlineStr"><is><t>a</t></is></c></row>', *_repeat(row, n_rows * len(row)), _TAIL]
    size = sum(map(len, parts))
    return "rows.xlsx", _with_member(_SHEET, iter(parts), size)


def _sheet(body: bytes, prolog: bytes = b"") -> bytes:
    return _HEAD.replace(b"\n", b"\n" + prolog, 1) + body + _TAIL


def xlsx_malformed() -> tuple:
    xml = _sheet(b'<row><c t="inlineStr"><is><t>a</t></is></c><row>')  # an unclosed row
    return "malformed.xlsx", _with_member(_SHEET, [xml], len(xml))


def xlsx_xxe() -> tuple:
    """An external entity (the server's /etc/passwd) in a cell."""
    xml = _sheet(b'<row><c t="inlineStr"><is><t>&xxe;</t></is></c></row>',
                 b'<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n')
    return "xxe.xlsx", _with_member(_SHEET, [xml], len(xml))


def xlsx_laughs() -> tuple:
    """Billion laughs: ten levels of ten entities, 10^9 ``lol`` from a kilobyte."""
    entities = b"".join(b'<!ENTITY l%d "%s">' % (i, (b"&l%d;" % (i - 1)) * 10 if i else b"lol")
                        for i in range(10))
    xml = _sheet(b'<row><c t="inlineStr"><is><t>&l9;</t></is></c></row>',
                 b"<!DOCTYPE worksheet [" + entities + b"]>\n")
    return "laughs.xlsx", _with_member(_SHEET, [xml], len(xml))


def wide_header(chars: int = 140_000) -> tuple:
    """A header line of one name longer than the csv module's field bound (131,072)."""
    return "wide.csv", b"x" * chars + b",b\n1,2\n3,4\n"


def model_with_huge_header(mebibytes: int = 252) -> tuple:
    """A saved naive Bayes on car whose ``model.json`` is padded to ``mebibytes`` MiB of
    JSON (264 MB at 252 MiB, under the former flat cap of 256 MiB; deflated below the zip-bomb
    ratio: 2 MB), written a piece at a time."""
    import json

    import numpy as np

    import pybnc
    from pybnc.datasets import load_dataset

    saved = io.BytesIO()
    pybnc.save(pybnc.NaiveBayes().fit(*load_dataset("car")), saved)
    source = zipfile.ZipFile(saved)
    text = json.dumps(json.loads(source.read("model.json")))
    block = np.random.default_rng(0).bytes(12 << 10).hex().encode()  # 24 KiB, repeated inside deflate's window
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        info = zipfile.ZipInfo("model.json", (1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with out.open(info, "w", force_zip64=True) as member:
            member.write(text[:-1].encode() + b', "padding": "')
            for part in _repeat(block, mebibytes << 20, len(block) * 40):
                member.write(part)
            member.write(b'"}')
        for name in source.namelist():
            if name != "model.json":
                out.writestr(name, source.read(name))
    return "huge-header.pybnc", buffer.getvalue()


#: Every maker, by name, with small arguments (fast enough for a test).
SMALL = {"gzip bomb": lambda: gzip_bomb(256), "xlsx of spaces": lambda: xlsx_spaces(0.25),
         "xlsx of 5 M rows": lambda: xlsx_rows(5_000_000), "malformed xlsx": xlsx_malformed, "xxe xlsx": xlsx_xxe,
         "billion laughs xlsx": xlsx_laughs, "wide header": wide_header}
#: The issue's sizes (the 2 GiB sheet takes a few seconds to make).
FULL = dict(SMALL, **{"xlsx of spaces": lambda: xlsx_spaces(2.0)})
