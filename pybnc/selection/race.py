"""Running AutoBNC's cross-validation: where (in this process or a pool of workers)
and how far (a race that stops clear losers after the first folds).

Where it is safe, a fit's workers are forked from this process
(:func:`pybnc._utils.workers.fit_workers`): they start in milliseconds with pybnc
already imported. An AutoBNC fit on audiology (226 rows, 69 columns, 24 classes),
fresh processes taking turns: 10.5, 15.2 and 13.7 s with a new pool of joblib's
workers, 10.1, 10.9 and 10.0 s forked.

Otherwise joblib's worker processes run the rounds. A pool of them costs seconds to
start (each imports numpy, pandas, scikit-learn and pybnc: about 2.3 s on a quiet
2-core machine, 20 s when it is loaded), more than a round of small candidates on a
small table takes in this process (crx, round 1's last four folds: 9 s here against
29.5 s in a new pool of two, at a load average of 7.8); once started, joblib keeps its
workers for the next rounds (calling them then costs about 0.01 s, plus sending the
table and bringing fitted models back). So a round runs in a pool only when the time
the workers save (its estimated time in this process, less that time over the number
of workers) is over what the pool costs: :data:`FORK_SECONDS` for forked workers,
:data:`POOL_START_SECONDS` for a new pool, :data:`POOL_CALL_SECONDS` for one still
running, each times the load average per core when that is above 1
(:func:`workers_for`). The pool the race will want is started in a background thread
after round 1's first fold (:func:`warm_pool`), so that its workers import pybnc
while this process runs round 1's other folds (it counts as running once they answer).

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

import os
import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import FitFailedWarning

from .._utils.workers import forked_workers, parallel_map
from ..evaluation import cross_validate
from ..evaluation.metrics import LOG_LOSS_EPS

#: Seconds forked workers cost a round (starting them, sending the table, bringing the
#: scores back); a refit that brings fitted models back costs them POOL_CALL_SECONDS
#: (soybean's ensemble, refitted in two forked workers: 0.61 and 1.13 s, here: 0.30 and
#: 0.41 s) ...
FORK_SECONDS = 0.1
#: ... a new pool of joblib's workers takes to start on a quiet machine ...
POOL_START_SECONDS = 2.5
#: ... and a call to a pool already running (joblib keeps idle workers for 300 s).
POOL_CALL_SECONDS = 0.5
#: How much more than its cost a pool must save to be started before it is needed.
WARM_MARGIN = 1.5
#: A pool this process used less than this many seconds ago is taken as still running.
POOL_IDLE_SECONDS = 240.0
_last_pool = {"at": -np.inf, "workers": 0}  # when this process last ran a round in a pool
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
    shows its own)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results, proba = cross_validate(models, X, y, cv=_Folds(folds), verbose=0, error_score=np.nan,
                                        return_proba=True)
    errors = {}
    for w in caught:
        if issubclass(w.category, FitFailedWarning):
            name, _, why = str(w.message).partition(" failed on fold ")
            errors.setdefault(name, why.split(": ", 1)[-1])
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


def workers_for(n_jobs, n_folds: int, estimated_seconds: float, returns_models: bool = False) -> int:
    """Worker processes for a round estimated to take ``estimated_seconds`` in this
    process: ``n_jobs``'s, at most one per fold, when the time they save is over what
    the pool costs (see the module's notes); else 1 (this process). ``returns_models``:
    the workers send fitted models back (a refit), not scores, which costs forked
    workers what a call to a running pool does."""
    workers = max(1, min(effective_n_jobs(n_jobs), n_folds))
    if workers == 1:
        return 1
    if forked_workers():
        cost = POOL_CALL_SECONDS if returns_models else FORK_SECONDS
    else:
        cost = POOL_CALL_SECONDS if _pool_is_warm(workers) else POOL_START_SECONDS
    return workers if estimated_seconds * (1.0 - 1.0 / workers) > cost * _load_per_core() else 1


def warm_pool(n_jobs, n_folds: int, estimated_seconds: float) -> None:
    """Start, in a background thread, the pool a later round estimated to take
    ``estimated_seconds`` in this process will run in (:func:`workers_for`), so that
    its workers import pybnc while this process goes on with the round before."""
    # the estimate comes from a first fold in what may be a new process (first calls
    # cost more): it ran 0.6 to 2.7 times the race's own on car, iris, soybean, sonar and
    # audiology, so a pool starts early only with this much to spare
    if forked_workers():  # forked when first needed, in milliseconds
        return
    workers = workers_for(n_jobs, n_folds, estimated_seconds / WARM_MARGIN)
    if workers > 1 and not _pool_is_warm(workers):
        threading.Thread(target=_start_pool, args=(workers,), daemon=True).start()


def _start_pool(workers: int) -> None:
    Parallel(n_jobs=workers)(delayed(_worker_ready)() for _ in range(workers))
    # ready only now: a round decided while the workers still import runs here, not waiting on them
    _last_pool.update(at=time.monotonic(), workers=workers)


def _worker_ready() -> bool:
    return True  # unpickling this function in a worker imports pybnc: that is the start


def _pool_is_warm(workers: int) -> bool:
    return _last_pool["workers"] == workers and time.monotonic() - _last_pool["at"] < POOL_IDLE_SECONDS


def shutdown_pool() -> None:
    """Stop the worker processes joblib keeps from AutoBNC's last pool, so that the next
    round that needs a pool starts one, as in a new process (what the fit-time benchmark
    measures)."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    _last_pool.update(at=-np.inf, workers=0)


def _load_per_core() -> float:
    """The load average per core, at least 1 (1 where the system does not tell)."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (AttributeError, OSError):
        return 1.0


def evaluate(candidates: list, X, y, folds: list, fold_ids, n_workers: int, on_folds=None, cost=None) -> Evaluation:
    """Cross-validate ``candidates`` on ``folds`` (whose indices among all folds are
    ``fold_ids``) with ``n_workers`` workers; ``on_folds(n)`` is called as ``n`` folds end.

    The workers share out the folds (a group of folds shares its table's encoding and
    counts). When the folds do not split evenly among them (fewer folds than workers
    too), each fold's candidates go out in a share per worker, of about the same total
    ``cost(candidate)`` (by default all cost alike): a task per fold and share."""
    start = time.perf_counter()
    fold_ids = np.asarray(fold_ids)
    if not candidates or not folds:
        return Evaluation(seconds=0.0)
    every_fold = np.arange(len(folds))
    if n_workers > 1 and len(folds) % n_workers and len(candidates) > 1:
        # folds that do not split evenly among the workers (1 or 3 on 2: one would wait):
        # each fold's candidates in a share per worker, handed out as workers come free
        shares = _share_out(candidates, min(n_workers, len(candidates)), cost)
        tasks = [(share, every_fold[i : i + 1]) for i in every_fold for share in shares]
    else:  # contiguous groups of folds: a group shares its table's encoding and counts
        tasks = [(candidates, g) for g in np.array_split(every_fold, max(1, min(n_workers, len(folds)))) if g.size]
    jobs = (delayed(_cross_validate_quietly)({c.name: c.estimator for c in share}, X, y, [folds[i] for i in group])
            for share, group in tasks)
    if len(tasks) == 1:
        outputs = (_cross_validate_quietly({c.name: c.estimator for c in candidates}, X, y, list(folds)),)
    else:
        workers = min(n_workers, len(tasks))
        outputs = parallel_map(jobs, workers, return_as="generator")
        if not forked_workers():
            _last_pool.update(at=time.monotonic(), workers=workers)
    total, shares_left = Evaluation(), np.bincount(np.concatenate([g for _, g in tasks]), minlength=len(folds))
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
