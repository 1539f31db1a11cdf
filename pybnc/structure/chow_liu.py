"""Chow-Liu one-dependence estimators: TAN (Friedman, Geiger & Goldszmidt 1997) and
the MDL-optimal forest-augmented naive Bayes (Hamine & Helman 2004)."""

from __future__ import annotations

import numpy as np

from ..counts import Counts
from ..scores import ode_arc_weights
from .dag import Structure


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
        Undirected edges ``(i, j)`` with ``i < j``, in the order Kruskal accepted them.
        Ties in weight are broken by ``(i, j)`` in lexicographic order, so the result
        is deterministic.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], dtype=float)
    >>> maximum_spanning_forest(w, positive_only=True)
    [(0, 1), (1, 2)]
    """
    n = weights.shape[0]
    iu, ju = np.triu_indices(n, k=1)
    w = weights[iu, ju]
    # By decreasing weight, then (i, j): triu_indices lists the pairs in (i, j) order,
    # and a stable sort keeps it among equal weights (one sort, not lexsort's three).
    order = np.argsort(-w, kind="stable")
    order = order[w[order] > 0] if positive_only else order[w[order] > -np.inf]
    root = list(range(n))

    def find(a):
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    edges = []
    for e in order:
        a, b = find(int(iu[e])), find(int(ju[e]))
        if a != b:
            root[max(a, b)] = min(a, b)
            edges.append((int(iu[e]), int(ju[e])))
            if len(edges) == n - 1:
                break
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
        :func:`pybnc.scores.ode_arc_weights`: a feature never observed stays alone
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
