"""Read the members of a model file's zip archive within fixed limits.

A model file comes from anywhere, so nothing is decompressed or allocated before its
size is known to be reasonable: every member's declared size is checked against the
caps when the archive is opened, and every ``.npy`` header (dtype and shape) is checked
against the member's size, and against the dtype and shape the model header declares,
before the array's bytes are read. Every failure is a ``ValueError`` that names the
file and the member (see ``docs/model-format.md``, "Limits").
"""

from __future__ import annotations

import ast
import zipfile

import numpy as np

#: Default cap on the uncompressed size of a model file (all members together).
MAX_MODEL_BYTES = 2 << 30
#: Default cap on a member's compression ratio (uncompressed / compressed size) above
#: ``_RATIO_FLOOR`` bytes; deflate cannot exceed about 1032:1, a zip bomb's signature.
MAX_COMPRESSION_RATIO = 500
#: Hard cap on ``model.json``: its JSON becomes Python objects several times its size.
MAX_HEADER_BYTES = 64 << 20
#: What a model file's arrays justify of its header: a base, and a share per array member
#: (pybnc's own headers: at most 2.2 KiB per array and 250 KiB in all, on UCI tables; the
#: labels of a table's levels, stored in the header, fill the base).
HEADER_BASE, HEADER_PER_ARRAY = 8 << 20, 4 << 10
#: JSON containers (``{`` and ``[``) the header may hold: each node is one (or two), and
#: each becomes a Python dict or list of 60 bytes or more, however short its text.
CONTAINERS_BASE, CONTAINERS_PER_ARRAY = 100_000, 64
#: Largest number of bytes any array (or shape) may declare: numpy's own bound.
_MAX_ARRAY_BYTES = np.iinfo(np.intp).max
_RATIO_FLOOR = 1 << 20
#: Array kinds a model file may hold: bool, integers, floats, complex, text, bytes, times.
_ARRAY_KINDS = "biufcUSmM"
_NPY_HEADER_MAX = 10_000  # numpy's own bound on a .npy header
_CHUNK = 16 << 20


class Archive:
    """A zip archive whose members are read only within the limits.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
    source : str
        How error messages name the file.
    max_bytes, max_ratio : int
        Caps on the total uncompressed size and on a member's compression ratio.
    """

    def __init__(self, path, source: str, max_bytes: int = MAX_MODEL_BYTES,
                 max_ratio: float = MAX_COMPRESSION_RATIO):
        self.source = source
        try:
            self.zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                NotImplementedError, IndexError, OverflowError) as exc:
            raise ValueError(f"{source} is not a pybnc model file (not a zip archive: {exc}).") from exc
        try:
            self.infos = self._check_members(max_bytes, max_ratio)
        except BaseException:
            self.zip.close()
            raise

    def _check_members(self, max_bytes, max_ratio) -> dict:
        infos, total = {}, 0
        for info in self.zip.infolist():
            name = info.filename
            if name in infos:
                raise self.error(name, "the archive holds this member twice")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise self.error(name, f"compression method {info.compress_type} is not one pybnc writes "
                                       "(stored or deflate)")
            size, packed = info.file_size, max(info.compress_size, 1)
            if size > _RATIO_FLOOR and size > max_ratio * packed:
                raise self.error(name, f"it declares {size:,} bytes from {packed:,} compressed "
                                       f"(ratio {size / packed:.0f}:1 above the cap {max_ratio}:1)",
                                 hint="A file like this is a zip bomb, not a saved model. If you made it "
                                      "and trust it, raise the cap: pybnc.load(path, max_ratio=...).")
            total += size
            if total > max_bytes:
                raise self.error(name, f"the members declare more than {max_bytes:,} bytes uncompressed "
                                       "(the cap)",
                                 hint="If you trust the file, raise the cap: pybnc.load(path, max_bytes=...).")
            infos[name] = info
        return infos

    def error(self, member: str, why: str, hint: str | None = None) -> ValueError:
        hint = hint or "Save the model again with pybnc.save(model, path)."
        return ValueError(f"{self.source} is not a valid pybnc model file: {member}: {why}. {hint}")

    def close(self) -> None:
        self.zip.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def has(self, name) -> bool:
        return isinstance(name, str) and name in self.infos

    def _open(self, name: str, label: str | None = None):
        try:
            return self.zip.open(self.infos[name])
        except Exception as exc:  # a damaged local header, encryption, an unknown method...
            raise self.error(label or name, f"unreadable ({type(exc).__name__}: {exc})") from exc

    def read_bytes(self, name: str, cap: int = MAX_HEADER_BYTES, why: str = "the cap") -> bytes:
        """The whole member (its declared size checked against ``cap`` first)."""
        if self.infos[name].file_size > cap:
            raise self.error(name, f"{self.infos[name].file_size:,} bytes, above {why} of {cap:,}")
        with self._open(name) as handle:
            return self._read(handle, name, self.infos[name].file_size, exact=True)

    def read_header(self, name: str) -> bytes:
        """The header member, bounded by what the archive's arrays justify: in size
        (:data:`HEADER_BASE` + :data:`HEADER_PER_ARRAY` per other member, at most
        :data:`MAX_HEADER_BYTES`) and in JSON containers, counted before it is parsed."""
        n_arrays = len(self.infos) - 1
        cap = min(MAX_HEADER_BYTES, HEADER_BASE + HEADER_PER_ARRAY * n_arrays)
        text = self.read_bytes(name, cap, f"what its {n_arrays:,} array member(s) justify")
        containers, bound = text.count(b"{") + text.count(b"["), CONTAINERS_BASE + CONTAINERS_PER_ARRAY * n_arrays
        if containers > bound:
            raise self.error(name, f"{containers:,} JSON objects and lists, more than its {n_arrays:,} array "
                                   f"member(s) justify ({bound:,})")
        return text

    def _read(self, handle, name: str, n: int, exact: bool = False) -> bytes:
        try:
            data = handle.read(n)
            if exact and handle.read(1):  # the CRC is checked when the member's end is reached
                raise zipfile.BadZipFile("longer than its declared size")
        except Exception as exc:  # BadZipFile (bad CRC), zlib.error, EOFError...
            raise self.error(name, f"corrupt data ({type(exc).__name__}: {exc})") from exc
        if len(data) != n:
            raise self.error(name, f"truncated ({len(data):,} of {n:,} bytes)")
        return data

    def read_array(self, name: str, dtype: str | None = None, shape: list | None = None,
                   field: str | None = None) -> np.ndarray:
        """A ``.npy`` member, its header checked against its size (and ``dtype``/``shape``
        when given) before its data are read. Never unpickles anything. Errors name the
        member, and ``field`` (the model's attribute it holds) when given."""
        size = self.infos[name].file_size
        label = f"{name} ({field})" if field else name
        with self._open(name, label) as handle:
            head = self._read(handle, label, min(size, _NPY_HEADER_MAX + 12))
            found_dtype, found_shape, fortran, offset = self._npy_header(label, head)
            if dtype is not None and found_dtype.str != dtype:
                raise self.error(label, f"the array has dtype {found_dtype.str}, the header declares {dtype}")
            if shape is not None and list(found_shape) != list(shape):
                raise self.error(label, f"the array has shape {found_shape}, the header declares {tuple(shape)}")
            n_items = int(np.prod(found_shape, dtype=object))
            if offset + n_items * found_dtype.itemsize != size:
                raise self.error(label, f"a {found_dtype.str} array of shape {found_shape} needs "
                                       f"{offset + n_items * found_dtype.itemsize:,} bytes, the member has {size:,}")
            flat = np.empty(n_items, dtype=found_dtype)
            if flat.nbytes:  # straight into the array, a chunk at a time: no second copy
                target = flat.view(np.uint8)
                done = len(head) - offset
                target[:done] = np.frombuffer(head, dtype=np.uint8, offset=offset)
                while done < flat.nbytes:
                    step = min(_CHUNK, flat.nbytes - done)
                    target[done:done + step] = np.frombuffer(self._read(handle, label, step), dtype=np.uint8)
                    done += step
            self._read(handle, label, 0, exact=True)  # reach the end: the CRC is checked there
        return flat.reshape(found_shape, order="F" if fortran else "C")

    def _npy_header(self, name: str, head: bytes):
        """``(dtype, shape, fortran_order, data offset)`` of a ``.npy`` file's first bytes."""
        if head[:6] != b"\x93NUMPY" or len(head) < 10:
            raise self.error(name, "not a .npy array")
        major = head[6]
        if major == 1:
            length, start = int.from_bytes(head[8:10], "little"), 10
        elif major in (2, 3):
            length, start = int.from_bytes(head[8:12], "little"), 12
        else:
            raise self.error(name, f".npy format version {major} is unknown")
        if length > _NPY_HEADER_MAX or start + length > len(head):
            raise self.error(name, "the .npy header is too long or truncated")
        try:
            text = head[start:start + length].decode("utf-8" if major == 3 else "latin-1")
            fields = ast.literal_eval(text)  # a dict literal of str, bool and ints: no code runs
            descr, fortran, shape = fields["descr"], fields["fortran_order"], fields["shape"]
            dtype = np.dtype(descr) if isinstance(descr, str) else None
        except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError,
                UnicodeDecodeError) as exc:
            raise self.error(name, f"the .npy header is unreadable ({type(exc).__name__})") from exc
        if dtype is None or dtype.kind not in _ARRAY_KINDS or dtype.hasobject or dtype.fields or dtype.subdtype:
            raise self.error(name, f"the array dtype {descr!r} is not a plain numeric, text or time dtype "
                                   "(object and structured arrays are never loaded)")
        if not (isinstance(shape, tuple) and all(type(d) is int and d >= 0 for d in shape) and len(shape) <= 32):
            raise self.error(name, f"the .npy shape {shape!r} is not a tuple of sizes")
        if not shape_fits(shape, dtype.itemsize):
            raise self.error(name, f"the .npy shape {shape!r} is larger than any array can be")
        if type(fortran) is not bool:
            raise self.error(name, "the .npy fortran_order is not a bool")
        return dtype, shape, fortran, start + length


def shape_fits(shape, itemsize: int = 1) -> bool:
    """Whether an array of ``shape`` can exist: numpy refuses one whose sizes (zeros left
    out) times ``itemsize`` pass the largest index, even when it is empty."""
    total = max(int(itemsize), 1)
    for size in shape:
        total *= max(int(size), 1)
    return total <= _MAX_ARRAY_BYTES
