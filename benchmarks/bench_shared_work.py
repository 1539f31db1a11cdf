"""Work shared or skipped, each against the way before it, in the same run:

* **cross-validation of numeric tables**: the learners of AutoBNC's second round
  (``cross_validate``, 5 folds) with each training fold encoded once per encoder and
  shared (``fast=True``, the default) against each model encoding its fold itself
  (``fast=False``);
* **back-off on many-levelled parents**: ``KDB(k=2, smoothing="backoff")`` with its large,
  sparse families scored at their non-empty cells (the default) against every cell
  (``pybnc.parameters.back_off._SPARSE_FROM_CELLS`` raised past every table);
* **exact inference with missing values**: a fitted kDB's ``log P(x, c)`` of rows with
  missing values, trusting its declared distributions (the default) against summing
  every table over its child first (``tables_are_probabilities=False``);
* **Dirichlet tables of many-levelled parents**: ``KDB(k=2, smoothing="bayes")`` with its large families
  estimated at their seen parent configurations (the default) against every cell
  (``pybnc.parameters.learn._SPARSE_FROM_CELLS`` raised past every table);
* **the compiled products of a discriminative fit**: ``AODE(weighting="discriminative")``
  with ``pybnc.parameters._design_c`` (the default) against scipy's products
  (``pybnc.parameters.discriminative._native`` set to None);
* **the cells a discriminative design reads**: ``AODE(weighting="discriminative")`` on a
  table of musk's shape (476 x 166 numeric) with the cells marked in an array
  (``RowDesign.cells`` by :func:`~pybnc.parameters.discriminative.distinct_cells`, the
  default) against sorted (``np.unique``, the method before);
* **n log n of whole counts**: ``TAN`` on a table like arrhythmia (452 x 160 numeric,
  13 classes, equal-frequency 10 bins: reduced pair counts) with the pairs' ``n log n`` read from a
  table of the integers (the default) against computed (``pybnc.scores._xlogx.LOOKUP_FROM``
  raised past every array);
* **pair information from the rows**: ``TAN`` with equal-frequency 10 bins on a wide table
  (200 x 2,000 numeric) and on arrhythmia's shape (above), each pair's ``I(X_i; X_j | C)``
  counted from its rows by the compiled kernel (the default where that is cheaper) against
  read from the pair counts (``pybnc.scores.pair_rows.cheaper_from_rows`` answering no);
* **sums over many-levelled missing features**: ``KDB(k=2)`` on six columns of 300 levels
  (the table where exact inference once asked for 34 GiB), the test rows whose unseen
  levels leave four or more of them to sum out, the sums whose product passes the bound
  contracted without it (the default) against taken a slice at a time
  (``pybnc.inference.elimination._scaled_sum_out`` answering with an underflow);
* **a discriminative AODE's designs built once**: on musk's shape, the offsets read from
  the held designs and every cell gathered where the cells are no more than the entries
  (the default) against the designs built again for the offsets and the cells read found
  first (the functions before, kept here).

Each pair takes turns, the least of ``--repeats``; each row says whether both ways gave
the same probabilities to the bit, and the load average.

Run: ``python benchmarks/bench_shared_work.py [--datasets glass,pima] [--arff-dir DIR
--arff-tables sonar,arrhythmia,cylinder.bands] [--repeats 3] [--only pairs_from_rows]``.
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
import pandas as pd

import pybnc.parameters.back_off as back_off
import pybnc.parameters.discriminative as discriminative
import pybnc.averaging.alr as alr
import pybnc.parameters.learn as learn
import pybnc.scores._xlogx as xlogx_module
import pybnc.scores.pair_rows as pair_rows
import pybnc.inference.elimination as elimination
from _turns import taking_turns, timed
from accuracy_vs_forest import add_table_arguments, chosen_tables
from pybnc import AODE, KDB, SKDB, TAN, NaiveBayes
from pybnc.datasets import load_dataset
from pybnc.evaluation import cross_validate
from pybnc.inference.forest import joint_log_likelihood
from pybnc.encode import Encoder


def _round_two_learners() -> dict:
    kdb = dict(verbose=0)
    return {"NB": NaiveBayes(smoothing="bayes"), "TAN": TAN(smoothing="bayes"), "AODE": AODE(smoothing="bayes"),
            "KDB(k=1) backoff": KDB(k=1, smoothing="backoff", **kdb), "KDB(k=2)": KDB(k=2, smoothing="bayes", **kdb),
            "KDB(k=2) backoff": KDB(k=2, smoothing="backoff", **kdb), "SKDB(k=5)": SKDB(k=5, smoothing="bayes", **kdb),
            "NB discriminative(1)": NaiveBayes(smoothing="bayes", weighting="discriminative",
                                               discriminative_penalty=1.0),
            "TAN discriminative(1)": TAN(smoothing="bayes", weighting="discriminative", discriminative_penalty=1.0)}


def _wide(n_rows=300, n_columns=500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    signal = rng.random(n_columns) < 0.05
    X = pd.DataFrame(rng.normal(size=(n_rows, n_columns)) + y[:, None] * signal,
                     columns=[f"x{i}" for i in range(n_columns)])
    return X, y


def _many_levelled(n_rows=540, seed=0):
    """Columns of 300, 200 and 70 levels among small ones, 5 % missing: cylinder-bands-like."""
    rng = np.random.default_rng(seed)
    levels = [300, 200, 70, 4, 3, 6, 2, 5]
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in levels])
    y = np.where(rng.random(n_rows) < 0.7, (codes[:, 3] + codes[:, 4]) % 2, rng.integers(0, 2, n_rows))
    X = pd.DataFrame({f"c{j}": [f"v{v}" for v in codes[:, j]] for j in range(len(levels))})
    return X.mask(rng.random(X.shape) < 0.05), y


def _row(what, old, new, same):
    print(f"| {what} | {old:.3f} | {new:.3f} | {old / new:.2f} | {same} | {os.getloadavg()[0]:.1f} |", flush=True)


def cross_validation_rows(tables: dict, repeats: int) -> None:
    models = _round_two_learners()
    for name, load in tables.items():
        X, y = load()

        def run(fast):
            def cv():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # classes of fewer rows than folds
                    return cross_validate(models, X, y, cv=5, verbose=0, fast=fast, return_proba=True)[1]
            return cv

        old, new, *out = taking_turns(repeats, timed(run(False)), timed(run(True)))
        same = all(np.array_equal(out[0][m], out[1][m]) for m in models)
        _row(f"cross-validation of {len(models)} learners, {name} ({X.shape[0]} x {X.shape[1]})", old, new, same)


def _switched_row(what: str, repeats: int, fit, module, attribute: str, before) -> None:
    """``fit()`` with ``module.attribute`` set to ``before`` (the way before) and as it is,
    taking turns."""
    default = getattr(module, attribute)

    def way(now):
        def run():
            setattr(module, attribute, default if now else before)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return fit()
            finally:
                setattr(module, attribute, default)
        return run

    old, new, *out = taking_turns(repeats, timed(way(False)), timed(way(True)))
    _row(what, old, new, np.array_equal(*out) or f"within {np.abs(out[0] - out[1]).max():.0e}")


def back_off_row(repeats: int) -> None:
    X, y = _many_levelled()
    _switched_row("KDB(k=2) back-off fit, 540 rows, parents of 300, 200 and 70 levels", repeats,
                  lambda: KDB(k=2, smoothing="backoff", verbose=0).fit(X, y).predict_proba(X),
                  back_off, "_SPARSE_FROM_CELLS", 1 << 62)


def dirichlet_row(repeats: int) -> None:
    X, y = _many_levelled()
    _switched_row("KDB(k=2) Dirichlet fit, 540 rows, parents of 300, 200 and 70 levels", repeats,
                  lambda: KDB(k=2, smoothing="bayes", verbose=0).fit(X, y).predict_proba(X), learn, "_SPARSE_FROM_CELLS",
                  1 << 62)


def compiled_products_row(repeats: int) -> None:
    X, y = load_dataset("chess")
    _switched_row(f"AODE discriminative fit, chess ({X.shape[0]} x {X.shape[1]}), scipy's products before",
                  repeats, lambda: AODE(weighting="discriminative", discriminative_penalty=0.01).fit(X, y)
                  .predict_proba(X), discriminative, "_native", None)


def _sorted_cells(design):
    """``RowDesign.cells`` as it was: the cells read, sorted by ``np.unique``."""
    rows = np.repeat(design.sample_weight > 0, np.diff(design.matrix.indptr))
    return np.unique(design.matrix.indices[rows & (design.matrix.data != 0)])


def distinct_cells_row(repeats: int) -> None:
    X, y = _wide(n_rows=476, n_columns=166)
    _switched_row("AODE discriminative fit, 476 x 166 numeric (musk's shape), the cells sorted before", repeats,
                  lambda: AODE(weighting="discriminative", discriminative_penalty=0.01).fit(X, y).predict_proba(X),
                  discriminative.RowDesign, "cells", _sorted_cells)


def whole_counts_row(repeats: int) -> None:
    # (arrhythmia's 279 columns hold fewer distinct values: its pairs fit the reduced layout,
    # which 160 columns of 10 bins keep here)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 13, 452)
    X = pd.DataFrame(rng.normal(size=(452, 160)) + 0.2 * y[:, None] * (rng.random(160) < 0.1),
                     columns=[f"x{i}" for i in range(160)])
    counts_path = pair_rows.cheaper_from_rows
    pair_rows.cheaper_from_rows = lambda counts: False  # the pair counts' path, whose n log n this row times
    try:
        _switched_row("TAN fit, 452 x 160 numeric, 13 classes, quantile(10) (reduced pairs, as arrhythmia's), "
                      "n log n computed before", repeats,
                      lambda: TAN(encoder=Encoder(discretizer="quantile", n_bins=10)).fit(X, y).predict_proba(X),
                      xlogx_module, "LOOKUP_FROM", 1 << 62)
    finally:
        pair_rows.cheaper_from_rows = counts_path


def pairs_from_rows_rows(repeats: int) -> None:
    rng = np.random.default_rng(0)
    for n_rows, n_columns, n_classes in ((200, 2000, 2), (452, 160, 13)):
        y = rng.integers(0, n_classes, n_rows)
        X = pd.DataFrame(rng.normal(size=(n_rows, n_columns)) + 0.3 * y[:, None] * (rng.random(n_columns) < 0.05),
                         columns=[f"x{i}" for i in range(n_columns)])
        _switched_row(f"TAN fit, {n_rows} x {n_columns} numeric, {n_classes} classes, quantile(10), pair "
                      "information read from the pair counts before", repeats,
                      lambda: TAN(encoder=Encoder(discretizer="quantile", n_bins=10)).fit(X, y).predict_proba(X),
                      pair_rows, "cheaper_from_rows", lambda counts: False)


def _scores_of_the_cells_read(matrix, log_values):
    """``design_scores`` as it was: the cells read found first, always."""
    import scipy.sparse

    matrix = scipy.sparse.csr_matrix(matrix)
    used = discriminative.distinct_cells(matrix.indices, matrix.shape[1])
    compact = scipy.sparse.csr_matrix((matrix.data, discriminative._positions(matrix.indices, used, matrix.shape[1]),
                                       matrix.indptr), shape=(matrix.shape[0], used.size))
    return compact @ np.ascontiguousarray(discriminative.cell_values(log_values, used).T)


def _designs_built_again(codes, space, qualifies, pair_ok=None, y=None, sample_weight=None, generative=None):
    """``offset_alr_designs`` as it was: the designs built again to score the log-mean."""
    offset = None if generative is None else generative(codes) - alr.alr_scores(codes, space, qualifies, pair_ok)
    return alr.alr_designs(codes, space, qualifies, pair_ok, y, sample_weight, offset)


def designs_once_row(repeats: int) -> None:
    X, y = _wide(n_rows=476, n_columns=166)
    now = (alr.offset_alr_designs, alr.design_scores)

    def way(before):
        def run():
            alr.offset_alr_designs, alr.design_scores = (_designs_built_again, _scores_of_the_cells_read) if before \
                else now
            try:
                return AODE(weighting="discriminative", discriminative_penalty=0.01).fit(X, y).predict_proba(X)
            finally:
                alr.offset_alr_designs, alr.design_scores = now
        return run

    old, new, *out = taking_turns(repeats, timed(way(True)), timed(way(False)))
    _row("AODE discriminative fit, 476 x 166 numeric (musk's shape), its designs built twice before", old, new,
         np.array_equal(*out))


def _table_of_the_memory_error():
    """The many-levelled table on which exact inference once asked for 34 GiB (six columns
    of 300 levels and a numeric one; its first draws are those of the wider tables made
    before it in that check), and the training rows of the fold that did."""
    rng = np.random.default_rng(0)
    rng.integers(0, 3, 300), rng.normal(size=(300, 120)), rng.integers(0, 2, 200)
    rng.normal(size=(200, 2000)), rng.random(2000)
    y = rng.integers(0, 2, 600)
    X = pd.DataFrame({f"m{i}": [f"v{v}" for v in (rng.integers(0, 300, 600) + y * (i % 2))] for i in range(6)})
    X["n"] = rng.normal(size=600) + y
    from sklearn.model_selection import StratifiedKFold

    train, test = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))[2]
    return X, y, train, test


def unseen_levels_row(repeats: int) -> None:
    X, y, train, test = _table_of_the_memory_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KDB(k=2, verbose=0).fit(X.iloc[train], y[train])
    rows = X.iloc[test][(model._encode(X.iloc[test]) < 0).sum(axis=1) >= 4]  # 4 or more unseen levels
    _switched_row(f"KDB(k=2) predict_proba of {len(rows)} rows with 4+ unseen levels of 300 (summed out exactly), "
                  "the large sums taken a slice at a time before", repeats, lambda: model.predict_proba(rows),
                  elimination, "_scaled_sum_out", lambda touching, union, v: np.array([-np.inf]))


def inference_row(repeats: int) -> None:
    X, y = _many_levelled(n_rows=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KDB(k=2, verbose=0).fit(X, y)
    codes = model._encode(X)

    def jll(trust):
        return lambda: joint_log_likelihood(codes, model.structure_, model.class_log_prior_, model.log_cpts_,
                                            model.encoder_.cardinalities_, tables_are_probabilities=trust)

    old, new, *out = taking_turns(repeats, timed(jll(False)), timed(jll(True)))
    cells = sum(np.asarray(t).size for t in model.log_cpts_)
    _row(f"KDB(k=2) log P(x, c) of 2,000 rows, 5 % missing, {cells:,} table cells", old, new,
         np.array_equal(*out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_arguments(parser, "glass,pima")
    parser.add_argument("--repeats", type=int, default=3)
    rows = {"back_off": back_off_row, "dirichlet": dirichlet_row, "inference": inference_row,
            "compiled_products": compiled_products_row, "distinct_cells": distinct_cells_row,
            "whole_counts": whole_counts_row, "pairs_from_rows": pairs_from_rows_rows, "designs_once": designs_once_row,
            "unseen_levels": unseen_levels_row}
    parser.add_argument("--only", choices=["cross_validation", *rows], help="run one kind of row only")
    args = parser.parse_args()
    print("| work | before (s) | now (s) | ratio | same probabilities | load |\n|---|---|---|---|---|---|", flush=True)
    if args.only in (None, "cross_validation"):
        tables = chosen_tables(args.datasets, args.arff_dir, args.arff_tables)
        cross_validation_rows({**tables, "300 x 500 numeric (synthetic)": _wide}, args.repeats)
    for name, row in rows.items():
        if args.only in (None, name):
            row(args.repeats)


if __name__ == "__main__":
    main()
