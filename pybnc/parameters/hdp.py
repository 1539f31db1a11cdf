"""Hierarchical Dirichlet process smoothing of conditional tables (Petitjean, Buntine,
Webb & Zaidi, "Accurate parameter estimation for Bayesian network classifiers using
hierarchical Dirichlet processes", MLJ 107, 2018).

The table ``P(x | c, p_1, .., p_k)`` is the leaf level of a tree: the root is
``P(x)``, depth 1 conditions on the class, depth 2 on the class and the first
(strongest) parent, and so on. Each node's distribution is drawn from a Dirichlet
process centred on its parent's, with a concentration shared by all nodes of one
depth (the paper's "level" tying). The posterior is sampled by the paper's collapsed
Gibbs sampler over the Chinese restaurant franchise: each node holds ``n_k``
customers and ``t_k`` tables, whose conditional is

    S(n_k, t_k) c^{t_k} S(n^par_k, t^par_k) / Gamma(c^par + N^par)

(``S`` the unsigned Stirling numbers of the first kind); ``t_k`` is drawn within a
window of +-10 of its value, as the authors' code. Every 5 iterations each level's
concentration is drawn by the auxiliary-variable scheme (``q_j ~ Beta(c, N_j)``, then
``c ~ Gamma(2 + sum_j T_j, rate = 1 + sum_j log(1/q_j))``, capped at 4000). After
burn-in the estimates

    p_k = (n_k + c p^par_k) / (N + c),   p^root_k = (n_k + 2 / r) / (N + 2)

are averaged over the iterations.

Each family's chain is independent and runs whole in compiled code (``_hdp_c.c``, on
the family's own random stream), possibly on another core; without the compiled
kernels HDP smoothing refuses, naming the command that builds them
(:func:`require_sampler`). The paper's limits hold and are tested: as the
concentrations go to 0 a leaf with data tends to ``n_k / N``; as they grow every leaf
tends to the root's distribution.

Only the nodes some training row reaches are stored (as the authors' trees), all
families in one level-ordered array, so an iteration costs the observed paths. A parent
configuration no row reaches takes the estimate of its deepest observed ancestor, which
is what an empty node would estimate. Counts above :data:`STIRLING_MAX_N` keep their
initial table count (their smoothing is negligible: ``N`` dwarfs ``c``).
"""

from __future__ import annotations

import hashlib
import math
import threading

import numpy as np
from scipy.special import digamma

from .._utils.progress import progress
from .learn import ParameterTables, class_log_prior
from ..scores.information import pairwise_cmi

from .._utils.native import HOW_TO_BUILD, load_kernels

_native = load_kernels("pybnc.parameters._hdp_c")

#: Largest customer count whose table count is sampled (the Stirling table's size).
STIRLING_MAX_N = 2048
WINDOW = 10
PRIOR_SHAPE, PRIOR_RATE, ROOT_CONCENTRATION, MAX_CONCENTRATION = 2.0, 1.0, 2.0, 4000.0
SAMPLE_CONCENTRATION_EVERY = 5


class SamplerNotBuiltError(ImportError):
    """HDP smoothing was asked for where pybnc's compiled sampler is not built."""


def require_sampler():
    """The compiled sampler (``pybnc.parameters._hdp_c``), or :class:`SamplerNotBuiltError`
    naming the command that builds it and the smoothing that needs none."""
    if _native is None:
        raise SamplerNotBuiltError(
            "HDP smoothing (smoothing='hdp', ESKDB's default) needs pybnc's compiled sampler "
            f"pybnc.parameters._hdp_c, which is not built. Build it: {HOW_TO_BUILD}; or choose "
            "smoothing='bayes' (Dirichlet smoothing), which needs no compiled kernel.")
    return _native


def _initial_tables(n: np.ndarray, concentration) -> np.ndarray:
    """The authors' start: ``t = n`` for ``n <= 1``, else ``max(1, floor(c (psi(c + n) - psi(c))))``."""
    c = np.asarray(concentration, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        guess = np.floor(c * (digamma(c + n) - digamma(c)))
    return np.where(n <= 1, n, np.maximum(1, np.nan_to_num(guess))).astype(np.int64)


class _Trees:
    """The observed paths of every family's tree, flattened level by level.

    Node ``j`` (level order: all roots, then all class nodes, ...; within a level by
    family, then by conditioning values, so siblings are contiguous) owns the slots
    ``off[j] .. off[j] + r_j`` of the flat count arrays ``n`` (customers) and ``t``
    (tables), one per outcome. A node exists only where some training row reaches it,
    so the cost of an iteration is bounded by the rows, not by the product of the
    parents' levels. ``conc[j]`` indexes the concentration shared by its family's
    level (entry 0, the roots', stays at :data:`ROOT_CONCENTRATION`).
    """

    def __init__(self, leaf_tables):
        families = [_observed_paths(np.asarray(table)) for table in leaf_tables]
        depth = max(len(f["levels"]) for f in families) - 1
        self.families = families
        parent, conc, r_node, level_start = [], [], [], [0]
        n_conc = 1
        first_conc = []
        for f in families:
            first_conc.append(n_conc)
            n_conc += len(f["levels"]) - 1
        for level in range(depth + 1):
            for f, c0 in zip(families, first_conc):
                if level >= len(f["levels"]):
                    continue
                nodes = f["levels"][level]
                f.setdefault("first", []).append(len(parent))
                if level == 0:
                    parent.append(-1)
                else:
                    parent.extend(f["first"][level - 1] + nodes["parent"])
                conc.extend([0 if level == 0 else c0 + level - 1] * nodes["count"])
                r_node.extend([f["r"]] * nodes["count"])
            level_start.append(len(parent))
        self.parent = np.array(parent, dtype=np.int64)
        self.conc = np.array(conc, dtype=np.int64)
        self.r = np.array(r_node, dtype=np.int64)
        self.level_start = np.array(level_start, dtype=np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.r)]).astype(np.int64)
        self.c = np.full(n_conc, ROOT_CONCENTRATION)
        slot_node = np.repeat(np.arange(len(parent)), self.r)
        slot_k = np.arange(self.off[-1]) - self.off[slot_node]
        self.slot_node = slot_node
        self.slot_parent = np.where(self.parent[slot_node] >= 0, self.off[np.maximum(self.parent[slot_node], 0)] + slot_k, -1)
        self.base = 1.0 / self.r[slot_node]
        self.slot_start = self.off[self.level_start]
        # the leaves' customers are the data; every other level's are its children's tables
        self.n = np.zeros(self.off[-1], dtype=np.int64)
        for f in families:
            leaves = f["first"][-1]
            start = self.off[leaves]
            self.n[start:start + f["leaf_counts"].size] = f["leaf_counts"].ravel()
        self.t = np.zeros_like(self.n)
        for level in range(depth, 0, -1):
            here = slice(self.slot_start[level], self.slot_start[level + 1])
            c = self.c[self.conc[self.slot_node[here]]]
            self.t[here] = _initial_tables(self.n[here], c)
            # the leaves of shallower families sit on this level too: their n is data
            np.add.at(self.n, self.slot_parent[here], self.t[here])
        roots = slice(0, self.slot_start[1] if depth else self.off[-1])
        self.t[roots] = self.n[roots] > 0
        self.total = np.add.reduceat(self.n, self.off[:-1])

    def dense(self, p: np.ndarray, index: int, shape) -> np.ndarray:
        """Family ``index``'s table of estimates ``p``: every parent configuration takes
        the estimate of its deepest observed ancestor (the paper's back-off)."""
        f = self.families[index]
        r = f["r"]
        out = p[self.off[f["first"][0]]:self.off[f["first"][0]] + r]
        for level in range(1, len(f["levels"])):
            out = np.broadcast_to(out[..., None, :], (*shape[:level], r)).copy()
            first = f["first"][level]
            nodes = f["levels"][level]
            values = p[self.off[first]:self.off[first] + nodes["count"] * r].reshape(-1, r)
            out[nodes["index"]] = values
        return out

    def run_chains(self, seeds, n_iterations: int, burn_in: int, sample_concentrations: bool, verbose=0) -> np.ndarray:
        """Every family's whole chain in compiled code; returns the estimates averaged
        over the iterations after burn-in (the last state's when none is kept), flat like ``n``."""
        depth = max(len(f["levels"]) for f in self.families)
        first = np.zeros((len(self.families), depth), dtype=np.int64)
        count = np.zeros_like(first)
        for index, f in enumerate(self.families):
            first[index, :len(f["first"])] = f["first"]
            count[index, :len(f["levels"])] = [level["count"] for level in f["levels"]]
        n_levels = np.array([len(f["levels"]) for f in self.families], dtype=np.int64)
        mean = np.zeros(self.n.size)
        args = (self.n, self.t, self.total, self.off, self.parent, self.conc, self.c, first, count, n_levels)
        seeds = np.asarray(seeds, dtype=np.int64)
        if not verbose:  # every chain in one call
            _native.chains(*args, np.arange(len(self.families), dtype=np.int64), seeds, n_iterations, burn_in,
                           sample_concentrations, WINDOW, STIRLING_MAX_N, mean)
        for index in progress(range(len(self.families)) if verbose else (), desc="HDP smoothing", verbose=verbose):
            _native.chains(*args, np.array([index], dtype=np.int64), seeds[index:index + 1], n_iterations, burn_in,
                           sample_concentrations, WINDOW, STIRLING_MAX_N, mean)
        return mean


def _observed_paths(leaves: np.ndarray) -> dict:
    """The nodes of one tree that some row reaches: per level, their count, their
    parent (an index into the level above) and their conditioning values."""
    r = leaves.shape[-1]
    totals = leaves.sum(axis=-1)
    where = np.nonzero(totals)  # lexicographic: siblings contiguous, parents in order
    levels = [{"count": 1, "parent": np.zeros(0, dtype=np.int64), "index": ()}]
    previous = np.zeros(where[0].size if where else 0, dtype=np.int64)
    for level in range(1, leaves.ndim):
        code = np.ravel_multi_index(where[:level], leaves.shape[:level])
        _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
        parent = np.zeros(first.size, dtype=np.int64)
        parent[inverse] = previous
        levels.append({"count": first.size, "parent": parent, "index": tuple(w[first] for w in where[:level])})
        previous = inverse
    return {"r": r, "levels": levels, "leaf_counts": leaves[where].astype(np.int64)}


def hdp_tables(leaf_tables, n_iterations: int = 500, burn_in=None, random_state=None, verbose=0,
               fixed_concentration=None) -> list:
    """HDP estimates of conditional tables.

    Parameters
    ----------
    leaf_tables : list of ndarray
        Counts ``N(c, p_1, .., p_k, x)``, shape ``(K, r_p1, .., r_pk, r)``, the
        conditioning variables in back-off order (class first, strongest parent next).
        The customers of the restaurants are whole rows: weighted counts
        (``sample_weight``) are rounded to the nearest integer, so integer weights are
        exact and fractional ones are smoothed as their rounded counts.
    n_iterations : int, default=500
        Gibbs iterations (the paper: 5000).
    burn_in : int, optional
        Iterations left out of the average; default ``min(1000, n_iterations // 10)``
        as the authors' code.
    random_state : int, Generator or None
    verbose : int
        Progress bar over the iterations (see :mod:`pybnc._utils.progress`).
    fixed_concentration : float, optional
        Keep every concentration at this value and sample the table counts only
        (the paper's limits, tested; not a learning option).

    Returns
    -------
    list of ndarray
        ``P(x | c, p_1, .., p_k)`` of the same shapes, each row summing to one; a
        parent configuration no training row reaches takes its deepest observed
        ancestor's estimate.
    """
    rng = np.random.default_rng(random_state)
    leaf_tables = [np.rint(table) for table in leaf_tables]  # whole customers (weighted counts)
    kept = [i for i, table in enumerate(leaf_tables) if table.size]
    require_sampler()
    seeds = rng.integers(0, 2**63 - 1, size=len(kept), dtype=np.int64)
    estimates = _chain_estimates([leaf_tables[i] for i in kept], seeds, n_iterations, _burn_in(n_iterations, burn_in),
                                 fixed_concentration, verbose)
    results = [_empty_estimate(table) for table in leaf_tables]
    for i, p in zip(kept, estimates):
        results[i] = p
    return results


def _burn_in(n_iterations, burn_in) -> int:
    return min(1000, int(n_iterations) // 10) if burn_in is None else int(burn_in)


def _empty_estimate(table: np.ndarray):
    """Uniform for a table without cells (a feature with no level, or a parent without
    one); None for the others (they are smoothed)."""
    return None if table.size else np.full(table.shape, 1.0 / max(table.shape[-1], 1))


def _chain_estimates(tables, seeds, n_iterations: int, burn_in: int, fixed_concentration=None, verbose=0) -> list:
    """The normalised estimates of non-empty integer ``tables``, each on its own chain,
    table ``i`` on the stream of ``seeds[i]`` (all in one call, the GIL released)."""
    if not tables:
        return []
    trees = _Trees(tables)
    if fixed_concentration is not None:
        trees.c[1:] = float(fixed_concentration)
    mean = trees.run_chains(seeds, int(n_iterations), burn_in, fixed_concentration is None, verbose)
    estimates = []
    for index, table in enumerate(tables):
        p = trees.dense(mean, index, table.shape)
        estimates.append(p / p.sum(axis=-1, keepdims=True))
    return estimates


def table_seed(table: np.ndarray, base_seed: int) -> int:
    """The random stream of ``table``'s chain: a hash of its counts, shape and ``base_seed``,
    so that equal tables get equal streams wherever and whenever they are smoothed."""
    digest = hashlib.blake2b(np.asarray(table, dtype=np.int64).tobytes(), digest_size=8,
                             key=int(base_seed).to_bytes(8, "little", signed=True),
                             person=repr(table.shape).encode()[:16])
    return int.from_bytes(digest.digest(), "little") >> 1


class SharedChains:
    """HDP estimates of tables, one chain per distinct table (its counts and shape).

    The HDP posterior of a table depends on its counts alone (the tree is its shape,
    the customers its cells), and each table's chain runs on the stream of
    :func:`table_seed`: so equal tables, held by an ensemble's members that share a
    family, its bins and its parents' order (as ESKDB_HDP's members share one tree),
    have the same estimate, and it is sampled once — each member's estimate has the
    distribution it has alone. The object is shared by threads (a table being smoothed
    by one is waited for by the others; the chains run with the GIL released); a copy
    sent to another process (joblib's process or Dask backends) starts empty and
    smooths what it is asked for, with the same results.

    Parameters
    ----------
    n_iterations, burn_in :
        As :func:`hdp_tables`.
    random_state : int
        The base of every table's seed.

    Examples
    --------
    >>> counts = np.array([[[5, 1], [0, 3]], [[1, 4], [2, 2]]])
    >>> chains = SharedChains(n_iterations=50, random_state=0)
    >>> a, = chains.estimates([counts])
    >>> b, c = chains.estimates([counts, counts[:, 0]])
    >>> a is b, a.sum(axis=-1).round(6).tolist()
    (True, [[1.0, 1.0], [1.0, 1.0]])
    """

    def __init__(self, n_iterations: int = 500, burn_in=None, random_state: int = 0):
        self.n_iterations, self.burn_in = int(n_iterations), _burn_in(n_iterations, burn_in)
        self.random_state = int(random_state)
        self._lock, self._done, self._pending = threading.Lock(), {}, {}

    def __getstate__(self):  # another process starts with an empty cache
        return {"n_iterations": self.n_iterations, "burn_in": self.burn_in, "random_state": self.random_state}

    def __setstate__(self, state):
        self.__init__(state["n_iterations"], state["burn_in"], state["random_state"])

    def estimates(self, leaf_tables) -> list:
        """:func:`hdp_tables` of ``leaf_tables`` (read-only arrays, shared between
        equal tables)."""
        tables = [np.rint(table).astype(np.int64) for table in leaf_tables]
        keys = [(table.shape, table.tobytes()) for table in tables]
        distinct = {key: table for key, table in zip(keys, tables)}
        require_sampler()
        mine, theirs = {}, {}
        with self._lock:
            for key, table in distinct.items():
                if key in self._done:
                    continue
                if key in self._pending:
                    theirs[key] = self._pending[key]
                else:
                    mine[key] = self._pending[key] = threading.Event()
        try:
            if mine:
                todo = [key for key in mine if distinct[key].size]
                seeds = np.array([table_seed(distinct[key], self.random_state) for key in todo], dtype=np.int64)
                smoothed = _chain_estimates([distinct[key] for key in todo], seeds, self.n_iterations, self.burn_in)
                results = dict(zip(todo, smoothed))
                with self._lock:
                    for key in mine:
                        p = results.get(key)
                        p = _empty_estimate(distinct[key]) if p is None else p
                        p.setflags(write=False)
                        self._done[key] = p
        finally:
            with self._lock:
                for key, event in mine.items():
                    del self._pending[key]
                    event.set()
        for key, event in theirs.items():
            event.wait()
            if key not in self._done:  # the thread smoothing it failed: smooth it here
                return self.estimates(leaf_tables)
        return [self._done[key] for key in keys]

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
    return ParameterTables(hdp_class_log_prior(counts), hdp_log_cpts(smoothed, ranked_parents))


def hdp_class_log_prior(counts) -> np.ndarray:
    """The class prior beside HDP tables: the Dirichlet estimate, ``alpha = 1``."""
    return class_log_prior(counts.class_counts, "bayes", 1.0)


def hdp_log_cpts(smoothed, ranked_parents) -> list:
    """Log tables ``(K, q, r)``, parents in increasing index, of smoothed tables whose
    parents are in ``ranked_parents``' order."""
    return [np.log(np.maximum(ranked_to_sorted(p, parents), 1e-300)) for p, parents in zip(smoothed, ranked_parents)]
