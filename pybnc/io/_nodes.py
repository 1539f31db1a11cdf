"""The typed JSON tree of a model file: Python values to nodes and back.

Attributes are handled generically (arrays, sparse matrices, lists of arrays, scalars,
strings, lists/tuples/dicts, object arrays of labels, nested pybnc objects), so a new
estimator needs no code here as long as its fitted state is made of these. Decoding
instantiates only allow-listed pybnc classes and checks every node's shape before it
builds anything from it; see ``docs/model-format.md``.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword

import numpy as np
import scipy.sparse

from ..encode import Encoder
from ._archive import shape_fits
from ._types import ESTIMATORS, HELPERS

#: Parameters renamed for 1.0; files written before name the old ones.
_RENAMED = {"params": "smoothing", "n_folds": "cv", "ess": "alpha"}
#: The encoding options that were parameters of every classifier before 1.0 (now its ``encoder``'s).
_ENCODING_OPTIONS = tuple(Encoder().get_params())


def current_parameters(cls, params: dict) -> dict:
    """A model file's parameters of ``cls`` under this pybnc's names: ``params`` is
    ``smoothing``, ``n_folds`` and the wrappers' ``k`` are ``cv``, ``ess`` is ``alpha``,
    and the encoding options make the ``encoder`` (None where all are the defaults).

    Examples
    --------
    >>> from pybnc import TANHC
    >>> current_parameters(TANHC, {"k": 3, "params": "ms", "n_bins": 5, "missing": "sum"})
    {'cv': 3, 'smoothing': 'ms', 'encoder': None}
    """
    accepted = inspect.signature(cls.__init__).parameters
    out, encoding = {}, {}
    for key, value in params.items():
        if key in accepted:
            out[key] = value
        elif key in _ENCODING_OPTIONS and "encoder" in accepted:
            encoding[key] = value
        elif key == "k" and "cv" in accepted:  # the wrappers' folds
            out["cv"] = value
        else:
            out[_RENAMED.get(key, key)] = value
    if encoding and "encoder" not in out:
        defaults = Encoder().get_params()
        changed = {k: v for k, v in encoding.items() if not (type(v) is type(defaults[k]) and v == defaults[k])}
        out["encoder"] = Encoder(**changed) if changed else None
    return out
#: Deeper trees than this are refused (pybnc's own are under 10 levels).
MAX_DEPTH = 64


# -- the allow-list ------------------------------------------------------------------------
def qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def estimator_classes() -> dict:
    """The pybnc estimator classes a model file may name, by qualified name
    (:data:`pybnc.io._types.ESTIMATORS`).

    Examples
    --------
    >>> "pybnc.estimators.augmented.TAN" in estimator_classes()
    True
    """
    return {qualified(c): c for c in ESTIMATORS}


def helper_classes() -> dict:
    """The encoder and the dataclasses of a fitted state (:data:`pybnc.io._types.HELPERS`),
    by qualified name; files written before 1.0 name the encoder ``TableEncoder``."""
    found = {qualified(c): c for c in HELPERS}
    found["pybnc.encode.TableEncoder"] = Encoder
    return found


# -- encoding: Python value -> JSON node (+ arrays) ------------------------------------------
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


_SPARSE_PARTS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
                 "coo": ("data", "row", "col")}


class Writer:
    def __init__(self):
        self.arrays = {}
        self.estimators = estimator_classes()
        self.helpers = helper_classes()

    def add_array(self, array: np.ndarray) -> dict:
        name = f"arrays/{len(self.arrays):05d}.npy"
        self.arrays[name] = array
        return {"type": "ndarray", "file": name, "dtype": array.dtype.str, "shape": list(array.shape)}

    def encode(self, value, where: str):
        node = _scalar_node(value)
        if node is not None:
            return node
        if isinstance(value, np.ndarray):
            if value.dtype.kind in "biufcUSmM" and not value.dtype.hasobject:
                return self.add_array(value)
            if value.dtype == object:
                items = [self._label(v, f"{where}[{i}]") for i, v in enumerate(value.ravel())]
                return {"type": "object_array", "shape": list(value.shape), "items": items}
        elif scipy.sparse.issparse(value):
            matrix = value if value.format in _SPARSE_PARTS else value.tocsr()
            return {"type": "sparse", "format": matrix.format, "shape": list(matrix.shape),
                    "array": isinstance(matrix, scipy.sparse.sparray),
                    "parts": {p: self.encode(np.asarray(getattr(matrix, p)), f"{where}.{p}")
                              for p in _SPARSE_PARTS[matrix.format]}}
        elif isinstance(value, (list, tuple)):
            kind = "list" if isinstance(value, list) else "tuple"
            return {"type": kind, "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        elif isinstance(value, dict):
            return {"type": "dict", "items": [[self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                                              for k, v in value.items()]}
        elif type(value) in self.estimators.values():
            return self.encode_estimator(value, where)
        elif self.helpers.get(qualified(type(value))) is type(value):
            if hasattr(value, "saved_form"):  # what such an object stores in its place (Counts: stored pairs)
                value = value.saved_form()
            if dataclasses.is_dataclass(value):
                fields = {f.name: self.encode(getattr(value, f.name), f"{where}.{f.name}")
                          for f in dataclasses.fields(value)}
                return {"type": "dataclass", "class": qualified(type(value)), "fields": fields}
            return {"type": "object", "class": qualified(type(value)),
                    "attributes": self._attributes(vars(value), where)}
        raise TypeError(
            f"Cannot save {where}: values of type {type(value).__module__}.{type(value).__qualname__} "
            "are not part of the pybnc model format (arrays, sparse matrices, scalars, strings, lists, "
            "tuples, dicts, label arrays and pybnc objects are). Store the attribute as one of these, "
            "or extend pybnc/io/_nodes.py and docs/model-format.md."
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
        splitter = next((k for k, v in params.items() if hasattr(v, "split") and hasattr(v, "get_n_splits")), None)
        if splitter is not None:  # read by fit only: a number of folds or the folds themselves can be stored
            raise TypeError(f"Cannot save {where}.{splitter}: it is a splitter ({params[splitter]!r}), which the "
                            "pybnc model format does not store (it would have to run code to rebuild it). It is "
                            f"read by fit only: save model.set_params({splitter}=list(splitter.split(X, y))), or "
                            f"{splitter}=<number of folds>, which predicts the same.")
        fitted = {k: v for k, v in vars(model).items() if k not in params}
        return {"type": "estimator", "class": qualified(type(model)),
                "params": self._attributes(params, where), "attributes": self._attributes(fitted, where)}


# -- decoding: JSON node -> Python value -----------------------------------------------------
class Malformed(ValueError):
    """A node that does not decode; ``where`` names it (``TAN.encoder_.categories_[2]``)."""

    def __init__(self, where: str, why: str):
        super().__init__(f"{where}: {why}")


_SCALAR_KINDS = {"bool": "b", "int": "iu", "float": "f"}


def _expect(node, key, kind, where):
    value = node.get(key) if isinstance(node, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Malformed(where, f"the node's {key!r} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


class Reader:
    """Decode a model's node tree; ``archive`` gives the arrays (:class:`~._archive.Archive`)."""

    def __init__(self, archive, declared_arrays: bool):
        self.archive = archive
        self.declared_arrays = declared_arrays  # format 2 declares every array's dtype and shape
        self.estimators = estimator_classes()
        self.helpers = helper_classes()

    def decode(self, node, where: str, depth: int = 0):
        if depth > MAX_DEPTH:
            raise Malformed(where, f"nested more than {MAX_DEPTH} levels deep")
        kind = _expect(node, "type", str, where)
        if kind == "none":
            return None
        if kind == "str":
            return _expect(node, "value", str, where)
        if kind in _SCALAR_KINDS:
            return self._scalar(node, kind, where)
        if kind == "ndarray":
            return self._array(node, where)
        if kind == "object_array":
            return self._object_array(node, where, depth)
        if kind == "sparse":
            return self._sparse(node, where, depth)
        if kind in ("list", "tuple"):
            items = [self.decode(item, f"{where}[{i}]", depth + 1)
                     for i, item in enumerate(_expect(node, "items", list, where))]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return self._dict(node, where, depth)
        if kind == "dataclass":
            cls = self._resolve(node, self.helpers, "helper", where)
            fields = {key: self.decode(value, f"{where}.{key}", depth + 1)
                      for key, value in self._names(node, "fields", cls, where).items()}
            try:
                return cls(**fields)
            except (TypeError, ValueError) as exc:
                raise Malformed(where, f"{cls.__name__} does not accept these fields ({exc})") from exc
        if kind == "object":
            cls = self._resolve(node, self.helpers, "helper", where)
            if dataclasses.is_dataclass(cls):  # built from its fields, never attribute by attribute
                raise Malformed(where, f"{cls.__name__} is stored as a 'dataclass' node, not an 'object' one")
            obj = cls.__new__(cls)
            for key, value in self._names(node, "attributes", cls, where).items():
                setattr(obj, key, self.decode(value, f"{where}.{key}", depth + 1))
            for key, parameter in inspect.signature(cls.__init__).parameters.items():
                if key != "self" and key not in vars(obj):  # an option newer than the file: its default
                    setattr(obj, key, parameter.default)
            return obj
        if kind == "estimator":
            return self.decode_estimator(node, where, depth)
        raise Malformed(where, f"unknown node type {kind!r}")

    def _scalar(self, node, kind, where):
        value = node.get("value")
        if kind == "float":
            try:
                value = float.fromhex(_expect(node, "value", str, where))
            except (ValueError, OverflowError) as exc:
                raise Malformed(where, f"{value!r} is not a hexadecimal float") from exc
        elif not isinstance(value, int) or (kind == "int") == isinstance(value, bool):
            raise Malformed(where, f"{value!r} is not a JSON {'integer' if kind == 'int' else 'boolean'}")
        if "dtype" not in node:
            return value
        try:
            dtype = np.dtype(_expect(node, "dtype", str, where))
        except TypeError as exc:
            raise Malformed(where, f"dtype {node['dtype']!r} is not a numpy dtype") from exc
        if dtype.kind not in _SCALAR_KINDS[kind]:
            raise Malformed(where, f"dtype {dtype.str} does not hold a {kind}")
        try:
            return dtype.type(value)
        except OverflowError as exc:
            raise Malformed(where, f"{value} does not fit dtype {dtype.str}") from exc

    def _array(self, node, where):
        name = node.get("file")
        if not self.archive.has(name) or not name.startswith("arrays/"):
            raise Malformed(where, f"missing array {name!r}")
        if self.declared_arrays:
            dtype, shape = _expect(node, "dtype", str, where), _expect(node, "shape", list, where)
            return self.archive.read_array(name, dtype, shape, field=where)
        return self.archive.read_array(name, field=where)

    def _object_array(self, node, where, depth):
        shape, items = _expect(node, "shape", list, where), _expect(node, "items", list, where)
        if not all(type(d) is int and d >= 0 for d in shape) or int(np.prod(shape, dtype=object)) != len(items) \
                or not shape_fits(shape, 8):
            raise Malformed(where, f"shape {shape} does not hold its {len(items)} items")
        out = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            if not isinstance(item, dict) or item.get("type") not in ("none", "str", *_SCALAR_KINDS):
                raise Malformed(f"{where}[{i}]", "an object array holds only none/bool/int/float/str labels")
            out[i] = self.decode(item, f"{where}[{i}]", depth + 1)
        return out.reshape(shape)

    def _sparse(self, node, where, depth):
        fmt = _expect(node, "format", str, where)
        if fmt not in _SPARSE_PARTS:
            raise Malformed(where, f"sparse format {fmt!r} is not one of {sorted(_SPARSE_PARTS)}")
        shape = _expect(node, "shape", list, where)
        parts = _expect(node, "parts", dict, where)
        if len(shape) != 2 or not all(type(d) is int and d >= 0 for d in shape):
            raise Malformed(where, f"sparse shape {shape} is not two sizes")
        if not shape_fits(shape):
            raise Malformed(where, f"sparse shape {shape} is larger than any matrix can be")
        values = {}
        for part in _SPARSE_PARTS[fmt]:
            values[part] = self.decode(parts.get(part), f"{where}.{part}", depth + 1)
            if not isinstance(values[part], np.ndarray) or values[part].ndim != 1:
                raise Malformed(f"{where}.{part}", "not a one-dimensional array")
        array = node.get("array") is True
        cls = getattr(scipy.sparse, f"{fmt}_{'array' if array else 'matrix'}")
        try:
            if fmt == "coo":
                matrix = cls((values["data"], (values["row"], values["col"])), shape=tuple(shape))
            else:
                matrix = cls((values["data"], values["indices"], values["indptr"]), shape=tuple(shape))
                matrix.check_format(full_check=True)  # index bounds, so nothing reads past an array
        except (ValueError, TypeError, IndexError) as exc:
            raise Malformed(where, f"inconsistent sparse {fmt} parts ({exc})") from exc
        return matrix

    def _dict(self, node, where, depth):
        out = {}
        for i, pair in enumerate(_expect(node, "items", list, where)):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise Malformed(f"{where} item {i}", "not a [key, value] pair")
            key = self.decode(pair[0], f"{where} key {i}", depth + 1)
            try:
                hash(key)
            except TypeError:
                raise Malformed(f"{where} key {i}", f"a {type(key).__name__} cannot be a key") from None
            out[key] = self.decode(pair[1], f"{where}[{key!r}]", depth + 1)
        return out

    def _resolve(self, node, allowed: dict, what: str, where: str):
        name = _expect(node, "class", str, where)
        if name in allowed:
            return allowed[name]
        # A class moved between pybnc modules keeps loading under its bare name.
        short = [c for q, c in allowed.items() if q.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]]
        if len(short) == 1:
            return short[0]
        raise Malformed(where, f"the model file names the {what} class {name!r}, which is not a pybnc "
                               f"{what} class of this installation. Only pybnc classes are loaded; if it "
                               "comes from a newer pybnc, upgrade pybnc (pip install -U pybnc)")

    @staticmethod
    def _names(node, key, cls, where) -> dict:
        """The node's map of attribute names, each a plain name that shadows nothing of ``cls``."""
        mapping = _expect(node, key, dict, where)
        # A dataclass field with a default is also a class attribute; it is still a field.
        fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
        for name in mapping:
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("__") or (
                    hasattr(cls, name) and name not in fields):
                raise Malformed(f"{where}.{name}", f"not an attribute name a {cls.__name__} can have")
        return mapping

    def decode_estimator(self, node, where, depth=0):
        cls = self._resolve(node, self.estimators, "estimator", where)
        where = f"{where}({cls.__name__})" if where != cls.__name__ else where
        params = current_parameters(cls, {k: self.decode(v, f"{where}.{k}", depth + 1)
                                          for k, v in _expect(node, "params", dict, where).items()})
        try:
            model = cls(**params)
        except TypeError as exc:
            raise Malformed(where, f"{cls.__name__} does not accept the saved parameters {sorted(params)} "
                                   f"({exc}). The file was written by a pybnc whose {cls.__name__} differs "
                                   "from this one; load it with that pybnc version") from exc
        for key, value in self._names(node, "attributes", cls, where).items():
            if key in params:
                raise Malformed(f"{where}.{key}", "both a parameter and a fitted attribute")
            setattr(model, key, self.decode(value, f"{where}.{key}", depth + 1))
        return model
