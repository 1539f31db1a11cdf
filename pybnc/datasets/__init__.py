"""Classic UCI benchmark datasets for Bayesian network classifiers.

The datasets used by Friedman, Geiger & Goldszmidt (1997) and later work on
TAN, kDB, AODE and friends, bundled with the package (except ``pima``, whose
donor does not allow redistribution).  Data come from the UCI Machine
Learning Repository (Dua & Graff, CC BY 4.0); see ``data/README.md``.

Examples
--------
>>> from pybnc.datasets import load_dataset, list_datasets
>>> "car" in list_datasets()
True
>>> X, y = load_dataset("car")
>>> X.shape, y.nunique()
((1728, 6), 4)
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ._uci import (ATTRIBUTION, DATA_DIR, DATA_HOME_ENV, SPECS, Spec,
                   data_home_candidates)

__all__ = ["describe", "list_datasets", "load_dataset", "read_arff"]

_BY_NAME = {s.name: s for s in SPECS}
_ALIASES = {a: s.name for s in SPECS for a in (s.name, *s.aliases)}


def list_datasets() -> list[str]:
    """Return the canonical names of the available datasets.

    Returns
    -------
    list of str
        Sorted dataset names accepted by :func:`load_dataset`.  Aliases
        (``"kr-vs-kp"``, ``"house-votes-84"``, ...) are accepted too but not
        listed.

    Examples
    --------
    >>> from pybnc.datasets import list_datasets
    >>> list_datasets()[:3]
    ['adult', 'breast', 'car']
    """
    return sorted(_BY_NAME)


def _spec(name: str) -> Spec:
    key = str(name).strip().lower().replace("_", "-")
    if key not in _ALIASES:
        raise ValueError(
            f"Unknown dataset {name!r}. Valid names: {', '.join(list_datasets())}"
            f" (aliases: {', '.join(sorted(set(_ALIASES) - set(_BY_NAME)))})."
        )
    return _BY_NAME[_ALIASES[key]]


def describe(name: str) -> dict:
    """Summarise a dataset without loading it.

    Parameters
    ----------
    name : str
        Dataset name or alias, see :func:`list_datasets`.

    Returns
    -------
    dict
        Keys ``name``, ``n_rows``, ``n_features``, ``n_continuous``,
        ``n_categorical``, ``n_classes``, ``has_missing``, ``features``,
        ``files``, ``bundled``, ``aliases``, ``source``, ``notes`` and
        ``attribution`` (the UCI citation and licence).

    Examples
    --------
    >>> from pybnc.datasets import describe
    >>> d = describe("chess")
    >>> d["n_rows"], d["n_features"], d["n_classes"], d["has_missing"]
    (3196, 36, 2, False)
    """
    s = _spec(name)
    return {
        "name": s.name,
        "n_rows": s.n_rows,
        "n_features": len(s.features),
        "n_continuous": len(s.continuous),
        "n_categorical": len(s.features) - len(s.continuous),
        "n_classes": s.n_classes,
        "has_missing": s.has_missing,
        "features": list(s.features),
        "files": list(s.files),
        "bundled": s.shipped,
        "aliases": list(s.aliases),
        "source": s.source,
        "notes": s.notes,
        "attribution": ATTRIBUTION,
    }


def _levels(values) -> list[str]:
    # Numeric codes ("2", "10") read better in numeric than in lexical order.
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def _categorical(col: pd.Series, domain: list[str] | None) -> pd.Series:
    levels = domain if domain is not None else _levels(col.dropna().unique())
    unknown = set(col.dropna().unique()) - set(levels)
    if unknown:  # would silently become NaN otherwise
        raise ValueError(f"{col.name}: values {sorted(unknown)} not in domain")
    return pd.Series(pd.Categorical(col, categories=levels), name=col.name)


def _paths(s: Spec, data_home) -> list[Path]:
    if s.shipped:
        return [DATA_DIR / s.name / f for f in s.files]
    tried = []
    for base in data_home_candidates(data_home):
        for sub in s.search_dirs:
            paths = [base / sub / f for f in s.files]
            tried.append(str(paths[0].resolve()))
            if all(p.is_file() for p in paths):
                return paths
    raise FileNotFoundError(
        f"Dataset {s.name!r} is not bundled with pybnc (its donor restricts "
        f"redistribution). Download {', '.join(s.files)} yourself and put it "
        f"in a folder passed as data_home=..., or named by the {DATA_HOME_ENV} "
        f"environment variable (optionally in a {s.search_dirs[0]!r} "
        f"sub-folder). Looked for: {'; '.join(dict.fromkeys(tried))}"
    )


@functools.lru_cache(maxsize=None)
def _load(name: str, paths: tuple[Path, ...]) -> tuple[pd.DataFrame, pd.Series]:
    s = _BY_NAME[name]
    raw, domains = s.reader(list(paths))
    expected = len(s.features) + 1
    if raw.shape[1] != expected:
        raise ValueError(f"{name}: expected {expected} columns, got {raw.shape[1]}")
    raw.columns = [*s.features, "class"]
    doms = list(domains.values()) if domains else [None] * expected
    X = pd.DataFrame({
        f: pd.to_numeric(raw[f]).astype("float64") if f in s.continuous
        else _categorical(raw[f], dom)
        for f, dom in zip(s.features, doms)
    })
    y = _categorical(raw["class"], doms[-1])
    return X, y


def load_dataset(name: str, *, as_frame: bool = True,
                 data_home: str | os.PathLike | None = None):
    """Load a benchmark dataset as features ``X`` and class ``y``.

    Parameters
    ----------
    name : str
        Dataset name, case-insensitive; one of :func:`list_datasets` or an
        alias such as ``"kr-vs-kp"``, ``"house-votes-84"``, ``"diabetes"``.
    as_frame : bool, default=True
        If True return a DataFrame and a Series; otherwise two numpy object
        arrays (missing values are ``nan``).
    data_home : str or path-like, optional
        Folder holding datasets that are not bundled (only ``pima``).
        Defaults to ``$PYBNC_DATA_HOME``, then ``../shared/datasets/uci``
        relative to the working directory or the source checkout.  Ignored
        for bundled datasets.

    Returns
    -------
    X : pandas.DataFrame or numpy.ndarray of shape (n_rows, n_features)
        One column per attribute, named as in the dataset's ``.names`` file.
        Categorical attributes have ``category`` dtype whose categories are
        the raw values as strings (numerically sorted when they are numbers,
        else alphabetically; soybean keeps its ARFF order); continuous ones
        are float64.  Missing values are NaN and never a category.
    y : pandas.Series or numpy.ndarray of shape (n_rows,)
        The class, a categorical Series named ``"class"``.

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists the valid names.
    FileNotFoundError
        If a non-bundled dataset cannot be found.

    Notes
    -----
    Id columns are dropped; for the per-dataset preprocessing (adult test
    labels, binary cleve class, ...) see :func:`describe` and
    ``pybnc/datasets/data/README.md``.

    Examples
    --------
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("votes")
    >>> X.shape
    (435, 16)
    >>> y.value_counts().to_dict()
    {'democrat': 267, 'republican': 168}
    >>> int(X["handicapped-infants"].isna().sum())
    12
    >>> X, y = load_dataset("iris", as_frame=False)
    >>> X.dtype, X.shape
    (dtype('O'), (150, 4))
    """
    s = _spec(name)
    X, y = _load(s.name, tuple(_paths(s, data_home)))
    if as_frame:
        return X.copy(), y.copy()
    return X.to_numpy(dtype=object), y.to_numpy(dtype=object)


def read_arff(path, target=None, *, as_frame: bool = True, encoding=None):
    """Read a Weka ARFF file as features ``X`` and class ``y``, like :func:`load_dataset`.

    Most UCI and Weka benchmark tables come as ARFF. The reading rules are those of
    :func:`pybnc.io.read_arff`: nominal attributes become ``category`` columns with
    the declared values in declared order, numeric ones float64, ``?`` is missing;
    quoted names and values, comments and sparse data are read.

    Parameters
    ----------
    path : str, path-like, bytes or binary file object
        The ARFF file (gzip-compressed or not).
    target : str, optional
        The class attribute; by default the last one (Weka's convention).
    as_frame : bool, default=True
        If False return numpy object arrays (missing values are ``nan``).
    encoding : str, optional
        Text encoding (default: detected).

    Returns
    -------
    X : pandas.DataFrame or numpy.ndarray
    y : pandas.Series or numpy.ndarray
        Named after the class attribute.

    Raises
    ------
    ValueError
        If the file is not a readable ARFF file (the message names the line), or has
        no attribute ``target``.

    Examples
    --------
    >>> from pybnc.datasets import read_arff
    >>> X, y = read_arff(b"@relation r\\n@attribute a {x, y}\\n@attribute c {p, q}\\n@data\\nx,p\\n?,q\\n")
    >>> X["a"].tolist(), y.name, y.tolist()
    (['x', nan], 'c', ['p', 'q'])
    """
    from ..io.arff import read_arff as read_frame

    frame = read_frame(path, encoding=encoding)
    target = frame.columns[-1] if target is None else target
    if target not in frame.columns:
        raise ValueError(f"{path if isinstance(path, (str, os.PathLike)) else 'The ARFF file'} has no "
                         f"attribute {target!r}; its attributes: {', '.join(frame.columns)}.")
    X, y = frame.drop(columns=[target]), frame[target]
    if as_frame:
        return X, y
    return X.to_numpy(dtype=object), y.to_numpy(dtype=object)
