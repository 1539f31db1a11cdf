"""Cached upward messages of a one-dependence structure, for exact incremental scoring
of rows with missing values.

Given the class, the features of a one-dependence structure form a forest, and
``log P(x_observed, c) = log P(c) + sum over trees of log P(tree's observed values | c)``.
One upward sum-product pass (per row, with the row's training-fold tables) stores
each node's belief ``lambda_v(x_v) = log P(observed values in v's subtree | x_v, c)``
(evidence included), its message to its parent and each tree's total. Hanging the
trees of roots ``c_1..c_m`` under a feature ``f`` then changes only the totals of
those trees and of ``f``'s tree: the new messages of the ``c_k`` enter ``f``'s
belief and are carried up the path from ``f`` to its root, where each ancestor's
belief swaps the old message of that path child for the new one. The cost is the
depth of ``f``, not the number of features.
"""

from __future__ import annotations

import numpy as np

from ..structure.dag import Structure


def logsumexp_last(a: np.ndarray) -> np.ndarray:
    """``log(sum(exp(a), axis=-1))``; an all ``-inf`` slice gives ``-inf``. Much lighter
    than scipy's on the small arrays of a search, where call overhead dominates."""
    top = a.max(axis=-1, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return (np.log(np.exp(a - safe).sum(axis=-1, keepdims=True)) + safe)[..., 0]


class ForestMessages:
    """Upward messages of ``structure`` on the rows of ``scorer`` that have a missing value.

    Messages (``log P(x_v's subtree | x_parent, c)``) are finite, since every table
    entry is at least ``log(1e-300)``, so swapping one out by subtraction is safe.
    """

    def __init__(self, scorer, structure: Structure):
        self.scorer, self.structure = scorer, structure
        self.rows = np.flatnonzero(~scorer.observed.all(axis=1))
        self.position = np.full(scorer.n_rows, -1, dtype=np.int64)
        self.position[self.rows] = np.arange(self.rows.size)
        fold, codes = scorer.fold[self.rows], scorer.codes[self.rows]
        self.parent = structure.parent_array()
        n_features = structure.n_features
        m, K = self.rows.size, scorer.n_classes
        incoming = [np.zeros((m, K, int(r))) for r in scorer.cardinalities]
        self.belief, self.message, self.tree_total = [None] * n_features, [None] * n_features, {}
        for v in reversed(structure.topological_order()):
            r = int(scorer.cardinalities[v])
            allowed = (codes[:, v, None] == np.arange(r)) | (codes[:, v, None] < 0)
            belief = np.where(allowed[:, None, :], 0.0, -np.inf) + incoming[v]
            table = scorer.log_table(v, structure.parents[v])[fold]  # (m, K, q, r)
            self.belief[v] = belief
            if self.parent[v] < 0:
                self.tree_total[v] = logsumexp_last(table[:, :, 0, :] + belief)
            else:
                self.message[v] = logsumexp_last(table + belief[:, :, None, :])
                incoming[self.parent[v]] += self.message[v]

    def hang_roots(self, rows: np.ndarray, new_parent: int, roots) -> np.ndarray:
        """Exact change of ``log P(x_observed, c)`` on ``rows`` (which must have a missing
        value) when each feature of ``roots`` (roots now) gets the feature parent ``new_parent``."""
        scorer, pos, fold = self.scorer, self.position[rows], self.scorer.fold[rows]
        belief = self.belief[new_parent][pos]
        change = 0.0
        for c in roots:
            table = scorer.log_table(c, (new_parent,))[fold]
            belief = belief + logsumexp_last(table + self.belief[c][pos][:, :, None, :])
            change = change - self.tree_total[c][pos]
        v = new_parent
        while self.parent[v] >= 0:
            p = self.parent[v]
            table = scorer.log_table(v, (p,))[fold]
            message = logsumexp_last(table + belief[:, :, None, :])
            belief = self.belief[p][pos] - self.message[v][pos] + message
            v = p
        root_table = scorer.log_table(v, ())[fold][:, :, 0, :]
        return change + logsumexp_last(root_table + belief) - self.tree_total[v][pos]
