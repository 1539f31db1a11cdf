"""A run's downloads (``GET /download/<run>/<file>``): model files and in-sample
predictions (both written when first asked for) and the predictions of second files."""

from __future__ import annotations

import os
import re
import uuid

import pandas as pd
from flask import Blueprint, send_file

from .. import compare
from ..analysis import ROWS
from ._common import owner, runs

bp = Blueprint("download", __name__)
_IN_SAMPLE = re.compile(r"^([a-z]+)-predictions\.csv$")
_MODEL_FILE = re.compile(r"^([a-z]+)\.pybnc$")


@bp.get("/download/<run>/<name>")
def file(run, name):
    in_sample, model_file = _IN_SAMPLE.match(name), _MODEL_FILE.match(name)
    if in_sample:
        _predict_rows(run, in_sample.group(1))
    elif model_file:
        _save_model(run, model_file.group(1))
    path = runs().path(run, name, owner())
    kind = "text/csv" if name.endswith(".csv") else "application/octet-stream"
    nice = "predictions-new.csv" if name.startswith("new-") else name
    return send_file(path, mimetype=kind, as_attachment=True, download_name=nice)


def _predict_rows(run: str, key: str) -> None:
    """Write ``<key>-predictions.csv``, the model's predictions of the run's own rows,
    unless it is there already."""
    store = runs()
    learned, model = store.model(run, key, owner())
    folder = store.root / run
    target = folder / f"{key}-predictions.csv"
    if target.exists() or not (folder / ROWS).exists():
        return
    rows = pd.read_pickle(folder / ROWS)  # written by this server's own job, never uploaded
    _write(target, lambda path: compare.predict_table(model, rows, learned.target)[0].to_csv(path, index=False))


def _save_model(run: str, key: str) -> None:
    """Write ``<key>.pybnc``, the model fitted on all rows, unless it is there already."""
    from ...io import save

    store = runs()
    _, model = store.model(run, key, owner())
    target = store.root / run / f"{key}.pybnc"
    if not target.exists():
        _write(target, lambda path: save(model, path))


def _write(target, write) -> None:
    partial = target.with_name(f".{uuid.uuid4().hex}{target.suffix}")
    write(partial)
    os.replace(partial, target)  # two downloads at once: each writes whole, one wins
