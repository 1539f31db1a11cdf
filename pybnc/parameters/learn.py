"""Parameter learning: pure functions from (structure, counts) to log-probability tables.

Every conditional table has the shape ``(K, q_i, r_i)``: class, parent configuration
(row-major over the feature parents in increasing index; ``q_i = 1`` without feature
parents) and the feature's own level. Counts come from the available cases: for
``theta_ijk = P(x_i = k | pa_i = j)`` the denominator is ``N_ij. = sum_k N_ijk``, the
rows where the parents *and* the feature are observed (bnclassify's treatment). A
feature never observed has no level (``r_i = 0``): its table is empty and it
contributes nothing (``docs/missing-values.md``).

Estimators (``method``):

``"mle"``
    Maximum likelihood ``N_ijk / N_ij.``; a parent configuration never seen gets
    the uniform distribution.
``"bayes"``
    Dirichlet posterior mean ``(N_ijk + a) / (N_ij. + r_i a)`` with ``a = alpha``
    (bnclassify's ``smooth``; default 1).
``"friedman"``
    Friedman et al. 1997 smoothing, Cerquides & López de Màntaras 2003 eq. 3:
    ``(N_ijk + N0 * N_i(k) / N) / (N_ij. + N0)`` with ``N0 = alpha`` (default 5).
``"ms"``
    Multinomial sampling, Cerquides 2003 eq. 4: a Dirichlet with pseudo-count
    ``lambda / (#X_i * #Pa_i)`` per cell, where ``#Pa_i`` counts the configurations
    of all parents including the class and ``lambda = alpha`` (default 10).
``"backoff"``
    Each table shrunk toward the table of one feature parent fewer, down to the
    Laplace estimate of ``P(x_i | c)`` (pseudo-count ``alpha``, default 1), the
    strength chosen by leave-one-out from the counts
    (:mod:`pybnc.parameters.back_off`); the class prior as ``"bayes"``.
``"hgs"``
    Hierarchical gradient smoothing (:mod:`pybnc.parameters.hierarchical`): each table
    the leaves of the tree ``P(x)``, ``P(x | c)``, ``P(x | c, p_1)``, .. (parents
    strongest first), each node shrunk toward its parent by a strength of its own,
    chosen by the leave-one-out loss of the counts under HDP smoothing's Gamma(2, 1)
    prior on strengths; the class prior as ``"bayes"``.

A probability of exactly zero (possible with ``"mle"`` only) is stored as
``log(1e-300)`` so that every prediction stays finite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..counts.tables import Counts
from ..structure.dag import Structure

METHODS = ("mle", "bayes", "friedman", "ms", "backoff", "hgs")
DEFAULT_ALPHA = {"mle": 0.0, "bayes": 1.0, "friedman": 5.0, "ms": 10.0, "backoff": 1.0, "hgs": 1.0}
LOG_FLOOR = np.log(1e-300)


@dataclass
class ParameterTables:
    """Log-probability tables of an augmented naive Bayes.

    Attributes
    ----------
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray
        ``log_cpts[i][c, j, k] = log P(x_i = k | c, parent configuration j)``.
    """

    class_log_prior: np.ndarray
    log_cpts: list


def resolve_alpha(method: str, alpha) -> float:
    if method not in METHODS:
        raise ValueError(f"smoothing={method!r} is not one of {METHODS}.")
    try:
        value = DEFAULT_ALPHA[method] if alpha is None else float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}.") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}.")
    return value


def family_counts(counts: Counts, structure: Structure, i: int, codes=None, y=None, families=None) -> np.ndarray:
    """``N(c, pa_i = j, x_i = k)`` as an array ``(K, q_i, r_i)``.

    One feature parent is read from the pairwise table when ``counts`` holds one;
    other families (kDB; the searches, which count no pairs) are read from
    ``families`` (a :class:`~pybnc.counts.families.FamilyCounts` holding ``parents + (i,)``) or
    counted from the coded rows ``codes``/``y`` with one bincount.
    """
    parents = structure.parents[i]
    if len(parents) == 0:
        return counts.feature(i)[:, None, :]
    if len(parents) == 1 and counts.has_pairs:
        return counts.pair(parents[0], i)
    cards = counts.cardinalities
    if families is not None and tuple(parents) + (i,) in families.families:
        table = families.table(families.index(tuple(parents) + (i,)))
        return table.reshape(counts.n_classes, int(np.prod(cards[list(parents)])), int(cards[i]))
    if codes is None or codes.shape[0] == 0 and counts.n_rows > 0:
        raise ValueError("Families with feature parents are counted from the coded rows, read from pair "
                         "counts or given as FamilyCounts.")
    cols = list(parents) + [i]
    # Row-major (class, parents..., feature) index, column by column: no copy of the columns.
    flat, keep = np.asarray(y).astype(np.int64), None
    for col in cols:
        values = codes[:, col]
        flat = flat * int(cards[col]) + values
        keep = values >= 0 if keep is None else keep & (values >= 0)
    if not keep.all():
        flat = flat[keep]
    size = counts.n_classes * int(np.prod(cards[cols]))
    if size > flat.size:  # more cells than rows: counted as floats at once, not as integers then copied
        table = np.bincount(flat, weights=np.ones(flat.size), minlength=size)
    else:
        table = np.bincount(flat, minlength=size).astype(np.float64)
    return table.reshape(counts.n_classes, int(np.prod(cards[list(parents)])), int(cards[i]))


def pseudo_counts(method: str, alpha: float, r, q, n_classes: int, marginal=None) -> tuple:
    """The estimators' Dirichlet pseudo-counts for a table of ``r`` outcomes given ``q``
    parent configurations and ``n_classes`` classes: ``(per cell, per configuration)``,
    the second the sum of the first over the outcomes. The one definition of ``"mle"``,
    ``"bayes"``, ``"friedman"`` (``marginal``: ``N_i(k) / N``) and ``"ms"`` (``alpha``
    spread evenly over the family's cells) for every learner.

    Examples
    --------
    >>> pseudo_counts("ms", 10.0, 2, 5, 2)
    (0.5, 1.0)
    """
    if method == "mle":
        return 0.0, 0.0
    if method == "bayes":
        return alpha, alpha * r
    if method == "friedman":
        return alpha * marginal, alpha
    if method == "ms":
        if r * q * n_classes == 0:  # a feature never observed: an empty table, nothing to spread over
            return 0.0, 0.0
        return alpha / (r * q * n_classes), alpha / (q * n_classes)
    raise ValueError(f"smoothing={method!r} has no Dirichlet pseudo-counts; it is one of 'mle', 'bayes', "
                     "'friedman', 'ms'.")


def ratio(numerator, denominator, n_outcomes) -> np.ndarray:
    """``numerator / denominator``: an estimated probability, the uniform ``1 / n_outcomes``
    where the denominator is 0 (a parent configuration never seen), floored at ``1e-300``
    so that its logarithm is finite."""
    # No division by zero is left to silence (an unseen configuration divides by 1), and
    # np.errstate cost a third of a call: wide tables make hundreds of thousands of calls.
    seen = denominator > 0
    theta = np.where(seen, numerator / np.where(seen, denominator, 1.0), 1.0 / n_outcomes)
    return np.maximum(theta, 1e-300, out=theta)


def log_ratio(numerator, denominator, n_outcomes) -> np.ndarray:
    """``log(numerator / denominator)``: the logarithm of :func:`ratio`."""
    return np.log(ratio(numerator, denominator, n_outcomes))


#: Tables past this many cells are estimated configuration by configuration where most
#: parent configurations were never seen (the families of many-levelled parents).
_SPARSE_FROM_CELLS = 1 << 16


def conditional_log_table(n_ijk: np.ndarray, method: str, alpha: float, marginal=None) -> np.ndarray:
    """Log of ``P(x_i | class, parents)`` from family counts ``(K, q, r)``."""
    k, q, r = n_ijk.shape
    pseudo = pseudo_counts(method, alpha, r, q, k, marginal)[0]
    if n_ijk.size > _SPARSE_FROM_CELLS and np.ndim(pseudo) == 0:
        by_configuration = n_ijk.reshape(k * q, r)
        seen = np.flatnonzero(by_configuration.any(axis=1))
        if 2 * seen.size <= k * q:
            return _mostly_unseen_log_table(by_configuration, seen, float(pseudo)).reshape(k, q, r)
    return _dense_log_table(n_ijk, pseudo, r)


def _dense_log_table(n_ijk: np.ndarray, pseudo, r: int) -> np.ndarray:
    """``log((n + a) / sum_k (n + a))`` over the last axis (``r`` outcomes), of one table
    or of several stacked on the first axes."""
    numerator = n_ijk + pseudo
    # a feature never observed has no level (r = 0): an empty table
    return log_ratio(numerator, numerator.sum(axis=-1, keepdims=True), max(r, 1))


def _mostly_unseen_log_table(by_configuration, seen, pseudo: float) -> np.ndarray:
    """:func:`conditional_log_table`'s ``(K q, r)`` table, bit for bit, computed on the
    ``seen`` configurations' rows only: every unseen configuration's row is the same
    (its counts all 0), so it is computed once, on a small array, by the same operations."""
    r = by_configuration.shape[1]
    unseen = np.full((2, r), pseudo)
    table = np.empty(by_configuration.shape)
    table[:] = log_ratio(unseen, unseen.sum(axis=-1, keepdims=True), r)[0]
    numerator = by_configuration[seen] + pseudo
    table[seen] = log_ratio(numerator, numerator.sum(axis=-1, keepdims=True), r)
    return table


def back_off_family(n_ijk: np.ndarray, parents, cardinalities, alpha: float = 1.0, child_counts=None) -> np.ndarray:
    """:mod:`pybnc.parameters.back_off` on a family's ``(K, q, r)`` counts (parents in
    increasing index), returned as ``(K, q, r)``; ``child_counts`` ``(K, r)``, the
    child's counts over every row where it is observed, is the bottom table's
    (available-case, as naive Bayes's)."""
    from .back_off import back_off_log_table

    k, q, r = n_ijk.shape
    if not parents:
        return conditional_log_table(n_ijk, "bayes", alpha)
    shape = (k, *np.asarray(cardinalities, dtype=np.int64)[list(parents)], r)
    return back_off_log_table(n_ijk.reshape(shape), base=alpha, bottom=child_counts)[0].reshape(k, q, r)


def class_log_prior(class_counts: np.ndarray, method: str, alpha: float) -> np.ndarray:
    k = class_counts.shape[0]
    pseudo = {"bayes": alpha, "backoff": alpha, "hgs": alpha, "ms": alpha / k}.get(method, 0.0)
    numerator = class_counts + pseudo
    return log_ratio(numerator, numerator.sum(), max(k, 1))


#: Most cells the conditional tables of one network may hold (float64: 2 GiB).
MAX_TABLE_CELLS = 1 << 28


def check_table_size(structure: Structure, cardinalities, n_classes: int, names=None) -> None:
    """Raise a ``MemoryError`` naming the largest family (by ``names``, else by position)
    when the network's tables would hold more than :data:`MAX_TABLE_CELLS` cells (several
    many-levelled parents), before any of them is allocated."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    cells = [n_classes * int(np.prod(cards[list(parents)], dtype=float)) * int(cards[i])
             for i, parents in enumerate(structure.parents)]
    if sum(cells) <= MAX_TABLE_CELLS:
        return
    i = int(np.argmax(cells))
    parents = structure.parents[i]
    name = (lambda j: repr(str(names[j]))) if names is not None else (lambda j: f"feature {j}")
    raise MemoryError(
        f"The network's conditional tables would hold {sum(cells):,} cells, more than "
        f"{MAX_TABLE_CELLS:,} (2 GiB). The largest is that of {name(i)} ({int(cards[i])} levels) "
        f"with parents {', '.join(name(p) for p in parents)} of "
        f"{[int(cards[p]) for p in parents]} levels: "
        f"{cells[i]:,} cells. Lower k (fewer parents per feature), group rare levels of the "
        "many-levelled columns into one, or use SKDB, which leaves out a parent that would "
        "make a family table too large."
    )


def learn_parameters(structure: Structure, counts: Counts, method: str = "bayes", alpha=None,
                     codes=None, y=None, families=None) -> ParameterTables:
    """Estimate every table of a structure.

    Parameters
    ----------
    structure : Structure
    counts : Counts
    method : {"mle", "bayes", "friedman", "ms"}
    alpha : float or None
        Smoothing strength: Dirichlet pseudo-count (``bayes``), ``N0``
        (``friedman``) or equivalent sample size ``lambda`` (``ms``). ``None`` takes
        the method's default (1, 5, 10).
    codes, y : ndarray, optional
        Coded rows, needed only when a feature has more than one feature parent and
        ``families`` does not hold its family.
    families : FamilyCounts, optional
        Counts of the families with several feature parents (out-of-core kDB).

    Returns
    -------
    ParameterTables
    """
    alpha = resolve_alpha(method, alpha)
    if method == "backoff":
        return ParameterTables(class_log_prior(counts.class_counts, method, alpha),
                               _back_off_tables(structure, counts, alpha, codes, y, families))
    if method == "hgs":
        return ParameterTables(class_log_prior(counts.class_counts, method, alpha),
                               _hierarchical_tables(structure, counts, codes, y, families))
    tables = [family_counts(counts, structure, i, codes, y, families) for i in range(structure.n_features)]
    if method == "friedman":
        log_cpts = []
        for i, n_ijk in enumerate(tables):
            n_i = counts.feature(i).sum(axis=0)
            marginal = n_i / n_i.sum() if n_i.sum() > 0 else np.full(n_i.shape, 1.0 / max(n_i.size, 1))
            log_cpts.append(conditional_log_table(n_ijk, method, alpha, marginal))
    else:
        log_cpts = conditional_log_tables(tables, method, alpha)
    return ParameterTables(class_log_prior(counts.class_counts, method, alpha), log_cpts)


def conditional_log_tables(tables: list, method: str, alpha: float) -> list:
    """:func:`conditional_log_table` of each family's counts (``method`` other than
    ``"friedman"``), bit for bit, with the small tables of one shape stacked and
    estimated at once: a table of a few hundred cells costs a handful of numpy calls,
    and a network of hundreds of features made that the cost of its parameters."""
    out = [None] * len(tables)
    by_shape = {}
    for i, n_ijk in enumerate(tables):
        if n_ijk.size > _SPARSE_FROM_CELLS:
            out[i] = conditional_log_table(n_ijk, method, alpha)
        else:
            by_shape.setdefault(n_ijk.shape, []).append(i)
    for (k, q, r), members in by_shape.items():
        if len(members) == 1:
            out[members[0]] = conditional_log_table(tables[members[0]], method, alpha)
            continue
        logs = _dense_log_table(np.stack([tables[i] for i in members]), pseudo_counts(method, alpha, r, q, k)[0], r)
        for i, table in zip(members, logs):
            out[i] = table
    return out


def _back_off_tables(structure: Structure, counts: Counts, alpha: float, codes, y, families) -> list:
    """Every feature's back-off table (:func:`back_off_family`); the one-parent families
    (all of a TAN's but the root's) are learned together, which gives the same tables."""
    from .back_off import back_off_log_tables_one_parent

    tables = [family_counts(counts, structure, i, codes, y, families) for i in range(structure.n_features)]
    one_parent = [i for i, parents in enumerate(structure.parents) if len(parents) == 1]
    together = back_off_log_tables_one_parent([tables[i] for i in one_parent],
                                              [counts.feature(i) for i in one_parent], base=alpha)
    log_cpts = [None] * structure.n_features
    for i, (table, _) in zip(one_parent, together):
        log_cpts[i] = table
    for i, parents in enumerate(structure.parents):
        if log_cpts[i] is None:
            log_cpts[i] = back_off_family(tables[i], parents, counts.cardinalities, alpha, counts.feature(i))
    return log_cpts


def _hierarchical_tables(structure: Structure, counts: Counts, codes, y, families) -> list:
    """Every feature's :mod:`~pybnc.parameters.hierarchical` table, all families' strengths
    fitted at once; each family's parents ranked by their information about the child
    (:func:`pybnc.parameters.back_off.rank_parents`), from its own counts."""
    from .back_off import rank_parents
    from .hierarchical import hgs_log_cpts

    cards = np.asarray(counts.cardinalities, dtype=np.int64)
    tables, order = [], []
    for i, parents in enumerate(structure.parents):
        n = family_counts(counts, structure, i, codes, y, families)
        axes, n = rank_parents(n.reshape(counts.n_classes, *cards[list(parents)], cards[i]))
        tables.append(n)
        order.append(tuple(parents[a - 1] for a in axes))
    return hgs_log_cpts(tables, order)


def n_free_parameters(structure: Structure, cardinalities, n_classes: int) -> int:
    """``(K - 1) + sum_i K * q_i * (r_i - 1)``: the free parameters of the network."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    total = n_classes - 1
    for i, parents in enumerate(structure.parents):
        q = int(np.prod(cards[list(parents)])) if parents else 1
        total += n_classes * q * (int(cards[i]) - 1)
    return int(total)
