"""How :func:`pybnc.evaluation.cross_validate` fits one model on one fold, by the
cheapest path that gives what ``clone(model).fit`` on the fold's rows gives.

Fast path
---------
Counts are additive, so a model that learns from counts need not re-read its
training rows: the table is encoded once, each fold is counted once, and the
training counts are ``total - fold``. The result must be the model that
``clone(model).fit(X_train, y_train)`` gives, and three things could differ:

* a level absent from a training fold is unknown to the fold's own encoder (for
  every column kind except pandas ``category``, whose declared categories are kept);
* a class absent from a training fold is not in the refitted model's ``classes_``;
* a float column is cut at the training fold's own quantiles.

The first two are reproduced exactly: the whole-table codes and counts are
restricted to the levels and classes the training fold holds (codes of absent
levels become missing, as the fold's encoder would make them). The third cannot
be, so the fast path is used only when every column of the table is categorical
under the model's encoder, and only for estimators that learn from the coded table
alone (:attr:`Capabilities.learns_from_codes <pybnc.estimators.capabilities.Capabilities>`).
Where the table has float columns to cut, the models that learn from the coded
table still share work: each training fold is encoded once per distinct encoder
(cut at that fold's own points, as each model's own ``fit`` would cut it), counted
once, and its test rows coded once (:class:`_FoldEncodings`). A wide numeric table
spent most of a naive Bayes fit on its encoding, and a model selection fits a dozen
models of one encoding on every fold.
Every other model is refitted on the raw training rows.
``tests/test_cv.py`` checks that every path gives the refit's probabilities.

Timing: ``fit_time`` is the model's own learning from the fold's counts (fast
path), or its learning plus the fold's shared encoding (what its own ``fit`` would
take), or the whole ``fit`` (refit); the encoding and counting shared by all
models of the fast path are not charged to any model.
"""

from __future__ import annotations

import copy
import dataclasses
import time

import numpy as np
import pandas as pd
import scipy.sparse
from sklearn.base import clone

from ..counts.tables import count
from ..encode import _as_frame
from ..estimators.base import BaseBNC, Encoding, log_posterior
from ..estimators.capabilities import capabilities


def _take(X, rows):
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def _part(weights, rows):
    """The weights of ``rows`` (None when there are none, or all are 1: the unweighted path)."""
    if weights is None:
        return None
    part = weights[rows]
    return None if (part == 1).all() else part


# -- the fast path ---------------------------------------------------------------------
class _Encoded:
    """One table encoded and counted once, for all models sharing an encoder."""

    def __init__(self, encoder, X, y_codes, n_classes, categorical_dtype, pairs=True, weights=None):
        self.encoder = encoder
        self.codes = encoder.transform(X)
        self.y_codes = y_codes
        self.n_classes = n_classes
        self.cards = encoder.cardinalities_
        self.pairs = pairs
        self.weights = weights  # each row counts its weight (sample_weight)
        self.total = count(self.codes, y_codes, self.cards, n_classes, pairs=pairs, weights=weights)
        # pandas categories keep their declared levels in every fold's encoder.
        self.keeps_all_levels = categorical_dtype
        self.fold_counts = {}

    def training(self, fold, test, rows):
        """Codes, class codes, counts and weights (None: 1 each) of the training ``rows``."""
        codes, y = self.codes[rows], self.y_codes[rows]
        weights = _part(self.weights, rows)
        if rows.size + test.size == self.codes.shape[0] and self.total.layout != "rows":
            if fold not in self.fold_counts:
                self.fold_counts[fold] = count(self.codes[test], self.y_codes[test], self.cards, self.n_classes,
                                               pairs=self.pairs, weights=None if self.weights is None
                                               else self.weights[test])
            counts = self.total - self.fold_counts[fold]
            if weights is None and self.pairs:
                counts = counts.with_rows(codes, y)
        else:
            counts = count(codes, y, self.cards, self.n_classes, pairs=self.pairs, weights=weights)
        return codes, y, counts, weights

    def restriction(self, counts, n_train):
        """Levels of each column and classes that a refit on these rows would know,
        or ``None`` where the fold's encoder would reject the column (refit instead)."""
        seen = [counts.feature(i).sum(axis=0) for i in range(self.cards.size)]
        present = [np.ones(r, dtype=bool) if keep else n > 0
                   for r, keep, n in zip(self.cards, self.keeps_all_levels, seen)]
        for j, m in enumerate(self.encoder.missing_codes_):
            if m >= 0:  # the missing level exists in a fold's encoder only if the fold has missing values
                present[j][m] = seen[j][m] > 0
        if any(p.sum() > self.encoder.max_levels for p in present):
            return None
        if any(self.encoder.drops_in_part(j, n) for j, n in enumerate(seen)):
            return None  # a column the fold's encoder would take for an identifier
        return present, counts.class_counts > 0


def _restrict_codes(codes, present):
    out = codes.copy()
    for j, keep in enumerate(present):
        if not keep.all():
            new = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
            col = codes[:, j]
            out[:, j] = np.where(col >= 0, new[np.maximum(col, 0)], -1)
    return out


def _restrict_counts(counts, present, class_present):
    if all(p.all() for p in present) and class_present.all():
        return counts
    cols = np.flatnonzero(np.concatenate(present))
    cls = np.flatnonzero(class_present)
    counts = counts.with_full_pairs()  # a feature's last level may be the one left out
    pairs = {}
    if counts.joint is not None:
        pairs["joint"] = counts.joint[np.ix_(cls, cols, cols)]
    elif counts.sparse is not None:
        pairs["sparse"] = [scipy.sparse.csr_array(counts.sparse[c][cols][:, cols]) for c in cls]
    return type(counts)(np.array([p.sum() for p in present], dtype=np.int64), counts.class_counts[cls],
                        levels=counts.levels[np.ix_(cls, cols)], **pairs)


def _fit_from_counts(model, X, classes, enc: _Encoded, fold, train, test):
    """A fitted clone of ``model`` and its test probabilities over ``classes``;
    ``None`` when the fold must be refitted from raw rows."""
    start = time.perf_counter()
    codes, y, counts, weights = enc.training(fold, test, train)
    restriction = enc.restriction(counts, train.size)
    if restriction is None:
        return None
    present, class_present = restriction
    encoder = copy.copy(enc.encoder)
    encoder.categories_ = [cats[keep] for cats, keep in zip(enc.encoder.categories_, present)]
    encoder.cardinalities_ = np.array([keep.sum() for keep in present], dtype=np.int64)
    class_rank = np.cumsum(class_present) - 1
    codes = _restrict_codes(codes, present)
    if counts.layout == "rows":  # the rows are the pair counts: those of the restricted rows
        counts = count(codes, class_rank[y], encoder.cardinalities_, int(class_present.sum()), layout="rows")
    else:
        counts = _restrict_counts(counts, present, class_present)
    est = clone(model)._fit_coded(Encoding.of(X, classes[class_present], encoder), codes, class_rank[y], counts,
                                  weights)
    fit_time = time.perf_counter() - start
    start = time.perf_counter()
    jll = est._jll_encoded(_restrict_codes(enc.codes[test], present))
    # The same function as BaseBNC.predict_proba, so results match a refit bit for bit.
    proba = np.zeros((test.size, classes.size))
    proba[:, class_present] = np.exp(log_posterior(jll))
    return proba, fit_time, time.perf_counter() - start


def _uses_fast_path(model, weighted: bool = False) -> bool:
    # weighted rows: only a model that weighs its counts (one that repeats its rows refits)
    return isinstance(model, BaseBNC) and capabilities(model).learns_from_codes and (
        not weighted or capabilities(model).sample_weight == "counts")


def _encoder_key(encoder) -> tuple:
    """Equal for encoders of equal parameters (which learn equal encodings from equal rows)."""
    return type(encoder), repr(sorted(vars(encoder).items()))


def _encodings(models, X, y_codes, n_classes, weights=None) -> dict:
    """One shared encoding per distinct encoder, for the models that can use it."""
    out, by_key = {}, {}
    X = _as_frame(X)
    categorical_dtype = [isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns]
    for name, model in models.items():
        if not _uses_fast_path(model, weights is not None):
            continue
        encoder = model._encoder()
        # Models that need the pair counts get their own shared encoding with them.
        pairs = capabilities(model).pair_counts
        key = (*_encoder_key(encoder), pairs)
        if key not in by_key and (encoder.surely_discretises(X) or encoder.min_frequency > 1):
            # each fold cuts at its own points, or groups the levels rare in its rows: :class:`_FoldEncodings`
            by_key[key] = None
        if key not in by_key:
            encoder.fit(X, y_codes)
            ok = all(kind == "categorical" for kind in encoder.kinds_) and not encoder.dropped_columns_
            by_key[key] = _Encoded(encoder, X, y_codes, n_classes, categorical_dtype, pairs, weights) if ok else None
        if by_key[key] is not None:
            out[name] = by_key[key]
    return out


class _FoldEncodings:
    """A training fold encoded once per distinct encoder, for the models that learn from
    the coded table alone but not from the whole table's codes (a float column is cut at
    each training fold's own points): what ``clone(model).fit`` on the fold's rows would
    encode, counted once per need of pair counts, and its test rows coded once.

    A model's ``fit_time`` includes the encoding it shares: what its own fit would take."""

    def __init__(self, X, y, train, test):
        self.X, self.y, self.train, self.test = X, y, train, test
        self.by_key = {}

    def fit(self, model):
        """A fitted clone of ``model``, the seconds it took (with the shared encoding), and
        its test rows' codes."""
        start = time.perf_counter()
        key = _encoder_key(model._encoder())
        if key not in self.by_key:
            first = clone(model)
            codes, y_codes, counts = first._encode_fit(_take(self.X, self.train), self.y[self.train])
            counts.shared_statistics = {}  # the models read the fold's counts and leave them as they are
            encoding = Encoding.of_model(first)
            self.by_key[key] = {"encoding": encoding, "codes": codes, "y": y_codes,
                                "counts": {capabilities(first).pair_counts: counts},
                                "test": first._encode(_take(self.X, self.test)), "seconds": time.perf_counter() - start}
            start = time.perf_counter()
        shared = self.by_key[key]
        pairs = capabilities(model).pair_counts
        if pairs not in shared["counts"]:
            encoder = shared["encoding"].encoder
            shared["counts"][pairs] = count(shared["codes"], shared["y"], encoder.cardinalities_,
                                            shared["encoding"].classes.size, pairs=pairs)
            shared["counts"][pairs].shared_statistics = {}
        # each model its own copy of the encoder, as its own fit would have
        encoding = dataclasses.replace(shared["encoding"], encoder=copy.copy(shared["encoding"].encoder))
        est = clone(model)._fit_coded(encoding, shared["codes"], shared["y"], shared["counts"][pairs])
        return est, shared["seconds"] + time.perf_counter() - start, shared["test"]


def _fit_sharing_encoding(model, classes, fold_encodings: _FoldEncodings):
    est, fit_time, test_codes = fold_encodings.fit(model)
    start = time.perf_counter()
    fold_proba = np.exp(log_posterior(est._jll_encoded(test_codes)))  # BaseBNC.predict_proba's path
    predict_time = time.perf_counter() - start
    proba = np.zeros((test_codes.shape[0], classes.size))
    proba[:, np.searchsorted(classes, est.classes_)] = fold_proba
    return proba, fit_time, predict_time


def _refit(model, X, y, classes, train, test, weights=None):
    start = time.perf_counter()
    fit_weights = {} if weights is None else {"sample_weight": weights[train]}
    est = clone(model).fit(_take(X, train), y[train], **fit_weights)
    fit_time = time.perf_counter() - start
    start = time.perf_counter()
    fold_proba = est.predict_proba(_take(X, test))
    predict_time = time.perf_counter() - start
    proba = np.zeros((test.size, classes.size))
    proba[:, np.searchsorted(classes, est.classes_)] = fold_proba
    return proba, fit_time, predict_time
