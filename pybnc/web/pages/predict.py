"""Predict the rows of a second file with one model of a run
(``POST /runs/<run>/<model>/predict``)."""

from __future__ import annotations

import uuid
from pathlib import Path

from flask import Blueprint, render_template, request

from .. import analysis, compare
from ..analysis import UserError
from ._common import in_reader, owner, runs, setting, work_slot

bp = Blueprint("predict", __name__)

#: Rows of a second file's predictions shown on the page (the download has them all).
SHOWN_PREDICTIONS = 200


@bp.post("/runs/<run>/<key>/predict")
def rows(run, key):
    store = runs()
    learned, model = store.model(run, key, owner())
    upload = request.files.get("file")
    try:
        if upload is None or not upload.filename:
            raise UserError("Choose a CSV file with the rows to predict.")
        frame = in_reader(analysis.upload_frame, {"data": upload.read(), "name": Path(upload.filename).name,
                                                   "limits": setting("read_limits")})
        with work_slot():
            table, score, notes = compare.predict_table(model, frame, learned.target)
    except (UserError, ValueError) as exc:
        return render_template("predict.html", o=learned, run=run, key=key, error=str(exc)), 400
    name = f"new-{uuid.uuid4().hex}.csv"
    table.to_csv(store.root / run / name, index=False)
    store.keep_newest(run, "new-*.csv")  # every upload's predictions kept would fill the disk
    return render_template("predict.html", o=learned, run=run, key=key, file=Path(upload.filename).name,
                           table=table.head(SHOWN_PREDICTIONS), n_rows=len(table), score=score, notes=notes,
                           download=name)
