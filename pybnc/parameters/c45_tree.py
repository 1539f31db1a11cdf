"""C4.5-style classification trees on coded nominal features, for AWNB's testing depths.

Hall (2007) weights naive Bayes by the depth at which unpruned C4.5 trees test each
attribute. What AWNB needs from a tree is only that depth, so this module grows the
tree and returns, for every feature, the smallest depth (root = 1) at which it is
tested. The tree is Quinlan's (1993) for nominal attributes:

* a node splits on one feature into one branch per level (multiway);
* the feature is chosen by **gain ratio** among those whose information gain is at
  least the average gain of the candidates (C4.5's guard against splits with many
  small branches), ties to the lower column;
* a split is a candidate only if it gains information and at least two branches
  hold ``min_objects`` (weighted) rows; a node with fewer than ``2 * min_objects``
  rows, or of one class, is a leaf; the tree is not pruned;
* a feature is not tested again below a node that split on it (its value is fixed
  in every branch);
* missing values as in C4.5: the gain is computed on the rows where the feature is
  observed and multiplied by their share of the node's weight, "unknown" counts as
  one more outcome in the split information, and a row with the feature missing goes
  down every branch with its weight split in proportion to the branches' weights.

Every node is one ``bincount`` over its rows and candidate features (no Python loop
over rows).
"""

from __future__ import annotations

import numpy as np


def _entropy(counts: np.ndarray, axis: int = -1) -> np.ndarray:
    """Entropy in bits of the distributions ``counts`` along ``axis`` (0 for empty ones)."""
    total = counts.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / np.where(total > 0, total, 1.0), 0.0)
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=axis)


def feature_class_tables(x, y, w, width: int, k: int) -> np.ndarray:
    """Weighted counts ``T[f, v, c]`` of rows with ``x[:, f] == v`` and class ``c``
    (missing ``-1`` cells left out), shape ``(x.shape[1], width, k)``, in one ``bincount``."""
    d = x.shape[1]
    known = x >= 0
    cell = (np.arange(d)[None, :] * width + np.maximum(x, 0)) * k + y[:, None]
    return np.bincount(cell[known], weights=np.broadcast_to(w[:, None], x.shape)[known],
                       minlength=d * width * k).reshape(d, width, k)


def c45_testing_depths(codes, y, weights=None, min_objects: float = 2.0) -> np.ndarray:
    """Smallest depth (root = 1) at which an unpruned C4.5 tree tests each feature.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int
        Nominal features coded ``0 .. r-1``; ``-1`` is missing.
    y : ndarray of shape (n,), int
        Class codes ``0 .. K-1``.
    weights : ndarray of shape (n,), optional
        Row weights (default 1; a bootstrap sample may pass its multiplicities).
    min_objects : float, default=2
        C4.5's ``-M``: a split needs two branches with at least this weight.

    Returns
    -------
    ndarray of shape (d,)
        Depths as floats, ``inf`` for a feature the tree never tests.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 0], [1, 0], [1, 1], [1, 1]])
    >>> y = x[:, 0] & x[:, 1]  # AND: x0 at the root (a tie broken by column), x1 below
    >>> c45_testing_depths(x, y).tolist()
    [1.0, 2.0]
    """
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    n, d = codes.shape
    k = int(y.max()) + 1 if n else 1
    width = int(codes.max()) + 1 if codes.size else 1
    depths = np.full(d, np.inf)
    stack = [(np.arange(n), np.ones(n) if weights is None else np.asarray(weights, dtype=float),
              1, np.ones(d, dtype=bool))]
    while stack:
        rows, w, depth, free = stack.pop()
        class_weight = np.bincount(y[rows], weights=w, minlength=k)
        total = class_weight.sum()
        features = np.flatnonzero(free)
        if total < 2 * min_objects or np.count_nonzero(class_weight > 1e-12) <= 1 or features.size == 0:
            continue
        x = codes[np.ix_(rows, features)]
        table = feature_class_tables(x, y[rows], w, width, k)
        branch = table.sum(axis=2)  # (features, levels)
        known_weight = branch.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            conditional = np.where(known_weight > 0, (branch * _entropy(table)).sum(axis=1) / known_weight, 0.0)
        gain = known_weight / total * (_entropy(table.sum(axis=1)) - conditional)
        split_info = _entropy(np.column_stack([branch, total - known_weight]))
        valid = (gain > 1e-12) & ((branch >= min_objects).sum(axis=1) >= 2) & (split_info > 0)
        if not valid.any():
            continue
        eligible = valid & (gain >= gain[valid].mean() - 1e-12)
        ratio = np.where(eligible, gain / np.where(split_info > 0, split_info, 1.0), -np.inf)
        best = int(np.argmax(ratio))
        feature = int(features[best])
        depths[feature] = min(depths[feature], depth)
        column, share = x[:, best], branch[best] / known_weight[best]
        below = free.copy()
        below[feature] = False
        unknown = column < 0
        for level in np.flatnonzero(branch[best] > 0):
            take = (column == level) | unknown
            stack.append((rows[take], np.where(unknown[take], w[take] * share[level], w[take]), depth + 1, below))
    return depths
