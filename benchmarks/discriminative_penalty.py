"""Which penalty do the discriminative weights want? Nested cross-validation on the UCI tables.

For every table and model: outer ``StratifiedKFold(5, shuffle=True, random_state=1)``;
inside each outer training set an inner ``StratifiedKFold(3, shuffle=True,
random_state=0)`` scores every penalty of the grid by its held-out log-loss (the
generative model refitted on each inner training set, the weights fitted along the
grid from the strongest penalty down, each fit warm-started from the previous one).
The inner choice uses training rows only. A row scores the generative model's log joint
plus what the weights add (``pybnc.estimators._discriminative``), as the estimators do. The outer folds' accuracy and log-loss are
recorded for every penalty of the grid, so that a rule derived from the inner choices
can afterwards be compared with the inner-CV choice itself on the outer folds (a rule
is never chosen by the outer folds).

Usage::

    nice python benchmarks/discriminative_penalty.py [--tables car,glass] [--models nb,kdb2] [--csv ...]
    python benchmarks/discriminative_penalty.py --report
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

import pybnc
from pybnc.averaging.alr import SuperParentCells, alr_designs, alr_scores
from pybnc.datasets import list_datasets, load_dataset
from pybnc.parameters.discriminative import design_scores, fit_weights, merge_rows, with_base
from pybnc.parameters.network_weights import network_cells, network_design
from pybnc.parameters.learn import learn_parameters
from pybnc.structure import Structure

GRID = (1000.0, 100.0, 10.0, 1.0, 0.1, 0.01, 0.001)  # strongest first: the warm-started path
MODELS = {
    "nb": lambda: pybnc.NaiveBayes(),
    "tan": lambda: pybnc.TAN(),
    "kdb1": lambda: pybnc.KDB(k=1, verbose=0),
    "kdb2": lambda: pybnc.KDB(k=2, verbose=0),
    "aode": lambda: pybnc.AODE(),
}


class Path_:
    """The generative model of a training set and its weights along the penalty grid."""

    def __init__(self, make, X, y):
        self.model = make().fit(X, y)
        m = self.model
        codes = m.encoder_.transform(X)
        y_codes = m._encode_labels(y, len(y))
        codes, y_codes, weight = merge_rows(codes, y_codes)
        base = m._jll_encoded(codes)  # the generative model's scores: what weights of 1 give
        if isinstance(m, pybnc.AODE):
            offsets = np.concatenate([[0], np.cumsum(m.encoder_.cardinalities_)])
            naive = np.concatenate([t[:, 0] for t in m.log_cpts_], axis=1)
            self.space = SuperParentCells(1, offsets, m.log_joint_, m.log_child_, m.class_log_prior_, naive)
            self.values, self.n_cells = self.space, self.space.n_cells
            offset = base - alr_scores(codes, self.space, m.super_parent_ok_)
            self.designs = alr_designs(codes, self.space, m.super_parent_ok_, None, y_codes, weight, offset)
        else:
            nb = learn_parameters(Structure.naive_bayes(codes.shape[1]), m.counts_, "bayes", m.alpha)
            self.back_off = [t[:, 0, :] for t in nb.log_cpts]
            self.values, self.layout = network_cells(m.structure_, m.class_log_prior_, m.log_cpts_, self.back_off)
            self.n_cells = self.values.shape[1]
            self.designs = [with_base(network_design(codes, self.layout, y_codes, weight), base, self.values)]
        self.fits = {}
        previous = None
        for penalty in GRID:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                previous = fit_weights(self.values, self.designs, penalty, initial=previous, n_cells=self.n_cells)
            self.fits[penalty] = previous

    def proba(self, X, penalty=None):
        """Class probabilities of ``X`` (generative at ``penalty=None``)."""
        m = self.model
        if penalty is None:
            return m.predict_proba(X)
        codes = m.encoder_.transform(m._align(X))
        fit = self.fits[penalty]
        if isinstance(m, pybnc.AODE):
            delta = alr_scores(codes, self.space.deltas(fit), m.super_parent_ok_)
        else:
            delta = design_scores(network_design(codes, self.layout).matrix, fit.deltas(self.values))
        scores = m._jll_encoded(codes) + delta
        scores -= scores.max(axis=1, keepdims=True)
        proba = np.exp(scores)
        return proba / proba.sum(axis=1, keepdims=True)


def _losses(proba, y_codes):
    """Accuracy and log-loss; a class the model never saw (code -1) is always wrong."""
    seen = y_codes >= 0
    p = np.full(y_codes.size, 1e-15)
    p[seen] = np.clip(proba[np.flatnonzero(seen), y_codes[seen]], 1e-15, 1)
    return float(np.mean((proba.argmax(axis=1) == y_codes) & seen)), float(-np.mean(np.log(p)))


def _codes(model, y):
    """Class codes of ``y`` in the model's classes (-1: not among them)."""
    return pd.Index(model.classes_).get_indexer(np.asarray(y))


def run(tables, models, csv: Path) -> pd.DataFrame:
    done = pd.read_csv(csv) if csv.exists() else pd.DataFrame(columns=["table", "model", "fold"])
    for name in tables:
        X, y = load_dataset(name)
        y = np.asarray(y)
        outer = list(StratifiedKFold(5, shuffle=True, random_state=1).split(X, y))
        for model in models:
            if ((done["table"] == name) & (done["model"] == model)).any():
                continue
            rows, start = [], time.perf_counter()
            for fold, (train, test) in enumerate(outer):
                Xt, yt = X.iloc[train], y[train]
                inner_loss = {p: 0.0 for p in GRID}
                inner = StratifiedKFold(3, shuffle=True, random_state=0)
                for tr, va in inner.split(Xt, yt):
                    path = Path_(MODELS[model], Xt.iloc[tr], yt[tr])
                    codes = _codes(path.model, yt[va])
                    for p in GRID:
                        inner_loss[p] += _losses(path.proba(Xt.iloc[va], p), codes)[1] * len(va) / len(yt)
                chosen = min(GRID, key=lambda p: (inner_loss[p], -p))  # ties: the stronger penalty
                t0 = time.perf_counter()
                path = Path_(MODELS[model], Xt, yt)
                path_seconds = time.perf_counter() - t0
                y_test = _codes(path.model, y[test])
                row = {"table": name, "model": model, "fold": fold, "n_train": len(train),
                       "n_features": path.model.n_features_in_, "n_classes": len(path.model.classes_),
                       "n_weights": path.fits[GRID[-1]].weights.size, "chosen": chosen,
                       "path_seconds": path_seconds}
                row["generative_acc"], row["generative_loss"] = _losses(path.proba(X.iloc[test]), y_test)
                for p in GRID:
                    row[f"acc_{p:g}"], row[f"loss_{p:g}"] = _losses(path.proba(X.iloc[test], p), y_test)
                    row[f"inner_loss_{p:g}"] = inner_loss[p]
                    row[f"iter_{p:g}"] = path.fits[p].n_iter
                rows.append(row)
            done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
            done.to_csv(csv, index=False)
            part = pd.DataFrame(rows)
            chosen = np.mean([r["acc_%g" % r["chosen"]] for r in rows])
            print(f"{name:10s} {model:5s} generative {100 * part.generative_acc.mean():6.2f}  inner-CV choice "
                  f"{100 * chosen:6.2f}  chosen "
                  f"{sorted(part.chosen.tolist())}  ({time.perf_counter() - start:.0f} s)", flush=True)
    return done


FAMILY = {"nb": "naive Bayes", "tan": "networks", "kdb1": "networks", "kdb2": "networks", "aode": "ALR^n"}


def fit_rule(results: pd.DataFrame):
    """``log10 lambda = a_family - b log10 n``, least squares on the inner-CV choices (the
    training rows' verdicts only): ``(b, {family: a})``."""
    families = sorted(set(FAMILY[m] for m in results.model))
    columns = [np.log10(results.n_train.to_numpy())] + [(results.model.map(FAMILY) == f).to_numpy(float)
                                                        for f in families]
    coef, *_ = np.linalg.lstsq(np.column_stack(columns), np.log10(results.chosen.to_numpy()), rcond=None)
    return -coef[0], dict(zip(families, coef[1:]))


def rule_penalty(slope: float, intercept: float, n_rows) -> np.ndarray:
    """The rule's penalty, snapped to the nearest grid value in log scale."""
    raw = intercept - slope * np.log10(np.asarray(n_rows, dtype=float))
    grid = np.log10(GRID)
    return np.asarray(GRID)[np.abs(raw[:, None] - grid[None, :]).argmin(axis=1)]


def report(results: pd.DataFrame) -> str:
    slope, intercepts = fit_rule(results)
    rule = np.empty(len(results))
    for family, a in intercepts.items():
        rows = (results.model.map(FAMILY) == family).to_numpy()
        rule[rows] = rule_penalty(slope, a, results.n_train[rows])
    results = results.assign(rule=rule)
    pick = lambda column: lambda row: row["acc_%g" % row[column]]  # noqa: E731
    results = results.assign(inner_acc=results.apply(pick("chosen"), axis=1),
                             rule_acc=results.apply(pick("rule"), axis=1))
    lines = ["Rule fitted to the inner-CV choices: log10 lambda = a - %.2f log10 n, a = %s." % (
        slope, ", ".join(f"{f}: {a:.2f}" for f, a in intercepts.items())), "",
        "| table | model | rows | weights | generative | inner-CV choice | rule | chosen penalties | rule's | "
        + " | ".join(f"{p:g}" for p in GRID) + " |", "|---" * (9 + len(GRID)) + "|"]
    for (name, model), part in results.groupby(["table", "model"], sort=False):
        lines.append(f"| {name} | {model} | {int(part.n_train.mean())} | {int(part.n_weights.mean())} | "
                     f"{100 * part.generative_acc.mean():.2f} | {100 * part.inner_acc.mean():.2f} | "
                     f"{100 * part.rule_acc.mean():.2f} | {','.join(f'{p:g}' for p in sorted(part.chosen))} | "
                     f"{','.join(f'{p:g}' for p in sorted(part['rule']))} | "
                     + " | ".join(f"{100 * part[f'acc_{p:g}'].mean():.2f}" for p in GRID) + " |")
    by = results.groupby(["table", "model"])[["generative_acc", "inner_acc", "rule_acc"]].mean() * 100
    lines += ["", f"Mean over (table, model): generative {by.generative_acc.mean():.2f}, inner CV "
              f"{by.inner_acc.mean():.2f}, rule {by.rule_acc.mean():.2f}; worst gap to the generative model: "
              f"inner CV {(by.inner_acc - by.generative_acc).min():+.2f}, rule {(by.rule_acc - by.generative_acc).min():+.2f}."]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(list_datasets()))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--csv", type=Path, default=Path("benchmarks/discriminative_penalty.csv"))
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if not args.report:
        run(args.tables.split(","), args.models.split(","), args.csv)
    print(report(pd.read_csv(args.csv)))


if __name__ == "__main__":
    main()
