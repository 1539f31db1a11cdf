"""Hierarchical gradient smoothing of conditional tables (after Zhang, Petitjean & Buntine,
"Hierarchical Gradient Smoothing for Probability Estimation Trees", PAKDD 2020).

The table ``P(x | c, p_1, .., p_k)`` is the leaf level of the tree that HDP smoothing
(:mod:`pybnc.parameters.hdp`) samples: the root is ``P(x)``, depth 1 conditions on the
class, depth 2 on the class and the first (strongest) parent, and so on. Each node's
estimate is an m-estimate centred on its parent's::

    p(x | root) = (n_x + a_root / r) / (N + a_root)
    p(x | node) = (n_node,x + a_node p(x | parent node)) / (n_node + a_node)

The strengths ``a`` minimise the leave-one-out log-loss of the family's training rows,
which the counts give exactly (a row removed lowers its own cell's count and its node's
total by one at every depth of its path, and nothing else), plus the negative log
density of ``log a`` under HDP smoothing's Gamma(2, 1) prior on its concentrations,
``a - 2 log a`` per strength. Without that term a node whose rows never disagree takes
the smallest strength and gives a value it has not seen a probability near zero. The
objective and its gradient in ``log a`` are computed at once for every non-empty leaf
cell of every family (a cell's rows share one path), and resilient gradient steps move
all the families' strengths together (their objectives add up, so each family's
optimum is its own).

The strengths are one per node (``tie="node"``, the default: each node its own
shrinkage) or one per depth of a family (``"level"``: HDP smoothing's tying);
``"both"`` is the mean of the two tables. ``benchmarks/smoothing.md`` compares them
with HDP smoothing.

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
#: Shape and rate of the Gamma prior on every strength (HDP smoothing's on its concentrations).
PRIOR_SHAPE, PRIOR_RATE = 2.0, 1.0
#: Most gradient steps, and the step in ``log a`` below which a strength has converged.
MAX_ITER, TOLERANCE = 100, 1e-3
#: Strengths: one per node of the tree (``"node"``), one per depth of a family (``"level"``),
#: or the mean of those two tables (``"both"``).
TIES = ("node", "level", "both")
#: The ties whose strengths are fitted (``"both"`` is the mean of their tables).
_FITTED = TIES[:2]


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
        if tie not in _FITTED:
            raise ValueError(f"tie={tie!r} is not one of {_FITTED}.")
        self.shapes = [t.shape for t in tables]
        order = sorted(range(len(tables)), key=lambda f: -tables[f].ndim)
        height = max((t.ndim for t in tables), default=0)
        weights, outcomes, counts, totals, family = [], [], [], [], []
        prefix = np.zeros(height, np.int64)
        # per tie: the cells' strength indexes by height, each family's nodes, the strengths' families
        ties = {t: ([], [[] for _ in tables], []) for t in _FITTED}
        n_params = dict.fromkeys(_FITTED, 0)
        for f in order:
            n = tables[f]
            if n.size == 0:
                continue
            cells = np.nonzero(n)
            depth, m = n.ndim, cells[0].size
            at_count, at_total = np.zeros((height, m)), np.zeros((height, m))
            at_param = {t: np.zeros((height, m), dtype=np.int64) for t in _FITTED}
            for d, level in enumerate(_level_counts(n)):  # depth d keeps the first d conditioning axes
                at = tuple(cells[a] if a < d else 0 for a in range(n.ndim - 1))
                at_count[depth - 1 - d] = level[(*at, cells[-1])]
                at_total[depth - 1 - d] = level.sum(axis=-1)[at]
                for t in _FITTED:
                    if t == "node" and d:
                        where, inverse = np.unique(np.ravel_multi_index(cells[:d], n.shape[:d]), return_inverse=True)
                    else:  # the root, or every node of the depth: one strength
                        where, inverse = None, np.zeros(m, dtype=np.int64)
                    at_param[t][depth - 1 - d] = n_params[t] + inverse
                    ties[t][1][f].append((n_params[t], where))
                    size = 1 if where is None else where.size
                    ties[t][2].append(np.full(size, f))
                    n_params[t] += size
            weights.append(n[cells])
            outcomes.append(np.full(m, 1.0 / n.shape[-1]))
            counts.append(at_count)
            totals.append(at_total)
            for t in _FITTED:
                ties[t][0].append(at_param[t])
            family.append(np.full(m, f, dtype=np.int64))
            prefix[:depth] += m
        join = (lambda parts, axis: np.concatenate(parts, axis=axis) if parts else np.zeros((height, 0)[-1 - axis:]))
        self.weight = join(weights, 0)
        self.uniform = join(outcomes, 0)
        # the held-out row removed from every node of its path (never below 0: weighted cells)
        self.n = np.maximum(join(counts, 1) - 1.0, 0.0)
        self.total = np.maximum(join(totals, 1) - 1.0, 0.0)
        self.family = join(family, 0).astype(np.int64)
        self.prefix = prefix
        self.n_families = len(tables)
        self._ties = {t: (join(params, 1).astype(np.int64), n_params[t], nodes,
                          np.concatenate(fams).astype(np.int64) if fams else np.zeros(0, np.int64))
                      for t, (params, nodes, fams) in ties.items()}
        self.tie(tie)

    def tie(self, tie: str) -> "_Paths":
        """Index the strengths one per node or one per depth (the paths are the same)."""
        # param_family: each strength's family, to add up a family's loss terms
        self.param, self.n_params, self.nodes, self.param_family = self._ties[tie]
        return self

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

    def objective(self, strengths: np.ndarray, gradient: bool = False):
        """:meth:`loss` plus the prior's ``PRIOR_RATE * a - PRIOR_SHAPE * log a`` per
        strength (the negative log density of ``log a``), per family; with ``gradient``,
        also its gradient in ``log a``."""
        prior = PRIOR_RATE * strengths - PRIOR_SHAPE * np.log(strengths)
        penalty = np.bincount(self.param_family, prior, minlength=self.n_families)
        if not gradient:
            return self.loss(strengths) + penalty
        losses, grad = self.loss(strengths, gradient=True)
        return losses + penalty, grad + PRIOR_RATE * strengths - PRIOR_SHAPE


def _descend(paths: "_Paths", start=None) -> np.ndarray:
    """Strengths (flat, as ``paths.param`` indexes them) of least objective (:meth:`_Paths.objective`):
    resilient gradient steps in ``log a`` (iRprop-: each strength its own step, grown
    while its gradient keeps its sign, halved when it flips), all families at once, from
    ``start`` (default :data:`INITIAL_STRENGTH`). Their objectives are separate: each
    family keeps the strengths of its least objective met, and stops when its steps are all
    below :data:`TOLERANCE` (or pushed against a bound), or when, after 15 steps, its least
    objective fell by less than a relative :data:`TOLERANCE` squared in the last 5."""
    low, high = np.log(STRENGTH_BOUNDS)
    beta = np.log(np.full(paths.n_params, INITIAL_STRENGTH) if start is None else np.asarray(start, dtype=np.float64))
    step = np.full(paths.n_params, 1.0 if start is None else 0.25)
    previous = np.zeros(paths.n_params)
    best = beta.copy()
    history = [np.full(paths.n_families, np.inf)]
    moving = np.ones(paths.n_families, dtype=bool)
    for _ in range(MAX_ITER):
        losses, grad = paths.objective(np.exp(beta), gradient=True)
        better = losses < history[-1]
        best = np.where(better[paths.param_family], beta, best)
        history.append(np.where(better, losses, history[-1]))
        turned = grad * previous
        step = np.where(turned > 0, np.minimum(step * 1.2, 4.0), np.where(turned < 0, step * 0.5, step))
        grad = np.where(turned < 0, 0.0, grad)
        free = (step > TOLERANCE) & ~((beta <= low) & (grad > 0)) & ~((beta >= high) & (grad < 0))
        moving &= np.bincount(paths.param_family, free, minlength=paths.n_families) > 0
        if len(history) > 16:  # not before: the first steps, of a factor e, overshoot an optimum near the start
            moving &= history[-6] - history[-1] > TOLERANCE**2 * np.abs(history[-1])
        if not moving.any():
            break
        beta = np.clip(beta - np.sign(grad) * step * moving[paths.param_family], low, high)
        previous = grad
    return np.exp(best)


def fit_strengths(tables, tie: str = "node") -> list:
    """The strengths that minimise each family's leave-one-out log-loss under the prior
    (:data:`PRIOR_SHAPE`, :data:`PRIOR_RATE`).

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
    [2.03, [2.03, 2.03], [[1.78, 1.78], [1.78, 1.78]]]
    """
    paths = _Paths([np.asarray(t, dtype=np.float64) for t in tables], tie)
    flat = _descend(paths) if paths.weight.size else np.full(paths.n_params, INITIAL_STRENGTH)
    return paths.dense(flat)


def _node_and_level_strengths(tables) -> tuple:
    """:func:`fit_strengths` with each tie, on one set of paths: the strengths per node
    start from those per depth (the optimum of a coarser model, near the finer one's)."""
    paths = _Paths(tables, "level")
    if not paths.weight.size:
        return fit_strengths(tables, "node"), fit_strengths(tables, "level")
    by_level = paths.dense(_descend(paths))
    node = paths.tie("node")
    return node.dense(_descend(node, node.flat(by_level))), by_level


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
    return _smoothed(_level_counts(n), n.shape, strengths)


def _smoothed(levels: list, shape, *strengths) -> np.ndarray:
    """:func:`smoothed_table` from the tree's counts (:func:`_level_counts`), the mean of
    the tables of several sets of strengths."""
    r = shape[-1]
    if 0 in shape:
        return np.full(shape, 1.0 / max(r, 1))
    totals = [level.sum(axis=-1, keepdims=True) for level in levels]
    mean = 0.0
    for by_depth in strengths:
        p = np.full((1,) * len(shape), 1.0 / r)
        for a, level, total in zip(by_depth, levels, totals):
            a = np.asarray(a, dtype=np.float64)
            a = a.reshape(a.shape + (1,) * (len(shape) - a.ndim))
            p = (level + a * p) / (total + a)
        mean = mean + p
    return np.broadcast_to(mean / len(strengths), shape)


def hgs_tables(tables, tie: str = "node") -> tuple:
    """Hierarchical gradient smoothing of several families' counts at once.

    Parameters
    ----------
    tables : list of ndarray
        As :func:`fit_strengths`.
    tie : {"node", "level", "both"}, default="node"
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
        by_node, by_level = _node_and_level_strengths(tables)
        return [_smoothed(_level_counts(t), t.shape, a, b) for t, a, b in zip(tables, by_node, by_level)], \
            [by_node, by_level]
    strengths = fit_strengths(tables, tie)
    return [smoothed_table(t, a) for t, a in zip(tables, strengths)], strengths


def ranked_to_sorted(table: np.ndarray, ranked_parents) -> np.ndarray:
    """A table ``(K, r_p1, .., r)`` whose parents are in ``ranked_parents``' order, as
    pybnc's ``(K, q, r)`` with the parents in increasing index."""
    perm = np.argsort(np.asarray(ranked_parents, dtype=np.int64))
    moved = table.transpose((0, *(1 + perm), table.ndim - 1))
    return moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:-1])), moved.shape[-1])


def hgs_log_cpts(tables, ranked_parents, tie: str = "node") -> list:
    """Log tables ``(K, q, r)``, parents in increasing index, of the families' counts
    ``tables`` whose parents are in ``ranked_parents``' order; floored at ``1e-300``."""
    probabilities, _ = hgs_tables(tables, tie)
    return [np.log(np.maximum(ranked_to_sorted(p, parents), 1e-300))
            for p, parents in zip(probabilities, ranked_parents)]
