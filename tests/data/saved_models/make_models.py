"""Model files written by an earlier pybnc, which every later one must load and
predict with bit for bit (tests/test_saved_models.py).

Made at commit 01750ec (pybnc 0.1.0, model format 2), before the estimator protocol:

    git archive 01750ec | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/data/saved_models/make_models.py tests/data/saved_models

Each ``NAME.pybnc`` comes with its probabilities on the table's first 40 rows in
``expected.npz`` (key ``NAME``) and the table it was fitted on in ``tables.json``.
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np

import pybnc
from pybnc import (AODE, BSEJ, ESKDB, FAN, FSSJ, KDB, MANB, SKDB, SSTBMATAN, TAN, TANHC, TBMATAN, AnDE,
                   NaiveBayes)
from pybnc.datasets import load_dataset

MODELS = {
    "tan_car": (lambda: TAN(), "car"),
    "fan_hepatitis": (lambda: FAN(params="friedman"), "hepatitis"),
    "nb_awnb_iris": (lambda: NaiveBayes(weighting="awnb", random_state=0), "iris"),
    "nb_wanbia_votes": (lambda: NaiveBayes(weighting="wanbia"), "votes"),
    "kdb_hepatitis": (lambda: KDB(k=2, verbose=0), "hepatitis"),
    "kdb_hc_car": (lambda: KDB(k=2, search="hc", random_state=0, verbose=0), "car"),
    "aode_votes": (lambda: AODE(), "votes"),
    "a2de_iris": (lambda: AnDE(n=2), "iris"),
    "tbmatan_iris": (lambda: TBMATAN(), "iris"),
    "sstbmatan_hepatitis": (lambda: SSTBMATAN(), "hepatitis"),
    "manb_cleve": (lambda: MANB(), "cleve"),
    "skdb_glass": (lambda: SKDB(k=3, verbose=0), "glass"),
    "eskdb_iris": (lambda: ESKDB(n_estimators=3, k=2, hdp_iterations=20, random_state=0, verbose=0), "iris"),
    "tanhc_car": (lambda: TANHC(random_state=0, verbose=0), "car"),
    "fssj_votes": (lambda: FSSJ(random_state=0, verbose=0), "votes"),
    "bsej_car": (lambda: BSEJ(random_state=0, verbose=0), "car"),
}
ROWS = 40


def main(folder):
    folder = Path(folder)
    expected, tables = {}, {}
    for name, (make, table) in MODELS.items():
        X, y = load_dataset(table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make().fit(X, y)
        pybnc.save(model, folder / f"{name}.pybnc")
        expected[name] = model.predict_proba(X.iloc[:ROWS])
        tables[name] = table
    np.savez_compressed(folder / "expected.npz", **expected)
    (folder / "tables.json").write_text(json.dumps({"commit": "01750ec", "rows": ROWS, "tables": tables},
                                                   indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
