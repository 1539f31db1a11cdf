"""Is a fitted classifier's state complete and consistent? (What ``pybnc.load`` asks.)

A model file may have been damaged or forged, so before a loaded classifier is handed
out its state is checked as a whole: the class labels against the class prior and
the leading axis of every table, the encoding (levels, cut points, cardinalities)
against the tables' other axes, and every table for finiteness. Each classifier
checks its own state with ``BaseBNC._check_fitted_state``: the generic part here
covers what the classifiers share (``classes_``, ``encoder_``, ``counts_``,
``class_log_prior_``, ``structure_`` with ``log_cpts_`` (required of the models that
are one network, :attr:`Capabilities.one_network
<pybnc.estimators.capabilities.Capabilities>`), ``feature_weights_``, and no
NaN or +inf in any float array of the fitted state); a classifier with state of its own
overrides the method, calls ``super()`` and checks the rest with :func:`fitted_array`.
Last, :func:`check_fitted_model` classifies two probe rows, which catches what no check
names (a new classifier's state, a missing attribute).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import scipy.sparse

from .._utils.validation import InvalidParameterError
from ..counts.tables import Counts
from ..encode import Encoder
from ..encode.table import RARE_LABEL
from ..structure import Structure
from .capabilities import capabilities


class InconsistentState(ValueError):
    """A fitted attribute that is missing, malformed or inconsistent; the message names it."""

    def __init__(self, field: str, why: str):
        super().__init__(f"{field}: {why}")
        self.field = field


def fitted_array(model, name: str, shape=None, kinds: str = "f", finite: bool = True, value=None) -> np.ndarray:
    """The attribute ``name`` of ``model`` (or ``value``, named ``name``), checked.

    ``shape`` is a tuple of sizes (``None`` for any size on that axis), ``kinds`` the
    allowed dtype kinds, ``finite`` whether float entries must be finite (otherwise
    only NaN and +inf are refused: ``-inf`` is a log of zero).
    """
    if value is None:
        value = getattr(model, name, None)
        if value is None:
            raise InconsistentState(name, "missing")
    if not isinstance(value, np.ndarray):
        raise InconsistentState(name, f"a {type(value).__name__}, not an array")
    if value.dtype.kind not in kinds:
        raise InconsistentState(name, f"dtype {value.dtype} is not one of the kinds {kinds!r}")
    if shape is not None:
        expected = tuple(shape)
        if value.ndim != len(expected) or any(e is not None and e != s for e, s in zip(expected, value.shape)):
            shown = tuple("any" if e is None else e for e in expected)
            raise InconsistentState(name, f"shape {value.shape}, expected {shown}")
    if value.dtype.kind in "fc":
        bad = ~np.isfinite(value) if finite else np.isnan(value) | (value == np.inf)
        if bad.any():
            raise InconsistentState(name, f"holds {value[bad].ravel()[0]} ({int(bad.sum())} entries); "
                                          f"{'finite values' if finite else 'no NaN or +inf'} expected")
    return value


def _count(model, name: str, minimum: int) -> int:
    value = getattr(model, name, None)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InconsistentState(name, f"{value!r} is not an integer >= {minimum}")
    return int(value)


def _check_layout(encoder, n_inputs: int):
    """Input positions and missing codes of the used columns (older encoders lack them)."""
    columns = getattr(encoder, "columns_", None)
    if not isinstance(columns, list) or not 1 <= len(columns) <= n_inputs:
        raise InconsistentState("encoder_.columns_", f"not a list of 1 to n_features_in_={n_inputs} names")
    n_used = len(columns)
    if n_used + len(getattr(encoder, "dropped_columns_", None) or ()) != n_inputs:
        raise InconsistentState("encoder_.columns_", f"not a list of n_features_in_={n_inputs} entries "
                                "(with the columns left out)")
    if getattr(encoder, "n_input_columns_", n_inputs) != n_inputs:
        raise InconsistentState("encoder_.n_input_columns_", f"differs from n_features_in_={n_inputs}")
    positions = fitted_array(None, "encoder_.positions_", (n_used,), "iu",
                             value=getattr(encoder, "positions_", np.arange(n_used)))
    if n_used != n_inputs and not hasattr(encoder, "positions_") or \
            (positions.size and (positions[0] < 0 or positions[-1] >= n_inputs)) or np.any(np.diff(positions) <= 0):
        raise InconsistentState("encoder_.positions_", f"not increasing positions among {n_inputs} columns")
    missing = fitted_array(None, "encoder_.missing_codes_", (n_used,), "iu",
                           value=getattr(encoder, "missing_codes_", np.full(n_used, -1)))
    return positions, missing


def _check_rare_levels(encoder, kinds, categories, missing_codes) -> None:
    """``rare_levels_`` (absent from files written before ``min_frequency``): one entry per
    column, None or the levels grouped into a categorical column's ``"(rare)"`` level,
    which is its last observed level; a grouped level is not also a level of its own."""
    rare = getattr(encoder, "rare_levels_", None)
    if rare is None:
        return
    if not isinstance(rare, list) or len(rare) != len(kinds):
        raise InconsistentState("encoder_.rare_levels_", f"not a list of {len(kinds)} entries (the used columns)")
    for j, (grouped, kind, levels) in enumerate(zip(rare, kinds, categories)):
        if grouped is None:
            continue
        where = f"encoder_.rare_levels_[{j}]"
        n_observed = levels.size - (missing_codes[j] >= 0)
        if kind != "categorical" or not isinstance(grouped, np.ndarray) or grouped.ndim != 1 or n_observed < 1:
            raise InconsistentState(where, "rare levels of a column that is not categorical, or not an array")
        if not str(levels[n_observed - 1]).startswith(RARE_LABEL):
            raise InconsistentState(where, f"the column's last observed level is not {RARE_LABEL!r}")
        if pd.Index(levels[: n_observed - 1], dtype=object).isin(pd.Index(grouped, dtype=object)).any():
            raise InconsistentState(where, "a grouped level is also a level of its own")


def check_encoder(model, n_features: int) -> np.ndarray:
    """The encoder's cardinalities, once its levels and cut points are consistent."""
    encoder = getattr(model, "encoder_", None)
    if not isinstance(encoder, Encoder):
        raise InconsistentState("encoder_", f"a {type(encoder).__name__}, not an Encoder")
    positions, missing_codes = _check_layout(encoder, n_features)
    n_used = positions.size
    lists = {}
    for name in ("columns_", "kinds_", "categories_", "cut_points_"):
        value = getattr(encoder, name, None)
        if not isinstance(value, list) or len(value) != n_used:
            raise InconsistentState(f"encoder_.{name}", f"not a list of {n_used} entries (the used columns)")
        lists[name] = value
    cards = fitted_array(None, "encoder_.cardinalities_", (n_used,), "iu",
                         value=getattr(encoder, "cardinalities_", None))
    for j, (kind, levels, cuts) in enumerate(zip(lists["kinds_"], lists["categories_"], lists["cut_points_"])):
        where = f"encoder_.categories_[{j}]"
        if not isinstance(levels, np.ndarray) or levels.ndim != 1:
            raise InconsistentState(where, "not a one-dimensional array of levels")
        if cards[j] != levels.size:
            raise InconsistentState(f"encoder_.cardinalities_[{j}]",
                                    f"{cards[j]}, but the column has {levels.size} levels")
        if not (missing_codes[j] == -1 or missing_codes[j] == levels.size - 1):
            raise InconsistentState(f"encoder_.missing_codes_[{j}]", "neither -1 nor the last level")
        if kind == "discretised":
            n_bins = levels.size - (missing_codes[j] >= 0)
            cuts = fitted_array(None, f"encoder_.cut_points_[{j}]", (n_bins - 1,), "f", value=cuts)
            if np.any(np.diff(cuts) <= 0):
                raise InconsistentState(f"encoder_.cut_points_[{j}]", "not strictly increasing")
        elif kind == "categorical":
            if cuts is not None:
                raise InconsistentState(f"encoder_.cut_points_[{j}]", "cut points for a categorical column")
            try:
                unique = pd.Index(levels, dtype=object).is_unique
            except TypeError:
                unique = False
            if not unique:
                raise InconsistentState(where, "a level occurs twice")
        else:
            raise InconsistentState(f"encoder_.kinds_[{j}]",
                                    f"{str(kind)[:40]!r} is not 'categorical' or 'discretised'")
    _check_rare_levels(encoder, lists["kinds_"], lists["categories_"], missing_codes)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        fitted_array(model, "feature_names_in_", (n_features,), "OU")
        if [str(c) for c in lists["columns_"]] != [str(names[p]) for p in positions]:
            raise InconsistentState("feature_names_in_", "differs from encoder_.columns_")
    return cards


def check_counts(counts, cards: np.ndarray, n_classes: int) -> None:
    """``counts_`` (a :class:`~pybnc.counts.tables.Counts`) against the encoding and the classes."""
    if not isinstance(counts, Counts):
        return  # another kind of counts: the no-NaN walk and the probe rows still see it
    if not np.array_equal(fitted_array(None, "counts_.cardinalities", (cards.size,), "iu",
                                       value=getattr(counts, "cardinalities", None)), cards):
        raise InconsistentState("counts_.cardinalities", "differ from encoder_.cardinalities_")
    width = int(cards.sum())
    shapes = [("class_counts", (n_classes,)), ("levels", (n_classes, width))]
    if getattr(counts, "joint", None) is not None:
        shapes.append(("joint", (n_classes, width, width)))
    kept = getattr(counts, "kept", None)
    if getattr(counts, "reduced", None) is not None:
        kept = fitted_array(None, "counts_.kept", (None,), "iu", value=kept)
        if kept.size and (kept.min() < 0 or kept.max() >= width or (np.diff(kept) <= 0).any()):
            raise InconsistentState("counts_.kept", f"not increasing one-hot columns below {width}")
        shapes.append(("reduced", (n_classes, kept.size, kept.size)))
    for name, shape in shapes:
        table = fitted_array(None, f"counts_.{name}", shape, "iuf", value=getattr(counts, name, None))
        if (table < 0).any():
            raise InconsistentState(f"counts_.{name}", "holds a negative count")
    for c, upper in enumerate(getattr(counts, "sparse", None) or []):
        if upper.shape != (width, width) or (upper.data < 0).any():
            raise InconsistentState(f"counts_.sparse[{c}]", f"not a ({width}, {width}) table of counts")


def fitted_list(model, name: str, length: int | None = None, value=None, items: str = "entries") -> list:
    """The attribute ``name`` (or ``value``, named ``name``): a list, of ``length`` ``items``
    if given."""
    value = getattr(model, name, None) if value is None else value
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "a list" if length is None else f"a list of {length} {items}"
        raise InconsistentState(name, f"not {size} (found {type(value).__name__}"
                                      f"{f' of {len(value)}' if isinstance(value, (list, tuple)) else ''})")
    return value


def check_structure(structure, n: int, where: str = "structure_") -> tuple:
    """The parents of a :class:`~pybnc.structure.Structure` over ``n`` features, once
    they are other features' indices and the arcs have no cycle."""
    if not isinstance(structure, Structure):
        raise InconsistentState(where, f"a {type(structure).__name__}, not a Structure")
    parents = structure.parents
    if not isinstance(parents, tuple) or len(parents) != n:
        raise InconsistentState(f"{where}.parents", f"not a tuple of {n} entries (one per feature)")
    for i, ps in enumerate(parents):
        if not isinstance(ps, tuple) or not all(type(p) is int and 0 <= p < n and p != i for p in ps) \
                or len(set(ps)) != len(ps):
            raise InconsistentState(f"{where}.parents[{i}]", f"{str(ps)[:60]} is not a tuple of other features")
    try:
        structure.topological_order()
    except ValueError as exc:
        raise InconsistentState(where, str(exc)) from None
    return parents


def check_tables(tables, parents: tuple, cards: np.ndarray, n_classes: int, where: str = "log_cpts_",
                 finite: bool = True) -> None:
    """One ``(classes, parent configurations, levels)`` table of log-probabilities per feature."""
    fitted_list(None, where, len(parents), value=tables, items="tables (one per feature)")
    for i, ps in enumerate(parents):
        configurations = int(np.prod([int(cards[p]) for p in ps], dtype=object))
        fitted_array(None, f"{where}[{i}]", (n_classes, configurations, int(cards[i])), value=tables[i],
                     finite=finite)


def check_network(model, cards: np.ndarray, n_classes: int, required: bool = False) -> None:
    """``structure_`` (naive Bayes when absent and not ``required``) against ``log_cpts_``
    and the encoding."""
    n = cards.size
    structure = vars(model).get("structure_")
    if structure is None:
        if required:
            raise InconsistentState("structure_", "missing")
        structure = Structure.naive_bayes(n)
    parents = check_structure(structure, n)
    check_tables(vars(model).get("log_cpts_"), parents, cards, n_classes)


def _float_leaves(value, where: str, depth: int = 0):
    """``(where, array)`` of every float array (and float) inside a fitted value."""
    if depth > 32:
        return
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        yield where, value
    elif isinstance(value, (float, np.floating)):
        yield where, np.asarray([value])
    elif scipy.sparse.issparse(value):
        yield from _float_leaves(value.data, f"{where}.data", depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _float_leaves(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _float_leaves(item, f"{where}[{key!r}]", depth + 1)
    elif dataclasses.is_dataclass(value) or isinstance(value, Encoder):
        for key, item in vars(value).items():
            yield from _float_leaves(item, f"{where}.{key}", depth + 1)


def check_fitted_state(model) -> None:
    """The generic part of ``BaseBNC._check_fitted_state``; raises :class:`InconsistentState`."""
    try:
        model._validate_params()  # the parameters a fit would accept
    except InvalidParameterError as exc:
        raise InconsistentState("get_params()", str(exc)) from None
    classes = fitted_array(model, "classes_", (None,), "biufOUS")
    n_classes = classes.size
    if n_classes < 2:
        raise InconsistentState("classes_", f"{n_classes} label(s); a classifier has at least 2")
    if pd.isna(classes).any() or pd.Index(classes.astype(object)).has_duplicates:
        raise InconsistentState("classes_", "holds a missing or repeated label")
    if hasattr(model, "class_log_prior_"):
        fitted_array(model, "class_log_prior_", (n_classes,))
    n_features = _count(model, "n_features_in_", 1)
    cards = check_encoder(model, n_features)
    if hasattr(model, "counts_"):
        check_counts(model.counts_, cards, n_classes)
    one_network = capabilities(model).one_network
    if one_network or "log_cpts_" in vars(model):  # AODE keeps naive Bayes's tables as its fallback
        check_network(model, cards, n_classes, required=one_network)
    if hasattr(model, "feature_weights_"):
        fitted_array(model, "feature_weights_", (cards.size,))
    params = model.get_params(deep=False)
    for name, value in vars(model).items():
        if name not in params:
            for where, array in _float_leaves(value, name):
                fitted_array(None, where, finite=False, value=array)


def _probe_rows(model):
    """Two rows that exercise every table: each column's first level, then its last."""
    encoder = model.encoder_
    rows = []
    for pick in (0, -1):
        row = []
        for kind, levels, cuts in zip(encoder.kinds_, encoder.categories_, encoder.cut_points_):
            if kind == "discretised":
                row.append(float(cuts[pick]) - (1.0 if pick == 0 else 0.0) if cuts.size else 0.0)
            else:
                row.append(levels[pick] if levels.size else None)
        rows.append(row)
    positions = getattr(encoder, "positions_", np.arange(len(encoder.kinds_)))
    table = np.full((2, getattr(encoder, "n_input_columns_", len(encoder.kinds_))), None, dtype=object)
    table[:, positions] = rows
    if hasattr(model, "feature_names_in_"):
        # typed columns: integer and float levels take the encoder's fast lookups, not hashing
        return pd.DataFrame(table, columns=list(model.feature_names_in_)).infer_objects()
    return table


def check_fitted_model(model, where: str) -> None:
    """``model._check_fitted_state()``, then two probe rows classified into finite
    probabilities that sum to one. Raises ``ValueError`` naming ``where`` and the field."""
    try:
        model._check_fitted_state()
    except InconsistentState as exc:
        raise InconsistentState(f"{where}.{exc.field}", str(exc).split(": ", 1)[1]) from None
    try:
        proba = model.predict_proba(_probe_rows(model))  # predict is derived from it (BaseBNC)
    except Exception as exc:  # the state passed every check yet does not classify
        raise InconsistentState(where, f"the fitted state does not classify a probe row "
                                       f"({type(exc).__name__}: {str(exc)[:200]})") from exc
    if proba.shape != (2, len(model.classes_)) or not np.isfinite(proba).all() \
            or not np.allclose(proba.sum(axis=1), 1.0):
        raise InconsistentState(where, "the fitted state gives probe rows probabilities that are not "
                                       "finite or do not sum to one")
