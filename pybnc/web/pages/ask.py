"""Question a network with evidence: the view on the result page and its answers.

The view (``templates/ask/view.html``, included by the result page) draws the
network and lists the features to set; ``static/network.js`` sends the evidence to
``POST /api/runs/<run>/<model>/posterior`` and shows the posterior and each set
feature's influence.

Adding a panel to the view
--------------------------
A panel is a template under ``templates/ask/``, shown below the posterior, and
optionally a script and routes of its own:

1. write ``templates/ask/<name>.html`` (it sees ``o``, ``run``, ``key``, ``view`` and
   ``prior`` as the result page does);
2. add ``Panel("ask/<name>.html", "<name>.js")`` to :data:`PANELS`;
3. in ``static/<name>.js`` listen for the ``pybnc:evidence`` event that
   ``network.js`` dispatches on ``document`` whenever the evidence changes
   (``event.detail``: ``{run, model, evidence: {feature index: level index}}``) and ask
   a route of this blueprint (or a new one, registered in ``pages/__init__.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, jsonify

from .. import network
from ._common import json_body, owner, runs

bp = Blueprint("ask", __name__)


@dataclass(frozen=True)
class Panel:
    """One panel of the evidence view: its template and, optionally, its script."""

    template: str
    script: str | None = None


#: The evidence view's extra panels, in page order, below the posterior.
PANELS: list = [Panel("ask/contributions.html", "contributions.js")]  # each value's Shapley value


def parse_evidence(question, domains: list) -> dict:
    """``{feature index: level index}`` of a question's ``evidence``, each index checked
    against the model's features and levels (``ValueError`` otherwise)."""
    try:
        evidence = {int(f): int(v) for f, v in ((question or {}).get("evidence") or {}).items()}
    except (TypeError, ValueError, AttributeError):
        raise ValueError("evidence must map feature indices to level indices of this model") from None
    if any(not (0 <= f < len(domains) and 0 <= v < len(domains[f][1])) for f, v in evidence.items()):
        raise ValueError("evidence must map feature indices to level indices of this model")
    return evidence


@bp.post("/api/runs/<run>/<key>/posterior")
def posterior(run, key):
    """``{"evidence": {feature index: level index}, "influence": true}`` to the class
    posterior and each set feature's influence (:func:`pybnc.web.network.posterior`)."""
    learned, model = runs().model(run, key, owner())
    domains = learned.views[key]["domains"]
    question = json_body()
    try:
        evidence = parse_evidence(question, domains)
    except ValueError as exc:
        return jsonify({"error": str(exc)}), 400
    influence = question.get("influence", True) is not False
    return jsonify(network.posterior(model, domains, evidence, influence))
