"""The network as the page draws and questions it: layout, arc strengths, evidence.

:func:`drawing` gives what the page's script needs to draw a single-network model
(positions from :func:`pybnc.plotting.network_layout`, each arc's conditional mutual
information); :func:`evidence_domains` the values each feature can be set to; and
:func:`posterior` answers "what does the class look like given these values?" with
the model's own ``predict_proba``, so that unset features are summed out exactly as
everywhere in pybnc.
"""

from __future__ import annotations

import time
import warnings
from html import escape

import numpy as np
import pandas as pd

from ..estimators.capabilities import capabilities
from ..scores.information import mutual_information

#: Rows of one conditional table shown on the page; the whole table is in the model file.
MAX_TABLE_ROWS = 120


def _joint(a: np.ndarray, b: np.ndarray, y: np.ndarray, shape) -> np.ndarray:
    """Counts ``N(c, a, b)`` over the rows where both ``a`` and ``b`` are observed."""
    seen = (a >= 0) & (b >= 0)
    k, ra, rb = shape
    flat = (y[seen] * ra + a[seen]) * rb + b[seen]
    return np.bincount(flat, minlength=k * ra * rb).reshape(shape).astype(np.float64)


def conditional_mutual_information(table: np.ndarray) -> float:
    """``I(A; B | C)`` in nats of a ``(C, A, B)`` table of counts: the class-weighted
    mean of the per-class mutual informations.

    >>> bool(np.isclose(conditional_mutual_information(np.array([[[5.0, 0.0], [0.0, 5.0]]])), np.log(2)))
    True
    """
    n = table.sum()
    if n <= 0:
        return 0.0
    return float(sum(t.sum() * mutual_information(t) for t in table) / n)


def drawing(model, codes: np.ndarray, y_codes: np.ndarray) -> dict | None:
    """Nodes, positions and arcs of a single-network model, or ``None`` for models that
    average many networks or join features.

    Returns
    -------
    dict
        ``nodes``: ``[{"name", "x", "y"}]`` with ``x`` in [0, 1] and ``y`` the layer
        (1 = just below the class); ``arcs``: ``[{"from", "to", "cmi"}]`` (feature
        indices; ``cmi`` = ``I(parent; child | class)`` in nats, over the rows where
        both are observed); ``class_mi``: ``I(feature; class)`` per feature.
    """
    from ..plotting import network_layout

    if not capabilities(model).one_network:
        return None
    names = model.feature_names_
    parents = [list(p) for p in model.structure_.parents]
    cards = model.encoder_.cardinalities_
    k = len(model.classes_)
    layout = network_layout(parents)
    nodes = [{"name": name, "x": layout[i][0], "y": -layout[i][1]} for i, name in enumerate(names)]
    arcs = []
    for child, ps in enumerate(parents):
        for parent in ps:
            table = _joint(codes[:, parent], codes[:, child], y_codes, (k, cards[parent], cards[child]))
            arcs.append({"from": parent, "to": child, "cmi": conditional_mutual_information(table)})
    class_mi = []
    for i in range(len(names)):
        seen = codes[:, i] >= 0
        table = np.bincount(y_codes[seen] * cards[i] + codes[seen, i], minlength=k * cards[i])
        class_mi.append(mutual_information(table.reshape(k, cards[i]).astype(np.float64)))
    return {"nodes": nodes, "arcs": arcs, "class_mi": class_mi}


def _in_bin(cuts: np.ndarray, k: int) -> float:
    """A value that the encoder puts in bin ``k`` (bins are ``[cut_{k-1}, cut_k)``)."""
    if cuts.size == 0:
        return 0.0  # a column MDL left uncut: one bin holds every value
    if k > 0:
        return float(cuts[k - 1])
    return float(cuts[0] - 1.0 - abs(cuts[0]))


def evidence_domains(model) -> list:
    """For each feature, ``(name, labels, values)``: the labels shown on the page and a
    raw value of the table for each, which the model's encoder maps to that level (a
    value inside the bin for discretised columns)."""
    encoder = model.encoder_
    out = []
    for name, kind, cats, cuts in zip(encoder.columns_, encoder.kinds_, encoder.categories_,
                                      encoder.cut_points_):
        values = ([_in_bin(cuts, k) for k in range(len(cats))] if kind == "discretised"
                  else list(cats))
        out.append((str(name), [str(c) for c in cats], values))
    return out


def posterior(model, domains: list, evidence: dict, influence: bool = True) -> dict:
    """The class posterior given ``evidence`` ``{feature index: level index}``, and how
    much each set feature moves it.

    One call of ``model.predict_proba`` on ``1 + len(evidence)`` rows: all the
    evidence, then the evidence less one feature each (only the first row when
    ``influence`` is false: the page asks for the posterior first, so that it shows at
    once even where rows with different missing features are slow, as in TBMATAN).
    Unset features are missing values, summed out exactly.

    Returns
    -------
    dict
        ``proba`` (list over ``classes_``); ``top`` (index of the most probable
        class); ``influence``: ``[{"feature", "level", "delta"}]`` where ``delta`` is
        the change in the log-odds of the top class that the feature's value brings,
        ``logit P(top | e) - logit P(top | e without it)`` (``None`` without
        ``influence``); ``millis``: the time spent.
    """
    start = time.perf_counter()
    names = [name for name, _, _ in domains]
    items = sorted(evidence.items())
    rows = np.full((1 + len(items) if influence else 1, len(names)), None, dtype=object)
    for j, (feature, level) in enumerate(items):
        rows[:, feature] = domains[feature][2][level]
        if influence:
            rows[1 + j, feature] = None
    # the encoder's columns by their own names: a column it left out is not asked for
    frame = pd.DataFrame(rows, columns=list(model.encoder_.columns_) if hasattr(model, "feature_names_in_") else names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the page shows numbers, not notes about them
        proba = model.predict_proba(frame)
    top = int(np.argmax(proba[0]))
    logit = np.log(proba[:, top]) - np.log1p(-np.minimum(proba[:, top], 1 - 1e-16))
    moves = [{"feature": feature, "level": level, "delta": float(logit[0] - logit[1 + j])}
             for j, (feature, level) in enumerate(items)] if influence else None
    return {"proba": proba[0].tolist(), "top": top, "influence": moves,
            "millis": (time.perf_counter() - start) * 1e3}


def conditional_tables(model) -> list:
    """``[(feature, parent features, html table, rows cut)]`` for models with one network."""
    if not capabilities(model).one_network:
        return []
    tables = []
    parents = model.structure_.parents
    names = model.feature_names_
    for i, name in enumerate(names):
        table = model.conditional_table(name)
        cut = max(0, len(table) - MAX_TABLE_ROWS)
        tables.append((name, [names[p] for p in parents[i]], table_html(table.head(MAX_TABLE_ROWS)), cut))
    return tables


def table_html(table: pd.DataFrame) -> str:
    """A table of probabilities as HTML, laid out as ``DataFrame.to_html`` lays it out
    (the row labels' repeats spanned), with three decimals; a sixth of its time, which
    counts in every job (labels escaped here, the page marks the result safe).

    >>> frame = pd.DataFrame([[0.25, 0.75]], index=pd.Index(["<a>"], name="class"),
    ...                      columns=pd.Index(["x", "y"], name="f"))
    >>> print(table_html(frame))  # doctest: +NORMALIZE_WHITESPACE
    <table class="dataframe cpt"><thead><tr><th>f</th><th>x</th><th>y</th></tr><tr><th>class</th><th></th><th></th></tr></thead><tbody><tr><th>&lt;a&gt;</th><td>0.250</td><td>0.750</td></tr></tbody></table>
    """
    index = table.index if isinstance(table.index, pd.MultiIndex) else pd.MultiIndex.from_arrays([table.index])
    text = lambda value: escape("" if value is None else str(value))  # noqa: E731
    head = "".join(["<th></th>" * (index.nlevels - 1), f"<th>{text(table.columns.name)}</th>",
                    *(f"<th>{text(c)}</th>" for c in table.columns)])
    names = "".join([*(f"<th>{text(n)}</th>" for n in index.names), "<th></th>" * table.shape[1]])
    values = np.char.mod("<td>%.3f</td>", table.to_numpy(dtype=float))
    codes = np.column_stack(index.codes) if len(table) else np.zeros((0, index.nlevels), dtype=int)
    # A label is written where its run starts (any level up to it changes), spanning the run.
    changes = np.ones_like(codes, dtype=bool)
    changes[1:] = np.logical_or.accumulate(codes[1:] != codes[:-1], axis=1)
    cells = [[""] * index.nlevels for _ in range(len(table))]
    for level in range(index.nlevels):
        starts = np.flatnonzero(changes[:, level])
        for start, length in zip(starts, np.diff(np.append(starts, len(table)))):
            label = text(index.levels[level][codes[start, level]])
            span = f' rowspan="{length}" valign="top"' if length > 1 else ""
            cells[start][level] = f"<th{span}>{label}</th>"
    body = "".join(f"<tr>{''.join(row)}{''.join(tds)}</tr>" for row, tds in zip(cells, values))
    return (f'<table class="dataframe cpt"><thead><tr>{head}</tr><tr>{names}</tr></thead>'
            f"<tbody>{body}</tbody></table>")
