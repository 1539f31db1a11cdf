"""rpart-style classification trees on coded nominal features, for AWNB's testing depths.

bnclassify's AWNB (``learn_unprunned_tree``) grows each tree with R's ``rpart``:
``method="class"``, ``parms=list(split="information")`` and ``rpart.control(minsplit=2,
minbucket=1, cp=0, maxcompete=0, maxsurrogate=0, xval=0)``, maxdepth left at 30. This
module grows that tree (following rpart's C code: ``bsplit.c``, ``gini.c``,
``graycode.c``, ``partition.c``, ``nodesplit.c``) and returns, for every feature, the
smallest depth (root = 1) at which it is tested:

* a split sends a subset of a feature's levels (those present at the node) left and
  the rest right; its improvement is ``n H(node) - n_L H(left) - n_R H(right)`` with
  ``H`` the entropy of the class proportions;
* two classes: levels sorted by their share of the first class (stable) and the
  ``L - 1`` cuts of that order scanned (exact by Breiman's theorem); more classes:
  every subset, in rpart's Gray-code order. Within a feature the first best subset
  wins, across features the first column (``maxcompete=0`` keeps one primary split);
* both sides need ``minbucket`` rows, a node with fewer than ``minsplit`` rows, of one
  class, or at depth ``maxdepth + 1`` is a leaf;
* ``cp=0`` still prunes: rpart grows a split's subtree and then undoes it when the
  subtree does not lower the misclassification count (``partition.c``'s "all was in
  vain", including the complexity it hands to the right child);
* a feature may be tested again below (another grouping of its levels);
* missing values: with ``maxsurrogate=0`` there are no surrogates and no default
  direction, so a row missing the split feature stays in the node (it reaches no
  child); a row with every feature missing is dropped first (``na.rpart``).

Row weights are multiplicities (a bootstrap sample's duplicated rows). Floating ties
(improvements or complexities within ``1e-9`` relative) are treated as exact ties, so
the order rules above decide them; rpart compares its own rounded sums, which can break
a tie between two equal partitions the other way.
"""

from __future__ import annotations

import numpy as np

from .c45_tree import feature_class_tables

_TOL = 1e-9
MAX_SUBSET_LEVELS = 20  # 2 ** 19 subsets of one feature at one node (more than 2 classes)


def _impurity(counts: np.ndarray) -> np.ndarray:
    """``n H`` (nats) of the class counts along the last axis: ``sum_j -c_j log(c_j / n)``."""
    n = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, -counts * np.log(counts / np.where(n > 0, n, 1.0)), 0.0)
    return terms.sum(axis=-1)


def _gray_subsets(m: int) -> np.ndarray:
    """Left-group masks over ``m`` movable levels in rpart's Gray-code order, shape (2^m - 1, m).

    The first ``2^j - 1`` rows only move the first ``j`` levels, so one table serves
    every feature with ``j <= m`` movable levels."""
    t = np.arange(1, 2 ** m, dtype=np.int64)
    gray = t ^ (t >> 1)
    return ((gray[:, None] >> np.arange(m)[None, :]) & 1).astype(bool)


def _best_groupings(tables: np.ndarray, n_levels: np.ndarray, min_bucket: float):
    """rpart's best binary grouping of every feature's levels.

    ``tables`` has shape (features, levels, classes). Returns the improvements (0 where
    no grouping is allowed) and ``left_levels(f)``, the levels the best grouping of
    feature ``f`` sends to the left child (the side with the lower mean class index,
    as ``gini.c`` decides).
    """
    d, width, k = tables.shape
    sizes = tables.sum(axis=2)
    if k == 2:
        # Empty levels first (graycode_init2 skips them), then by share of the first class.
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(sizes > 0, tables[:, :, 0] / sizes, -np.inf)
        items = np.argsort(rate, axis=1, kind="stable")
        left = np.cumsum(np.take_along_axis(tables, items[:, :, None], axis=1), axis=1)
        allowed = np.take_along_axis(sizes, items, axis=1) > 0  # a cut after each present level

        def members(f, pick):
            return items[f, : pick + 1][sizes[f, items[f, : pick + 1]] > 0]
    else:
        # Every subset of the present levels; the last level of the factor never moves.
        movable = (sizes > 0) & (np.arange(width)[None, :] < np.asarray(n_levels)[:, None] - 1)
        count = movable.sum(axis=1)
        m = int(count.max()) if d else 0
        if m > MAX_SUBSET_LEVELS:
            raise ValueError(
                f"awnb_tree='rpart' enumerates every grouping of a feature's levels when there "
                f"are more than 2 classes; a node has a feature with {m} levels "
                f"(limit {MAX_SUBSET_LEVELS}). Use awnb_tree='c45', or merge rare levels.")
        items = np.argsort(~movable, axis=1, kind="stable")[:, :m]
        moving = np.take_along_axis(tables, items[:, :, None], axis=1) * np.take_along_axis(
            movable, items, axis=1)[:, :, None]
        masks = _gray_subsets(m)
        left = np.einsum("sm,dmk->dsk", masks.astype(np.float64), moving)
        allowed = np.arange(1, masks.shape[0] + 1)[None, :] < (2 ** count)[:, None]

        def members(f, pick):
            return items[f][masks[pick]]
    node = tables.sum(axis=1)
    right = node[:, None, :] - left
    n_left, n_right = left.sum(axis=2), right.sum(axis=2)
    allowed = allowed & (n_left >= min_bucket) & (n_right >= min_bucket)
    within = np.where(allowed, _impurity(left) + _impurity(right), np.inf)
    best = within.min(axis=1) if within.shape[1] else np.full(d, np.inf)
    total = _impurity(node)
    improve = np.where(np.isfinite(best), total - best, 0.0)
    improve = np.where(improve > 1e-12 * np.maximum(1.0, total), improve, 0.0)  # rounding is no gain
    picks = np.argmax(within <= (best + _TOL * np.maximum(1.0, np.abs(best)))[:, None], axis=1) \
        if within.shape[1] else np.zeros(d, dtype=np.int64)

    def left_levels(f):
        pick = int(picks[f])
        group = members(f, pick)
        classes = np.arange(k)
        if left[f, pick] @ classes / n_left[f, pick] >= right[f, pick] @ classes / n_right[f, pick]:
            group = np.setdiff1d(np.flatnonzero(sizes[f] > 0), group)
        return group

    return improve, left_levels


def rpart_testing_depths(codes, y, weights=None, n_levels=None, min_split: float = 2,
                         min_bucket: float = 1, max_depth: int = 30) -> np.ndarray:
    """Smallest depth (root = 1) at which bnclassify's unpruned rpart tree tests each feature.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int
        Nominal features coded ``0 .. r-1``; ``-1`` is missing.
    y : ndarray of shape (n,), int
        Class codes ``0 .. K-1``.
    weights : ndarray of shape (n,), optional
        Row multiplicities (default 1).
    n_levels : sequence of int, optional
        Levels of each feature (default: its largest code + 1). With more than two
        classes it fixes which level rpart never moves, hence the order ties are met.
    min_split, min_bucket, max_depth : rpart.control's ``minsplit``, ``minbucket``,
        ``maxdepth`` (bnclassify: 2, 1, 30).

    Returns
    -------
    ndarray of shape (d,)
        Depths as floats (``inf``: never tested), as :func:`pybnc.parameters.c45_tree.c45_testing_depths`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
    >>> y = np.array([0, 0, 1, 1, 0, 1])  # x0: {1} against {0, 2}, then {0} against {2}; x1 last
    >>> rpart_testing_depths(x, y).tolist()
    [1.0, 3.0]
    """
    codes = np.asarray(codes, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n, d = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = (codes >= 0).any(axis=1) & (w > 0) if d else np.zeros(n, dtype=bool)
    codes, y, w = codes[keep], y[keep], w[keep]
    k = int(y.max()) + 1 if y.size else 1
    width = int(codes.max()) + 1 if codes.size else 1
    levels = (np.full(d, width) if n_levels is None else np.asarray(n_levels, dtype=np.int64))
    width = max(width, int(levels.max()) if d else 1)
    scale = [0.0]  # bsplit.c's iscale: the largest improvement seen so far

    def split(rows):
        scale_before = scale[0]
        tables = feature_class_tables(codes[rows], y[rows], w[rows], width, k)
        improve, left_levels = _best_groupings(tables, levels, min_bucket)
        # bsplit.c keeps a feature whose improvement beats 1e-10 of the largest seen so far;
        # insert_split keeps the first of equal ones (maxcompete=0).
        scale[0] = max(scale[0], float(improve.max()) if d else 0.0)
        considered = improve > np.maximum.accumulate(np.maximum(improve, scale_before)) * 1e-10
        if not considered.any():
            return None
        top = improve[considered].max()
        feature = int(np.flatnonzero(considered & (improve >= top - _TOL * max(1.0, top)))[0])
        return feature, left_levels(feature)

    def partition(node, rows, complexity, depth):
        """rpart's partition(): ``(splits, subtree risk, final complexity, own risk, tests)``."""
        counts = np.bincount(y[rows], weights=w[rows], minlength=k)
        risk = float(counts.sum() - counts.max())
        cp = risk if node == 1 else min(risk, complexity)
        choice = None
        if counts.sum() >= min_split and cp > _TOL and depth <= max_depth:
            choice = split(rows)
        if choice is None:
            return 0, risk, 0.0, risk, []
        feature, group = choice
        column = codes[rows, feature]
        to_left = np.isin(column, group)
        left = partition(2 * node, rows[to_left], cp, depth + 1)
        right_cp = min(max((risk - left[1]) / (left[0] + 1), risk - left[3]), cp)
        right = partition(2 * node + 1, rows[(column >= 0) & ~to_left], right_cp, depth + 1)
        (l_splits, l_risk, l_cp, l_own, _), (r_splits, r_risk, r_cp, r_own, _) = left, right
        here = (risk - (l_risk + r_risk)) / (l_splits + r_splits + 1)
        # "Who goes first": a child whose complexity is below this node's collapses first.
        if r_cp > l_cp:
            if here > l_cp:
                l_risk, l_splits = l_own, 0
                if (risk - (l_risk + r_risk)) / (r_splits + 1) > r_cp:
                    r_risk, r_splits = r_own, 0
        elif here > r_cp:
            r_risk, r_splits = r_own, 0
            if (risk - (l_risk + r_risk)) / (l_splits + 1) > l_cp:
                l_risk, l_splits = l_own, 0
        here = (risk - (l_risk + r_risk)) / (l_splits + r_splits + 1)
        if here <= _TOL * max(1.0, risk):  # all was in vain: the split is undone
            return 0, risk, here, risk, []
        tests = [(feature, depth)] + left[4] + right[4]
        return left[0] + right[0] + 1, l_risk + r_risk, here, risk, tests

    depths = np.full(d, np.inf)
    for feature, depth in partition(1, np.arange(y.size), 0.0, 1)[4]:
        depths[feature] = min(depths[feature], depth)
    return depths
