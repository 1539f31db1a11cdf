"""Hierarchical Dirichlet process smoothing of conditional tables (Petitjean, Buntine,
Webb & Zaidi, "Accurate parameter estimation for Bayesian network classifiers using
hierarchical Dirichlet processes", MLJ 107, 2018).

The table ``P(x | c, p_1, .., p_k)`` is the leaf level of a tree: the root is
``P(x)``, depth 1 conditions on the class, depth 2 on the class and the first
(strongest) parent, and so on. Each node's distribution is drawn from a Dirichlet
process centred on its parent's, with a concentration shared by all nodes of one
depth (the paper's default "level" tying). With the leaf counts observed, the
posterior is sampled by the paper's collapsed Gibbs sampler over the Chinese
restaurant franchise: each node holds ``n_k`` customers (the leaf counts, or the
tables its children send up) and ``t_k`` tables (``1 <= t_k <= n_k`` when
``n_k >= 1``), whose conditional is

    S(n_k, t_k) c^{t_k} S(n^par_k, t^par_k) / Gamma(c^par + N^par)

(``S`` the unsigned Stirling numbers of the first kind); ``t_k`` is drawn within a
window of +-10 of its value, as the authors' code (node by node in compiled code
when numba is installed, ``pip install pybnc[fast]``; otherwise vectorised over the
nodes that share no parent). Every 5 iterations each level's
concentration is drawn by the auxiliary-variable scheme (Lan Du's thesis, used by
the authors): ``q_j ~ Beta(c, N_j)`` per node, then
``c ~ Gamma(2 + sum_j T_j, rate = 1 + sum_j log(1/q_j))`` (prior Gamma(2, 1)); it is
capped at 4000 as theirs. After burn-in the estimates

    p_k = (n_k + c p^par_k) / (N + c),   p^root_k = (n_k + 2 / r) / (N + 2)

are averaged over the iterations.

Each node's estimate is a Dirichlet posterior mean whose prior is ``c`` times its
parent's estimate. The paper's limits follow: as the concentrations go to 0 a leaf
with data tends to the maximum-likelihood estimate ``n_k / N``; as they grow without
bound every node tends to its parent, so all leaves tend to one distribution, the
root's; when the class is the only conditioning variable every customer then opens
its own table and that is ``(n_k + 2 / r) / (N + 2)`` of the raw counts, the
Dirichlet estimate of ``P(x)`` with ``alpha = 2 / r`` (all three tested with fixed
concentrations).

Vectorisation: all families with the same number of conditioning variables are
stacked (levels padded); nodes of one depth that do not share a parent are sampled
at once, so one iteration costs (depth x branching levels x outcome levels) numpy
steps, not one per node. Counts above :data:`STIRLING_MAX_N` keep their initial
table count (their smoothing is negligible: ``N`` dwarfs ``c``).

Cost: the trees are held dense, ``K * prod(r_parents) * r`` leaves per family, so
parents with many levels and a large ``k`` make every iteration slow (crx with
``ESKDB(k=5)``: 14-level parents, minutes per member); keep ``k`` small there.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import digamma, gammaln

from ._progress import progress
from .parameters import ParameterTables, class_log_prior
from .scores import pairwise_cmi

from ._jit import Kernels

#: Largest customer count whose table count is sampled (the Stirling table's size).
STIRLING_MAX_N = 2048
WINDOW = 10
PRIOR_SHAPE, PRIOR_RATE, ROOT_CONCENTRATION, MAX_CONCENTRATION = 2.0, 1.0, 2.0, 4000.0
SAMPLE_CONCENTRATION_EVERY = 5


@functools.lru_cache(maxsize=1)
def log_stirling_first_kind(n_max: int = STIRLING_MAX_N) -> np.ndarray:
    """``log S(n, t)`` (unsigned, first kind) for ``0 <= n, t <= n_max``; ``-inf`` where 0.

    Examples
    --------
    >>> np.exp(log_stirling_first_kind(8)[4]).round().tolist()[:5]  # S(4, t)
    [0.0, 6.0, 11.0, 6.0, 1.0]
    """
    table = np.full((n_max + 1, n_max + 1), -np.inf)
    table[0, 0] = 0.0
    for n in range(n_max):  # S(n+1, t) = n S(n, t) + S(n, t-1)
        shifted = np.concatenate([[-np.inf], table[n, :-1]])
        with np.errstate(divide="ignore"):
            table[n + 1] = np.logaddexp(np.log(n) + table[n] if n else np.full(n_max + 1, -np.inf), shifted)
    return table


def _initial_tables(n: np.ndarray, concentration) -> np.ndarray:
    """The authors' start: ``t = n`` for ``n <= 1``, else ``max(1, floor(c (psi(c + n) - psi(c))))``."""
    c = np.asarray(concentration, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        guess = np.floor(c * (digamma(c + n) - digamma(c)))
    return np.where(n <= 1, n, np.maximum(1, np.nan_to_num(guess))).astype(np.int64)


class _Forest:
    """Trees of families with the same number of conditioning variables, stacked.

    ``n[L]``/``t[L]`` have shape ``(F, s_1, .., s_L, r)`` (``F`` families, ``s_1 = K``);
    ``c[L]`` shape ``(F,)`` for ``L >= 1``.
    """

    def __init__(self, leaves: np.ndarray, n_levels: np.ndarray):
        self.depth = leaves.ndim - 2
        self.n_levels = n_levels  # (F,): outcome levels of each family
        r = leaves.shape[-1]
        self.base = (np.arange(r)[None, :] < n_levels[:, None]) / n_levels[:, None]  # (F, r)
        self.c = [np.full(leaves.shape[0], ROOT_CONCENTRATION) for _ in range(self.depth + 1)]
        self.n = [None] * (self.depth + 1)
        self.t = [None] * (self.depth + 1)
        self.n[self.depth] = leaves.astype(np.int64)
        for level in range(self.depth, 0, -1):
            c = self.c[level].reshape((-1,) + (1,) * (level + 1))
            self.t[level] = _initial_tables(self.n[level], c)
            self.n[level - 1] = self.t[level].sum(axis=level)
        self.t[0] = (self.n[0] > 0).astype(np.int64)

    def sample_tables(self, rng, log_s: np.ndarray) -> None:
        if not _KERNELS.available:
            return self._sample_tables_numpy(rng, log_s)
        sweep_level = _KERNELS.ready()["_sweep_level"]
        for level in range(self.depth, 0, -1):
            n, t = self.n[level], self.t[level]
            r = n.shape[-1]
            n_par, t_par = self.n[level - 1].reshape(-1, r), self.t[level - 1].reshape(-1, r)
            per_family = n[0, ..., 0].size
            log_c = np.repeat(np.log(self.c[level]), per_family)
            c_par = np.repeat(self.c[level - 1], n_par.shape[0] // n.shape[0])
            sweep_level(n.reshape(-1, r), t.reshape(-1, r), n_par, t_par, n_par.sum(axis=1), n.shape[level],
                         log_c, c_par, log_s, WINDOW)
        self.t[0] = (self.n[0] > 0).astype(np.int64)

    def _sample_tables_numpy(self, rng, log_s: np.ndarray) -> None:
        n_max = log_s.shape[0] - 1
        offsets = np.arange(-WINDOW, WINDOW + 1)
        for level in range(self.depth, 0, -1):
            n, t = self.n[level], self.t[level]
            n_par, t_par = self.n[level - 1], self.t[level - 1]
            log_c = np.log(self.c[level]).reshape((-1,) + (1,) * (level - 1))
            c_par = self.c[level - 1].reshape((-1,) + (1,) * (level - 1))
            shape = n.shape[:level]  # (F, s_1, .., s_{level-1}): one node per parent here
            log_c = np.broadcast_to(log_c, shape)
            c_par = np.broadcast_to(c_par, shape)
            for v in range(n.shape[level]):  # nodes with distinct parents: sampled together
                for k in range(n.shape[-1]):
                    here = (slice(None),) * level + (v, k)
                    node_n, node_t = n[here], t[here]
                    # only nodes with a choice (n >= 2) are touched: deep trees are sparse
                    nodes = np.nonzero((node_n >= 2) & (node_n <= n_max))
                    if not nodes[0].size:
                        continue
                    old, cnt = node_t[nodes], node_n[nodes]
                    par_row = n_par[nodes]  # (m, r)
                    par_n, par_t = par_row[:, k], t_par[nodes + (k,)]
                    cand = old[:, None] + offsets  # (m, 2W+1)
                    new_par_n = (par_n - old)[:, None] + cand
                    ok = (cand >= 1) & (cand <= cnt[:, None]) & (new_par_n >= par_t[:, None]) & (new_par_n <= n_max)
                    score = (log_s[cnt[:, None], np.minimum(np.maximum(cand, 0), n_max)]
                             + cand * log_c[nodes][:, None]
                             + log_s[np.minimum(np.maximum(new_par_n, 0), n_max), np.minimum(par_t, n_max)[:, None]]
                             - gammaln(c_par[nodes][:, None] + (par_row.sum(axis=1) - old)[:, None] + cand))
                    score[~ok] = -np.inf
                    pick = np.argmax(score + rng.gumbel(size=score.shape), axis=1)
                    new = np.where(ok.any(axis=1), old + offsets[pick], old)
                    node_t[nodes] = new
                    n_par[nodes + (k,)] += new - old
            if level == 1:
                self.t[0] = (self.n[0] > 0).astype(np.int64)

    def sample_concentrations(self, rng) -> None:
        for level in range(1, self.depth + 1):
            total = self.n[level].sum(axis=-1).reshape(self.n[level].shape[0], -1)  # (F, nodes)
            tables = self.t[level].sum(axis=-1).reshape(total.shape)
            c = self.c[level][:, None]
            used = total > 0
            q = rng.beta(np.broadcast_to(c, total.shape)[used], total[used])
            log_inv_q = np.zeros(total.shape)
            log_inv_q[used] = -np.log(np.maximum(q, 1e-75))
            rate = PRIOR_RATE + log_inv_q.sum(axis=1)
            shape = PRIOR_SHAPE + tables.sum(axis=1)
            self.c[level] = np.minimum(rng.gamma(shape, 1.0 / rate), MAX_CONCENTRATION)

    def probabilities(self) -> np.ndarray:
        """Leaf estimates ``(F, s_1, .., s_D, r)`` of the current state."""
        p = (self.n[0] + ROOT_CONCENTRATION * self.base) / (self.n[0].sum(-1, keepdims=True) + ROOT_CONCENTRATION)
        for level in range(1, self.depth + 1):
            c = self.c[level].reshape((-1,) + (1,) * (level + 1))
            n = self.n[level]
            p = (n + c * p[..., None, :]) / (n.sum(-1, keepdims=True) + c)
        return p


def _sweep_level_python(n, t, n_par, t_par, par_total, branching, log_c, c_par, log_s, window):
    """One Gibbs sweep over the table counts of one level, node by node (the authors'
    sampler): ``n``/``t`` ``(nodes, r)``, node ``j``'s parent is ``j // branching``."""
    n_max = log_s.shape[0] - 1
    width = 2 * window + 1
    scores = np.empty(width)
    for j in range(n.shape[0]):
        p = j // branching
        for k in range(n.shape[1]):
            count = n[j, k]
            if count < 2 or count > n_max:
                continue  # t = n when n <= 1; beyond the table t keeps its start
            old = t[j, k]
            par_rest, total_rest = n_par[p, k] - old, par_total[p] - old
            best = -np.inf
            for w in range(width):
                v = old - window + w
                par_n = par_rest + v
                if v < 1 or v > count or par_n < t_par[p, k] or par_n > n_max:
                    scores[w] = -np.inf
                    continue
                scores[w] = (log_s[count, v] + v * log_c[j] + log_s[par_n, t_par[p, k]]
                             - math.lgamma(c_par[p] + total_rest + v))
                best = max(best, scores[w])
            if best == -np.inf:
                continue
            total = 0.0
            for w in range(width):
                scores[w] = math.exp(scores[w] - best) if scores[w] > -np.inf else 0.0
                total += scores[w]
            u = np.random.random() * total
            pick = 0
            while pick < width - 1 and (u > scores[pick] or scores[pick] == 0.0):
                u -= scores[pick]
                pick += 1
            v = old - window + pick
            t[j, k] = v
            n_par[p, k] += v - old
            par_total[p] += v - old


def _seed_python(seed):
    np.random.seed(seed)


_KERNELS = Kernels(globals(), [("_sweep_level", "_sweep_level_python", {}), ("_seed", "_seed_python", {})])


def hdp_tables(leaf_tables, n_iterations: int = 500, burn_in=None, random_state=None, verbose=0,
               fixed_concentration=None) -> list:
    """HDP estimates of conditional tables.

    Parameters
    ----------
    leaf_tables : list of ndarray
        Counts ``N(c, p_1, .., p_k, x)``, shape ``(K, r_p1, .., r_pk, r)``, the
        conditioning variables in back-off order (class first, strongest parent next).
    n_iterations : int, default=500
        Gibbs iterations (the paper: 5000).
    burn_in : int, optional
        Iterations left out of the average; default ``min(1000, n_iterations // 10)``
        as the authors' code.
    random_state : int, Generator or None
    verbose : int
        Progress bar over the iterations (see :mod:`pybnc._progress`).
    fixed_concentration : float, optional
        Keep every concentration at this value and sample the table counts only
        (the paper's limits, tested; not a learning option).

    Returns
    -------
    list of ndarray
        ``P(x | c, p_1, .., p_k)`` of the same shapes, each row summing to one.
    """
    rng = np.random.default_rng(random_state)
    burn_in = min(1000, n_iterations // 10) if burn_in is None else int(burn_in)
    groups: dict = {}
    results = [None] * len(leaf_tables)
    for index, table in enumerate(leaf_tables):
        if table.size == 0:  # a feature with no level (never observed) or a parent without one
            results[index] = np.full(table.shape, 1.0 / max(table.shape[-1], 1))
            continue
        groups.setdefault(table.ndim, []).append(index)
    forests = []
    for ndim, members in groups.items():
        shape = np.max([leaf_tables[i].shape for i in members], axis=0)
        stacked = np.zeros((len(members), *shape))
        for row, i in enumerate(members):
            stacked[(row, *(slice(0, s) for s in leaf_tables[i].shape))] = leaf_tables[i]
        n_levels = np.array([leaf_tables[i].shape[-1] for i in members], dtype=np.float64)
        forest = _Forest(stacked, n_levels)
        if fixed_concentration is not None:
            forest.c = forest.c[:1] + [np.full(len(members), float(fixed_concentration)) for _ in forest.c[1:]]
        forests.append((members, forest))
    log_s = log_stirling_first_kind()
    if _KERNELS.available:  # numba's generator is its own: seed it from ours
        _KERNELS.ready()["_seed"](int(rng.integers(2**31)))
    sums = [np.zeros(f.n[f.depth].shape) for _, f in forests]
    n_kept = 0
    for it in progress(range(n_iterations), desc="HDP smoothing", verbose=verbose):
        for index, (_, forest) in enumerate(forests):
            forest.sample_tables(rng, log_s)
            if fixed_concentration is None and (it + SAMPLE_CONCENTRATION_EVERY // 2) % SAMPLE_CONCENTRATION_EVERY == 0:
                forest.sample_concentrations(rng)
            if it >= burn_in:
                sums[index] += forest.probabilities()
        n_kept += it >= burn_in
    for (members, _), total in zip(forests, sums):
        _unstack(results, members, total / max(n_kept, 1), leaf_tables)
    return results


def _unstack(results, members, stacked, leaf_tables):
    for row, i in enumerate(members):
        p = stacked[(row, *(slice(0, s) for s in leaf_tables[i].shape))]
        results[i] = p / p.sum(axis=-1, keepdims=True)


def back_off_order(counts, structure) -> list:
    """Each feature's parents strongest first (decreasing ``I(X_i; X_p | C)``, ties by
    index): the order in which the hierarchy conditions on them after the class."""
    cmi, _ = pairwise_cmi(counts)
    return [tuple(sorted(parents, key=lambda p: (-cmi[i, p], p))) for i, parents in enumerate(structure.parents)]


def ranked_to_sorted(table: np.ndarray, parents) -> np.ndarray:
    """A table ``(K, r_p1.., r_child)`` with parents in back-off order, as pybnc's
    ``(K, q, r)`` with parents in increasing index."""
    perm = np.argsort(parents)
    moved = table.transpose((0, *(1 + perm), table.ndim - 1))
    return moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:-1])), moved.shape[-1])


def hdp_parameters(counts, family_tables, ranked_parents, n_iterations=500, random_state=None,
                   verbose=0) -> ParameterTables:
    """Every table of a kDB-like model smoothed by :func:`hdp_tables`.

    Parameters
    ----------
    counts : Counts or FamilyCounts
        Gives the class counts (the class prior is the Dirichlet estimate, ``alpha = 1``).
    family_tables : list of ndarray
        ``N(c, p_1, .., p_k, x_i)`` of each feature, parents in ``ranked_parents[i]``'s
        order, available cases.
    ranked_parents : list of tuple of int

    Returns
    -------
    ParameterTables
    """
    smoothed = hdp_tables(family_tables, n_iterations, random_state=random_state, verbose=verbose)
    log_cpts = [np.log(np.maximum(ranked_to_sorted(p, parents), 1e-300))
                for p, parents in zip(smoothed, ranked_parents)]
    return ParameterTables(class_log_prior(counts.class_counts, "bayes", 1.0), log_cpts)
