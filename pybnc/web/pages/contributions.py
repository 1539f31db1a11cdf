"""The evidence view's contributions panel: each set feature's Shapley value.

``POST /api/runs/<run>/<model>/contributions`` with ``{"evidence": {feature index: level
index}}`` explains the posterior of the most probable class given that evidence with the
model's own :meth:`~pybnc.estimators.base.BaseBNC.explain`: the value of a set of features
is the log-odds of the class with the other set features left out (summed out exactly, as
the unset ones are), so the contributions add up from the prior's log-odds to the
posterior's. The panel (``templates/ask/contributions.html``, ``static/contributions.js``)
draws them as bars, largest first.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from flask import Blueprint, jsonify

from ._common import json_body, owner, runs, work_slot
from .ask import parse_evidence

bp = Blueprint("contributions", __name__)
#: Model evaluations per request: exact up to 10 set features, sampled beyond (a budget:
#: 36 set features took 3.5 s of the server's time at explain's default of 4096).
MAX_EVALS = 1024


def contributions(model, domains: list, evidence: dict) -> dict:
    """Shapley values of the set features for the top class's log-odds given ``evidence``.

    Returns
    -------
    dict
        ``top`` (class index), ``base`` (the prior's log-odds of it), ``total`` (its
        log-odds given the evidence: ``base`` plus the values), ``values``:
        ``[{"feature", "level", "value", "se"}]`` largest first, ``method``
        (``"exact"``, or sampled with a standard error beyond 10 set features) and
        ``millis``.
    """
    start = time.perf_counter()
    # The page's features are the encoder's columns; the model reads every input column.
    positions, n_inputs, _ = model.encoder_._layout()
    row = np.full((1, n_inputs), None, dtype=object)
    for feature, level in evidence.items():
        row[0, positions[feature]] = domains[feature][2][level]
    names = getattr(model, "feature_names_in_", None)
    frame = pd.DataFrame(row, columns=None if names is None else list(names))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the page shows numbers, not notes about them
        explanation = model.explain(frame if names is not None else row, max_evals=MAX_EVALS, random_state=0,
                                    verbose=0)
    # one value per encoder column (a column the encoder left out has none)
    values = explanation.iloc[0, :-1].to_numpy(float)
    errors = explanation.standard_error.iloc[0, :-1].to_numpy(float)
    moves = [{"feature": feature, "level": level, "value": float(values[feature]),
              "se": float(errors[feature])} for feature, level in evidence.items()]
    moves.sort(key=lambda m: -abs(m["value"]))
    base = float(explanation["base_value"].iloc[0])
    return {"top": int(list(model.classes_).index(explanation.target.iloc[0])), "base": base,
            "total": base + float(values.sum()), "values": moves, "method": explanation.method,
            "millis": (time.perf_counter() - start) * 1e3}


@bp.post("/api/runs/<run>/<key>/contributions")
def answer(run, key):
    learned, model = runs().model(run, key, owner())
    domains = learned.views[key]["domains"]
    try:
        evidence = parse_evidence(json_body(), domains)
    except ValueError as exc:
        return jsonify({"error": str(exc)}), 400
    with work_slot():
        return jsonify(contributions(model, domains, evidence))
