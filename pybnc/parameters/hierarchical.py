"""Hierarchical gradient smoothing of conditional tables (after Zhang, Petitjean & Buntine,
"Hierarchical Gradient Smoothing for Probability Estimation Trees", PAKDD 2020).

The table ``P(x | c, p_1, .., p_k)`` is the leaf level of the tree that HDP smoothing
(:mod:`pybnc.parameters.hdp`) samples: the root is ``P(x)``, depth 1 conditions on the
class, depth 2 on the class and the first (strongest) parent, and so on. Each node's
estimate is an m-estimate centred on its parent's::

    p(x | root) = (n_x + a_root / r) / (N + a_root)
    p(x | node) = (n_node,x + a_node p(x | parent node)) / (n_node + a_node)

The strengths ``a`` minimise the leave-one-out log-loss of the family's training rows,
which the counts give exactly: a row removed lowers its own cell's count and its node's
total by one at every depth of its path, and nothing else. The loss and its gradient
in ``log a`` are computed at once for every non-empty leaf cell of every family (a
cell's rows share one path), and resilient gradient steps move all the families'
strengths together (their losses add up, so each family's optimum is its own).

The strengths are tied one per node (``tie="node"``: each node's own shrinkage) or one
per depth of a family (``"level"``: HDP smoothing's tying); the default, ``"both"``,
is the mean of the two tables. One strength per node fits tables with many rows per
node best (car, nursery) and can be overconfident where nodes have few rows; one per
depth is the reverse; their mean was as accurate as HDP smoothing on every table of
``benchmarks/smoothing.md``.

It is a deterministic counterpart of HDP smoothing, whose posterior mean has the same
recursion with concentrations sampled per depth: here they are chosen by the held-out
loss from the counts alone, so a table learned from blocks (streaming, Dask) is the
table learned in memory. A parent configuration no row reaches gets its parent node's
estimate, as in HDP's query; weighted counts are scored by removing one unit of weight
(never below zero).
"""

from __future__ import annotations

import numpy as np

#: Range of the strengths ``a`` (a strength of 0 would leave a node without rows undefined).
STRENGTH_BOUNDS = (1e-3, 1e5)
#: Strength every optimisation starts from (HDP smoothing's initial concentration).
INITIAL_STRENGTH = 2.0
#: Most gradient steps, and the step in ``log a`` below which a strength has converged.
MAX_ITER, TOLERANCE = 100, 1e-3
#: Strengths: one per node of the tree (``"node"``), one per depth of a family (``"level"``),
#: or the mean of those two tables (``"both"``).
TIES = ("both", "node", "level")


def _level_counts(n: np.ndarray) -> list:
    """Counts of every depth of the tree of ``n`` (``(K, r_p1, .., r_pk, r)``), root first,
    each broadcastable to ``n``: depth ``d >= 1`` keeps the class and the first ``d - 1``
    parents."""
    levels = [n]
    for axis in range(n.ndim - 2, -1, -1):
        levels.append(levels[-1].sum(axis=axis, keepdims=True))
    return levels[::-1]


class _Paths:
    """The root-to-leaf paths of every non-empty leaf cell of several families' trees.

    Cells are ordered by decreasing depth of their family, so that the cells whose tree
    reaches height ``h`` above the leaves are a prefix (``self.prefix[h]`` of them).
    Row ``h`` of ``n`` and ``total`` holds, at height ``h``, the count of each cell's
    outcome and its node's total, less the held-out row; ``param[h]`` indexes the
    strength of that node (``tie="node"``) or depth (``"level"``) in the flat vector of
    all the families' strengths. ``nodes[f][d]``: the flat index of depth ``d``'s first
    strength and the nodes it holds (their positions in the depth's grid of
    configurations ``shape[:d]``; one strength for the whole depth with ``"level"``).
    """

    def __init__(self, tables, tie: str = "node"):
        if tie not in TIES:
            raise ValueError(f"tie={tie!r} is not one of {TIES}.")
        self.shapes = [t.shape for t in tables]
        order = sorted(range(len(tables)), key=lambda f: -tables[f].ndim)
        height = max((t.ndim for t in tables), default=0)
        weights, outcomes, counts, totals, params, family = [], [], [], [], [], []
        prefix = np.zeros(height, np.int64)
        self.nodes = [[] for _ in tables]
        n_params, param_family = 0, []
        for f in order:
            n = tables[f]
            if n.size == 0:
                continue
            cells = np.nonzero(n)
            depth, m = n.ndim, cells[0].size
            at_count, at_total, at_param = (np.zeros((height, m)) for _ in range(3))
            for d, level in enumerate(_level_counts(n)):  # depth d keeps the first d conditioning axes
                at = tuple(cells[a] if a < d else 0 for a in range(n.ndim - 1))
                at_count[depth - 1 - d] = level[(*at, cells[-1])]
                at_total[depth - 1 - d] = level.sum(axis=-1)[at]
                if tie == "node" and d:
                    where, inverse = np.unique(np.ravel_multi_index(cells[:d], n.shape[:d]), return_inverse=True)
                else:  # the root, or every node of the depth: one strength
                    where, inverse = None, np.zeros(m, dtype=np.int64)
                at_param[depth - 1 - d] = n_params + inverse
                self.nodes[f].append((n_params, where))
                size = 1 if where is None else where.size
                param_family.append(np.full(size, f))
                n_params += size
            weights.append(n[cells])
            outcomes.append(np.full(m, 1.0 / n.shape[-1]))
            counts.append(at_count)
            totals.append(at_total)
            params.append(at_param)
            family.append(np.full(m, f, dtype=np.int64))
            prefix[:depth] += m
        join = (lambda parts, axis: np.concatenate(parts, axis=axis) if parts else np.zeros((height, 0)[-1 - axis:]))
        self.weight = join(weights, 0)
        self.uniform = join(outcomes, 0)
        # the held-out row removed from every node of its path (never below 0: weighted cells)
        self.n = np.maximum(join(counts, 1) - 1.0, 0.0)
        self.total = np.maximum(join(totals, 1) - 1.0, 0.0)
        self.param = join(params, 1).astype(np.int64)
        self.family = join(family, 0).astype(np.int64)
        self.prefix = prefix
        self.n_params = n_params
        self.n_families = len(tables)
        # each strength's family, to add up a family's loss terms
        self.param_family = np.concatenate(param_family).astype(np.int64) if param_family else np.zeros(0, np.int64)

    def flat(self, strengths) -> np.ndarray:
        """The flat strengths of per-depth arrays (:func:`fit_strengths`' layout)."""
        out = np.full(self.n_params, INITIAL_STRENGTH)
        for f, nodes in enumerate(self.nodes):
            for d, (start, where) in enumerate(nodes):
                a = np.broadcast_to(np.asarray(strengths[f][d], dtype=np.float64), self.shapes[f][:d]).ravel()
                out[start:start + (1 if where is None else where.size)] = a[0] if where is None else a[where]
        return out

    def dense(self, flat: np.ndarray) -> list:
        """Per family, per depth, the strengths on the depth's grid of configurations
        (:data:`INITIAL_STRENGTH` at a node no row reaches: its estimate is its parent's whatever it is)."""
        out = []
        for f, shape in enumerate(self.shapes):
            depths = []
            for d in range(len(shape)):
                grid = np.full(shape[:d], INITIAL_STRENGTH)
                if d < len(self.nodes[f]):
                    start, where = self.nodes[f][d]
                    if where is None:
                        grid[...] = flat[start]
                    else:
                        grid.reshape(-1)[where] = flat[start:start + where.size]
                depths.append(grid)
            out.append(depths)
        return out

    def loss(self, strengths: np.ndarray, gradient: bool = False):
        """Leave-one-out log-loss of each family (``-sum_rows log p^(-row)``) at the flat
        ``strengths``; with ``gradient``, also its gradient in ``log a``."""
        p = self.uniform.copy()
        height = self.n.shape[0]
        inputs = np.empty_like(self.n) if gradient else None
        for h in range(height - 1, -1, -1):  # from the root down to the leaves
            m = self.prefix[h]
            a = strengths[self.param[h, :m]]
            if gradient:
                inputs[h, :m] = p[:m]
            p[:m] = (self.n[h, :m] + a * p[:m]) / (self.total[h, :m] + a)
        losses = -np.bincount(self.family, self.weight * np.log(p), minlength=self.n_families)
        if not gradient:
            return losses
        grad = np.zeros(self.n_params)
        g = -self.weight / p  # d loss / d p at the leaves, carried up the paths
        for h in range(height):
            m = self.prefix[h]
            a = strengths[self.param[h, :m]]
            denominator = self.total[h, :m] + a
            out = p[:m] if h == 0 else inputs[h - 1, :m]  # a level's output is the input below it
            g = g[:m]
            # d p_h / d a = (p_in - p_h) / (total + a); d p_h / d p_in = a / (total + a)
            grad += np.bincount(self.param[h, :m], g * a * (inputs[h, :m] - out) / denominator,
                                minlength=self.n_params)
            g = g * a / denominator
        return losses, grad


def _descend(paths: "_Paths") -> np.ndarray:
    """Strengths (flat, as ``paths.param`` indexes them) of least leave-one-out loss:
    resilient gradient steps in ``log a`` (iRprop-: each strength its own step, grown
    while its gradient keeps its sign, halved when it flips), all families at once.
    Their losses are separate: each family keeps the strengths of its least loss met,
    and stops when none of its steps exceeds :data:`TOLERANCE`."""
    low, high = np.log(STRENGTH_BOUNDS)
    beta = np.full(paths.n_params, np.log(INITIAL_STRENGTH))
    step = np.full(paths.n_params, 1.0)
    previous = np.zeros(paths.n_params)
    best_loss = np.full(paths.n_families, np.inf)
    best = beta.copy()
    for _ in range(MAX_ITER):
        losses, grad = paths.loss(np.exp(beta), gradient=True)
        better = losses < best_loss
        best = np.where(better[paths.param_family], beta, best)
        best_loss = np.where(better, losses, best_loss)
        turned = grad * previous
        step = np.where(turned > 0, np.minimum(step * 1.2, 4.0), np.where(turned < 0, step * 0.5, step))
        grad = np.where(turned < 0, 0.0, grad)
        moving = np.bincount(paths.param_family, step > TOLERANCE, minlength=paths.n_families) > 0
        if not moving.any():
            break
        beta = np.clip(beta - np.sign(grad) * step * moving[paths.param_family], low, high)
        previous = grad
    return np.exp(best)


def fit_strengths(tables, tie: str = "node") -> list:
    """The strengths that minimise each family's leave-one-out log-loss.

    Parameters
    ----------
    tables : list of ndarray
        Counts ``N(c, p_1, .., p_k, x)`` of shape ``(K, r_p1, .., r_pk, r)``, the
        conditioning variables in back-off order (class first, strongest parent next).
    tie : {"node", "level"}, default="node"
        One strength per node of the tree, or one per depth (HDP smoothing's tying).

    Returns
    -------
    list of list of ndarray
        ``strengths[f][d]`` of shape ``tables[f].shape[:d]``: the strengths of depth
        ``d``'s nodes (``d = 0`` the root, 1 the classes, then one depth per parent).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([[[8.0, 0.0], [1.0, 7.0]], [[6.0, 2.0], [2.0, 6.0]]])
    >>> [a.round(2).tolist() for a in fit_strengths([n], tie="level")[0]]
    [100000.0, [100000.0, 100000.0], [[1.81, 1.81], [1.81, 1.81]]]
    """
    paths = _Paths([np.asarray(t, dtype=np.float64) for t in tables], tie)
    flat = _descend(paths) if paths.weight.size else np.full(paths.n_params, INITIAL_STRENGTH)
    return paths.dense(flat)


def leave_one_out_loss(tables, strengths) -> np.ndarray:
    """Each family's leave-one-out log-loss at the given strengths (per family, per depth,
    as :func:`fit_strengths` returns them, or anything that broadcasts to that: a
    number per depth).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([[[3.0, 1.0], [0.0, 2.0]]])   # one class, a binary parent, a binary child
    >>> leave_one_out_loss([n], [[1.0, 1.0, 1.0]]).round(4).tolist()
    [4.5341]
    """
    tables = [np.asarray(t, dtype=np.float64) for t in tables]
    paths = _Paths(tables, "node")
    return paths.loss(paths.flat(strengths))


def smoothed_table(n: np.ndarray, strengths) -> np.ndarray:
    """The probability table ``P(x | c, p_1, .., p_k)`` of counts ``n`` at the given
    strengths (per depth, root first: a number or an array of shape ``n.shape[:d]``), of
    ``n``'s shape, each row summing to one."""
    n = np.asarray(n, dtype=np.float64)
    r = n.shape[-1]
    if n.size == 0:
        return np.full(n.shape, 1.0 / max(r, 1))
    p = np.full((1,) * n.ndim, 1.0 / r)
    for d, (a, level) in enumerate(zip(strengths, _level_counts(n))):
        a = np.asarray(a, dtype=np.float64)
        a = a.reshape(a.shape + (1,) * (n.ndim - a.ndim)) if a.ndim else a
        p = (level + a * p) / (level.sum(axis=-1, keepdims=True) + a)
    return np.broadcast_to(p, n.shape)


def hgs_tables(tables, tie: str = "both") -> tuple:
    """Hierarchical gradient smoothing of several families' counts at once.

    Parameters
    ----------
    tables : list of ndarray
        As :func:`fit_strengths`.
    tie : {"both", "node", "level"}, default="both"
        As :func:`fit_strengths`; ``"both"``: the mean of the two tables, one learned
        with a strength per node and one with a strength per depth.

    Returns
    -------
    probabilities : list of ndarray
        ``P(x | c, p_1, .., p_k)`` of each table's shape, each row summing to one.
    strengths : list of list of ndarray
        As :func:`fit_strengths` (``"both"``: the pair ``[by_node, by_level]``).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.zeros((1, 2, 2)); n[0, 0] = [9, 1]          # parent value 1 never seen
    >>> (p,), _ = hgs_tables([n])
    >>> p.sum(axis=-1).round(6).tolist()
    [[1.0, 1.0]]
    """
    tables = [np.asarray(t, dtype=np.float64) for t in tables]
    if tie == "both":
        by_node, by_level = fit_strengths(tables, "node"), fit_strengths(tables, "level")
        return [0.5 * (smoothed_table(t, a) + smoothed_table(t, b)) for t, a, b in zip(tables, by_node, by_level)], \
            [by_node, by_level]
    strengths = fit_strengths(tables, tie)
    return [smoothed_table(t, a) for t, a in zip(tables, strengths)], strengths


def ranked_to_sorted(table: np.ndarray, ranked_parents) -> np.ndarray:
    """A table ``(K, r_p1, .., r)`` whose parents are in ``ranked_parents``' order, as
    pybnc's ``(K, q, r)`` with the parents in increasing index."""
    perm = np.argsort(np.asarray(ranked_parents, dtype=np.int64))
    moved = table.transpose((0, *(1 + perm), table.ndim - 1))
    return moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:-1])), moved.shape[-1])


def hgs_log_cpts(tables, ranked_parents, tie: str = "both") -> list:
    """Log tables ``(K, q, r)``, parents in increasing index, of the families' counts
    ``tables`` whose parents are in ``ranked_parents``' order; floored at ``1e-300``."""
    probabilities, _ = hgs_tables(tables, tie)
    return [np.log(np.maximum(ranked_to_sorted(p, parents), 1e-300))
            for p, parents in zip(probabilities, ranked_parents)]
