"""Cached messages of a one-dependence structure, for exact incremental scoring of
rows with missing values.

Given the class, the features of a one-dependence structure form a forest, and
``log P(x_observed, c) = log P(c) + sum over trees of log P(tree's observed values | c)``.
One upward and one downward sum-product pass (per row, with the row's training-fold
tables) store, for every node ``v``, its belief ``lambda_v(x_v) = log P(observed
values in v's subtree | x_v, c)`` (evidence included) and its joint ``log P(tree's
observed values, X_v = x_v | c)``. Hanging the trees of roots ``c_1..c_m`` under a
feature ``f`` multiplies the joint of ``f`` by the messages of the ``c_k``; summing
over ``x_f`` gives the merged tree's total. A candidate move costs one message per
hung root and one sum, whatever the depth of ``f``.
"""

from __future__ import annotations

import numpy as np

from ..structure.dag import Structure


def _scaled(log_values: np.ndarray):
    """``exp(log_values)`` divided by its largest entry along the last axis, and the log of
    that entry: ``(scaled, top)``; ``top`` is finite wherever one entry is."""
    top = log_values.max(axis=-1, initial=-np.inf)  # -inf on an empty axis (a feature never observed)
    return np.exp(log_values - top[..., None]), top


class ForestMessages:
    """Upward and downward messages of ``structure`` on the rows of ``scorer`` that have a
    missing value.

    Messages are sums ``sum_x theta(x | x_parent) exp(belief(x))`` taken as one matmul
    per fold with beliefs scaled to a maximum of one; the largest term is then at least
    ``1e-300`` (every table entry is), so no sum underflows to zero and every log
    message is finite, which makes dividing one out by subtraction safe.
    """

    def __init__(self, scorer, structure: Structure, previous: "ForestMessages | None" = None, memo=None):
        self.scorer, self.structure = scorer, structure
        # A root's message to a new parent depends on its tree alone: kept across steps.
        self.memo = {} if memo is None else memo
        if previous is not None and previous.scorer is scorer:
            self.rows, self.slices, self.position = previous.rows, previous.slices, previous.position
        else:
            # Rows in fold order, so that each fold's rows are one slice (one matmul per fold).
            rows = np.flatnonzero(~scorer.observed.all(axis=1))
            self.rows = rows[np.argsort(scorer.fold[rows], kind="stable")]
            bounds = np.searchsorted(scorer.fold[self.rows], np.arange(scorer.n_folds + 1))
            self.slices = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
            self.position = np.full(scorer.n_rows, -1, dtype=np.int64)
            self.position[self.rows] = np.arange(self.rows.size)
        codes = scorer.codes[self.rows]
        self.parent = structure.parent_array()
        n_features = structure.n_features
        order = structure.topological_order()
        self.root = np.arange(n_features)
        for v in order:
            if self.parent[v] >= 0:
                self.root[v] = self.root[self.parent[v]]
        hung, rebuilt = self._hung_since(previous)
        theta = [scorer.exp_table(v, structure.parents[v]) for v in range(n_features)]  # (F, K, q, r)
        if hung is None:
            belief = [np.zeros((self.rows.size, scorer.n_classes, int(r))) for r in scorer.cardinalities]
            message, self.tree_total = [None] * n_features, {}
        else:  # one root hung under a feature: only the beliefs above it and its tree's messages change
            belief = [np.zeros_like(b) if v in rebuilt else b for v, b in enumerate(previous.belief)]
            message = list(previous.message)
            self.tree_total = {v: t for v, t in previous.tree_total.items() if v != hung and v not in rebuilt}
        for v in reversed(order):
            p = self.parent[v]
            if hung is not None and v not in rebuilt:
                if v == hung:  # its subtree is as it was: a new message to its new parent
                    message[v] = self._sum_product(theta[v], *_scaled(belief[v]))
                if p in rebuilt:  # its parent's belief is summed again, in the same order
                    belief[p] += message[v]
                continue
            if belief[v].shape[2] == 0 and p < 0:
                # Never observed in training (no level), so alone with the class: a factor 1.
                self.tree_total[v] = np.zeros(belief[v].shape[:2])
                continue
            allowed = (codes[:, v, None] == np.arange(belief[v].shape[2])) | (codes[:, v, None] < 0)
            belief[v] += np.where(allowed[:, None, :], 0.0, -np.inf)
            if p < 0:
                self.tree_total[v] = self._sum_product(theta[v], *_scaled(belief[v]))[:, :, 0]
            else:
                message[v] = self._sum_product(theta[v], *_scaled(belief[v]))
                belief[p] += message[v]
        self.belief, self.message = belief, message
        # Downward: joint[v](x) = log P(tree's observed values, X_v = x | c).
        merged = None if hung is None else self.root[hung]
        outside = [None] * n_features
        self.joint = [None] * n_features
        for v in order:
            if merged is not None and self.root[v] != merged:
                outside[v], self.joint[v] = previous.outside[v], previous.joint[v]
                continue
            p = self.parent[v]
            if p < 0:
                outside[v] = np.log(theta[v][scorer.fold[self.rows], :, 0, :])
            else:
                rest = outside[p] + belief[p] - message[v]  # (m, K, r_p)
                outside[v] = self._sum_product(np.swapaxes(theta[v], 2, 3), *_scaled(rest))
            self.joint[v] = _scaled(outside[v] + belief[v])
        self.outside = outside
        # The roots' beliefs, laid out for their messages to a new parent, and their trees.
        self.root_belief, self.tree_key = {}, {}
        for v in self.tree_total:
            if merged is not None and v != merged:
                self.root_belief[v] = previous.root_belief[v]
            else:
                scaled, top = _scaled(belief[v])
                self.root_belief[v] = (self._by_fold(scaled), top)
            members = np.flatnonzero(self.root == v)
            self.tree_key[v] = (tuple(members), tuple(self.parent[members]))

    def _hung_since(self, previous) -> tuple:
        """``(c, rebuilt)`` when this structure is ``previous``'s with root ``c`` hung under
        a feature (one TAN-HC step): ``rebuilt``, the features from that feature up to its
        root, whose beliefs change. ``(None, None)`` otherwise: every message is computed."""
        if previous is None or previous.scorer is not self.scorer or previous.parent.size != self.parent.size:
            return None, None
        moved = np.flatnonzero(previous.parent != self.parent)
        if moved.size != 1 or previous.parent[moved[0]] >= 0:
            return None, None
        hung, rebuilt, v = int(moved[0]), set(), int(self.parent[moved[0]])
        while v >= 0:
            rebuilt.add(v)
            v = int(self.parent[v])
        return hung, rebuilt

    def _by_fold(self, scaled: np.ndarray) -> list:
        """``(m, K, r)`` as one ``(K, r, rows of the fold)`` array per fold, for matmul."""
        return [np.ascontiguousarray(scaled[sl].transpose(1, 2, 0)) for sl in self.slices]

    def _fold_products(self, theta: np.ndarray, by_fold: list) -> np.ndarray:
        """``sum_x theta[fold, c, q, x] scaled[row, c, x]`` on all rows, ``(m, K, q)``."""
        out = np.empty((self.rows.size, theta.shape[1], theta.shape[2]))
        for f, sl in enumerate(self.slices):
            out[sl] = np.matmul(theta[f], by_fold[f]).transpose(2, 0, 1)
        return out

    def _sum_product(self, theta: np.ndarray, scaled: np.ndarray, top: np.ndarray) -> np.ndarray:
        """``log sum_x theta[fold, c, q, x] exp(belief[row, c, x])`` on all rows, (m, K, q),
        from the belief as ``_scaled`` gives it."""
        return np.log(self._fold_products(theta, self._by_fold(scaled))) + top[:, :, None]

    def hang_roots(self, rows: np.ndarray, new_parent: int, roots) -> np.ndarray:
        """Exact change of ``log P(x_observed, c)`` on ``rows`` (which must have a missing
        value) when each feature of ``roots`` (roots now) gets the feature parent ``new_parent``."""
        pos = self.position[rows]
        joint, log_scale = self.joint[new_parent]
        joint = joint[pos]
        log_scale = log_scale[pos] - self.tree_total[self.root[new_parent]][pos]
        for c in roots:
            joint = joint * self._root_message(c, new_parent)[pos]
            log_scale += self.root_belief[c][1][pos] - self.tree_total[c][pos]
            if len(roots) > 1:  # keep a product of many messages away from underflow
                peak = joint.max(axis=-1)
                joint /= peak[:, :, None]
                log_scale += np.log(peak)
        return np.log(joint.sum(axis=-1)) + log_scale

    def _root_message(self, c: int, new_parent: int) -> np.ndarray:
        """The scaled message of root ``c``'s tree to ``new_parent`` on all rows, ``(m, K, q)``:
        the sum over ``x_c`` of ``theta * exp(belief)`` (memoised per tree)."""
        key = (c, new_parent, self.tree_key[c])
        message = self.memo.get(key)
        if message is None:
            message = self.memo[key] = self._fold_products(self.scorer.exp_table(c, (new_parent,)),
                                                           self.root_belief[c][0])
        return message
