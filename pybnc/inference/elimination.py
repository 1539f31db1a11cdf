"""Exact ``log P(x_observed, c)`` by variable elimination, for any augmented naive Bayes.

Used for rows with missing values when some feature has several feature parents
(kDB), where the features given the class no longer form a forest. Rows are grouped
by their *missing pattern*: rows that miss the same features share one elimination
problem, solved for all of them (and all classes) at once. Every factor then carries
two batch axes, ``(rows, K)``, followed by one axis per missing variable in its
scope; observed variables are evidence and are indexed away when the factor is
built. Products are sums of broadcast log tables and sums over a variable are
log-sum-exps, so nothing under- or overflows. The missing features of a pattern
split further into connected components of the moral graph (observed features
separate them); each component with the families it touches is an independent sum,
shared by every pattern that contains it, and is solved once for all their rows.

The elimination order of each pattern comes from the greedy min-fill heuristic
(fewest new edges in the interaction graph; ties by the smaller resulting table,
then by feature index). A missing feature with no observed descendant whose table
is normalised sums to one and is pruned before elimination (a barren node); tables
that are not normalised (e.g. exponent-weighted ones) are always summed explicitly,
so the result is the exact sum over completions for any non-negative tables.
"""

from __future__ import annotations

import functools

import numpy as np

from .._utils.logsumexp import logsumexp
from ..structure.dag import Structure

# Largest number of float64 cells of one intermediate factor over a block of rows:
# rows are processed in blocks so that memory stays bounded (32 MiB per factor).
_MAX_CELLS = 1 << 22


def _family_tables(log_cpts, structure: Structure, cardinalities) -> list:
    """Each CPT as ``(G, K, r_p1, ..., r_pm, r_i)``, axes in ``parents[i] + (i,)`` order."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    out = []
    for i, table in enumerate(log_cpts):
        family = list(structure.parents[i]) + [i]
        out.append(np.asarray(table).reshape((*table.shape[:2], *cards[family])))
    return out


def _is_normalised(table: np.ndarray) -> bool:
    return bool(np.abs(logsumexp(table, axis=-1)).max(initial=0.0) <= 1e-9)


def _relevant_missing(missing, normalised, children, reverse_topological) -> np.ndarray:
    """Missing features that cannot be pruned as barren nodes."""
    keep = np.zeros(len(missing), dtype=bool)
    # Reverse topological order: a node's children are decided before the node.
    for v in reverse_topological:
        if missing[v]:
            keep[v] = (not normalised[v]) or any((not missing[ch]) or keep[ch] for ch in children[v])
    return keep


def _components(structure: Structure, hidden: set) -> list:
    """Connected components of the moral graph restricted to ``hidden``."""
    neighbours = {v: set() for v in hidden}
    for i, parents in enumerate(structure.parents):
        members = [v for v in (*parents, i) if v in hidden]
        for v in members:
            neighbours[v].update(members)
    out, seen = [], set()
    for v in sorted(hidden):
        if v in seen:
            continue
        stack, component = [v], set()
        while stack:
            u = stack.pop()
            if u not in component:
                component.add(u)
                stack.extend(neighbours[u] - component)
        seen |= component
        out.append(component)
    return out


@functools.lru_cache(maxsize=1 << 14)
def _min_fill_order(scopes: tuple, variables: tuple, cardinalities: tuple) -> tuple[list, int]:
    """Greedy min-fill elimination order and the largest table size it creates.

    Memoised: a search asks for the same few elimination problems again and again.
    ``cardinalities`` lists every feature's number of levels."""
    neighbours = {v: set() for v in variables}
    for scope in scopes:
        for v in scope:
            neighbours[v].update(u for u in scope if u != v)
    remaining = set(variables)
    order, largest = [], 1
    while remaining:
        best, best_key = None, None
        for v in sorted(remaining):
            nb = neighbours[v]
            fill = sum(1 for a in nb for b in nb if a < b and b not in neighbours[a])
            size = int(np.prod([cardinalities[u] for u in nb | {v}]))
            key = (fill, size)
            if best_key is None or key < best_key:
                best, best_key = v, key
        order.append(best)
        largest = max(largest, best_key[1])
        nb = neighbours.pop(best)
        for a in nb:
            neighbours[a].update(u for u in nb if u != a)
            neighbours[a].discard(best)
        remaining.discard(best)
    return tuple(order), largest


def _evidence_factor(table: np.ndarray, family, missing_vars, codes: np.ndarray, groups: np.ndarray):
    """Index each row's group and observed family members: ``(rows, K, *missing cards)``."""
    observed = [a for a, v in enumerate(family) if v not in missing_vars]
    hidden = [a for a, v in enumerate(family) if v in missing_vars]
    # table axes: 0 is the group, 1 the class, 2 + a is family[a].
    moved = np.transpose(table, [0] + [2 + a for a in observed] + [1] + [2 + a for a in hidden])
    obs_shape = moved.shape[: 1 + len(observed)]
    flat = moved.reshape((-1, *moved.shape[1 + len(observed):]))
    idx = np.ravel_multi_index((groups, *(codes[:, family[a]] for a in observed)), obs_shape)
    return tuple(family[a] for a in hidden), flat[idx]


def _align(factor, union, cardinalities) -> np.ndarray:
    """View a factor over ``union`` with singleton axes for the variables it lacks."""
    vars_, arr = factor
    perm = [0, 1] + [2 + vars_.index(v) for v in union if v in vars_]
    arr = np.transpose(arr, perm)
    shape = arr.shape[:2] + tuple(cardinalities[v] if v in vars_ else 1 for v in union)
    return arr.reshape(shape)


def _eliminate(factors, order, cardinalities) -> np.ndarray:
    """Sum every variable of ``order`` out of the product of ``factors``; ``(rows, K)``."""
    factors = list(factors)
    for v in order:
        touching = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        union = sorted(set().union(*(f[0] for f in touching)))
        factors.append((tuple(u for u in union if u != v), _sum_out(touching, union, v, cardinalities)))
    total = 0.0
    for scope, arr in factors:
        total = total + arr  # every scope is empty now: (rows, K)
    return total


def _sum_out(touching, union, v, cardinalities) -> np.ndarray:
    """``log sum_v`` of the product of the ``touching`` factors over ``union``.

    Where that product would pass ``_MAX_CELLS`` (several many-levelled features missing
    together: four of 220 levels make 2.3e9 cells a row), the sum is contracted without
    it (:func:`_scaled_sum_out`) when its result fits; else, or where that underflows, it
    is taken one value of the largest other variable at a time, each slice of the result
    on its own, so that the memory stays bounded and the sum exact."""
    lead = touching[0][1].shape[:2]
    cells = int(np.prod(lead)) * int(np.prod([cardinalities[u] for u in union]))
    others = [u for u in union if u != v]
    if cells <= _MAX_CELLS or not others:
        product = sum(_align(f, union, cardinalities) for f in touching)
        return logsumexp(product, axis=2 + union.index(v))
    if cells // max(cardinalities[v], 1) <= _MAX_CELLS:
        result = _scaled_sum_out(touching, union, v)
        if not np.isneginf(result).any():  # else a sum underflowed, or is 0: the log-space slices below
            return result
    split = max(others, key=lambda u: (cardinalities[u], -u))
    out = np.empty(lead + tuple(cardinalities[u] for u in others))
    at = 2 + others.index(split)
    rest = [u for u in union if u != split]
    for value in range(cardinalities[split]):
        sliced = [((*scope[: scope.index(split)], *scope[scope.index(split) + 1 :]),
                   np.take(arr, value, axis=2 + scope.index(split))) if split in scope else (scope, arr)
                  for scope, arr in touching]
        out[(slice(None),) * at + (value,)] = _sum_out(sliced, rest, v, cardinalities)
    return out


def _scaled_sum_out(touching, union, v) -> np.ndarray:
    """:func:`_sum_out` without the product over ``union``: each factor is shifted by its
    largest value per row and class and exponentiated (so at most 1), the products summed
    over ``v`` by ``einsum`` (pairwise contractions, BLAS where it can, none larger than
    ``_MAX_CELLS``), and the shifts added back to the logarithm. A sum whose every term
    is below the doubles' range comes out ``-inf``; the caller then sums in log space."""
    letters = {u: chr(ord("c") + i) for i, u in enumerate(union)}
    operands, subscripts, shift = [], [], 0.0
    for scope, arr in touching:
        axes = tuple(range(2, arr.ndim))
        top = arr.max(axis=axes, keepdims=True) if axes else arr
        top = np.where(np.isfinite(top), top, 0.0)  # a factor of zeros stays zeros
        operands.append(np.exp(arr - top))
        subscripts.append("ab" + "".join(letters[u] for u in scope))
        shift = shift + top.reshape(arr.shape[:2])
    kept = "".join(letters[u] for u in union if u != v)
    spec = ",".join(subscripts) + "->ab" + kept
    path = np.einsum_path(spec, *operands, optimize=("greedy", _MAX_CELLS))[0]
    total = np.einsum(spec, *operands, optimize=path)
    with np.errstate(divide="ignore"):
        return np.log(total) + shift.reshape(shift.shape + (1,) * len(kept))


def _observed_families_jll(codes, structure, class_log_prior, tables, cardinalities, groups):
    """``log P(c) + sum`` of the look-ups of every family without a missing member."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    base = class_log_prior[groups]
    safe = np.maximum(codes, 0)
    for i, table in enumerate(tables):
        family = list(structure.parents[i]) + [i]
        complete = (codes[:, family] >= 0).all(axis=1)
        flat = table.reshape(*table.shape[:2], -1)
        idx = np.ravel_multi_index(tuple(safe[complete][:, family].T), tuple(cards[family]))
        base[complete] += flat[groups[complete], :, idx]
    return base


def eliminate_rows_jll(codes, structure: Structure, class_log_prior, log_cpts, cardinalities,
                       groups=None, normalised=None, memo=None, observed_jll=None,
                       pattern_ids=None) -> np.ndarray:
    """Exact ``log P(x_observed, c)`` of each row by variable elimination.

    Parameters
    ----------
    codes : ndarray of shape (m, d), int
        Feature codes, ``-1`` for missing (complete rows are allowed too).
    structure : Structure
        Any augmented naive Bayes; a feature may have several feature parents.
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray
        ``log_cpts[i]`` of shape ``(K, q_i, r_i)``, parent configurations row-major
        over ``structure.parents[i]``.
    cardinalities : array-like of shape (d,)
    groups : ndarray of shape (m,) of int, optional
        Several sets of parameters at once: then ``class_log_prior`` is ``(G, K)``,
        every ``log_cpts[i]`` is ``(G, K, q_i, r_i)`` and row ``m`` reads group
        ``groups[m]`` (cross-validation scores each row with its own training folds'
        tables in one call).
    normalised : list of bool, optional
        Whether each table sums to one over its child (then a barren missing
        feature is pruned); checked here when not given.
    memo : mapping, optional
        Keeps each independent sum (a component of one missing pattern's rows, keyed by
        its families, their parents and the rows' codes and groups) for later calls.
        Only for a caller whose table of a family depends on nothing but the family
        (a structure search, which asks for mostly unchanged sums again and again).
    observed_jll : ndarray of shape (m, K), optional
        ``log P(c)`` plus the sum over the families without a missing member, if the
        caller keeps it (a search does); computed here when not given.
    pattern_ids : ndarray of shape (m,) of int, optional
        A label of each row's missing pattern (equal labels: the same features
        missing), if the caller has one; found here when not given.

    Returns
    -------
    ndarray of shape (m, K)
        ``log P(c) + log sum over the missing values of prod_i P(x_i | pa_i, c)``;
        ``-inf`` only where a table holds an exact zero.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.structure import Structure
    >>> s = Structure(((), (0,), (0, 1)))  # x2 has two feature parents
    >>> rng = np.random.default_rng(0)
    >>> cpts = [np.log(rng.dirichlet(np.ones(2), size=(2, q))) for q in (1, 2, 4)]
    >>> prior = np.log([0.5, 0.5])
    >>> jll = eliminate_rows_jll(np.array([[-1, -1, -1]]), s, prior, cpts, [2, 2, 2])
    >>> np.allclose(jll, prior)  # nothing observed: log P(c)
    True
    """
    codes = np.asarray(codes)
    class_log_prior = np.asarray(class_log_prior, dtype=np.float64)
    cards = np.asarray(cardinalities, dtype=np.int64)
    if groups is None:
        groups = np.zeros(codes.shape[0], dtype=np.int64)
        class_log_prior, log_cpts = class_log_prior[None], [np.asarray(t)[None] for t in log_cpts]
    m, k = codes.shape[0], class_log_prior.shape[1]
    tables = _family_tables(log_cpts, structure, cards)
    if observed_jll is None:
        jll = _observed_families_jll(codes, structure, class_log_prior, tables, cards, groups)
    else:
        jll = np.array(observed_jll, dtype=np.float64)
    if m == 0:
        return jll
    if normalised is None:
        normalised = [_is_normalised(t) for t in tables]
    children = [[] for _ in range(structure.n_features)]
    for u, v in structure.arcs:
        children[u].append(v)
    reverse_topological = structure.topological_order()[::-1]
    if pattern_ids is None:
        patterns, inverse = np.unique(codes < 0, axis=0, return_inverse=True)
    else:
        _, first, inverse = np.unique(pattern_ids, return_index=True, return_inverse=True)
        patterns = codes[first] < 0
    by_pattern = np.argsort(inverse.ravel(), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(inverse.ravel(), minlength=len(patterns)))])
    # The kept missing features of a row split into connected components of the moral
    # graph; each component and the families it touches form an independent sum that
    # many missing patterns share, so it is solved once for all their rows.
    components = {}
    for p, missing in enumerate(patterns):
        if not missing.any():
            continue
        keep = _relevant_missing(missing, normalised, children, reverse_topological)
        for component in _components(structure, set(np.flatnonzero(keep).tolist())):
            families = tuple(
                i for i in range(structure.n_features)
                if i in component or (not missing[i] and component.intersection(structure.parents[i]))
            )
            components.setdefault((tuple(sorted(component)), families), []).append(p)
    for (component, families), pats in components.items():
        keys = {}
        if memo is not None:
            shape = (component, tuple((i, structure.parents[i]) for i in families))
            unknown = []
            for p in pats:
                rows = by_pattern[bounds[p] : bounds[p + 1]]
                keys[p] = (*shape, codes[rows].tobytes(), groups[rows].tobytes())
                known = memo.get(keys[p])
                if known is None:
                    unknown.append(p)
                else:
                    jll[rows] += known
            pats = unknown
            if not pats:
                continue
        rows = np.concatenate([by_pattern[bounds[p] : bounds[p + 1]] for p in pats])
        values = np.empty((rows.size, k))
        hidden = set(component)
        scopes = tuple(tuple(v for v in (*structure.parents[i], i) if v in hidden) for i in families)
        order, largest = _min_fill_order(scopes, component, tuple(cards.tolist()))
        block = max(1, _MAX_CELLS // (k * largest))
        for start in range(0, rows.size, block):
            chunk = rows[start : start + block]
            sub = codes[chunk]
            factors = [
                _evidence_factor(tables[i], list(structure.parents[i]) + [i], hidden, sub, groups[chunk])
                for i in families
            ]
            values[start : start + block] = _eliminate(factors, order, cards)
        jll[rows] += values
        if memo is not None:
            start = 0
            for p in pats:
                size = bounds[p + 1] - bounds[p]
                memo[keys[p]] = values[start : start + size]
                start += size
    return jll
