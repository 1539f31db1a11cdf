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

import itertools
import os
import time
from collections import OrderedDict
from numbers import Integral

import numpy as np
from joblib import delayed, effective_n_jobs
from joblib.parallel import get_active_backend
from sklearn.utils import check_random_state

from .._utils.warn import warn
from .._utils.parallel import open_pool
from .._utils.progress import progress
from .._utils.sample_weight import check_sample_weight, repeat_rows, take_rows
from ..estimators.base import _check_table, keep_arguments
from ..estimators.capabilities import capabilities
from ._engine import CVScorer, stratified_folds


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
    """The constructor shared by the wrappers whose arguments are exactly bnclassify's
    (its ``k``, the folds, is ``cv``; its ``smooth`` is ``alpha``)."""

    def __init__(self, cv=5, epsilon=0.01, smoothing="bayes", alpha=None, encoder=None, random_state=None,
                 verbose=1, n_jobs=None):
        keep_arguments(self, locals())


def search_folds(estimator, y: np.ndarray):
    """The fold of each row of the search's cross-validation, from ``estimator.cv`` (a
    number of stratified folds drawn as bnclassify draws them, or a scikit-learn
    splitter or a list of ``(train, test)`` row positions, whose test sets must part the
    rows), and the search's random generator (which drew them). The parameters' types
    are checked at fit."""
    rng = check_random_state(estimator.random_state)
    cv, n_rows = estimator.cv, y.shape[0]
    if isinstance(cv, Integral):
        if cv > n_rows:
            raise ValueError(f"cv={cv} folds need at least as many rows; X has {n_rows}. Lower cv.")
        return stratified_folds(y, int(cv), rng), rng
    fold = np.full(n_rows, -1, dtype=np.int64)
    for i, (_, test) in enumerate(cv.split(np.zeros((n_rows, 1)), y) if hasattr(cv, "split") else cv):
        if (fold[test] >= 0).any():
            raise ValueError(f"cv={cv!r} puts a row in more than one test set; the search scores each row "
                             "once, so it needs folds that part the rows (KFold, StratifiedKFold, an int).")
        fold[test] = i
    if (fold < 0).any():
        raise ValueError(f"cv={cv!r} leaves {int((fold < 0).sum())} rows out of every test set; the search "
                         "scores each row once, so it needs folds that part the rows (KFold, StratifiedKFold, "
                         "an int).")
    return fold, rng


class FoldsFollowTheRows:
    """``fit`` of the learners that take ``cv``: given as a list of ``(train, test)`` row
    positions with integer ``sample_weight`` (learned as repeated rows), each copy of a
    row goes to its row's folds, as it would in a fit on the repeated rows."""

    def fit(self, X, y, sample_weight=None):
        cv = getattr(self, "cv", None)
        if sample_weight is None or not isinstance(cv, (list, tuple)) or capabilities(self).sample_weight != "repeats":
            return super().fit(X, y, sample_weight)
        X = _check_table(X)
        rows = repeat_rows(check_sample_weight(sample_weight, X.shape[0]), type(self).__name__)
        # the positions of each fold among the repeated rows
        self.cv = [(np.flatnonzero(np.isin(rows, train)), np.flatnonzero(np.isin(rows, test))) for train, test in cv]
        try:
            return super().fit(take_rows(X, rows), np.asarray(y)[rows])
        finally:
            self.cv = cv


def make_scorer(estimator, codes, y, counts, folds, rng) -> CVScorer:
    # Back-off tables (kDB's default) are scored by their Dirichlet estimates: the search
    # reads each candidate family's counts per fold, not a hierarchy of them.
    method = "bayes" if estimator.smoothing in ("backoff", "hgs") else estimator.smoothing
    return CVScorer(codes, y, counts.cardinalities, counts.n_classes, folds, rng, method, estimator.alpha)


# A step is scored in parallel once one scored here took this long: below it, sending the
# moves to workers costs more than it saves.
PARALLEL_STEP_SECONDS = 0.25
# What a worker's scorer keeps: loky restarts a worker that grows by 300 MB.
WORKER_MEMORY = 96 << 20
_SEARCH_IDS = itertools.count()
# A worker process's scorers of the searches it serves, newest last.
_SCORERS: OrderedDict = OrderedDict()


class MoveScoring:
    """Scores a search step's candidate moves, each given as ``(name, arguments)`` of a
    :class:`~pybnc.search._engine.CVScorer` method that returns its accuracy.

    With ``n_jobs`` above one, once a step scored here took ``PARALLEL_STEP_SECONDS``,
    later steps are scored in ``n_jobs`` interleaved batches by joblib's processes, or
    the backend ``joblib.parallel_config`` names (all here where that is threads: the
    scoring is Python and numpy on small arrays, which hold the GIL). Each worker builds
    its own scorer of the search once and keeps its caches from step to step. Every
    score is computed exactly as here, so the search does not depend on ``n_jobs``. A
    context manager: leaving it closes the pool.
    """

    def __init__(self, scorer: CVScorer, n_jobs=None):
        self.scorer = scorer
        # on threads the scoring would wait for the GIL: nothing to gain
        threads = getattr(get_active_backend(prefer="processes")[0], "uses_threads", False)
        self.n_jobs = 1 if threads else effective_n_jobs(n_jobs)
        self._requested = n_jobs
        self._search = (os.getpid(), next(_SEARCH_IDS))
        self._pool = None
        self._slow = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.__exit__(*exc)
            self._pool = None
        return False

    def __call__(self, tasks: list) -> list:
        if self._pool is None and not (self._slow and self.n_jobs > 1 and len(tasks) > 1):
            start = time.perf_counter()
            scores = [getattr(self.scorer, name)(*args) for name, args in tasks]
            self._slow = time.perf_counter() - start >= PARALLEL_STEP_SECONDS
            return scores
        if self._pool is None:
            self._pool = open_pool(self._requested, prefer="processes")
            self._pool.__enter__()
            scorer = self.scorer
            self._arguments = dict(codes=scorer.codes, y=scorer.y, cardinalities=scorer.cardinalities,
                                   n_classes=scorer.n_classes, folds=scorer.fold, rng=None, method=scorer.method,
                                   alpha=scorer.alpha, memory=WORKER_MEMORY)
        n = min(self.n_jobs, len(tasks))
        outputs = self._pool.run(delayed(_score_in_worker)(self._search, self._arguments, tasks[b::n])
                                 for b in range(n))
        scores = [0.0] * len(tasks)
        for b, batch in enumerate(outputs):
            scores[b::n] = batch
        return scores


def _score_in_worker(search, arguments: dict, tasks: list) -> list:
    scorer = _SCORERS.get(search)
    if scorer is None:
        scorer = _SCORERS[search] = CVScorer(**arguments)
        while len(_SCORERS) > 2:
            _SCORERS.popitem(last=False)
    return [getattr(scorer, name)(*args) for name, args in tasks]


def hill_climb(init_state, init_score: float, step, epsilon: float, rng, verbose, desc: str, init_loss=None,
               score_moves=None):
    """Greedy search over states.

    Parameters
    ----------
    init_state, init_score
        The starting model and its cross-validated accuracy.
    step : callable
        ``step(state) -> list of (describe, score, apply[, loss])``: each candidate move
        with a readable description, its accuracy (or what ``score_moves`` takes), a
        function building its state and, for the log-loss rule, a function giving each
        row's cross-validated log-loss.
    init_loss : ndarray, optional
        The starting model's per-row cross-validated log-loss. Given, the search
        follows the log-loss rule (:func:`choose_by_log_loss`); else bnclassify's (the
        best accuracy, ties at random, while it gains ``epsilon``).
    score_moves : callable, optional
        The accuracies of a step's candidates from their second items (a
        :class:`MoveScoring`); None: those items are the accuracies.

    Returns
    -------
    state, trace
    """
    state, current, loss = init_state, init_score, init_loss
    extra = {} if loss is None else {"cv_log_loss": float(loss.mean())}
    trace = [{"step": 0, "move": "start", "cv_accuracy": current, **extra, "n_candidates": 1}]
    bar = progress(total=None, desc=desc, verbose=verbose)
    stop = {"best_candidate": None, "n_candidates": 0, "reason": "the accuracy is 1"}
    try:
        while not abs(current - 1.0) < TIE_TOLERANCE:
            candidates = step(state)
            if not candidates:
                stop = {"best_candidate": None, "n_candidates": 0, "reason": "no candidate move is left"}
                break
            scores = [candidate[1] for candidate in candidates]
            scores = np.array(scores if score_moves is None else score_moves(scores), dtype=np.float64)
            best = scores.max()
            if loss is None:
                chosen = pick_best(scores, rng) if best - epsilon >= current else None
                reason = f"less than epsilon={epsilon:g}"
            else:
                chosen, new_loss = choose_by_log_loss(scores, [c[3] for c in candidates], current, loss, epsilon, rng)
                reason = (f"less than epsilon={epsilon:g}, and no move that loses no accuracy lowers the "
                          f"CV log-loss ({loss.mean():.4f})")
            if chosen is None:
                stop = {"best_candidate": float(best), "n_candidates": len(candidates),
                        "reason": f"the best move gains {best - current:+.4f} in CV accuracy, {reason}"}
                break
            describe, _, apply = candidates[chosen][:3]
            current = float(scores[chosen])
            state = apply()
            if loss is not None:
                loss = new_loss
                extra["cv_log_loss"] = float(loss.mean())
            trace.append({"step": len(trace), "move": describe, "cv_accuracy": float(current), **extra,
                          "n_candidates": len(candidates)})
            bar.update(1)
            bar.set_postfix(cv_accuracy=f"{current:.4f}")
    finally:
        bar.close()
    trace.append({"step": len(trace), "move": "stop", "cv_accuracy": float(current), **extra, **stop})
    return state, trace


def choose_by_log_loss(scores, losses, current: float, current_loss, epsilon: float, rng):
    """The log-loss rule's move: ``(index, its per-row log-loss)``, or ``(None, None)``.

    A move is acceptable if it gains at least ``epsilon`` in CV accuracy, or if it loses
    no accuracy (within ``TIE_TOLERANCE``) and lowers the CV log-loss (the mean over
    rows of ``-log P(true class | x)``, each row under its training folds' parameters,
    by more than ``TIE_TOLERANCE``); the acceptable move of lowest log-loss wins (exact
    ties at random). On a small table accuracy moves in steps of one row per fold, so
    most moves tie on it: bnclassify's rule then stops on a plateau (``epsilon > 0``:
    FSSJ keeps the class alone) or walks it at random (``epsilon = 0``). The held-out
    log-loss ranks every move and rises, on average, when a feature or a join adds only
    noise. ``losses`` are callables, called only for the moves that lose no accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> now = np.array([0.7, 0.7, 0.7, 0.7])
    >>> losses = [lambda: now - 0.1, lambda: now - 0.2, lambda: now + 0.2]
    >>> choose_by_log_loss([0.8, 0.8, 0.8], losses, 0.8, now, 0.01, np.random.RandomState(0))[0]
    1
    >>> choose_by_log_loss([0.8, 0.75, 0.9], losses, 0.8, now, 0.01, np.random.RandomState(0))[0]
    0
    >>> choose_by_log_loss([0.75, 0.75, 0.9], losses, 0.8, now, 0.01, np.random.RandomState(0))[0]
    2
    >>> choose_by_log_loss([0.8, 0.7], [lambda: now, losses[1]], 0.8, now, 0.01, np.random.RandomState(0))
    (None, None)
    """
    scores = np.asarray(scores, dtype=np.float64)
    looked = np.flatnonzero(scores >= current - TIE_TOLERANCE)  # the moves that lose no accuracy
    rows = [losses[i]() for i in looked]
    means = np.array([r.mean() for r in rows], dtype=np.float64)
    keep = np.flatnonzero((means < current_loss.mean() - TIE_TOLERANCE) | (scores[looked] - epsilon >= current))
    if not keep.size:
        return None, None
    pick = keep[pick_best(-means[keep], rng)]
    return int(looked[pick]), rows[pick]


def report_stop(estimator, trace: list, start_model: str, folds: int) -> None:
    """Warn when the search accepted no move and so returns its starting model."""
    if len(trace) == 2 and trace[-1]["best_candidate"] is not None:
        fix = ("Lower epsilon (epsilon=0 accepts any gain) to let the search proceed."
               if getattr(estimator, "stopping", "epsilon") == "epsilon" else
               "No single move helps on these folds; the starting model is the search's answer.")
        warn(
            f"{type(estimator).__name__} returned its starting model, {start_model}: "
            f"{trace[-1]['reason']} ({folds}-fold CV accuracy {trace[-1]['cv_accuracy']:.4f}). " + fix,
            StartModelWarning)


def named_trace(trace, describe_move) -> list:
    """Replace the index-based move descriptions by feature names."""
    return [dict(entry, move=describe_move(entry["move"])) for entry in trace]
