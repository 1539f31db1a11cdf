"""Chow-Liu one-dependence estimators: TAN (Friedman, Geiger & Goldszmidt 1997) and
the MDL-optimal forest-augmented naive Bayes (Hamine & Helman 2004)."""

from __future__ import annotations

import numpy as np

from .._utils.native import load_kernels
from ..counts.tables import Counts
from ..scores.penalties import ode_arc_weights
from .dag import Structure

_native = load_kernels("pybnc.structure._forest_c")


def maximum_spanning_forest(weights: np.ndarray, positive_only: bool) -> list:
    """Kruskal's maximum spanning forest of a complete weighted graph.

    Parameters
    ----------
    weights : ndarray of shape (n, n)
        Symmetric edge weights (the diagonal is ignored).
    positive_only : bool
        Keep only edges of strictly positive weight (a forest); otherwise every
        edge of finite weight, which spans every node when all weights are finite
        (a tree, for ``n >= 1``). A weight of ``-inf`` marks an edge that may not be used.

    Returns
    -------
    list of (int, int)
        Undirected edges ``(i, j)`` with ``i < j``, in the order Kruskal would accept them
        (decreasing weight).
        Ties in weight are broken by ``(i, j)`` in lexicographic order, so the result
        is deterministic.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], dtype=float)
    >>> maximum_spanning_forest(w, positive_only=True)
    [(0, 1), (1, 2)]
    """
    # Prim's algorithm, one tree per component, under the strict order "heavier, then
    # smaller (i, j)": that order makes the forest unique, so Prim finds Kruskal's, in
    # O(n^2) work instead of sorting all n^2 / 2 weights (2,000 features: 2 million);
    # compiled where the kernels are built. scipy's minimum_spanning_tree of the edges'
    # ranks gives the same forest but needs their sort: TAN on 200 x 2,000 columns 1.6x
    # slower (benchmarks/bench_library.py).
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {weights.shape}.")
    n = weights.shape[0]
    if _native is not None:
        found = np.empty((max(n, 1), 2), dtype=np.int64)
        count = _native.spanning_forest(weights, bool(positive_only), found)
        edges = [(int(i), int(j)) for i, j in found[:count]]
    else:
        edges = _numpy_spanning_forest(weights, positive_only)
    return sorted(edges, key=lambda e: (-weights[e], e))  # Kruskal's order of acceptance


def _numpy_spanning_forest(weights: np.ndarray, positive_only: bool) -> list:
    """The edges of :func:`maximum_spanning_forest` in the order Prim adds them, by numpy."""
    n = weights.shape[0]
    floor = 0.0 if positive_only else -np.inf  # an edge is usable when its weight is above
    outside = np.ones(n, dtype=bool)
    best = np.full(n, -np.inf)  # the best usable edge from the tree to each node outside
    best_from = np.full(n, -1, dtype=np.int64)
    nodes = np.arange(n, dtype=np.int64)
    edges = []

    def join(u):
        outside[u] = False
        row = np.where(nodes > u, weights[u], weights[:, u])  # w(u, v) read at (min, max), as Kruskal
        key_new = np.minimum(nodes, u) * n + np.maximum(nodes, u)
        key_old = np.minimum(nodes, best_from) * n + np.maximum(nodes, best_from)
        better = outside & (row > floor) & ((row > best) | ((row == best) & (key_new < key_old)))
        best[better], best_from[better] = row[better], u

    for root in range(n):
        if not outside[root]:
            continue
        join(root)
        while True:
            reachable = np.flatnonzero(outside & (best_from >= 0))
            if reachable.size == 0:
                break
            top = best[reachable].max()
            ties = reachable[best[reachable] == top]
            keys = np.minimum(ties, best_from[ties]) * n + np.maximum(ties, best_from[ties])
            v = int(ties[np.argmin(keys)])
            edges.append((min(v, int(best_from[v])), max(v, int(best_from[v]))))
            join(v)
    return edges


def orient_forest(n: int, edges) -> Structure:
    """Direct each tree of an undirected forest away from its lowest-index node.

    The root of each tree is its first feature in column order (bnclassify's default
    too); the direction does not change the score or the distribution, only the
    parametrisation.
    """
    neighbours = [[] for _ in range(n)]
    for i, j in edges:
        neighbours[i].append(j)
        neighbours[j].append(i)
    parent = [-1] * n
    seen = [False] * n
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        stack = [root]
        while stack:
            u = stack.pop()
            for v in sorted(neighbours[u]):
                if not seen[v]:
                    seen[v] = True
                    parent[v] = u
                    stack.append(v)
    return Structure(tuple((p,) if p >= 0 else () for p in parent))


def chow_liu(counts: Counts, criterion: str = "loglik") -> Structure:
    """The one-dependence estimator that maximises a decomposable score.

    Parameters
    ----------
    counts : Counts
    criterion : {"loglik", "aic", "bic", "mdl"}
        ``loglik`` returns a TAN (a spanning tree: ``n - 1`` arcs; a forest only when
        some features are never observed in the same row, see
        :func:`pybnc.scores.information.ode_arc_weights`: a feature never observed stays alone
        with the class and contributes nothing). The penalised
        criteria keep an arc only if its gain beats its penalty, which gives a
        forest; ``mdl`` is Hamine & Helman's algorithm (threshold ``T_R``, maximum
        spanning forest) and coincides with ``bic``.

    Returns
    -------
    Structure
        Each tree directed away from its lowest-index feature.
    """
    weights = ode_arc_weights(counts, criterion)
    edges = maximum_spanning_forest(weights, positive_only=criterion != "loglik")
    return orient_forest(counts.n_features, edges)
