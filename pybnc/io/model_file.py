"""Save and load fitted pybnc models in a safe, versioned file format (not pickle).

A model file is a zip archive holding ``model.json`` (a header and a typed tree of
every fitted attribute) and one ``.npy`` file per numeric array. Loading parses
JSON and reads arrays with ``np.load(allow_pickle=False)``; the only classes ever
instantiated are pybnc estimators (subclasses of :class:`~pybnc.estimators.base.BaseBNC`
defined in pybnc), :class:`~pybnc.encode.TableEncoder` and dataclasses defined in
pybnc (such as :class:`~pybnc.structure.Structure`). So a model file runs no code
of its own when loaded. The format is specified in ``docs/model-format.md``.

Attributes are handled generically (arrays, lists of arrays, scalars, strings,
lists/tuples/dicts, object arrays of labels, nested pybnc objects), so a new
estimator needs no code here as long as its fitted state is made of these.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import io
import json
import os
import re
import sys
import zipfile

import numpy as np

FORMAT_NAME = "pybnc-model"
FORMAT_VERSION = 1
HEADER = "model.json"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so that equal models give equal files
_ESTIMATOR_PACKAGES = ("pybnc.estimators", "pybnc.averaging", "pybnc.search")


# -- the allow-list ------------------------------------------------------------------------
def _qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _all_subclasses(cls):
    seen, stack = [], [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return seen


def _import_estimator_packages() -> None:
    for name in _ESTIMATOR_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional package that is not there yet
            pass


def estimator_classes() -> dict:
    """The pybnc estimator classes a model file may name, by qualified name.

    Every subclass of ``BaseBNC`` defined in a ``pybnc`` module (including the
    abstract ones, which :func:`load` refuses to instantiate only if they cannot be).

    Examples
    --------
    >>> "pybnc.estimators.augmented.TAN" in estimator_classes()
    True
    """
    from ..estimators.base import BaseBNC

    _import_estimator_packages()
    return {_qualified(c): c for c in _all_subclasses(BaseBNC) if c.__module__.split(".")[0] == "pybnc"}


def _helper_classes() -> dict:
    """TableEncoder and every dataclass defined in a loaded pybnc module."""
    from ..encode import TableEncoder

    found = {_qualified(TableEncoder): TableEncoder}
    for modname, module in list(sys.modules.items()):
        if modname.split(".")[0] != "pybnc" or module is None:
            continue
        for obj in list(vars(module).values()):
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == modname:
                found[_qualified(obj)] = obj
    return found


def _resolve(name: str, allowed: dict, what: str):
    if name in allowed:
        return allowed[name]
    # A class moved between pybnc modules keeps loading under its bare name.
    short = [c for q, c in allowed.items() if q.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]]
    if len(short) == 1:
        return short[0]
    raise ValueError(
        f"The model file names the {what} class {name!r}, which is not a pybnc {what} class "
        "of this installation. Only pybnc classes are loaded; if it comes from a newer pybnc, "
        "upgrade pybnc (pip install -U pybnc)."
    )


# -- encoding: Python value -> JSON node (+ arrays) ------------------------------------------
_SCALAR_DTYPES = {"int": np.integer, "float": np.floating, "bool": np.bool_}


def _scalar_node(value):
    """A JSON node for a label-like scalar, or None when ``value`` is not one."""
    if value is None:
        return {"type": "none"}
    if isinstance(value, (bool, np.bool_)):
        node = {"type": "bool", "value": bool(value)}
    elif isinstance(value, (int, np.integer)):
        node = {"type": "int", "value": int(value)}
    elif isinstance(value, (float, np.floating)):
        # float.hex is exact and spells nan/inf, which strict JSON cannot.
        node = {"type": "float", "value": float(value).hex()}
    elif isinstance(value, (str, np.str_)):
        return {"type": "str", "value": str(value)}
    else:
        return None
    if isinstance(value, np.generic):
        node["dtype"] = value.dtype.str
    return node


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.estimators = estimator_classes()
        self.helpers = _helper_classes()

    def add_array(self, array: np.ndarray) -> str:
        name = f"arrays/{len(self.arrays):05d}.npy"
        self.arrays[name] = array
        return name

    def encode(self, value, where: str):
        node = _scalar_node(value)
        if node is not None:
            return node
        if isinstance(value, np.ndarray):
            if value.dtype.kind in "biufcUSmM" and not value.dtype.hasobject:
                return {"type": "ndarray", "file": self.add_array(value)}
            if value.dtype == object:
                items = [self._label(v, f"{where}[{i}]") for i, v in enumerate(value.ravel())]
                return {"type": "object_array", "shape": list(value.shape), "items": items}
        elif isinstance(value, (list, tuple)):
            kind = "list" if isinstance(value, list) else "tuple"
            return {"type": kind, "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        elif isinstance(value, dict):
            return {"type": "dict", "items": [[self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                                              for k, v in value.items()]}
        elif type(value) in self.estimators.values():
            return self.encode_estimator(value, where)
        elif self.helpers.get(_qualified(type(value))) is type(value):
            if dataclasses.is_dataclass(value):
                fields = {f.name: self.encode(getattr(value, f.name), f"{where}.{f.name}")
                          for f in dataclasses.fields(value)}
                return {"type": "dataclass", "class": _qualified(type(value)), "fields": fields}
            return {"type": "object", "class": _qualified(type(value)),
                    "attributes": self._attributes(vars(value), where)}
        raise TypeError(
            f"Cannot save {where}: values of type {type(value).__module__}.{type(value).__qualname__} "
            "are not part of the pybnc model format (arrays, scalars, strings, lists, tuples, dicts, "
            "label arrays and pybnc objects are). Store the attribute as one of these, or extend "
            "pybnc/io/model_file.py and docs/model-format.md."
        )

    def _label(self, value, where: str):
        node = _scalar_node(value)
        if node is None:
            raise TypeError(
                f"Cannot save {where}: an object array may hold only str, int, float, bool or None "
                f"labels, not {type(value).__qualname__}. Convert the labels to one of these types."
            )
        return node

    def _attributes(self, mapping: dict, where: str) -> dict:
        for key in mapping:
            if not isinstance(key, str):
                raise TypeError(f"Cannot save {where}: attribute name {key!r} is not a string.")
        return {k: self.encode(v, f"{where}.{k}") for k, v in mapping.items()}

    def encode_estimator(self, model, where: str) -> dict:
        params = model.get_params(deep=False)
        fitted = {k: v for k, v in vars(model).items() if k not in params}
        return {"type": "estimator", "class": _qualified(type(model)),
                "params": self._attributes(params, where), "attributes": self._attributes(fitted, where)}


# -- decoding: JSON node -> Python value -----------------------------------------------------
class _Reader:
    def __init__(self, archive: zipfile.ZipFile, source: str):
        self.archive = archive
        self.source = source
        self.names = set(archive.namelist())
        self.estimators = estimator_classes()
        self.helpers = _helper_classes()

    def corrupt(self, why: str) -> ValueError:
        return ValueError(f"{self.source} is not a valid pybnc model file: {why}. Save the model again "
                          "with pybnc.save(model, path).")

    def decode(self, node):
        if not isinstance(node, dict) or "type" not in node:
            raise self.corrupt(f"unexpected node {str(node)[:80]!r}")
        kind = node["type"]
        try:
            if kind == "none":
                return None
            if kind in ("bool", "int", "float", "str"):
                value = {"bool": bool, "int": int, "str": str, "float": float.fromhex}[kind](node["value"])
                return np.dtype(node["dtype"]).type(value) if "dtype" in node else value
            if kind == "ndarray":
                return self.read_array(node["file"])
            if kind == "object_array":
                out = np.empty(len(node["items"]), dtype=object)
                out[:] = [self.decode(item) for item in node["items"]]
                return out.reshape(node["shape"])
            if kind in ("list", "tuple"):
                items = [self.decode(item) for item in node["items"]]
                return items if kind == "list" else tuple(items)
            if kind == "dict":
                return {self.decode(k): self.decode(v) for k, v in node["items"]}
            if kind == "dataclass":
                cls = _resolve(node["class"], self.helpers, "helper")
                return cls(**{k: self.decode(v) for k, v in node["fields"].items()})
            if kind == "object":
                cls = _resolve(node["class"], self.helpers, "helper")
                obj = cls.__new__(cls)
                for key, value in node["attributes"].items():
                    setattr(obj, key, self.decode(value))
                return obj
            if kind == "estimator":
                return self.decode_estimator(node)
        except (KeyError, TypeError) as exc:
            raise self.corrupt(f"malformed {kind!r} node ({exc})") from exc
        raise self.corrupt(f"unknown node type {kind!r}")

    def decode_estimator(self, node):
        cls = _resolve(node["class"], self.estimators, "estimator")
        params = {k: self.decode(v) for k, v in node["params"].items()}
        try:
            model = cls(**params)
        except TypeError as exc:
            raise ValueError(
                f"{self.source}: {cls.__name__} does not accept the saved parameters "
                f"{sorted(params)} ({exc}). The file was written by a pybnc whose {cls.__name__} "
                "differs from this one; load it with that pybnc version."
            ) from exc
        for key, value in node["attributes"].items():
            setattr(model, key, self.decode(value))
        return model

    def read_array(self, name: str) -> np.ndarray:
        if not isinstance(name, str) or not re.fullmatch(r"arrays/\d+\.npy", name) or name not in self.names:
            raise self.corrupt(f"missing array {name!r}")
        with self.archive.open(name) as handle:
            try:
                return np.load(io.BytesIO(handle.read()), allow_pickle=False)
            except ValueError as exc:
                raise self.corrupt(f"array {name!r} is unreadable ({exc})") from exc


# -- public API -----------------------------------------------------------------------------------
def save(model, path) -> None:
    """Save a fitted pybnc model to ``path`` (a file name or a binary file object).

    Parameters
    ----------
    model : BaseBNC
        Any fitted pybnc classifier.
    path : str, os.PathLike or binary file object
        Conventionally with the extension ``.pybnc``.

    Examples
    --------
    >>> import io, pybnc
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = pybnc.TAN().fit(X, y)
    >>> buffer = io.BytesIO()
    >>> pybnc.save(model, buffer)
    >>> again = pybnc.load(io.BytesIO(buffer.getvalue()))
    >>> bool((again.predict_proba(X) == model.predict_proba(X)).all())
    True
    """
    from sklearn.utils.validation import check_is_fitted

    from .. import __version__

    if type(model) not in estimator_classes().values():
        raise TypeError(
            f"pybnc.save stores pybnc classifiers only, got {type(model).__module__}."
            f"{type(model).__qualname__}. For other objects use joblib or skops."
        )
    check_is_fitted(model)
    writer = _Writer()
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "pybnc_version": __version__,
        "numpy_version": np.__version__,
        "estimator": writer.encode_estimator(model, type(model).__name__),
    }
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        def write(name: str, data: bytes) -> None:
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)

        write(HEADER, json.dumps(header, indent=1, ensure_ascii=False).encode("utf-8"))
        for name, array in writer.arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            write(name, buffer.getvalue())


def read_header(path) -> dict:
    """The parsed ``model.json`` of a model file, checked for format and version."""
    return _open(path)[1]


def _open(path):
    source = repr(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else "the file object"
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ValueError(f"{source} is not a pybnc model file (not a zip archive: {exc}).") from exc
    try:
        header = json.loads(archive.read(HEADER).decode("utf-8"))
    except KeyError as exc:
        archive.close()
        raise ValueError(f"{source} is a zip archive but not a pybnc model file (no {HEADER}).") from exc
    except (ValueError, zipfile.BadZipFile) as exc:
        archive.close()
        raise ValueError(f"{source} is not a valid pybnc model file: {HEADER} is unreadable ({exc}).") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        archive.close()
        raise ValueError(f"{source} is not a pybnc model file (format {header.get('format') if isinstance(header, dict) else None!r}).")
    version = header.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        archive.close()
        raise ValueError(
            f"{source} uses pybnc model format version {version!r} (written by pybnc "
            f"{header.get('pybnc_version')}); this pybnc reads versions up to {FORMAT_VERSION}. "
            "Upgrade pybnc to load it (pip install -U pybnc)."
        )
    return archive, header, source


def load(path):
    """Load a model saved by :func:`save`. Runs no code from the file.

    Parameters
    ----------
    path : str, os.PathLike or binary file object

    Returns
    -------
    BaseBNC
        The fitted classifier; it predicts bit-identically to the saved one.

    Raises
    ------
    ValueError
        If the file is not a pybnc model file, is corrupt, or was written in a newer
        format version.

    Examples
    --------
    >>> import io, pybnc
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("votes")
    >>> buffer = io.BytesIO()
    >>> pybnc.save(pybnc.NaiveBayes().fit(X, y), buffer)
    >>> type(pybnc.load(io.BytesIO(buffer.getvalue()))).__name__
    'NaiveBayes'
    """
    archive, header, source = _open(path)
    with archive:
        reader = _Reader(archive, source)
        node = header.get("estimator")
        if not isinstance(node, dict) or node.get("type") != "estimator":
            raise reader.corrupt("the header holds no estimator")
        return reader.decode(node)
