"""Choosing one candidate from its cross-validated scores: the best mean, or the
one-standard-error rule.

Every candidate is scored on the same folds, so two candidates are compared by their
*paired* per-fold differences, whose spread is much smaller than either candidate's
own spread over the folds (the folds differ in difficulty far more than the
candidates do). The one-standard-error rule (Breiman et al. 1984, sec. 3.4.3; Hastie,
Tibshirani & Friedman, *Elements of Statistical Learning*, sec. 7.10) takes the
simplest candidate whose mean is within one standard error of the best mean: a more
complex candidate must win by more than the noise of the comparison. On a small table
the noise is large and the rule keeps the simpler models; on a large one the standard
error is tiny and the rule picks the best mean.
"""

from __future__ import annotations

import numpy as np

RULES = ("one_se", "best")


def choose(fold_scores, complexity, *, lower_is_better=True, rule="one_se"):
    """The chosen candidate among rows of per-fold scores.

    Parameters
    ----------
    fold_scores : array-like of shape (n_candidates, n_folds)
        Each candidate's score on each fold (the same folds for all); a candidate with
        a non-finite score on some fold (it failed there) is never chosen.
    complexity : array-like of shape (n_candidates,)
        Smaller is simpler; the one-standard-error rule prefers it.
    lower_is_better : bool, default=True
        True for a loss (log-loss), False for a score (accuracy).
    rule : {"one_se", "best"}, default="one_se"
        ``"best"``: the best mean (ties: the simpler, then the earlier candidate).
        ``"one_se"``: the simplest candidate whose mean is within one standard error
        of the best mean, the standard error of its paired per-fold differences with
        the best (ties: the better mean, then the earlier candidate).

    Returns
    -------
    chosen : int
        Row of the chosen candidate.
    best : int
        Row of the best mean.
    eligible : ndarray of bool, shape (n_candidates,)
        The candidates the rule could choose (within one standard error of the best;
        only the best with ``rule="best"``).

    Raises
    ------
    ValueError
        If no candidate has a finite score on every fold.

    Examples
    --------
    Three candidates on four folds (log-loss): the second is best by a hair, well
    within the noise of its paired difference with the first, which is simpler.

    >>> scores = [[0.30, 0.42, 0.35, 0.50],
    ...           [0.31, 0.39, 0.36, 0.48],
    ...           [0.60, 0.70, 0.65, 0.80]]
    >>> chosen, best, eligible = choose(scores, complexity=[0, 1, 2])
    >>> chosen, best, eligible.tolist()
    (0, 1, [True, True, False])
    >>> choose(scores, complexity=[0, 1, 2], rule="best")[0]
    1
    """
    scores = np.asarray(fold_scores, dtype=np.float64)
    complexity = np.asarray(complexity, dtype=np.float64)
    if scores.ndim != 2 or complexity.shape != (scores.shape[0],):
        raise ValueError(f"fold_scores must be (n_candidates, n_folds) and complexity (n_candidates,), got "
                         f"{scores.shape} and {complexity.shape}.")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}.")
    loss = scores if lower_is_better else -scores
    valid = np.isfinite(loss).all(axis=1)
    if not valid.any():
        raise ValueError("no candidate has a finite score on every fold (every candidate failed).")
    index = np.arange(loss.shape[0])
    mean = np.where(valid, loss.mean(axis=1), np.inf)
    best = int(np.lexsort((index, complexity, mean))[0])
    eligible = index == best
    n_folds = loss.shape[1]
    if rule == "one_se" and n_folds > 1:
        difference = loss[valid] - loss[best]
        standard_error = difference.std(axis=1, ddof=1) / np.sqrt(n_folds)
        eligible = np.zeros(loss.shape[0], dtype=bool)
        eligible[valid] = difference.mean(axis=1) <= standard_error
    candidates = np.flatnonzero(eligible)
    chosen = int(candidates[np.lexsort((candidates, mean[candidates], complexity[candidates]))[0]])
    return chosen, best, eligible
