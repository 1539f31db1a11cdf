"""Export a fitted network to BIF and XMLBIF, for pgmpy, pyAgrum, Weka and other tools.

Only classifiers with one network (:class:`~pybnc.estimators.augmented.AugmentedNaiveBayes`
and its subclasses) can be exported; model-averaging classifiers (AODE, TBMATAN, ...)
have no single network.

Names
-----
Labels are kept as they are wherever the readers take them back: evidence given by
label (``{"doors": "2"}``) then works in pyAgrum and pgmpy as in pybnc.

* **XMLBIF** keeps every column name and label (XML escapes them), but for the spaces
  around one, which pyAgrum strips (save the file as ``.bifxml`` for ``pyagrum.loadBN``).
* **BIF** has no quoting, and pyAgrum's parser takes only a word (``vhigh``,
  ``5more``, ``2``, ``-1``, ``a-b``, ``x.y``), not a decimal number, a space or a
  bracket. Other names become one: each run of characters outside ``[A-Za-z0-9_]`` is
  one ``_``, ``_`` at the ends dropped (``"[0.5, 2)"`` is ``0_5_2``, ``"a b"`` is
  ``a_b``), and a result that still is no word gets the prefix ``v_`` (a variable; an
  integer is no variable name to pyAgrum) or ``s_`` (a state); an :class:`ExportWarning` names the labels of categories and
  classes so renamed (the intervals of discretised columns always are).

In both formats names that collide get ``_2``, ``_3``, ... in order of appearance, and
the class node is ``class`` (``class_2``... if a feature has that name).
:func:`bif_names` returns the names a format uses.
"""

from __future__ import annotations

import os
import re
import warnings
from xml.sax.saxutils import escape

import numpy as np

from ..estimators.capabilities import capabilities


class ExportWarning(UserWarning):
    """An export changed a label that the file format cannot hold as it is."""


#: A name both pyAgrum's and pgmpy's BIF parsers read back as written: a word, or digits
#: then a word (not an exponent: ``1e5`` is a number to pyAgrum); a state may also be an
#: integer (a variable may not, to pyAgrum).
_BIF_WORD = r"[A-Za-z_][A-Za-z0-9_.-]*|\d+[A-DF-Za-df-z_][A-Za-z0-9_]*"
_BIF_NAMES = {"v_": re.compile(_BIF_WORD), "s_": re.compile(_BIF_WORD + r"|-?\d+"),
              "n_": re.compile(_BIF_WORD)}


def _bif_name(label, prefix: str) -> str:
    """``label`` if BIF readers take it (a variable for ``prefix="v_"``, a state for
    ``"s_"``), else made a word."""
    text, word = str(label), _BIF_NAMES[prefix]
    if word.fullmatch(text):
        return text
    text = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_")
    return text if word.fullmatch(text) else f"{prefix}{text}"


def _xml_name(label, prefix: str) -> str:
    return str(label).strip() or prefix.rstrip("_")


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


def bif_names(model, format: str = "bif") -> dict:
    """The names :func:`to_bif` (``format="bif"``) or :func:`to_xmlbif` (``"xmlbif"``) use.

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
    ('class', 'maint', ['2', '3', '4', '5more'])
    """
    _check_model(model)
    if format not in ("bif", "xmlbif"):
        raise ValueError(f"format must be 'bif' or 'xmlbif', got {format!r}.")
    name = _bif_name if format == "bif" else _xml_name
    variables = _unique([name(c, "v_") for c in model.encoder_.columns_])
    class_name = _unique(["class"], variables)[0]
    states = [_unique([name(s, "s_") for s in cats]) for cats in model.encoder_.categories_]
    class_states = _unique([name(s, "s_") for s in model.classes_])
    return {"class": class_name, "variables": variables, "states": states, "class_states": class_states}


def _names_said(model, format: str) -> dict:
    """:func:`bif_names`, and an :class:`ExportWarning` naming the categories and classes
    renamed (the intervals of discretised columns are renamed in BIF by design)."""
    names = bif_names(model, format)
    encoder = model.encoder_
    renamed = [f"{column!r}: " + ", ".join(f"{a!r} -> {b!r}" for a, b in changed[:3])
               + (", ..." if len(changed) > 3 else "")
               for column, labels, given, kind in
               [("class", model.classes_, names["class_states"], "categorical"),
                *zip(encoder.columns_, encoder.categories_, names["states"], encoder.kinds_)]
               if kind == "categorical"
               for changed in [[(str(a), b) for a, b in zip(labels, given) if str(a) != b]] if changed]
    if renamed:
        how = ("BIF names are words" if format == "bif" else
               "XMLBIF readers strip the spaces around a label")
        warnings.warn(f"{how}, so these labels are written renamed: {'; '.join(renamed[:5])}"
                      f"{'; ...' if len(renamed) > 5 else ''}. Give evidence by these names "
                      f"(pybnc.io.bif.bif_names(model{', format=' + repr(format) if format != 'bif' else ''}) "
                      "maps them), or export XMLBIF, which keeps labels.", ExportWarning, stacklevel=3)
    return names


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
    names = _names_said(model, "bif")
    states = dict(zip(names["variables"], names["states"]))
    states[names["class"]] = names["class_states"]
    lines = [f"network {_bif_name(name or type(model).__name__, 'n_')} {{", "}"]
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
    names = _names_said(model, "xmlbif")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<BIF VERSION="0.3">', "<NETWORK>",
             f"<NAME>{escape(_xml_name(name or type(model).__name__, 'n_'))}</NAME>"]
    for var, var_states in [(names["class"], names["class_states"])] + list(zip(names["variables"], names["states"])):
        lines.append('<VARIABLE TYPE="nature">')
        lines.append(f"  <NAME>{escape(var)}</NAME>")
        lines += [f"  <OUTCOME>{escape(s)}</OUTCOME>" for s in var_states]
        lines.append("</VARIABLE>")
    for var, given, _, table in _families(model, names):
        lines.append("<DEFINITION>")
        lines.append(f"  <FOR>{escape(var)}</FOR>")
        lines += [f"  <GIVEN>{escape(g)}</GIVEN>" for g in given]
        lines.append(f"  <TABLE>{' '.join(map(_number, table.ravel()))}</TABLE>")
        lines.append("</DEFINITION>")
    lines += ["</NETWORK>", "</BIF>"]
    return _write("\n".join(lines) + "\n", path)
