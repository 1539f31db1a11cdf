"""A2DE's pair estimators in the ALR^n form by dense products, not a sparse design.

A row with ``d`` observed features reads ``d (d - 1) / 2 * (d - 1)`` pair cells: 22,000
on chess, a sparse design of 70 million entries that would have to be rebuilt at every
evaluation. Anchored on the lower member's one-hot column ``a``, the rows where ``a`` is
on read, for every later column ``b`` that is on and qualifies with ``a``,
``V[c, a, b] + sum_e onehot[e] V[c, a, b, e]``: one product of their one-hot rows with
``V[:, a]`` per anchor (the generative A2DE's own scheme, :func:`pybnc.averaging.ande.a2de_log_joint`),
and the gradient is the same product transposed. The cost is ``rows x d x W^2 x K``
multiply-adds per evaluation, at BLAS speed.
"""

from __future__ import annotations

import copy

import numpy as np

from .._utils.blas import one_blas_thread
from ..parameters.discriminative import BlockSums, block_softmax


class PairBlock:
    """Rows that have a qualifying pair, with A2DE's pair cells read by dense products.

    Cells (as :class:`pybnc.averaging.alr.SuperParentCells` numbers them): ``a * W + b``
    for the pair, ``W^2 + (a * W + b) * W + e`` for a child ``e``; a row reads them with the
    weight ``scale`` (``n_pairs / |Q(x)|``); ``offset`` (``(m, K)``, optional) is added to
    their scores, as :class:`~pybnc.parameters.discriminative.RowDesign`'s.
    """

    def __init__(self, onehot, scale, pair_mask, column_feature, y, sample_weight, offset=None):
        self.onehot = np.ascontiguousarray(onehot, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.pair_mask = pair_mask  # (W, W): b's feature after a's, and the pair qualifies
        self.feature = column_feature
        self.y = np.asarray(y, dtype=np.int64)
        self.sample_weight = np.asarray(sample_weight, dtype=np.float64)
        self.offset = offset  # (m, K) added to the scores, or None
        self.width = self.onehot.shape[1]
        self.active = None
        self.anchors = [np.flatnonzero(self.onehot[:, a] > 0) for a in range(self.width)]

    def _child_ok(self, a: int) -> np.ndarray:
        """(W_b, W_e): a child column of neither the anchor's nor ``b``'s feature."""
        f = self.feature
        return (f[None, :] != f[a]) & (f[None, :] != f[:, None])

    def cells(self) -> np.ndarray:
        w = self.width
        pairs, children = [], []
        positive = self.sample_weight > 0
        for a, rows in enumerate(self.anchors):
            rows = rows[positive[rows]]
            if rows.size == 0:
                continue
            on = self.onehot[rows]
            seen = (on.sum(axis=0) > 0) & self.pair_mask[a]
            pairs.append(a * w + np.flatnonzero(seen))
            both = ((on.T @ on) > 0) & seen[:, None] & self._child_ok(a)
            children.append(w * w + (a * w) * w + np.flatnonzero(both))
        return np.unique(np.concatenate(pairs + children)) if pairs else np.empty(0, dtype=np.int64)

    def entries(self) -> int:
        """What the dense products read: each anchor's rows against every column."""
        return sum(rows.size for rows in self.anchors) * self.width

    def on(self, active: np.ndarray, n_cells: int) -> "PairBlock":
        bound = copy.copy(self)  # shallow: the arrays are shared, not copied
        bound.active = active
        return bound

    def _split(self):
        w = self.width
        in_pairs = self.active < w * w
        in_children = (self.active >= w * w) & (self.active < w * w + w**3)
        return in_pairs, in_children

    def dense(self, values: np.ndarray):
        """``(K, W, W)`` and ``(K, W, W, W)`` tables from the active cells' values (0 elsewhere)."""
        w, k = self.width, values.shape[1]
        in_pairs, in_children = self._split()
        pair = np.zeros((k, w * w))
        child = np.zeros((k, w**3))
        pair[:, self.active[in_pairs]] = values[in_pairs].T
        child[:, self.active[in_children] - w * w] = values[in_children].T
        return pair.reshape(k, w, w), child.reshape(k, w, w, w)

    def scores(self, pair: np.ndarray, child: np.ndarray) -> np.ndarray:
        """``(m, K)`` scores of the rows from dense tables (the generative A2DE's scheme)."""
        k, w = pair.shape[0], self.width
        out = np.zeros((self.onehot.shape[0], k))
        with one_blas_thread():
            for a, rows in enumerate(self.anchors):
                if rows.size == 0 or not self.pair_mask[a].any():
                    continue
                on = self.onehot[rows]
                later = on * self.pair_mask[a]  # the pairs (a, b) each row reads
                sums = (on @ child[:, a].reshape(k * w, w).T).reshape(rows.size, k, w)  # sum over children e
                out[rows] += np.einsum("rkb,rb->rk", sums + pair[:, a][None], later)
        return out * self.scale[:, None]

    def gradients(self, residual: np.ndarray):
        """``(K, W, W)`` and ``(K, W, W, W)``: the scores' transposed product with ``residual``."""
        k, w = residual.shape[1], self.width
        weighted = residual * self.scale[:, None]
        pair = np.zeros((k, w, w))
        child = np.zeros((k, w, w, w))
        with one_blas_thread():
            for a, rows in enumerate(self.anchors):
                if rows.size == 0 or not self.pair_mask[a].any():
                    continue
                on = self.onehot[rows]
                later = on * self.pair_mask[a]
                r = weighted[rows]  # (m, K)
                pair[:, a] = r.T @ later
                child[:, a] = ((later[:, None, :] * r[:, :, None]).reshape(rows.size, k * w).T @ on).reshape(k, w, w)
        return pair, child

    def sums(self, values: np.ndarray) -> BlockSums:
        pair, child = self.dense(values)
        scores = self.scores(pair, child)
        if self.offset is not None:
            scores += self.offset
        nll, residual, total = block_softmax(scores, self.y, self.sample_weight)
        grad_pair, grad_child = self.gradients(residual)
        w = self.width
        in_pairs, in_children = self._split()
        gradient = np.zeros_like(values)
        gradient[in_pairs] = grad_pair.reshape(values.shape[1], -1)[:, self.active[in_pairs]].T
        gradient[in_children] = grad_child.reshape(values.shape[1], -1)[:, self.active[in_children] - w * w].T
        return BlockSums(nll, gradient, total)
