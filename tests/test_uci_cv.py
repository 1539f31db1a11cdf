"""10-fold cross-validation of every classifier on every UCI table, without error.

The tables are the sixteen of ``/work/shared/datasets/uci/INDEX.tsv``, read by
:func:`pybnc.datasets.load_dataset`: fifteen are bundled with pybnc (so CI, which has
no ``../shared`` folder next to the clone, runs them too) and ``pima``, which may not
be redistributed, is read from the UCI folder when it is there and is the only table
skipped otherwise (with the reason). When the folder is there, a test checks that
each of its tables is one of these.

**What is cut to keep the suite fast, honestly:** each table is a stratified sample
of at most :data:`ROWS` rows (seeded), its most frequent class topped up to 10 rows
so that ten stratified folds exist (letter: 26 classes). Every classifier of the
registry and the weighted variants runs on every table, 10 folds each, through
:func:`pybnc.evaluation.cross_validate`; the test checks that every fold of every
model ran and gave finite scores. One exception (:data:`SCRIPT_ONLY`): the four
wrappers that search by inner cross-validation (TAN-HC, TAN-HCSP, FSSJ, BSEJ) are not
run on soybean here, whose 35 columns, 19 classes and missing values make one of
their fits cost seconds whatever the rows (about 3 s for TAN-HC on 100 rows, loaded
machine; even 2 folds of the four took half a minute); ``benchmarks/uci_cv.py`` runs
them on the full table, 10 folds (``docs/uci_cv.md``). The full-size tables, and the accuracy table in
``docs/uci_cv.md``, come from ``benchmarks/uci_cv.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import registry_classifiers
from pybnc.datasets import _spec, list_datasets, load_dataset
from pybnc.datasets._uci import data_home_candidates
from pybnc.evaluation import cross_validate

pytestmark = pytest.mark.filterwarnings("ignore::pybnc.search.StartModelWarning", "ignore::UserWarning")

ROWS = 100
FOLDS = 10
CLASSIFIERS = registry_classifiers()
WRAPPERS = ("tanhc", "tanhcsp", "fssj", "bsej")
SCRIPT_ONLY = {("soybean", key) for key in WRAPPERS}
UCI = next((p for p in data_home_candidates(None) if p.is_dir()), None)


def capped_sample(X, y, rows: int, folds: int, seed: int = 0):
    """A stratified sample of at most ``rows`` rows, the most frequent class topped up
    to ``folds`` rows (when it has them) so that ``folds`` stratified folds exist."""
    y = pd.Series(np.asarray(y, dtype=object))
    rng = np.random.default_rng(seed)
    if len(y) > rows:
        # Each class keeps its share, at least one row; shuffled within the class.
        keep = []
        for _, idx in y.groupby(y, sort=True).groups.items():
            share = max(1, int(round(rows * len(idx) / len(y))))
            keep.append(rng.permutation(np.asarray(idx))[:share])
        chosen = np.sort(np.concatenate(keep))
        top = y.value_counts().index[0]
        short = folds - int((y.iloc[chosen] == top).sum())
        if short > 0:
            spare = np.setdiff1d(np.flatnonzero(y == top), chosen)
            chosen = np.sort(np.concatenate([chosen, rng.permutation(spare)[:short]]))
    else:
        chosen = np.arange(len(y))
    return X.iloc[chosen].reset_index(drop=True), y.iloc[chosen].to_numpy()


def load_or_skip(name):
    try:
        return load_dataset(name)
    except FileNotFoundError as error:  # only pima is not bundled
        assert not _spec(name).shipped
        pytest.skip(f"{name} is not bundled and the UCI folder does not hold it: {error}")


@pytest.mark.slow  # every classifier on every table: the edit loop leaves the matrix out
@pytest.mark.parametrize("name, key", [(name, key) for name in list_datasets() for key in CLASSIFIERS
                                       if (name, key) not in SCRIPT_ONLY])
def test_ten_fold_cv_runs(name, key):
    X, y = load_or_skip(name)
    X, y = capped_sample(X, y, ROWS, FOLDS)
    result = cross_validate({key: CLASSIFIERS[key]}, X, y, cv=FOLDS, verbose=0)
    assert len(result) == FOLDS
    assert result["n_test"].sum() == len(y)
    scores = result[["accuracy", "log_loss", "brier"]].to_numpy()
    assert np.isfinite(scores).all()
    assert ((result["accuracy"] >= 0) & (result["accuracy"] <= 1)).all()


def test_bundled_tables_are_all_there():
    """Never a silent skip of everything: fifteen tables are bundled and load."""
    bundled = [name for name in list_datasets() if _spec(name).shipped]
    assert len(bundled) == 15
    for name in bundled:
        X, y = load_dataset(name)
        assert len(X) == len(y) > 0


@pytest.mark.skipif(UCI is None, reason="the UCI folder ../shared/datasets/uci is not there (CI)")
def test_every_table_of_the_uci_folder_is_run():
    index = pd.read_csv(UCI / "INDEX.tsv", sep="\t")
    folders = sorted(p.name for p in UCI.iterdir() if p.is_dir())
    assert len(folders) == len(index) == 16
    assert sorted(_spec(folder).name for folder in folders) == list_datasets()


def test_capped_sample_keeps_every_class_and_allows_ten_folds():
    X, y = load_dataset("letter")
    Xs, ys = capped_sample(X, y, ROWS, FOLDS)
    counts = pd.Series(ys).value_counts()
    assert len(counts) == 26 and counts.iloc[0] >= FOLDS
    assert len(ys) <= ROWS + FOLDS
