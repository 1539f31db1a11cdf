"""Save and load fitted pybnc models in a safe, versioned file format (not pickle).

A model file is a zip archive holding ``model.json`` (a header and a typed tree of
every fitted attribute) and one ``.npy`` file per numeric array. Loading parses
JSON and reads arrays without unpickling; the only classes ever instantiated are
pybnc estimators (subclasses of :class:`~pybnc.estimators.base.BaseBNC` defined in
pybnc), :class:`~pybnc.Encoder`, dataclasses defined in pybnc (such as
:class:`~pybnc.structure.Structure`) and scipy sparse matrices. So a model file runs
no code of its own when loaded.

Loading is defensive, because a model file may come from anywhere: member sizes are
checked before anything is decompressed (:mod:`._archive`), every array's dtype and
shape before its bytes are read, and the loaded classifier's fitted state for
consistency (``BaseBNC._check_fitted_state``) and by classifying two probe rows
before it is returned. Every problem is one ``ValueError`` naming the file and the
field. The format is specified in ``docs/model-format.md``.
"""

from __future__ import annotations

import io
import json
import os
import warnings
import zipfile

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._version import __version__
from ..estimators._fitted_state import InconsistentState, check_fitted_model

from ._archive import MAX_COMPRESSION_RATIO, MAX_MODEL_BYTES, Archive
from ._nodes import Malformed, Reader, Writer, estimator_classes

FORMAT_NAME = "pybnc-model"
#: The version this pybnc writes. Version 2 declares every array's dtype and shape in
#: its node and adds sparse matrices; version 1 files still load.
FORMAT_VERSION = 2
MIN_FORMAT_VERSION = 1
HEADER = "model.json"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so that equal models give equal files
#: zlib's level for the members. At 1 to 3 zlib matches greedily, which holds even a run of
#: zeros to about 229:1, under the ratio :func:`load` refuses as a zip bomb (500:1); at its
#: default 6 a saved SKDB with tables of mostly unseen configurations reached 705:1 and did
#: not load. 3 is also faster: AutoBNC's ensemble on movement_libras (4,511 arrays, 335 MB
#: of tables) deflated in 2.7 s to 28 MB, against 6.5 s to 22 MB at 6.
COMPRESS_LEVEL = 3


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
    if type(model) not in estimator_classes().values():
        raise TypeError(
            f"pybnc.save stores pybnc classifiers only, got {type(model).__module__}."
            f"{type(model).__qualname__}. For other objects use joblib or skops."
        )
    check_is_fitted(model)
    writer = Writer()
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
            archive.writestr(info, data, compresslevel=COMPRESS_LEVEL)

        write(HEADER, json.dumps(header, indent=1, ensure_ascii=False).encode("utf-8"))
        for name, array in writer.arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            write(name, buffer.getvalue())


def read_header(path, *, max_bytes: int = MAX_MODEL_BYTES, max_ratio: float = MAX_COMPRESSION_RATIO) -> dict:
    """The parsed ``model.json`` of a model file, checked for format and version.

    Nothing is instantiated; arrays are not read. Raises ``ValueError`` like :func:`load`.
    """
    archive, header = _open(path, max_bytes, max_ratio)
    archive.close()
    return header


def _source(path) -> str:
    return repr(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else "the file object"


def _what_to_do(header) -> str:
    """The advice after a file's content was refused: which pybnc wrote it, and what to do."""
    written = header.get("pybnc_version") if isinstance(header, dict) else None
    if not isinstance(written, str) or written == __version__:
        return "Fit the model again and save it with pybnc.save(model, path)."
    return (f"The file was written by pybnc {written[:40]} (model format {header.get('format_version')}), this is "
            f"pybnc {__version__}: fit the model again with this version and save it with pybnc.save(model, "
            f"path), or read the file with pybnc {written[:40]} (pip install pybnc=={written[:40]}).")


def _open(path, max_bytes, max_ratio):
    """The checked archive and its parsed header (format and version checked)."""
    source = _source(path)
    archive = Archive(path, source, max_bytes, max_ratio)
    try:
        if not archive.has(HEADER):
            raise ValueError(f"{source} is a zip archive but not a pybnc model file (no {HEADER}).")
        text = archive.read_header(HEADER)
        try:
            header = json.loads(text.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # bad UTF-8 or JSON; nesting too deep
            raise archive.error(HEADER, f"not readable JSON ({type(exc).__name__}: {str(exc)[:200]})") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            found = header.get("format") if isinstance(header, dict) else None
            raise ValueError(f"{source} is not a pybnc model file (format {str(found)[:80]!r}).")
        version = header.get("format_version")
        if type(version) is not int or version < MIN_FORMAT_VERSION:
            raise archive.error(f"{HEADER} format_version",
                                f"{str(version)[:40]!r} is not a format version (an integer from "
                                f"{MIN_FORMAT_VERSION} to {FORMAT_VERSION})")
        if version > FORMAT_VERSION:
            raise ValueError(
                f"{source} uses pybnc model format version {version} (written by pybnc "
                f"{str(header.get('pybnc_version'))[:40]}); this pybnc reads versions "
                f"{MIN_FORMAT_VERSION} to {FORMAT_VERSION}. Upgrade pybnc to load it (pip install -U pybnc)."
            )
    except BaseException:
        archive.close()
        raise
    return archive, header


def load(path, *, max_bytes: int = MAX_MODEL_BYTES, max_ratio: float = MAX_COMPRESSION_RATIO):
    """Load a model saved by :func:`save`. Runs no code from the file.

    The file is checked before anything is built from it: member sizes against the
    caps, every array's dtype and shape against the header, and the classifier's
    fitted state for consistency (labels, tables, priors, encoding; all finite).

    Parameters
    ----------
    path : str, os.PathLike or binary file object
    max_bytes : int, default=2 GiB
        Largest total uncompressed size of the file's members. Raise it only for
        model files you trust.
    max_ratio : float, default=500
        Largest compression ratio of a member above 1 MiB (a zip bomb's signature).

    Returns
    -------
    BaseBNC
        The fitted classifier; it predicts bit-identically to the saved one.

    Raises
    ------
    ValueError
        If the file is not a pybnc model file, is corrupt or inconsistent, exceeds a
        cap, or was written in a newer format version. The message names the file
        and the field. This is the only error a file's content can cause.
    FileNotFoundError
        If ``path`` does not exist (other ``OSError`` if it cannot be opened).

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
    source = _source(path)
    header = None
    try:
        archive, header = _open(path, max_bytes, max_ratio)
        with archive:
            node = header.get("estimator")
            if not isinstance(node, dict) or node.get("type") != "estimator":
                raise archive.error(HEADER, "the header holds no estimator")
            reader = Reader(archive, declared_arrays=header["format_version"] >= 2)
            where = str(node.get("class", "estimator")).rsplit(".", 1)[-1][:80]
            model = reader.decode_estimator(node, where)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the probe rows may warn (unseen levels...)
            check_fitted_model(model, where)
        return model
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (Malformed, InconsistentState) as exc:
        raise ValueError(f"{source} is not a valid pybnc model file: {exc}. {_what_to_do(header)}") from exc
    except MemoryError as exc:  # arrays within the caps that still do not fit in this machine's memory
        raise ValueError(f"{source}: the model's arrays do not fit in memory ({str(exc)[:200]}). Load it on a "
                         "machine with more memory.") from exc
