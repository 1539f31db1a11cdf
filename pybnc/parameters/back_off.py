"""Back-off smoothing: each conditional table shrunk toward the table of one parent fewer.

A feature with ``k`` feature parents estimates ``P(x | c, p_1, .., p_k)`` from the
rows of one parent configuration, few on a small table (a kDB family of two 5-bin
parents has 25 configurations per class). The Dirichlet estimate pulls a sparse
configuration toward the uniform distribution; back-off pulls it toward what the rows
of the coarser configuration say, recursively down to ``P(x | c)`` (an m-estimate
hierarchy, as in Cestnik 1990 and the deterministic counterpart of the hierarchical
Dirichlet smoothing of Petitjean et al. 2018)::

    theta_0(x | c)           = (N(c, x) + 1) / (N(c) + r)
    theta_j(x | c, p_1..p_j) = (N(c, p_1..p_j, x) + m theta_{j-1}(x | c, p_1..p_{j-1})) / (N(c, p_1..p_j) + m)

Parents are dropped weakest first: in decreasing conditional mutual information
``I(X; P | C)`` with the child, computed from the family's own table (ties by
position). With missing values the bottom ``N(c, x)`` can be counted over every row
where the child is observed (``bottom``; :func:`pybnc.parameters.learn.learn_parameters`
does), not only over the family's rows. The strength ``m`` of each table is chosen
from a grid by the exact leave-one-out log-likelihood of the family's training rows, computed from the counts
alone (a row removed lowers its cell's count by one at every level), so the
smoothing needs no parameter and no other pass over the rows. A configuration never
seen takes its coarser estimate; with no parent the table is Laplace's.
"""

from __future__ import annotations

import numpy as np

#: Strengths ``m`` tried by leave-one-out.
STRENGTHS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
#: Cells (table x strengths) scored in one vectorised pass; larger tables go one strength at a time.
_GRID_CELLS = 1 << 22
#: A table of more cells, at most an eighth of them non-empty, is scored at its non-empty cells only.
_SPARSE_FROM_CELLS = 1 << 16


def _cmi_order(n: np.ndarray) -> list:
    """Parent axes (1..k) by decreasing ``I(X; P | C)`` of the family table ``n``."""
    k_axes = n.ndim - 2
    scores = []
    for axis in range(1, k_axes + 1):
        others = tuple(a for a in range(1, k_axes + 1) if a != axis)
        joint = n.sum(axis=others) if others else n  # (K, r_p, r)
        total = joint.sum(axis=(1, 2), keepdims=True)
        p_cpx = joint / max(float(joint.sum()), 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = joint * total / (joint.sum(axis=2, keepdims=True) * joint.sum(axis=1, keepdims=True))
            terms = np.where(joint > 0, p_cpx * np.log(ratio), 0.0)
        scores.append(float(terms.sum()))
    return sorted(range(1, k_axes + 1), key=lambda a: (-scores[a - 1], a))


def _levels(n: np.ndarray, bottom=None) -> list:
    """Counts at every level of the hierarchy, broadcastable to ``n``: ``[N_0, .., N_k]``
    with parents summed out from the last (weakest) one; ``bottom`` ``(K, r)``, if given,
    is ``N_0`` (see :func:`back_off_log_table`)."""
    levels = [n]
    for axis in range(n.ndim - 2, 0, -1):
        levels.append(levels[-1].sum(axis=axis, keepdims=True))
    if bottom is not None:
        levels[-1] = np.asarray(bottom, dtype=np.float64).reshape(levels[-1].shape)
    return levels[::-1]


def _hierarchy(levels: list, strength: float, leave_one_out: bool, base: float = 1.0) -> np.ndarray:
    """``theta_k`` (or its leave-one-out value at every cell) broadcast to the full shape."""
    r = levels[0].shape[-1]
    minus = 1.0 if leave_one_out else 0.0
    bottom = levels[0]
    theta = (bottom - minus + base) / (bottom.sum(axis=-1, keepdims=True) - minus + r * base)
    for counts in levels[1:]:
        theta = (counts - minus + strength * theta) / (counts.sum(axis=-1, keepdims=True) - minus + strength)
    return theta


def rank_parents(n: np.ndarray):
    """The parent axes (1..k) by decreasing ``I(X; P | C)``, and ``n`` with its parents in
    that order (the order of back-off and of the hierarchical smoothings)."""
    if n.ndim <= 3:  # at most one parent: nothing to rank
        return list(range(1, n.ndim - 1)), n
    order = _cmi_order(n)
    return order, np.moveaxis(n, order, list(range(1, n.ndim - 1)))


def _loo_scores(ranked: np.ndarray, strengths, base: float, bottom=None, levels=None) -> np.ndarray:
    """Leave-one-out log-likelihood of the family's rows at every strength (one pass,
    the strengths on a leading axis); ``levels``: :func:`_levels` of ``ranked``, if at hand."""
    m = np.asarray(strengths, dtype=np.float64).reshape(-1, *([1] * ranked.ndim))
    levels = _levels(ranked, bottom) if levels is None else levels
    return _loo_terms(levels, ranked, m, base).reshape(m.shape[0], -1).sum(axis=1)


def _loo_terms(levels: list, n: np.ndarray, strengths: np.ndarray, base: float) -> np.ndarray:
    """``N log theta^(-row)`` at every cell of ``n`` (0 where empty), at every strength of
    ``strengths`` (on leading axes, broadcast against ``levels``)."""
    seen = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):  # at empty cells, which are not read
        loo = _hierarchy(levels, strengths, leave_one_out=True, base=base)
        return np.where(seen, n * np.log(np.where(seen, loo, 1.0)), 0.0)


def _loo_scores_of_cells(levels: list, n: np.ndarray, strengths, base: float, cells=None) -> np.ndarray:
    """:func:`_loo_scores` from the non-empty cells of ``n`` (``cells``, ``np.nonzero(n)``)
    alone (the leave-one-out terms of empty cells are 0): a family of two many-levelled
    parents has millions of cells and a few hundred rows, and scoring every cell at every
    strength was most of its fit."""
    cells = np.nonzero(n) if cells is None else cells
    m = np.asarray(strengths, dtype=np.float64)[:, None]
    r = n.shape[-1]
    theta = None
    for j, level in enumerate(levels):  # level j keeps the class, the first j parents and the child
        at = tuple(cells[a] if a <= j else 0 for a in range(n.ndim - 1))
        here = level[(*at, cells[-1])]
        # the top level's totals at the cells' configurations only (their rows gathered)
        total = level[at].sum(axis=-1) if j == len(levels) - 1 else level.sum(axis=-1)[at]
        if theta is None:
            theta = np.broadcast_to((here - 1.0 + base) / (total - 1.0 + r * base), (m.shape[0], here.size))
        else:
            theta = (here - 1.0 + m * theta) / (total - 1.0 + m)
    return (n[cells] * np.log(theta)).sum(axis=1)


def leave_one_out_log_likelihood(n, strength: float, base: float = 1.0, bottom=None) -> float:
    """``sum_rows log theta^(-row)(x | c, parents)`` of a family table ``n`` (as in
    :func:`back_off_log_table`, ``bottom`` too): each row scored by the table learned
    without it.

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([[[3.0, 1.0], [0.0, 2.0]]])   # one class, a binary parent, a binary child
    >>> round(leave_one_out_log_likelihood(n, 1.0), 4)
    -4.4035
    """
    return float(_loo_scores(rank_parents(np.asarray(n, dtype=np.float64))[1], [strength], base, bottom)[0])


def back_off_log_table(n: np.ndarray, strengths=STRENGTHS, base: float = 1.0,
                       bottom=None) -> tuple[np.ndarray, float]:
    """Back-off log table of one family, and the strength leave-one-out chose.

    Parameters
    ----------
    n : ndarray of shape (K, r_p1, .., r_pk, r)
        Family counts (parents in any order: they are ranked here).
    strengths : sequence of float
        The grid of ``m``; the first of the best leave-one-out log-likelihoods wins.
    base : float, default=1.0
        Pseudo-count of the bottom table ``P(x | c)`` (Laplace's 1).
    bottom : ndarray of shape (K, r), optional
        ``N(c, x)`` over every row where the child is observed, for the bottom table.
        By default ``n`` summed over its parents: the rows where the parents are
        observed too. With missing values those can be few (a family of two parents
        each missing in a third of the rows sees under half of them), and a bottom
        learned from them is worse than naive Bayes's ``P(x | c)``; every row of the
        family is among the child's rows, so leave-one-out stays exact.

    Returns
    -------
    log_table : ndarray of the shape of ``n``
        ``log P(x | c, p_1..p_k)``, floored at ``1e-300``.
    strength : float
        ``m`` (``nan`` without parents).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.zeros((1, 2, 2)); n[0, 0] = [9, 1]; n[0, 1] = [0, 0]   # parent value 1 never seen
    >>> log_table, m = back_off_log_table(n)
    >>> np.exp(log_table[0, 1]).round(3).tolist()   # backs off to P(x | c) = (9+1, 1+1) / 12
    [0.833, 0.167]
    """
    n = np.asarray(n, dtype=np.float64)
    r = n.shape[-1]
    if r == 0:
        return np.zeros(n.shape), float("nan")
    if n.ndim == 2:
        return np.log((n + base) / (n.sum(axis=-1, keepdims=True) + r * base)), float("nan")
    order, ranked = rank_parents(n)
    cells = np.nonzero(ranked) if ranked.size > _SPARSE_FROM_CELLS else None
    sparse = cells is not None and 8 * cells[0].size <= ranked.size
    levels = _levels(ranked, bottom)
    if sparse:
        scores = _loo_scores_of_cells(levels, ranked, strengths, base, cells)
    elif ranked.size * len(strengths) <= _GRID_CELLS:
        scores = _loo_scores(ranked, strengths, base, levels=levels)
    else:  # a large table: one strength at a time
        scores = np.array([_loo_scores(ranked, [m], base, levels=levels)[0] for m in strengths])
    chosen = float(strengths[int(np.argmax(scores))])
    if sparse:  # written in n's own layout (through a view in the ranked one), so no copy is made after
        log_table = np.empty(n.shape)
        _log_hierarchy_of_seen(levels, chosen, base, cells, np.moveaxis(log_table, order, list(range(1, n.ndim - 1))))
        return log_table, chosen
    theta = np.broadcast_to(_hierarchy(levels, chosen, leave_one_out=False, base=base), ranked.shape)
    return np.moveaxis(np.log(np.maximum(theta, 1e-300)), list(range(1, n.ndim - 1)), order), chosen


def _log_hierarchy_of_seen(levels: list, strength: float, base: float, cells, table: np.ndarray) -> None:
    """``log theta_k`` of :func:`back_off_log_table`, bit for bit, with the top level computed
    at its seen configurations only: at an unseen one ``theta_k`` is ``theta_{k-1}``'s
    ``(0 + m theta) / (0 + m)``, which is computed once per coarser configuration and
    spread (a family of two many-levelled parents: millions of configurations, a few
    hundred seen). Written into ``table`` (of the top level's shape; ``cells``: its non-empty
    cells)."""
    top = levels[-1]
    below = _hierarchy(levels[:-1], strength, leave_one_out=False, base=base)  # (K, .., 1, r)
    with np.errstate(divide="ignore"):
        table[...] = np.log(np.maximum((0.0 + strength * below) / (0.0 + strength), 1e-300))
        seen = np.unique(np.ravel_multi_index(cells[:-1], top.shape[:-1]))
        configuration = np.unravel_index(seen, top.shape[:-1])
        counts, theta = top[configuration], below[(*configuration[:-1], 0)]  # the latter one parent coarser
        table[configuration] = np.log(np.maximum(
            (counts - 0.0 + strength * theta) / (counts.sum(axis=-1, keepdims=True) - 0.0 + strength), 1e-300))


def back_off_log_tables_one_parent(families: list, bottoms: list, strengths=STRENGTHS,
                                   base: float = 1.0) -> list:
    """:func:`back_off_log_table` of many one-parent families at once, the same tables to
    the bit: the families of one shape are stacked and scored in one pass (a TAN on a
    table of thousands of columns has thousands of them, and one at a time the calls,
    not the arithmetic, take the time).

    Parameters
    ----------
    families : list of ndarray of shape (K, r_p, r)
        Family counts, each with one parent.
    bottoms : list of ndarray of shape (K, r) or None
        Each family's ``bottom`` (see :func:`back_off_log_table`).

    Returns
    -------
    list of (log_table, strength)

    Examples
    --------
    >>> import numpy as np
    >>> n = np.zeros((1, 2, 2)); n[0, 0] = [9, 1]
    >>> [(np.exp(t[0, 1]).round(3).tolist(), m) for t, m in back_off_log_tables_one_parent([n], [None])]
    [([0.833, 0.167], 64.0)]
    """
    out = [None] * len(families)
    by_shape = {}
    for f, (n, bottom) in enumerate(zip(families, bottoms)):
        n = np.asarray(n, dtype=np.float64)
        if n.ndim != 3 or 0 in n.shape:
            out[f] = back_off_log_table(n, strengths, base, bottom)
            continue
        by_shape.setdefault(n.shape, []).append(f)
    m_grid = np.asarray(strengths, dtype=np.float64)
    for shape, members in by_shape.items():
        if len(members) == 1:  # nothing to stack
            f = members[0]
            out[f] = back_off_log_table(families[f], strengths, base, bottoms[f])
            continue
        per_pass = max(1, _GRID_CELLS // (int(np.prod(shape)) * len(strengths)))
        for start in range(0, len(members), per_pass):
            part = members[start : start + per_pass]
            n = np.stack([np.asarray(families[f], dtype=np.float64) for f in part])  # (F, K, r_p, r)
            bottom = np.stack([n[i].sum(axis=1) if bottoms[f] is None else np.asarray(bottoms[f], dtype=np.float64)
                               .reshape(shape[0], shape[2]) for i, f in enumerate(part)])[:, :, None, :]
            levels = [bottom, n]
            scores = _loo_terms(levels, n, m_grid.reshape(-1, 1, 1, 1, 1), base).reshape(
                len(strengths), len(part), -1).sum(axis=2)
            chosen = m_grid[np.argmax(scores, axis=0)]
            theta = np.broadcast_to(_hierarchy(levels, chosen.reshape(-1, 1, 1, 1), leave_one_out=False, base=base),
                                    n.shape)
            tables = np.log(np.maximum(theta, 1e-300))
            for i, f in enumerate(part):
                out[f] = (tables[i], float(chosen[i]))
    return out

