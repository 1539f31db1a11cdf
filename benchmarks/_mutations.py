"""Seeded mutations of table files and model files: the corpus of
``benchmarks/fuzz_readers.py`` and of the fuzz tests (``tests/test_fuzz_readers.py``).

:func:`table_cases` damages three tables the way files get damaged or mistaken
(flipped bytes, truncation, NUL bytes, stray quotes, very long lines and wide
headers, wrong delimiters, BOMs and other encodings, broken ARFF headers, gzip and
broken gzip); :func:`model_cases` damages saved model files (bytes of the zip, and
fields and arrays of ``model.json`` and its ``.npy`` members). Both are pure
functions of the seed. :func:`check_table` and :func:`check_model` run the reader on
one case and say what happened: ``read``, ``error`` (a ``ValueError`` naming the
file), ``raw`` (any other exception, or an error that does not say which file),
``misread`` (a table that disagrees with the file) or ``hang`` (over the time limit).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import re
import sys
import time
import warnings
import zipfile
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Cells pandas and pybnc read as missing.
NA_CELLS = {"", "?", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
            "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


@dataclass
class Case:
    """One mutated file: its name (which messages must say), bytes and how it was made."""

    name: str
    data: bytes
    how: str
    table: str = "car"  # for a model file: the dataset it was fitted on (and is asked about)


# -- the seeds ---------------------------------------------------------------------------
def table_seeds() -> dict:
    """car.data (no header), car.arff (comments, nominal attributes) and a CSV with a
    header, numbers, quoted text with commas and missing values."""
    from pybnc.datasets import load_dataset
    from pybnc.io import write_arff

    X, y = load_dataset("car")
    car = X.assign(**{"class": y})
    data = car.to_csv(index=False, header=False).encode()
    buffer = io.BytesIO()
    write_arff(car, buffer, "car")
    arff = b"% 1. Title: Car Evaluation Database\n%\n" + buffer.getvalue()
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({
        "age": rng.integers(18, 90, n), "income": np.round(rng.lognormal(10, 1, n), 2),
        "city": rng.choice(["Paris", "São Paulo", "New York, NY", "Zürich"], n),
        "smoker": rng.choice(["yes", "no", None], n), "score": rng.normal(size=n).round(4),
        "label": rng.choice(["good", "bad"], n)})
    return {"car.data": data, "car.arff": arff, "people.csv": frame.to_csv(index=False).encode()}


# -- table mutations ---------------------------------------------------------------------
def _flip(rng, data: bytes) -> tuple:
    out = bytearray(data)
    k = int(rng.integers(1, 20))
    for i in rng.integers(0, len(out), k):
        out[i] = int(rng.integers(0, 256))
    return bytes(out), f"{k} bytes flipped"


def _truncate(rng, data: bytes) -> tuple:
    cut = int(rng.integers(0, len(data)))
    return data[:cut], f"truncated at byte {cut}"


def _nuls(rng, data: bytes) -> tuple:
    at = sorted(int(i) for i in rng.integers(0, len(data), int(rng.integers(1, 5))))
    out = data
    for i in reversed(at):
        out = out[:i] + b"\0" * int(rng.integers(1, 4)) + out[i:]
    return out, f"NUL bytes at {at[:3]}"


def _quotes(rng, data: bytes) -> tuple:
    out = bytearray(data)
    k = int(rng.integers(1, 6))
    for i in sorted(rng.integers(0, len(out), k), reverse=True):
        out[i:i] = b'"' if rng.random() < 0.7 else b"'"
    return bytes(out), f"{k} stray quotes"


def _lines(data: bytes) -> list:
    return data.split(b"\n")


def _long_line(rng, data: bytes) -> tuple:
    lines = _lines(data)
    i = int(rng.integers(0, len(lines)))
    kind = int(rng.integers(0, 3))
    if kind == 0:  # one enormous cell
        lines[i] = lines[i] + b"x" * int(rng.integers(10_000, 2_000_000))
        how = "a very long cell"
    elif kind == 1:  # many extra fields on one line
        lines[i] = lines[i] + b",v" * int(rng.integers(10, 20_000))
        how = "many extra fields on one line"
    else:  # a wide first line (a header of thousands of columns)
        width = int(rng.choice([50, 1_000, 10_000]))
        lines.insert(0, b",".join(b"c%d" % j for j in range(width)))
        i, how = 0, f"a {width}-column first line"
    return b"\n".join(lines), f"{how} (line {i + 1})"


def _header_mismatch(rng, data: bytes, has_header: bool) -> tuple:
    lines = _lines(data)
    width = lines[0].count(b",") + 1
    if rng.random() < 0.5:  # the header one short: R's write.csv with row names
        header = b",".join(b"name%d" % j for j in range(width - 1))
        how = "a header with one field fewer than the rows"
    else:
        extra = int(rng.integers(1, 4)) * int(rng.choice([1, -1]))
        header = b",".join(b"name%d" % j for j in range(max(1, width + extra)))
        how = f"a header of {max(1, width + extra)} fields over rows of {width}"
    return b"\n".join([header, *(lines[1:] if has_header else lines)]), how


def _delimiter(rng, data: bytes) -> tuple:
    new = [b";", b"\t", b"|", b" ", b"  "][int(rng.integers(5))]
    lines = _lines(data)
    if rng.random() < 0.5:
        return data.replace(b",", new), f"every comma replaced by {new!r}"
    chosen = rng.choice(len(lines), size=max(1, len(lines) // 10), replace=False)
    for i in chosen:
        lines[i] = lines[i].replace(b",", new)
    return b"\n".join(lines), f"commas replaced by {new!r} on {len(chosen)} lines"


def _encoding(rng, data: bytes) -> tuple:
    text = data.decode("utf-8")
    kind = int(rng.integers(0, 7))
    if kind == 0:
        return codecs.BOM_UTF8 + data, "UTF-8 BOM"
    if kind == 1:
        return text.encode("utf-16"), "UTF-16 with BOM"
    if kind == 2:
        return text.encode("utf-16-le"), "UTF-16 LE without BOM"
    if kind == 3:
        return text.replace("a", "ä", 20).encode("latin-1", "replace"), "Latin-1 with accents"
    if kind == 4:
        return text.replace("e", "€", 5).encode("cp1252", "replace"), "Windows-1252 with a euro sign"
    if kind == 5:  # invalid UTF-8 late in the file
        at = int(rng.integers(len(data) // 2, len(data)))
        return data[:at] + b"\xff\xfe\xc3" + data[at:], f"invalid UTF-8 at byte {at}"
    return text.encode("utf-32"), "UTF-32 with BOM"


def _arff_header(rng, data: bytes) -> tuple:
    lines = _lines(data)
    heads = [i for i, line in enumerate(lines) if line.startswith(b"@")]
    i = int(rng.choice(heads))
    kind = int(rng.integers(0, 8))
    line = lines[i]
    if kind == 0:
        del lines[i]
        how = "a header line removed"
    elif kind == 1:
        lines[i] = line.replace(b"}", b"")
        how = "a closing brace removed"
    elif kind == 2:
        lines[i] = line.replace(b"@attribute", b"@atribute")
        how = "a misspelt keyword"
    elif kind == 3:
        lines[i] = line.split(b"{")[0] + b"banana"
        how = "an unknown type"
    elif kind == 4:
        lines.insert(i, line)
        how = "a line declared twice"
    elif kind == 5:
        lines[i] = line.replace(b",", b",,", 1)
        how = "an empty declared value"
    elif kind == 6:
        data_at = lines.index(b"@data") if b"@data" in lines else len(lines) - 1
        lines[data_at + 1] = lines[data_at + 1].replace(b",", b",undeclared,", 1)
        how = "an undeclared value in the first row"
    else:
        lines[i] = line + b" {"
        how = "a stray brace"
    return b"\n".join(lines), f"ARFF header: {how} (line {i + 1})"


def _empty_lines(rng, data: bytes) -> tuple:
    kind = int(rng.integers(0, 4))
    if kind == 0:
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    if kind == 1:
        return data.replace(b"\n", b"\r"), "CR line ends"
    if kind == 2:
        return data.split(b"\n", 1)[0] + b"\n", "the first line only"
    lines = _lines(data)
    for i in sorted(rng.integers(0, len(lines), 5), reverse=True):
        lines.insert(i, [b"", b"   ", b",,,,,,", b'""'][int(rng.integers(4))])
    return b"\n".join(lines), "blank and empty lines inserted"


def _gzip(rng, data: bytes) -> tuple:
    return gzip.compress(data, mtime=0), "gzip"


def _broken_gzip(rng, data: bytes) -> tuple:
    packed = bytearray(gzip.compress(data, mtime=0))
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return bytes(packed[:int(rng.integers(2, len(packed)))]), "truncated gzip"
    if kind == 1:
        packed[2] = int(rng.integers(0, 256))  # compression method
        return bytes(packed), "gzip: unknown compression method"
    if kind == 2:
        packed[3] = int(rng.choice([0x02, 0xe0, 0x04, 0x08, 0x10]))  # header flags
        return bytes(packed), "gzip: header flags"
    if kind == 3:
        packed[-8] ^= 0xFF  # CRC
        return bytes(packed), "gzip: bad CRC"
    if kind == 4:
        packed[-1] ^= 0x7F  # size
        return bytes(packed), "gzip: bad size"
    for i in rng.integers(10, len(packed) - 8, int(rng.integers(1, 10))):
        packed[i] = int(rng.integers(0, 256))
    return bytes(packed), "gzip: deflate data damaged"


ANY_TABLE = [_flip, _truncate, _nuls, _quotes, _long_line, _delimiter, _encoding, _empty_lines, _gzip, _broken_gzip]


def _mutations(source: str) -> list:
    if source.endswith(".arff"):
        return [*ANY_TABLE, _arff_header]
    return [*ANY_TABLE, lambda rng, data: _header_mismatch(rng, data, has_header=source.endswith(".csv"))]


def table_cases(n: int, seed: int = 0) -> list:
    """``n`` mutated tables, each one or two mutations of a seed, reproducible from ``seed``."""
    seeds = table_seeds()
    names = list(seeds)
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        source = names[i % len(names)]
        data, hows = seeds[source], []
        for _ in range(1 + int(rng.random() < 0.3)):
            choices = _mutations(source)
            mutation = choices[int(rng.integers(len(choices)))]
            try:
                data, how = mutation(rng, data)
            except (UnicodeDecodeError, ValueError, IndexError):  # a second mutation that needs text
                continue
            hows.append(how)
        cases.append(Case(f"case{i:04d}-{source}", data, f"{source}: {'; '.join(hows)}"))
    return cases


# -- running the reader on a case ---------------------------------------------------------
@dataclass
class Outcome:
    kind: str  # "read", "error", "raw", "misread" or "hang"
    seconds: float
    detail: str = ""


def check_table(case: Case, hang_seconds: float = 10.0) -> Outcome:
    """Read ``case`` with :func:`pybnc.io.read_table` and judge the result."""
    from pybnc.io import read_table

    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame, report = read_table(case.data, name=case.name, return_report=True)
    except (ValueError, ImportError) as exc:
        seconds = time.perf_counter() - start
        message = str(exc)
        kind = "error" if case.name in message else "raw"
        return Outcome("hang" if seconds > hang_seconds else kind, seconds, f"{type(exc).__name__}: {message[:300]}")
    except Exception as exc:  # noqa: BLE001 - what the fuzz is looking for
        return Outcome("raw", time.perf_counter() - start, f"{type(exc).__name__}: {str(exc)[:300]}")
    seconds = time.perf_counter() - start
    if seconds > hang_seconds:
        return Outcome("hang", seconds, "read")
    why = misread(case.data, frame, report)
    noise = [f"{type(w.message).__name__}: {str(w.message)[:120]}" for w in caught]
    if noise and not why:  # a library's warning reaching the user is no clear message either
        return Outcome("raw", seconds, f"read, with the warning {noise[0]}")
    return Outcome("misread" if why else "read", seconds, why or report.describe()[:200])


def _text(data: bytes, encoding: str) -> str:
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode(encoding)


def _physical_lines(text: str) -> list:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def misread(data: bytes, frame: pd.DataFrame, report) -> str | None:
    """Why ``frame`` disagrees with the file, or None: an independent second reading.

    Text: the file decoded as the report says, the leading comment lines skipped, split
    by Python's ``csv`` module with the reported delimiter (``str.split`` for runs of
    whitespace), blank lines dropped, the header taken off when the report says there
    is one; then the row and column counts and every cell must agree (numbers as
    numbers, missing words as missing). ARFF: as many rows as data lines and as many
    columns as ``@attribute`` lines.
    """
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0:
        return f"the rows are indexed by {type(frame.index).__name__} (columns moved into the index)"
    text = _text(data, report.encoding) if report.format in ("text", "arff") else None
    if report.format == "arff":
        lines = [line.strip() for line in _physical_lines(text)]
        body = lines[next(i for i, line in enumerate(lines) if line.lower().startswith("@data")) + 1:]
        n_rows = sum(1 for line in body if line and not line.startswith("%"))
        n_columns = sum(1 for line in lines if line.lower().startswith("@attribute"))
        if frame.shape != (n_rows, n_columns):
            return f"shape {frame.shape}, the file has {n_rows} data lines and {n_columns} attributes"
        return None
    if report.format != "text":
        return None
    lines = _physical_lines(text)[report.comment_lines:]
    csv.field_size_limit(sys.maxsize)
    if report.delimiter == r"\s+":  # pandas splits at runs of spaces and tabs only
        rows = [re.split(r"[ \t]+", line.strip(" \t")) if line.strip(" \t") else [] for line in lines]
    else:
        rows = list(csv.reader(io.StringIO("\n".join(lines), newline=""), delimiter=report.delimiter,
                               skipinitialspace=True))
    rows = [row for row in rows if any(cell.strip() for cell in row) or len(row) > 1]
    if report.header:
        rows = rows[1:]
    if len(rows) != len(frame):
        return f"{len(frame)} rows read, the file has {len(rows)}"
    widths = {len(row) for row in rows}
    if rows and widths != {frame.shape[1]}:
        return f"{frame.shape[1]} columns read, the file's rows have {sorted(widths)[:5]} fields"
    for j, name in enumerate(frame.columns):
        column = frame[name]
        cells = pd.Series([row[j].strip() for row in rows], dtype=object)
        missing = cells.isin(NA_CELLS)
        if not np.array_equal(missing.to_numpy(), column.isna().to_numpy()):
            i = int(np.flatnonzero(missing.to_numpy() != column.isna().to_numpy())[0])
            return f"column {name!r}, row {i}: file {cells[i]!r}, read {column.iloc[i]!r}"
        seen = ~missing.to_numpy()
        if pd.api.types.is_bool_dtype(column):
            same = cells[seen].str.lower() == column[seen].astype(str).str.lower()
        elif pd.api.types.is_numeric_dtype(column):
            numbers = pd.to_numeric(cells[seen], errors="coerce").astype(float)
            same = pd.Series(np.isclose(numbers, column[seen].astype(float), rtol=1e-12, atol=0), index=numbers.index)
        else:
            same = cells[seen] == column[seen].astype(str).str.strip()
        if not same.all():
            i = int(same.index[~same.to_numpy()][0])
            return f"column {name!r}, row {i}: file {cells[i]!r}, read {column.iloc[i]!r}"
    return None



# -- model files -------------------------------------------------------------------------------
_ODD_VALUES = [None, True, False, -1, 0, 7, 2**70, 1e308, -0.5, "x", "", [], {}, [1, 2], {"type": "none"}]
_DTYPES = ["<f8", "<f4", "<i8", "<i4", "|u1", "|b1", "<U5", "|S3", "|O", "|V8", "<c16", "<M8[s]", "nonsense"]
_NODE_TYPES = ["none", "bool", "int", "float", "str", "ndarray", "object_array", "sparse", "list", "tuple", "dict",
               "dataclass", "object", "estimator", "mystery"]


#: The classifiers the issue's measure damages; ``every`` adds all the others.
MAIN_MODELS = ("TAN", "ESKDB")


def model_seeds(every: bool = False) -> dict:
    """Classifiers fitted on car and saved: a TAN and a small ESKDB, or with ``every``
    all of pybnc's classifiers (on cleve for ESKDB, whose members then cut numbers)."""
    import pybnc
    from pybnc.datasets import load_dataset
    from pybnc.io import save

    small = {"ESKDB": dict(n_estimators=3, hdp_iterations=20, random_state=0, verbose=0)}
    names = [n for n in pybnc.__all__ if isinstance(getattr(pybnc, n), type)
             and issubclass(getattr(pybnc, n), pybnc.estimators.base.BaseBNC)] if every else list(MAIN_MODELS)
    out = {}
    for name in names:
        table = "cleve" if every and name == "ESKDB" else "car"
        model = getattr(pybnc, name)(**small.get(name, {}))
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            save(model.fit(*load_dataset(table)), buffer)
        out[f"{name.lower()}.pybnc"] = (buffer.getvalue(), table)
    return out


def _members(blob: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _zip(members: dict) -> bytes:
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a member written twice, on purpose
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return out.getvalue()


def _nodes(tree, path=()):
    """Every ``(path, value)`` inside a JSON tree."""
    yield path, tree
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _nodes(value, (*path, i))


def _edit_json(rng, header: dict, arrays: list) -> str:
    """Change one node of the model's JSON tree in place; what was done."""
    nodes = [(path, value) for path, value in _nodes(header) if path]
    path, value = nodes[int(rng.integers(len(nodes)))]
    parent = header
    for key in path[:-1]:
        parent = parent[key]
    last, where = path[-1], "/".join(map(str, path))[-90:]
    kind = int(rng.integers(0, 6))
    if last == "type" and kind < 3:
        parent[last] = _NODE_TYPES[int(rng.integers(len(_NODE_TYPES)))]
        return f"{where} = {parent[last]!r}"
    if last == "dtype" and kind < 3:
        parent[last] = _DTYPES[int(rng.integers(len(_DTYPES)))]
        return f"{where} = {parent[last]!r}"
    if last == "shape" and isinstance(value, list) and value and kind < 4:
        value[int(rng.integers(len(value)))] += int(rng.choice([-1, 1, 3]))
        return f"{where} changed to {value}"
    if last == "file" and kind < 3:
        parent[last] = arrays[int(rng.integers(len(arrays)))] if rng.random() < 0.7 else "arrays/../../etc/passwd"
        return f"{where} = {parent[last]!r}"
    if last == "value" and isinstance(value, str) and value.startswith(("0x", "-0x", "nan", "inf", "-inf")) and kind < 4:
        parent[last] = ["nan", "inf", "-inf", "0x1.fffffffffffffp+1023", "0xzz", "1.5"][int(rng.integers(6))]
        return f"{where} = {parent[last]!r}"
    if last == "class" and kind < 4:
        parent[last] = ["pybnc.estimators.augmented.TAN", "pybnc.structure.Structure", "builtins.dict",
                        "os.system", "pybnc.encode.Encoder", "pybnc.averaging.eskdb.ESKDB",
                        "pybnc.estimators.naive_bayes.NaiveBayes"][int(rng.integers(7))]
        return f"{where} = {parent[last]!r}"
    if isinstance(value, list) and value and kind < 4:
        j = int(rng.integers(len(value)))
        if rng.random() < 0.5:
            del value[j]
            return f"{where}: item {j} removed"
        value.insert(j, value[j])
        return f"{where}: item {j} repeated"
    if isinstance(parent, dict) and kind == 4:
        del parent[last]
        return f"{where} removed"
    parent[last] = _ODD_VALUES[int(rng.integers(len(_ODD_VALUES)))]
    return f"{where} = {parent[last]!r}"


def _npy(array: np.ndarray, pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=pickle)
    return buffer.getvalue()


def _edit_array(rng, data: bytes) -> tuple:
    """A changed ``.npy`` member: its values, its shape, its dtype or its bytes."""
    array = np.load(io.BytesIO(data), allow_pickle=False)
    kind = int(rng.integers(0, 8))
    if kind == 0 and array.dtype.kind in "fc" and array.size:
        out = array.copy()
        with np.errstate(over="ignore"):  # 1e300 in a float32 table is inf, on purpose
            out.flat[int(rng.integers(array.size))] = [np.nan, np.inf, -np.inf, 1e300, 5.0][int(rng.integers(5))]
        return _npy(out), "a float entry made non-finite or large"
    if kind == 1 and array.dtype.kind in "iu" and array.size:
        out = array.copy()
        out.flat[int(rng.integers(array.size))] = [-1, -2**31, 2**30, 255][int(rng.integers(4))] \
            if array.dtype.itemsize > 1 else 255
        return _npy(out), "an integer entry out of range"
    if kind == 2:
        return _npy(array.reshape(-1)[:max(0, array.size - 1)]), "one entry fewer"
    if kind == 3:
        return _npy(np.concatenate([array.reshape(-1), array.reshape(-1)[:1]]) if array.size else np.zeros(3)), \
            "one entry more"
    if kind == 4:
        return _npy(array.astype([np.float32, np.int16, np.bool_, "U3"][int(rng.integers(4))])), "another dtype"
    if kind == 5:
        return data[:int(rng.integers(0, len(data)))], "truncated .npy"
    if kind == 6:
        return _npy(np.array([{"a": 1}, None], dtype=object), pickle=True), "a pickled object array"
    out = array.copy()
    if out.size:
        rng.shuffle(out.reshape(-1))
    return _npy(out), "entries shuffled"


def model_cases(n: int, seed: int = 0, every: bool = False) -> list:
    """``n`` damaged model files: bytes of the archive, fields of ``model.json``, or
    ``.npy`` members; reproducible from ``seed``."""
    seeds = model_seeds(every)
    names = list(seeds)
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        source = names[i % len(names)]
        blob, table = seeds[source]
        members = _members(blob)
        arrays = sorted(name for name in members if name.startswith("arrays/"))
        kind = rng.random()
        if kind < 0.15:
            data, how = _flip(rng, blob)
        elif kind < 0.22:
            data, how = _truncate(rng, blob)
        elif kind < 0.3:
            items = list(members.items())
            j = int(rng.integers(len(items)))
            if rng.random() < 0.5:
                how = f"member {items[j][0]} removed"
                del items[j]
            else:
                how = f"member {items[j][0]} twice"
                items.append(items[j])
            data = _zip(items)
        elif kind < 0.7:
            header = json.loads(members["model.json"])
            how = "model.json: " + _edit_json(rng, header, arrays)
            data = _zip([*{**members, "model.json": json.dumps(header).encode()}.items()])
        else:
            name = arrays[int(rng.integers(len(arrays)))]
            new, what = _edit_array(rng, members[name])
            how = f"{name}: {what}"
            data = _zip([*{**members, name: new}.items()])
        cases.append(Case(f"case{i:04d}-{source}", data, f"{source}: {how}", table))
    return cases


def check_model(case: Case, folder, hang_seconds: float = 10.0) -> Outcome:
    """Load ``case`` (written to ``folder``) with :func:`pybnc.load`, and if it loads,
    predict car with it: probabilities must be finite, in [0, 1] and sum to one."""
    import pybnc
    from pybnc.datasets import load_dataset

    path = folder / case.name
    path.write_bytes(case.data)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = pybnc.load(path)
    except ValueError as exc:
        seconds = time.perf_counter() - start
        message = str(exc)
        kind = "error" if case.name in message and "could not be loaded" not in message else "raw"
        return Outcome("hang" if seconds > hang_seconds else kind, seconds, f"{type(exc).__name__}: {message[:300]}")
    except Exception as exc:  # noqa: BLE001 - what the fuzz is looking for
        return Outcome("raw", time.perf_counter() - start, f"{type(exc).__name__}: {str(exc)[:300]}")
    finally:
        path.unlink()
    seconds = time.perf_counter() - start
    X, _ = load_dataset(case.table)
    holes = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = np.vstack([model.predict_proba(X), model.predict_proba(holes)])
    except Exception as exc:  # noqa: BLE001 - loaded, then crashed
        return Outcome("raw", seconds, f"loaded, then predict_proba raised {type(exc).__name__}: {str(exc)[:200]}")
    if not (np.isfinite(proba).all() and (proba >= 0).all() and np.allclose(proba.sum(axis=1), 1.0)):
        return Outcome("misread", seconds, "loaded, and gives probabilities that are not a distribution")
    return Outcome("hang" if seconds > hang_seconds else "read", seconds, "loaded; probabilities fine")
