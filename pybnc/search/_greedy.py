"""bnclassify's greedy search loop, shared by every wrapper learner.

The loop (bnclassify ``greedy_search``): score the candidates; stop unless the best
beats the current score by at least ``epsilon`` (``best - epsilon >= current``);
move to the best candidate (ties broken at random, from ``random_state``); stop
when the current accuracy is 1 or no candidate is left. As in bnclassify
(``max_random``, ``fast_equal``), scores within ``TIE_TOLERANCE`` of the best are
ties: two equal accuracies summed over folds in a different order can differ in the
last bit, and that rounding must not pick the move.

A search that stops before its first move returns its starting model (naive Bayes,
or the class alone for FSSJ). At the default ``epsilon=0.01`` that happens whenever
no single move gains a full point of accuracy, which is common on tables whose
class depends on combinations of features; the trace's last entry says why the
search stopped, and :class:`StartModelWarning` is raised, because the progress
output is off by default outside terminals and a silently returned naive Bayes is
exactly what a user would not expect from a structure search.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from sklearn.utils import check_random_state

from .._utils.progress import progress
from ..encode import ENCODING_PARAMS_DOC
from ..estimators.base import keep_arguments
from ._engine import CVScorer

_WRAPPER_DOC = """
    k : int, default=5
        Folds of the stratified cross-validation that scores each candidate
        (bnclassify's ``k``). Drawn once per search as bnclassify's
        ``make_stratified_folds`` draws them (per class, a shuffled repetition of the
        fold ids), from ``random_state``: the same scheme, not R's random numbers.
    epsilon : float, default=0.01
        Minimum improvement in cross-validated accuracy to accept a move; the
        search stops when the best candidate gains less.
    params : {"bayes", "mle", "friedman", "ms"}, default="bayes"
        Parameter learner, during the search and for the final model. ``"bayes"``
        with ``alpha=a`` is bnclassify's ``smooth = a`` (the same pseudo-count in every
        cell of every table, the class prior included).
    alpha : float, default=None
        Smoothing strength (bnclassify's ``smooth``: ``params="bayes"``; the method's
        default when ``None``: 1 for bayes, 5 friedman, 10 ms). bnclassify's own
        default ``smooth = 0`` is ``params="mle"``.
    random_state : int, RandomState or None, default=None
        Draws the folds and breaks ties between equally good moves; an int makes the
        search deterministic.
    verbose : int, default=1
        0 silent; 1 a progress bar on terminals; 2 always a bar.
""" + ENCODING_PARAMS_DOC

_TRACE_DOC = """
    search_trace_ : list of dict
        One entry per accepted move, in order: ``step``, ``move`` (a readable
        description), ``cv_accuracy`` after the move and ``n_candidates`` scored;
        the first is ``"start"``. The last entry has ``move="stop"``, the
        ``cv_accuracy`` of the returned model, the ``best_candidate`` accuracy of the
        last round (``None`` if there was no candidate) and the ``reason``. If no
        move was accepted, a :class:`~pybnc.search.StartModelWarning` says so.
"""


# bnclassify's ``fast_equal``: |a - b| < sqrt(machine epsilon)
TIE_TOLERANCE = float(np.sqrt(np.finfo(np.float64).eps))


def pick_best(scores, rng) -> int:
    """Index of the highest score; scores within ``TIE_TOLERANCE`` of it are ties,
    broken at random from ``rng`` (bnclassify's ``max_random``)."""
    scores = np.asarray(scores, dtype=np.float64)
    ties = np.flatnonzero(np.abs(scores - scores.max()) < TIE_TOLERANCE)
    return int(ties[rng.randint(ties.size)]) if ties.size > 1 else int(ties[0])


class StartModelWarning(UserWarning):
    """A structure search returned its starting model: no move gained ``epsilon``."""


class WrapperParams:
    """The constructor shared by the wrappers whose arguments are exactly bnclassify's."""

    def __init__(self, k=5, epsilon=0.01, params="bayes", alpha=None, random_state=None, verbose=1,
                 n_bins=5, discretizer="mdl",
                 id_columns="drop", missing="sum", categorical_features=None, numeric_features=None):
        keep_arguments(self, locals())


def validate_search(estimator, n_rows: int, n_folds: int, n_folds_name: str = "k"):
    """Check the folds against the rows (the parameters' types and ranges are checked at
    fit, ``_parameter_constraints``); returns the random generator."""
    if n_folds > n_rows:
        raise ValueError(f"{n_folds_name}={n_folds} folds need at least as many rows; X has {n_rows}. "
                         f"Lower {n_folds_name}.")
    return check_random_state(estimator.random_state)


def make_scorer(estimator, codes, y, counts, n_folds: int, rng) -> CVScorer:
    # Back-off tables (kDB's default) are scored by their Dirichlet estimates: the search
    # reads each candidate family's counts per fold, not a hierarchy of them.
    method = "bayes" if estimator.params == "backoff" else estimator.params
    return CVScorer(codes, y, counts.cardinalities, counts.n_classes, n_folds, rng, method, estimator.alpha)


def hill_climb(init_state, init_score: float, step, epsilon: float, rng, verbose, desc: str):
    """Greedy search over states.

    Parameters
    ----------
    init_state, init_score
        The starting model and its cross-validated accuracy.
    step : callable
        ``step(state) -> list of (describe, score, apply)``: each candidate move with
        a readable description, its accuracy and a function building its state.

    Returns
    -------
    state, trace
    """
    state, current = init_state, init_score
    trace = [{"step": 0, "move": "start", "cv_accuracy": current, "n_candidates": 1}]
    bar = progress(total=None, desc=desc, verbose=verbose)
    stop = {"best_candidate": None, "n_candidates": 0, "reason": "the accuracy is 1"}
    try:
        while not abs(current - 1.0) < TIE_TOLERANCE:
            candidates = step(state)
            if not candidates:
                stop = {"best_candidate": None, "n_candidates": 0, "reason": "no candidate move is left"}
                break
            scores = np.array([score for _, score, _ in candidates])
            best = scores.max()
            if not best - epsilon >= current:
                stop = {"best_candidate": float(best), "n_candidates": len(candidates),
                        "reason": f"the best move gains {best - current:+.4f} in CV accuracy, "
                                  f"less than epsilon={epsilon:g}"}
                break
            describe, current, apply = candidates[pick_best(scores, rng)]
            state = apply()
            trace.append({"step": len(trace), "move": describe, "cv_accuracy": float(current),
                          "n_candidates": len(candidates)})
            bar.update(1)
            bar.set_postfix(cv_accuracy=f"{current:.4f}")
    finally:
        bar.close()
    trace.append({"step": len(trace), "move": "stop", "cv_accuracy": float(current), **stop})
    return state, trace


def report_stop(estimator, trace: list, start_model: str, folds: int) -> None:
    """Warn when the search accepted no move and so returns its starting model."""
    if len(trace) == 2 and trace[-1]["best_candidate"] is not None:
        warnings.warn(
            f"{type(estimator).__name__} returned its starting model, {start_model}: "
            f"{trace[-1]['reason']} ({folds}-fold CV accuracy {trace[-1]['cv_accuracy']:.4f}). "
            "Lower epsilon (epsilon=0 accepts any gain) to let the search proceed.",
            StartModelWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """``stacklevel`` pointing at the first frame outside pybnc and scikit-learn (the
    user's ``fit``, not scikit-learn's wrapper that checks the parameters)."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("pybnc.", "sklearn.")):
        frame, level = frame.f_back, level + 1
    return level


def named_trace(trace, describe_move) -> list:
    """Replace the index-based move descriptions by feature names."""
    return [dict(entry, move=describe_move(entry["move"])) for entry in trace]
