"""The discriminative penalty chosen on the training rows: ``discriminative_penalty=None``.

Which penalty a table wants is not a function of its size alone: on car, chess or
nursery (classes that follow from the features) the weights should move far from the
generative model, on adult (as many rows, but noisy) they should not. So an in-memory
fit chooses it by validation on its own training rows:

* folds: 3 stratified folds (seed 0) up to :data:`CV_ROWS` rows, one stratified 20 %
  hold-out beyond;
* on each fold's training rows the generative model is refitted (structure and tables),
  then the weights are fitted along :data:`GRID`, from the strongest penalty (``1e6``,
  the generative model itself) down, each fit warm-started from the previous one;
  the descent stops once the held-out log-loss has risen above its best for two
  penalties in a row;
* the penalty of least held-out log-loss over the folds wins (among those every fold
  reached), and the weights are fitted with it on all the rows.

A fit out of core cannot hold rows out, so it takes the rule
:func:`pybnc.parameters.discriminative.default_penalty` (``docs/discriminative.md``); pass
a penalty to get the same model both ways.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone

from ..counts.tables import count
from ..parameters.discriminative import block_softmax, fit_weights, merge_rows
from .base import Encoding
from .capabilities import capabilities

#: Penalties tried, strongest first (``1e6`` keeps the weights at 1 to within 1e-6).
GRID = (1e6, 1e3, 1e2, 1e1, 1.0, 1e-1, 1e-2, 1e-3)
#: Up to this many training rows the penalty is chosen by 3-fold CV, beyond by a 20 % hold-out.
CV_ROWS = 3000
#: A held-out loss this much (relatively) above the best so far counts as a rise.
RISE = 1e-3


def _folds(y: np.ndarray) -> list:
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class with fewer rows than folds
        if y.size <= CV_ROWS:
            return list(StratifiedKFold(3, shuffle=True, random_state=0).split(np.zeros(y.size), y))
        _, counts = np.unique(y, return_counts=True)
        if counts.min() < 2:  # StratifiedShuffleSplit needs two rows of every class
            rows = np.random.default_rng(0).permutation(y.size)
            return [(rows[y.size // 5:], rows[: y.size // 5])]
        return list(StratifiedShuffleSplit(1, test_size=0.2, random_state=0).split(np.zeros(y.size), y))


def choose_penalty(estimator, codes, y, problem) -> tuple[float, dict]:
    """The penalty of least held-out log-loss, and the losses (mean per held-out row).

    ``problem(model, codes, y, sample_weight)`` gives, for a generative ``model`` fitted on
    some rows, ``(log_values, n_cells, designs, scores)``: the fit's inputs for the rows
    and a function ``scores(codes, fit)`` of held-out rows.
    """
    encoding = Encoding.of_model(estimator)
    cards, n_classes = estimator.encoder_.cardinalities_, len(estimator.classes_)
    pairs = capabilities(estimator).pair_counts
    totals = np.zeros(len(GRID))
    reached = len(GRID)
    held_rows = 0
    for train, valid in _folds(y):
        model = clone(estimator).set_params(weighting=None)
        model._fit_coded(encoding, codes[train], y[train], count(codes[train], y[train], cards, n_classes, pairs))
        merged = merge_rows(codes[train], y[train])
        log_values, n_cells, designs, scores = problem(model, *merged)
        best, worse, previous = np.inf, 0, None
        for i, penalty in enumerate(GRID):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an unconverged step of the path is still a candidate
                previous = fit_weights(log_values, designs, penalty, estimator.discriminative_max_iter,
                                       initial=previous, n_cells=n_cells)
            loss = block_softmax(scores(codes[valid], previous), y[valid], np.ones(valid.size))[0]
            totals[i] += loss
            # strong penalties all give about the generative loss: only a rise stops the descent
            if loss <= best * (1.0 + RISE):
                best, worse = min(best, loss), 0
            else:
                worse += 1
            if worse >= 2:
                reached = min(reached, i + 1)
                break
        held_rows += valid.size
    chosen = int(np.argmin(totals[:reached]))
    return float(GRID[chosen]), {"penalties": np.asarray(GRID[:reached], dtype=float),
                                 "held_out_log_loss": totals[:reached] / max(held_rows, 1)}
