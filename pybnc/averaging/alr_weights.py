"""``weighting="discriminative"`` for AODE and AnDE: the weights in the ALR^n form.

The pure learner is :mod:`pybnc.averaging.alr`; the penalty, the fit kept and the passes out of
core are those of the networks (:mod:`pybnc.estimators._discriminative`). A row scores AnDE's own
log joint plus ``(w - 1) log theta`` over its estimators' cells.
"""

from __future__ import annotations

import numpy as np

from ..estimators._discriminative import chosen_penalty, keep_fit, weigh_in_memory
from ..parameters.discriminative_passes import fit_weights_in_passes
from .alr import SuperParentCells, alr_block, alr_scores, offset_alr_designs


def _space(estimator, n: int):
    offsets = np.concatenate([[0], np.cumsum(estimator.encoder_.cardinalities_)]).astype(np.int64)
    naive = np.concatenate([t[:, 0] for t in estimator.log_cpts_], axis=1)
    extra = {"log_pair": estimator.log_pair_, "log_pair_child": estimator.log_pair_child_} if n == 2 else {}
    return SuperParentCells(n, offsets, estimator.log_joint_, estimator.log_child_, estimator.class_log_prior_,
                            naive, **extra)


def _pair_ok(estimator, n: int):
    return estimator.pair_ok_ if n == 2 else None


def _alr_problem(n: int):
    """The discriminative problem of a (fold's) generative AODE or A2DE."""

    def problem(model, codes, y, weight):
        space, qualifies, pair_ok = _space(model, n), model.super_parent_ok_, _pair_ok(model, n)

        def scores(rows, fit):
            return model._generative_jll(rows) + alr_scores(rows, space.deltas(fit), qualifies, pair_ok)

        designs = offset_alr_designs(codes, space, qualifies, pair_ok, y, weight, model._generative_jll)
        return space, space.n_cells, designs, scores

    return problem


def weigh_alr(estimator, n: int, counts, codes, y) -> None:
    """Discriminative weights on an AODE's (``n = 1``) or A2DE's tables in the ALR^n form;
    a row scores AnDE's own log joint plus ``(w - 1) log theta`` of its estimators' cells."""
    keep_fit(estimator, *weigh_in_memory(estimator, _alr_problem(n), codes, y))


def weigh_alr_in_passes(estimator, n: int, counts):
    """:func:`weigh_alr` out of core: a generator of passes over the blocks."""
    space, qualifies, pair_ok = _space(estimator, n), estimator.super_parent_ok_, _pair_ok(estimator, n)
    fit = yield from fit_weights_in_passes(
        space, lambda codes, y: alr_block(codes, space, qualifies, pair_ok, y, generative=estimator._generative_jll),
        chosen_penalty(estimator, counts, "averaged"), estimator.discriminative_max_iter, n_cells=space.n_cells)
    keep_fit(estimator, fit)


def alr_jll(estimator, n: int, codes) -> np.ndarray:
    """Scores of the weighted model: AnDE's log joint plus the weights' corrections."""
    deltas = _space(estimator, n).deltas(estimator.discriminative_fit_)
    return estimator._generative_jll(codes) + alr_scores(codes, deltas, estimator.super_parent_ok_,
                                                         _pair_ok(estimator, n))


__all__ = ["weigh_alr", "weigh_alr_in_passes", "alr_jll"]
