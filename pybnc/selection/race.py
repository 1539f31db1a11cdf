"""Running AutoBNC's cross-validation: in parallel (joblib) and how far (a race that
stops clear losers after the first folds).

The folds and the shares of a fold's candidates run on ``n_jobs`` of joblib's threads
(:func:`pybnc._utils.parallel.run_jobs`; ``joblib.parallel_config`` may choose
processes): they cost nothing to start, so ``n_jobs=2`` is not the slower on a small
table, where a new pool of processes would first spend seconds importing pybnc. The
discriminative candidates gain most (their evaluations release the GIL), the
candidates that count little (their pandas and numpy steps hold the GIL between
short calls). The results
do not depend on the workers: every task's folds and candidates are fixed before it
runs.

The race (Maron & Moore's Hoeffding races, "The racing algorithm: model selection for
lazy learners", AI Review 1997, with a paired test instead of Hoeffding's bound): every
candidate of a round is scored on its first :data:`RACE_FOLDS` folds (one on tables whose
folds hold :data:`RACE_ONE_FOLD_ROWS` rows, :func:`race_head`); a candidate whose
loss on those held-out rows exceeds the best candidate's, row by row, by more than
:data:`RACE_Z` standard errors of the paired differences *and* by more than
:data:`RACE_RELATIVE` of the best's loss stops there, and the rest run the remaining
folds. The first condition keeps every candidate the rows cannot yet tell from the
best; the second keeps, on large tables where any difference is significant, the
near-best ones that a greedy ensemble can still use. A stopped candidate is never
chosen, nor a member of the ensemble.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import delayed, effective_n_jobs
from joblib.parallel import get_active_backend

from .._utils.parallel import run_jobs
from ..evaluation import cross_validate
from ..evaluation.metrics import LOG_LOSS_EPS

#: Folds every candidate of a raced round runs before the losers stop ...
RACE_FOLDS = 2
#: ... one when each fold holds at least this many rows: the paired test has rows
#: enough, and on a large table one fold's fit stands for the others.
RACE_ONE_FOLD_ROWS = 1000
#: A loser's paired excess loss, in standard errors ...
RACE_Z = 3.0
#: ... and as a share of the best candidate's loss.
RACE_RELATIVE = 0.1


class _Folds:
    """A splitter that gives fixed folds (``cross_validate`` takes any splitter)."""

    def __init__(self, folds):
        self.folds = folds

    def split(self, X=None, y=None, groups=None):
        return iter(self.folds)

    def get_n_splits(self, X=None, y=None, groups=None):
        return len(self.folds)


def _cross_validate_quietly(models: dict, X, y, folds) -> tuple:
    """``cross_validate`` on ``folds``; failing folds score NaN. Returns the long results,
    the out-of-fold probabilities (zero outside these folds' test rows) and each failing
    model's first error; the candidates' warnings are not shown (the refitted choice
    shows its own; Python's warning filters belong to the process, so :func:`evaluate`
    also silences them around its threads)."""
    errors = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, proba = cross_validate(models, X, y, cv=_Folds(folds), verbose=0, error_score=np.nan,
                                        return_proba=True, failures=errors)
    return results, proba, errors


@dataclass
class Evaluation:
    """The scores of some candidates on some folds.

    ``long``: ``cross_validate``'s rows (``fold`` is the fold's index among all folds);
    ``proba``: each candidate's out-of-fold probabilities, zero outside these folds'
    test rows; ``errors``: each failing candidate's first error; ``seconds``: wall time.
    """

    long: pd.DataFrame = field(default_factory=pd.DataFrame)
    proba: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    seconds: float = 0.0

    def __add__(self, other: "Evaluation") -> "Evaluation":
        proba = dict(self.proba)
        for name, p in other.proba.items():  # each evaluation fills its own test rows
            proba[name] = p if name not in proba else proba[name] + p
        return Evaluation(pd.concat([self.long, other.long], ignore_index=True), proba,
                          {**other.errors, **self.errors}, self.seconds + other.seconds)


def evaluate(candidates: list, X, y, folds: list, fold_ids, n_jobs=None, on_folds=None, cost=None,
             releases_gil=None) -> Evaluation:
    """Cross-validate ``candidates`` on ``folds`` (whose indices among all folds are
    ``fold_ids``) with ``n_jobs`` joblib workers (see the module's notes); ``on_folds(n)``
    is called as ``n`` folds end.

    The workers share out the folds (a group of folds shares its table's encoding and
    counts). When the folds do not split evenly among them (fewer folds than workers
    too), each fold's candidates go out in a share per worker, of about the same total
    ``cost(candidate)`` (by default all cost alike): a task per fold and share. On
    threads, the candidates for which ``releases_gil(candidate)`` is false run all
    their folds in one task, first: two such tasks at once would only take turns
    holding the GIL (round 1 then runs here, as with ``n_jobs=1``)."""
    start = time.perf_counter()
    fold_ids = np.asarray(fold_ids)
    if not candidates or not folds:
        return Evaluation(seconds=0.0)
    every_fold = np.arange(len(folds))
    n_workers = effective_n_jobs(n_jobs)
    held = []  # the candidates that hold the GIL, in one task
    if n_workers > 1 and releases_gil is not None and getattr(get_active_backend(prefer="threads")[0],
                                                              "uses_threads", False):
        held = [c for c in candidates if not releases_gil(c)]
        candidates = [c for c in candidates if releases_gil(c)]
    if not candidates:
        tasks = []
    elif n_workers > 1 and len(folds) % n_workers and len(candidates) > 1:
        # folds that do not split evenly among the workers (1 or 3 on 2: one would wait):
        # each fold's candidates in a share per worker, handed out as workers come free
        shares = _share_out(candidates, min(n_workers, len(candidates)), cost)
        tasks = [(share, every_fold[i : i + 1]) for i in every_fold for share in shares]
    else:  # contiguous groups of folds: a group shares its table's encoding and counts
        tasks = [(candidates, g) for g in np.array_split(every_fold, max(1, min(n_workers, len(folds)))) if g.size]
    if held:
        tasks.insert(0, (held, every_fold))
    jobs = (delayed(_cross_validate_quietly)({c.name: c.estimator for c in share}, X, y, [folds[i] for i in group])
            for share, group in tasks)
    total, shares_left = Evaluation(), np.bincount(np.concatenate([g for _, g in tasks]), minlength=len(folds))
    with warnings.catch_warnings():  # the warnings of tasks on threads
        warnings.simplefilter("ignore")
        if len(tasks) == 1:
            outputs = (_cross_validate_quietly({c.name: c.estimator for c in tasks[0][0]}, X, y, list(folds)),)
        else:
            outputs = run_jobs(jobs, min(n_workers, len(tasks)), return_as="generator")
        for (share, group), (part, part_proba, failed) in zip(tasks, outputs):
            part["fold"] = fold_ids[group][part["fold"].to_numpy()]
            total = total + Evaluation(part, part_proba, failed)
            shares_left[group] -= 1
            if on_folds is not None and not shares_left[group].any():  # a fold ends with its last share
                on_folds(len(group))
    total.seconds = time.perf_counter() - start
    return total


def _share_out(candidates: list, n_shares: int, cost=None) -> list:
    """``candidates`` in ``n_shares`` groups of about equal total cost, costliest first to
    the least loaded group (longest processing time first)."""
    cost = cost or (lambda candidate: 1.0)
    shares, loads = [[] for _ in range(n_shares)], np.zeros(n_shares)
    for c in sorted(candidates, key=cost, reverse=True):
        least = int(np.argmin(loads))
        shares[least].append(c)
        loads[least] += cost(c)
    return [share for share in shares if share]


def _folds(n: int) -> str:
    return "1 fold" if n == 1 else f"{n} folds"


def race_head(folds: list) -> int:
    """The folds every candidate of a race runs before the losers stop: one when each of
    ``folds`` (train, test pairs) tests :data:`RACE_ONE_FOLD_ROWS` rows or more, else
    :data:`RACE_FOLDS`, and all of them when only one more would be left."""
    if min(len(test) for _, test in folds) >= RACE_ONE_FOLD_ROWS and len(folds) > 2:
        return 1
    return RACE_FOLDS if len(folds) > RACE_FOLDS + 1 else len(folds)


def row_losses(proba: np.ndarray, y_codes: np.ndarray, rows: np.ndarray, scoring: str) -> np.ndarray:
    """Each of ``rows``' loss: ``-log p(class)`` for log-loss, 0/1 error for accuracy."""
    p = proba[rows]
    if scoring == "log_loss":
        return -np.log(np.clip(p[np.arange(rows.size), y_codes[rows]], LOG_LOSS_EPS, 1.0))
    return (p.argmax(axis=1) != y_codes[rows]).astype(np.float64)


def race_survivors(evaluation: Evaluation, candidates: list, y_codes: np.ndarray, rows: np.ndarray,
                   scoring: str, n_folds: int = RACE_FOLDS) -> tuple:
    """The candidates that go on after the first folds, and why each other stopped.

    ``rows``: the test rows of the ``n_folds`` folds run so far. Returns ``(survivors, stopped)``,
    ``stopped`` a dict of name to the reason (its loss against the best's).
    """
    ok = [c for c in candidates if c.name not in evaluation.errors and c.name in evaluation.proba]
    if len(ok) < 2:
        return ok, {}
    losses = np.array([row_losses(evaluation.proba[c.name], y_codes, rows, scoring) for c in ok])
    finite = np.isfinite(losses).all(axis=1)
    mean = np.where(finite, losses.mean(axis=1), np.inf)
    best = int(np.argmin(mean))
    difference = losses - losses[best]
    standard_error = difference.std(axis=1, ddof=1) / np.sqrt(rows.size)
    metric = "log-loss" if scoring == "log_loss" else "error rate"
    survivors, stopped = [], {}
    for i, c in enumerate(ok):
        excess = mean[i] - mean[best]
        if finite[i] and not (excess > RACE_Z * standard_error[i] and excess > RACE_RELATIVE * mean[best]):
            survivors.append(c)
        else:
            stopped[c.name] = (f"stopped after {_folds(n_folds)}: {metric} {mean[i]:.4g} against the best's "
                               f"{mean[best]:.4g} ({ok[best].name})")
    return survivors, stopped
