"""Shapley values of a game whose value is the model's own answer with features left out.

A classifier that sums a missing feature out exactly defines, for every row and every
set ``S`` of its features, the value ``v(S)``: its answer (a logit or a probability of
one class) with the features outside ``S`` missing. The Shapley value of feature ``j``
is the weighted mean of its marginal contributions,

    phi_j = sum_{S not containing j} |S|! (p - |S| - 1)! / p! [v(S + j) - v(S)],

and ``v(empty) + sum_j phi_j = v(all)`` (efficiency). No background sample is needed:
the model marginalises itself. This module knows nothing of models; it solves the game
given ``value(rows, keep) -> (m,)``, the value of row ``rows[i]`` with the features
``keep[i]`` kept and the others left out, and evaluates it in batches of masked rows.

Solvers
-------
* **Exact enumeration** of the ``2^p`` subsets of a row's ``p`` players (its observed
  features): the values form a ``(rows, 2^p)`` matrix and the Shapley values are one
  product with the fixed ``(2^p, p)`` matrix of weights. Rows are grouped by their
  players, so a row with missing values costs ``2^(observed)``.
* **Independent groups**: when the game is known to be a sum of games on disjoint
  groups of features, ``v(S) = v(empty) + sum_g [v(S & g) - v(empty)]`` (the two-class
  log-odds of a network whose features fall into separate components given the
  class), each group is solved alone with the other groups left out. For naive Bayes
  the groups are single features and ``phi_j = v({j}) - v(empty)``: the weight of
  evidence, in ``p + 1`` evaluations. Any row whose values then miss efficiency by more
  than rounding is solved again without the groups.
* **Permutation sampling** beyond ``max_evals``: random orders of the players, each
  paired with its reverse (antithetic), each order's marginal contributions telescoping
  to ``v(all) - v(empty)``, so efficiency holds for every estimate (to rounding); the
  standard error is that of the mean over pairs.

Computing these values exactly is #P-hard in general for a nonlinear link: with two
classes, a probability output (or more than two classes) turns naive Bayes' additive
log-odds ``a + sum_{j in S} w_j`` into ``sigmoid(a + sum_{j in S} w_j)``, whose Shapley
values include those of weighted voting games (the steep limit). So beyond the additive
cases no exact polynomial method is claimed; sampling states its error instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

#: Masked rows evaluated by one call of the value function.
BATCH_ROWS = 1 << 15
#: Largest number of players ``method="exact"`` enumerates (2^24 subsets per row).
MAX_EXACT_PLAYERS = 24


@dataclass
class ShapleyResult:
    """Shapley values of every row, shape ``(n, d)``, with their standard errors (0 where
    exact), ``v(empty)`` and ``v(all)`` per row, and which values were sampled."""

    values: np.ndarray
    standard_error: np.ndarray
    base: np.ndarray
    full: np.ndarray
    sampled: np.ndarray


def subset_weights(p: int) -> np.ndarray:
    """``(2^p, p)`` matrix ``W`` with ``phi = v @ W`` for values ``v`` of the subsets in
    bit order (subset ``s`` holds player ``j`` when bit ``j`` of ``s`` is set).

    Examples
    --------
    >>> v = np.array([0.0, 1.0, 2.0, 5.0])  # v({}), v({0}), v({1}), v({0, 1})
    >>> (v @ subset_weights(2)).tolist()     # half of the interaction 2 to each
    [2.0, 3.0]
    """
    members = (np.arange(1 << p)[:, None] >> np.arange(p)) & 1
    size = members.sum(axis=1)
    # w(k) = k! (p - 1 - k)! / p! for a coalition of k others
    w = np.array([1.0 / (p * comb(p - 1, k)) for k in range(p)] + [0.0])
    return np.where(members == 1, w[np.maximum(size - 1, 0)][:, None], -w[np.minimum(size, p - 1)][:, None])


def _evaluate(value, rows: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``value`` over many masked rows, in batches of :data:`BATCH_ROWS`."""
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], BATCH_ROWS):
        part = slice(start, start + BATCH_ROWS)
        out[part] = value(rows[part], keep[part])
    return out


class _Enumerations:
    """Exact solutions waiting for their model evaluations: every subset of some players
    of some rows. Evaluations are pooled across calls to :meth:`add` and made
    :data:`BATCH_ROWS` masked rows at a time, so that the many small games of independent
    groups (naive Bayes: one per feature) cost a few calls of the model, not one each."""

    def __init__(self, value, d: int, into: np.ndarray):
        self.value, self.d, self.into = value, d, into
        self.pending, self.size = [], 0

    def add(self, rows, columns) -> None:
        """Enumerate every subset of ``columns`` for ``rows``; ``into[rows][:, columns] = phi``
        once evaluated (at the latest on :meth:`flush`)."""
        p = columns.size
        if p == 0:
            return
        members = ((np.arange(1 << p)[:, None] >> np.arange(p)) & 1).astype(bool)
        weights = subset_weights(p)
        step = max(1, BATCH_ROWS // members.shape[0])
        for start in range(0, rows.size, step):
            part = rows[start : start + step]
            keep = np.zeros((part.size, members.shape[0], self.d), dtype=bool)
            keep[:, :, columns] = members[None]
            self.pending.append((part, columns, weights, keep.reshape(-1, self.d)))
            self.size += part.size * members.shape[0]
            if self.size >= BATCH_ROWS:
                self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        rows = np.concatenate([np.repeat(part, weights.shape[0]) for part, _, weights, _ in self.pending])
        values = _evaluate(self.value, rows, np.concatenate([keep for *_, keep in self.pending]))
        at = 0
        for part, columns, weights, keep in self.pending:
            self.into[np.ix_(part, columns)] = values[at : at + keep.shape[0]].reshape(part.size, -1) @ weights
            at += keep.shape[0]
        self.pending, self.size = [], 0


def _sampled(value, rows, players, base, full, max_evals, rng, values_out, se_out):
    """Antithetic permutation sampling of each row's players (``players`` bool ``(m, d)``,
    ``base`` and ``full`` the values without and with them, all aligned with ``rows``).
    Non-players sort last in every order and contribute exactly 0."""
    m, d = players.shape
    p = int(players.sum(axis=1).max())
    n_pairs = max(2, (max_evals - 2) // (2 * max(p - 1, 1)))
    step = max(1, BATCH_ROWS // (2 * n_pairs * max(p - 1, 1)))
    for start in range(0, m, step):
        part = slice(start, start + step)
        who = players[part]
        k = who.shape[0]
        u = rng.random((k, n_pairs, d))
        keys = np.concatenate([u, 1.0 - u], axis=1)  # each order and its reverse
        keys[~np.broadcast_to(who[:, None, :], keys.shape)] = np.inf
        order = np.argsort(keys, axis=2, kind="stable")
        rank = np.argsort(order, axis=2, kind="stable")  # position of each feature in its order
        n_players = who.sum(axis=1)
        # prefix t keeps the features of rank < t, for t = 1 .. p - 1 (0 and p are base and full)
        t = np.arange(1, p)
        keep = rank[:, :, None, :] < t[None, None, :, None]  # (k, 2P, p - 1, d)
        needed = np.broadcast_to(t[None, None, :] < n_players[:, None, None], keep.shape[:3])
        chain = np.empty((k, 2 * n_pairs, p + 1))
        chain[:, :, 0] = base[part][:, None]
        chain[:, :, 1:] = full[part][:, None, None]
        row_index = np.broadcast_to(np.arange(k)[:, None, None], needed.shape)[needed]
        chain[:, :, 1:p][needed] = _evaluate(value, rows[part][row_index], keep[needed])
        delta = np.diff(chain, axis=2)  # delta[..., s]: contribution of the feature at position s
        contributions = np.zeros((k, 2 * n_pairs, d))
        placed = rank < p
        contributions[placed] = np.take_along_axis(delta, np.minimum(rank, p - 1), axis=2)[placed]
        pairs = 0.5 * (contributions[:, :n_pairs] + contributions[:, n_pairs:])
        values_out[part] = pairs.mean(axis=1)
        se_out[part] = pairs.std(axis=1, ddof=1) / np.sqrt(n_pairs)


def shapley_values(value, players: np.ndarray, groups=None, *, max_evals: int = 4096, method: str = "auto",
                   random_state=None) -> ShapleyResult:
    """Shapley values of ``value`` for every row, exact or sampled.

    Parameters
    ----------
    value : callable ``(rows, keep) -> ndarray``
        ``rows`` int ``(m,)``, ``keep`` bool ``(m, d)``: the value of row ``rows[i]``
        with only the features ``keep[i]`` kept. Leaving out a non-player must not
        change the value.
    players : ndarray of bool, shape (n, d)
        The features of each row that take part (its observed ones); the others get 0.
    groups : list of int arrays, optional
        Disjoint groups over which the game is additive (see the module notes); a
        feature in no group is a null player.
    max_evals : int, default=4096
        Evaluations per row and group: a row whose ``2^p`` subsets fit is enumerated
        (``method="auto"``), else sampled with about this many evaluations.
    method : {"auto", "exact", "sampling"}
    random_state : int, Generator or None
        Seeds the sampled orders.

    Returns
    -------
    ShapleyResult

    Examples
    --------
    A game with an interaction: ``v(S) = 1`` when both features are in ``S``.

    >>> def value(rows, keep):
    ...     return keep.all(axis=1).astype(float)
    >>> result = shapley_values(value, np.ones((1, 2), dtype=bool))
    >>> result.values.tolist(), result.base.tolist(), result.full.tolist()
    ([[0.5, 0.5]], [0.0], [1.0])
    """
    if method not in ("auto", "exact", "sampling"):
        raise ValueError(f"method={method!r} is not one of 'auto', 'exact', 'sampling'.")
    if isinstance(max_evals, bool) or not isinstance(max_evals, (int, np.integer)) or max_evals < 4:
        raise ValueError(f"max_evals must be an integer >= 4 (model evaluations per row), got {max_evals!r}.")
    players = np.asarray(players, dtype=bool)
    n, d = players.shape
    rng = np.random.default_rng(random_state)
    every = np.arange(n)
    base = _evaluate(value, every, np.zeros((n, d), dtype=bool))
    full = _evaluate(value, every, players)
    result = ShapleyResult(np.zeros((n, d)), np.zeros((n, d)), base, full, np.zeros((n, d), dtype=bool))
    enumerations = _Enumerations(value, d, result.values)
    if groups is None:
        _solve(value, every, players, np.arange(d), result, max_evals, method, rng, enumerations)
        enumerations.flush()
        return result
    for group in groups:
        _solve(value, every, players, np.asarray(group, dtype=np.int64), result, max_evals, method, rng,
               enumerations)
    enumerations.flush()
    # The groups are a claim about the model; a row whose values miss efficiency is solved again.
    gap = np.abs(base + result.values.sum(axis=1) - full)
    wrong = np.flatnonzero(gap > 1e-9 * (1.0 + np.abs(full)))
    if wrong.size:
        result.values[wrong] = 0.0
        result.standard_error[wrong] = 0.0
        result.sampled[wrong] = False
        _solve(value, wrong, players, np.arange(d), result, max_evals, method, rng, enumerations)
        enumerations.flush()
    return result


def _solve(value, rows, players, columns, result, max_evals, method, rng, enumerations):
    """Shapley values of ``rows`` over the players among ``columns`` (the others left out);
    the exact ones are left to ``enumerations`` (written on its flush)."""
    d = players.shape[1]
    within = np.zeros((rows.size, d), dtype=bool)
    within[:, columns] = players[np.ix_(rows, columns)]
    counts = within.sum(axis=1)
    if method == "exact" and counts.max(initial=0) > MAX_EXACT_PLAYERS:
        raise ValueError(f"method='exact' would enumerate 2^{int(counts.max())} subsets per row; use "
                         f"method='sampling' (or 'auto') beyond {MAX_EXACT_PLAYERS} features.")
    if method == "sampling":
        exact = counts <= 1
    else:
        exact = (method == "exact") | (counts <= int(max_evals).bit_length() - 1)  # 2^p <= max_evals
    if exact.any():
        # the rows' players among these columns only: np.unique compares rows as records
        # of their fields, 14 ms a group at 2,000 columns (naive Bayes: a group a column)
        patterns, which = np.unique(within[np.ix_(exact, columns)], axis=0, return_inverse=True)
        exact_rows = rows[exact]
        for k, pattern in enumerate(patterns):
            enumerations.add(exact_rows[which.ravel() == k], columns[pattern])
    sampled = ~exact
    if sampled.any():
        chosen = rows[sampled]
        # base and full of this group: every other group left out
        group_full = _evaluate(value, chosen, within[sampled])
        values = np.zeros((chosen.size, d))
        errors = np.zeros((chosen.size, d))
        _sampled(value, chosen, within[sampled], result.base[chosen], group_full, max_evals, rng, values, errors)
        result.values[chosen] += values
        result.standard_error[chosen] += errors
        result.sampled[chosen] |= within[sampled]
