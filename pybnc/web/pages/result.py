"""A run's result page (``GET /runs/<run>?model=tan``): the comparison of every model,
then the chosen model's evidence view (:mod:`.ask`), its predictions of a second file
(:mod:`.predict`), its downloads and its tables."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from .. import analysis, network
from ._common import owner, runs
from . import ask

bp = Blueprint("run", __name__)


@bp.get("/runs/<run>")
def page(run):
    learned = runs().get(run, owner())
    key = request.args.get("model") or default_view(learned)
    if key not in learned.models:
        abort(404)
    view = learned.views[key]
    prior = network.posterior(learned.models[key], view["domains"], {}, influence=False)
    return render_template("result.html", o=learned, run=run, key=key, view=view, prior=prior, panels=ask.PANELS)


def default_view(learned) -> str:
    """The model shown first: the first one chosen besides the baseline that has a network."""
    others = [k for k in learned.keys if k != analysis.BASELINE] or learned.keys
    drawn = [k for k in others if learned.views[k]["drawing"] is not None]
    return (drawn or others)[0]
