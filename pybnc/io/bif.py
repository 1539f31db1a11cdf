"""Export a fitted network to BIF and XMLBIF, for pgmpy, pyAgrum, Weka and other tools.

Only classifiers with one network (:class:`~pybnc.estimators.augmented.AugmentedNaiveBayes`
and its subclasses) can be exported; model-averaging classifiers (AODE, TBMATAN, ...)
have no single network.

Names
-----
BIF readers accept a narrow alphabet, so names are sanitised:

* every character outside ``[A-Za-z0-9_]`` becomes ``_``; runs of ``_`` collapse
  and leading/trailing ``_`` are dropped (``"handicapped-infants"`` becomes
  ``handicapped_infants``, ``"[0.5, 2)"`` becomes ``0_5_2``);
* a variable name that is empty or starts with a digit gets the prefix ``v_``;
  a state name that is empty or starts with a digit gets the prefix ``s_``
  (``"5more"`` becomes ``s_5more``), so that every name is a plain identifier;
* names that collide after this get ``_2``, ``_3``, ... in order of appearance;
* the class node is ``class``, or ``class_2``, ... if a feature already has that name.

:func:`bif_names` returns the mapping actually used.
"""

from __future__ import annotations

import os
import re
from xml.sax.saxutils import escape

import numpy as np

from ..estimators.capabilities import capabilities


def _sanitise(label, prefix: str) -> str:
    text = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", str(label))).strip("_")
    if not text or text[0].isdigit():
        text = f"{prefix}{text}"
    return text


def _unique(names, taken=()) -> list:
    seen, out = set(taken), []
    for name in names:
        candidate, k = name, 2
        while candidate in seen:
            candidate, k = f"{name}_{k}", k + 1
        seen.add(candidate)
        out.append(candidate)
    return out


def _check_model(model) -> None:
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    found = capabilities(model)
    if not found.one_network:
        raise TypeError(
            f"{type(model).__name__} has no single network to export: BIF/XMLBIF export needs a "
            "classifier with one structure (NaiveBayes, TAN, FAN, kDB, ...). Model-averaging "
            "classifiers (AODE, TBMATAN, MANB) average over many networks."
        )
    if not found.tables_are_probabilities:
        raise ValueError(
            f"{type(model).__name__}(weighting={model.weighting!r}) raises its tables to feature weights, "
            "which no Bayesian network can express; BIF export would change its predictions. "
            "Export the model fitted with weighting=None."
        )


def bif_names(model) -> dict:
    """The sanitised names used by :func:`to_bif` and :func:`to_xmlbif`.

    Returns
    -------
    dict
        ``{"class": name of the class node, "variables": [name per feature],
        "states": [[state names] per feature], "class_states": [state names]}``.

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> names = bif_names(NaiveBayes().fit(X, y))
    >>> names["class"], names["variables"][1], names["states"][2]
    ('class', 'maint', ['s_2', 's_3', 's_4', 's_5more'])
    """
    _check_model(model)
    variables = _unique([_sanitise(c, "v_") for c in model.encoder_.columns_])
    class_name = _unique(["class"], variables)[0]
    states = [_unique([_sanitise(s, "s_") for s in cats]) for cats in model.encoder_.categories_]
    class_states = _unique([_sanitise(s, "s_") for s in model.classes_])
    return {"class": class_name, "variables": variables, "states": states, "class_states": class_states}


def _families(model, names):
    """(variable, parents, their state lists, probability table with the variable last)."""
    prior = np.exp(model.class_log_prior_)
    yield names["class"], [], [], prior
    for i, table in enumerate(model.log_cpts_):
        parents = list(model.structure_.parents[i])
        shape = [len(model.classes_)] + [len(names["states"][p]) for p in parents] + [table.shape[2]]
        given = [names["class"]] + [names["variables"][p] for p in parents]
        given_states = [names["class_states"]] + [names["states"][p] for p in parents]
        yield names["variables"][i], given, given_states, np.exp(table).reshape(shape)


def _write(text: str, path):
    if path is None:
        return text
    if hasattr(path, "write"):
        path.write(text)
    else:
        with open(os.fspath(path), "w", encoding="utf-8") as handle:
            handle.write(text)
    return None


def _number(p: float) -> str:
    return repr(float(p))  # shortest text that reads back to the same float


def to_bif(model, path=None, name=None):
    """Write the network in the Bayesian Interchange Format (BIF 0.15).

    Parameters
    ----------
    model : AugmentedNaiveBayes
        A fitted classifier with one network.
    path : str, os.PathLike, text file object or None
        Where to write; ``None`` returns the text instead.
    name : str, optional
        Network name (default: the estimator's class name).

    Returns
    -------
    str or None
        The BIF text when ``path`` is None.

    Examples
    --------
    >>> from pybnc import TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> print(to_bif(TAN().fit(X, y)).splitlines()[0])
    network TAN {
    """
    _check_model(model)
    names = bif_names(model)
    states = dict(zip(names["variables"], names["states"]))
    states[names["class"]] = names["class_states"]
    lines = [f"network {_sanitise(name or type(model).__name__, 'n_')} {{", "}"]
    for var in [names["class"]] + names["variables"]:
        lines += [f"variable {var} {{",
                  f"  type discrete [ {len(states[var])} ] {{ {', '.join(states[var])} }};", "}"]
    for var, given, given_states, table in _families(model, names):
        if not given:
            lines += [f"probability ( {var} ) {{", f"  table {', '.join(map(_number, table))};", "}"]
            continue
        lines.append(f"probability ( {var} | {', '.join(given)} ) {{")
        for config in np.ndindex(*table.shape[:-1]):
            labels = ", ".join(s[j] for s, j in zip(given_states, config))
            lines.append(f"  ({labels}) {', '.join(map(_number, table[config]))};")
        lines.append("}")
    return _write("\n".join(lines) + "\n", path)


def to_xmlbif(model, path=None, name=None):
    """Write the network in XMLBIF 0.3 (the format of Weka, pgmpy and JavaBayes).

    Each ``TABLE`` lists the probabilities with the ``FOR`` variable varying fastest
    and the ``GIVEN`` variables (the class first, then the feature parents in
    column order) slower, in row-major order.

    Parameters
    ----------
    model : AugmentedNaiveBayes
    path : str, os.PathLike, text file object or None
        ``None`` returns the text.
    name : str, optional

    Returns
    -------
    str or None

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("votes")
    >>> "<FOR>class</FOR>" in to_xmlbif(NaiveBayes().fit(X, y))
    True
    """
    _check_model(model)
    names = bif_names(model)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<BIF VERSION="0.3">', "<NETWORK>",
             f"<NAME>{escape(_sanitise(name or type(model).__name__, 'n_'))}</NAME>"]
    for var, var_states in [(names["class"], names["class_states"])] + list(zip(names["variables"], names["states"])):
        lines.append('<VARIABLE TYPE="nature">')
        lines.append(f"  <NAME>{var}</NAME>")
        lines += [f"  <OUTCOME>{s}</OUTCOME>" for s in var_states]
        lines.append("</VARIABLE>")
    for var, given, _, table in _families(model, names):
        lines.append("<DEFINITION>")
        lines.append(f"  <FOR>{var}</FOR>")
        lines += [f"  <GIVEN>{g}</GIVEN>" for g in given]
        lines.append(f"  <TABLE>{' '.join(map(_number, table.ravel()))}</TABLE>")
        lines.append("</DEFINITION>")
    lines += ["</NETWORK>", "</BIF>"]
    return _write("\n".join(lines) + "\n", path)
