"""``weighting="discriminative"``: the estimators' side of the discriminative learners.

The pure learners are :mod:`pybnc.parameters.network_weights` (networks) and
:mod:`pybnc.averaging.alr` (AODE, AnDE, whose side is :mod:`pybnc.averaging.alr_weights`); here they are called (on the rows in memory,
the penalty given or chosen on held-out training rows by
:mod:`pybnc.estimators._penalty_choice`; or pass by pass over blocks out of core:
:func:`pybnc.parameters.discriminative_passes.fit_weights_in_passes`) and the results kept as
fitted attributes: the generative tables stay as they are, the weights go to
``discriminative_fit_`` (:class:`~pybnc.parameters.discriminative.DiscriminativeFit`:
the cells read, their weights, iterations, convergence, objective, penalty) and
``n_iter_``; a row scores the generative model's exact log joint plus
``(w - 1) log theta`` over the cells it reads, so weights of 1 are the generative model
on every row, with missing values or not. The weights need the rows: a fit from counts
alone (no coded rows) leaves the generative model, and the out-of-core driver then reads
the blocks again.
"""

from __future__ import annotations

import numpy as np

from ..inference.forest import joint_log_likelihood
from ..parameters.discriminative import (DEFAULT_MAX_ITER, default_penalty, design_scores, fit_weights, merge_rows,
                                         with_base)
from ..parameters.discriminative_passes import fit_weights_in_passes
from ..parameters.learn import METHODS, learn_parameters
from ..parameters.network_weights import network_cells, network_design, network_scores
from ..structure import Structure


def wanted(estimator) -> bool:
    return getattr(estimator, "weighting", None) == "discriminative"


#: ``Capabilities.weightings`` of a class whose only weighting is the discriminative one.
ONLY = ("discriminative",)


def refine(declared):
    """What the weights change in a class's capabilities: L-BFGS reads the rows at every
    step (no ``partial_fit``; out of core, the blocks again after the counting passes; sample
    weights as repeated rows), and the weighted tables are not probabilities."""
    return declared.replace(learns_from_counts=False, rereads_rows=True, tables_are_probabilities=False,
                            sample_weight="repeats")


def chosen_penalty(estimator, counts, kind: str) -> float:
    value = estimator.discriminative_penalty
    return default_penalty(counts.n_rows, kind) if value is None else float(value)


def _network_kind(estimator) -> str:
    return "network" if estimator.structure_.arcs else "naive_bayes"


def keep_fit(estimator, fit, validation=None) -> None:
    """The fit (:class:`~pybnc.parameters.discriminative.DiscriminativeFit`), ``n_iter_`` and,
    when the penalty was chosen by held-out rows, their losses."""
    estimator.discriminative_fit_ = fit
    estimator.n_iter_ = int(fit.n_iter)
    if validation is not None:
        estimator.discriminative_validation_ = validation


def weigh_in_memory(estimator, problem, codes, y) -> tuple:
    """The weights on the rows in memory (identical rows merged), the penalty given or chosen
    on held-out training rows (:mod:`pybnc.estimators._penalty_choice`)."""
    from ._penalty_choice import choose_penalty

    validation = None
    penalty = estimator.discriminative_penalty
    if penalty is None:
        penalty, validation = choose_penalty(estimator, codes, y, problem)
    log_values, n_cells, designs, _ = problem(estimator, *merge_rows(codes, y))
    fit = fit_weights(log_values, designs, float(penalty), estimator.discriminative_max_iter, n_cells=n_cells)
    return fit, validation


def naive_bayes_tables(counts, smoothing: str, alpha) -> list:
    """``log P(x_i | c)`` of every feature, shape ``(K, r_i)``: the back-off cells read where a
    parent is missing (the estimator's own learner when it is a Dirichlet one, else ``bayes``)."""
    method = smoothing if smoothing in METHODS and smoothing != "backoff" else "bayes"
    tables = learn_parameters(Structure.naive_bayes(counts.n_features), counts, method,
                              alpha if method == smoothing else None)
    return [t[:, 0, :] for t in tables.log_cpts]


# -- networks ---------------------------------------------------------------------------------------
def _generative_network(estimator):
    """The network's exact log joint of coded rows (missing values summed out)."""
    # log_cpts_ are the generative tables (the weights are kept apart): distributions
    return lambda codes: joint_log_likelihood(codes, estimator.structure_, estimator.class_log_prior_,
                                              estimator.log_cpts_, estimator.encoder_.cardinalities_,
                                              tables_are_probabilities=True)


def _network(estimator, counts, features):
    back_off = naive_bayes_tables(counts, estimator.smoothing, estimator.alpha)
    features = np.arange(len(estimator.log_cpts_)) if features is None else np.asarray(features, dtype=np.int64)
    return back_off, features


def _keep_network(estimator, back_off, features) -> None:
    estimator.back_off_log_cpts_ = back_off
    estimator.discriminative_features_ = features


def _network_problem(model, codes, y, weight):
    """The discriminative problem of a (fold's) generative network: the cells' log values,
    the rows' designs and a scorer of held-out rows (see :func:`weigh_in_memory`)."""
    back_off, kept = _network(model, model.counts_, model._weighted_features())
    values, layout = network_cells(model.structure_, model.class_log_prior_, model.log_cpts_, back_off, kept,
                                   gathered=True)
    generative = _generative_network(model)

    def scores(rows, fit):
        return generative(rows) + design_scores(network_design(rows, layout).matrix, fit.deltas(values))

    design = with_base(network_design(codes, layout, y, weight), generative(codes), values)
    return values, layout.n_cells, [design], scores


def weigh_network(estimator, counts, codes, y) -> None:
    """Discriminative weights on a fitted network's tables (rows in memory; SKDB's only on the
    features it selected). The generative tables stay: a row scores the network's exact log
    joint plus ``(w - 1) log theta`` of its cells."""
    fit, validation = weigh_in_memory(estimator, _network_problem, codes, y)
    back_off, features = _network(estimator, counts, estimator._weighted_features())
    _keep_network(estimator, back_off, features)
    keep_fit(estimator, fit, validation)


def weigh_network_in_passes(estimator, counts):
    """:func:`weigh_network` out of core: a generator of passes over the blocks."""
    back_off, features = _network(estimator, counts, estimator._weighted_features())
    values, layout = network_cells(estimator.structure_, estimator.class_log_prior_, estimator.log_cpts_,
                                   back_off, features, gathered=True)
    generative = _generative_network(estimator)

    def design_of(codes, y):
        return with_base(network_design(codes, layout, y), generative(codes), values)

    fit = yield from fit_weights_in_passes(values, design_of, chosen_penalty(estimator, counts, _network_kind(estimator)),
                                           estimator.discriminative_max_iter, n_cells=layout.n_cells)
    _keep_network(estimator, back_off, features)
    keep_fit(estimator, fit)


def network_jll(estimator, codes) -> np.ndarray:
    """The weighted network's scores: its exact log joint plus the weights' corrections."""
    return network_scores(codes, estimator.structure_, estimator.class_log_prior_, estimator.log_cpts_,
                          estimator.back_off_log_cpts_, estimator.discriminative_features_,
                          fit=estimator.discriminative_fit_, generative=_generative_network(estimator))


__all__ = ["DEFAULT_MAX_ITER", "ONLY", "wanted", "refine", "weigh_network",
           "weigh_network_in_passes", "network_jll", "keep_fit", "weigh_in_memory", "chosen_penalty"]
