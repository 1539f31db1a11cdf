"""Cached k-fold cross-validated accuracy: the scorer behind every greedy wrapper.

bnclassify refits each candidate structure from the raw data on every fold. Here
the folds are drawn once, counts are taken once per fold (training counts = total
- fold, counts being additive), and the search keeps, for every row, its exact
``log P(x_observed, c)`` under the current structure with the parameters of the
training folds that exclude that row. A candidate move changes a few families; its
accuracy is the argmax of ``total - old contributions + new contributions``, where
a family's contribution is the ``(K, n_rows)`` array of its log-probability per row
(memoised, so a family is counted and gathered once per search). Class-major, so
that the maximum over classes, taken for every candidate, runs along contiguous rows.

Missing values are handled exactly. A family's factor drops out as a constant when
the feature and its parents are observed, and a missing feature without children
sums out to one; rows where a changed family meets neither condition are
recomputed by exact inference (:func:`pybnc.inference.forest.joint_log_likelihood`) with
the fold's tables. Joined features (supernodes) have no parents outside
themselves; their missing members are summed out within the supernode
(:mod:`pybnc.search.joins`).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..inference.forest import _forest_rows_jll, parent_configuration
from ..inference.elimination import eliminate_rows_jll
from ..parameters.learn import class_log_prior, pseudo_counts, resolve_alpha
from ..structure.dag import Structure
from ._forest_messages import ForestMessages
from ._rows import correct_per_fold, correct_per_fold_swapped, fold_counts, gather_rows, training_counts
from .joins import compact_join, needs_sum, supernode_log_likelihood

# log(1e-300): pybnc's floor for a probability of zero (pybnc.parameters.learn).
_LOG_FLOOR = np.log(1e-300)
# Memoised per-row contributions (n_rows x K float64 each) are evicted beyond this.
_CONTRIBUTION_BUDGET = 512 << 20


def stratified_folds(y: np.ndarray, n_folds: int, rng) -> np.ndarray:
    """Fold of each row, bnclassify's stratification: each class spread evenly over folds.

    For every class, a random permutation of the fold ids is repeated to the class's
    size and shuffled, so fold sizes within a class differ by at most one.

    Examples
    --------
    >>> import numpy as np
    >>> folds = stratified_folds(np.array([0] * 6 + [1] * 4), 2, np.random.RandomState(0))
    >>> np.bincount(folds[:6]).tolist(), np.bincount(folds[6:]).tolist()
    ([3, 3], [2, 2])
    """
    fold = np.empty(y.shape[0], dtype=np.int64)
    for c in np.flatnonzero(np.bincount(y)):  # the classes present (np.unique's, without its sort)
        rows = np.flatnonzero(y == c)
        ids = np.tile(rng.permutation(n_folds), -(-rows.size // n_folds))[: rows.size]  # np.resize's values
        fold[rows] = rng.permutation(ids)
    return fold


def sum_terms(terms, start=0):
    """``sum(terms, start)``: the same additions in the same order, into one new array
    (``sum`` builds a new array at every term)."""
    total, owned = start, False
    for term in terms:
        if owned:
            total += term
        else:
            total, owned = total + term, True
    return total


def _log_ratio(numerator, denominator, r_full: float, overwrite: bool = False) -> np.ndarray:
    """:func:`pybnc.parameters.learn.log_ratio` computed as two logs and a difference:
    fewer passes than dividing first, over the many large tables a search builds (equal
    to rounding); ``overwrite`` writes them into ``numerator`` (no new array)."""
    empty = denominator <= 0
    any_empty = bool(empty.any())
    with np.errstate(divide="ignore"):
        out = np.log(numerator, out=numerator if overwrite else None)
        out -= np.log(np.where(empty, 1.0, denominator) if any_empty else denominator)
    np.maximum(out, _LOG_FLOOR, out=out)
    if any_empty:
        out = np.where(empty, -np.log(max(r_full, 1.0)), out)  # r_full = 0: an empty table
    return out


def log_theta(n_ijk, method: str, alpha: float, r_full: float, q_full: float, n_classes: int,
              marginal=None, overwrite: bool = False) -> np.ndarray:
    """Log ``P(x | class, parents)`` from family counts ``(..., r)``, as :mod:`pybnc.parameters.learn`.

    ``r_full`` is the number of levels of the child even when only ``r`` of them are
    listed (a joined feature lists only its observed combinations; the others have
    zero counts), so the Dirichlet normaliser stays ``N_ij + r_full * alpha``.
    ``overwrite`` computes the table in the memory of ``n_ijk`` (a search's tables can be
    as large as its per-row arrays).
    """
    prior, prior_total = pseudo_counts(method, alpha, r_full, q_full, n_classes, marginal)
    denominator = n_ijk.sum(axis=-1, keepdims=True) + prior_total
    numerator = np.add(n_ijk, prior, out=n_ijk if overwrite else None)
    return _log_ratio(numerator, denominator, r_full, overwrite=True)


class _BudgetCache(OrderedDict):
    """Least-recently-used memo of arrays, bounded in bytes."""

    def __init__(self, budget: int):
        super().__init__()
        self.budget, self.used = budget, 0

    def get(self, key, default=None):
        if key in self:
            self.move_to_end(key)
            return super().__getitem__(key)
        return default

    def __setitem__(self, key, value):
        if key in self:
            self.used -= super().__getitem__(key).nbytes
        super().__setitem__(key, value)
        self.used += value.nbytes
        while self.used > self.budget and len(self) > 1:
            _, old = self.popitem(last=False)
            self.used -= old.nbytes

    def get_or(self, key, make):
        value = self.get(key)
        if value is None:
            value = self[key] = make()
        return value


class _RowBlocks:
    """Uninitialised ``(K, n)`` arrays carved from blocks of 16 MiB, for the scorer's memos.

    A search keeps hundreds of such arrays and drops them all at its end. Each of its own
    would be mapped fresh and faulted in 4 KiB at a time, on every fit; a block is advised
    into huge pages by numpy and reused by the allocator across fits. Short-lived arrays
    (a candidate's totals) stay with the allocator, which hands back memory still in cache.
    """

    BLOCK = 2 << 20  # float64 cells: 16 MiB

    def __init__(self, shape: tuple):
        self.shape, self.size = shape, int(np.prod(shape))
        self._block, self._used = None, 0

    def empty(self) -> np.ndarray:
        if 2 * self.size > self.BLOCK:  # a large array is a block of its own
            return np.empty(self.shape)
        if self._block is None or self._used + self.size > self._block.size:
            self._block, self._used = np.empty(self.BLOCK), 0
        out = self._block[self._used: self._used + self.size].reshape(self.shape)
        self._used += self.size
        return out


class CVScorer:
    """Stratified k-fold CV accuracy of augmented and semi-naive Bayes, computed incrementally.

    Parameters
    ----------
    codes : ndarray (n, d) of int, ``-1`` missing
    y : ndarray (n,) of class codes
    cardinalities : ndarray (d,)
    n_classes : int
    folds : int or ndarray (n,) of int
        A number of stratified folds (:func:`stratified_folds`, drawn from ``rng``) or
        the fold of each row, ``0 .. F - 1``.
    rng : numpy RandomState
    method, alpha : parameter learner, as :func:`pybnc.parameters.learn.learn_parameters`
    memory : int, default=512 MiB
        Bytes of per-row arrays the scorer keeps for later moves (the join tables,
        eliminations and forest messages a quarter of it each), the least recently used
        dropped beyond it.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.structure import Structure
    >>> x = np.array([[0, 0], [1, 1], [0, 1], [1, 0]] * 5); y = x[:, 0] ^ x[:, 1]
    >>> scorer = CVScorer(x, y, np.array([2, 2]), 2, 5, np.random.RandomState(0), "bayes", 1.0)
    >>> nb = scorer.total_for(Structure.naive_bayes(2))
    >>> arc = scorer.change_parents(nb, Structure.naive_bayes(2), {1: (0,)})
    >>> scorer.accuracy(nb) < scorer.accuracy(arc) == 1.0
    True
    """

    def __init__(self, codes, y, cardinalities, n_classes, folds, rng, method, alpha, memory=_CONTRIBUTION_BUDGET):
        self.codes = np.asarray(codes)
        self.y = np.asarray(y, dtype=np.int64)
        self.cardinalities = np.asarray(cardinalities, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.method, self.alpha = method, resolve_alpha(method, alpha)
        if np.ndim(folds) == 0:  # a number of folds, drawn as bnclassify draws them
            self.n_folds = int(folds)
            self.fold = stratified_folds(self.y, self.n_folds, rng)
        else:  # each row's fold, given
            self.fold = np.asarray(folds, dtype=np.int64)
            self.n_folds = int(self.fold.max()) + 1
        self._fold_class = self.fold * self.n_classes + self.y  # the leading index of per-fold counts
        self._fold_major = self.y * self.n_folds + self.fold  # the same, class first (K, F, ...)
        self.fold_sizes = np.bincount(self.fold, minlength=self.n_folds).astype(np.float64)
        # A tiny class can leave a fold empty (each class picks its folds at random): the
        # mean is over the folds that hold rows, else it would be NaN and no move could win.
        self._nonempty = self.fold_sizes > 0
        self._all_nonempty, self._n_nonempty = bool(self._nonempty.all()), int(self._nonempty.sum())
        self._row_weight = self.y.size / (self._n_nonempty * self.fold_sizes[self.fold])  # row_log_loss's
        # Each feature's codes contiguous: every family counted or read back walks columns.
        self._columns = np.ascontiguousarray(self.codes.T)
        self.observed = self.codes >= 0
        self.has_missing = not self.observed.all()
        # A label of each row's missing pattern (variable elimination groups rows by it).
        self.pattern_ids = (np.unique(~self.observed, axis=0, return_inverse=True)[1].ravel()
                            if self.has_missing else np.zeros(self.codes.shape[0], dtype=np.int64))
        n, K, F = self.codes.shape[0], self.n_classes, self.n_folds
        train_class = np.bincount(self.y, minlength=K)[None, :] - np.bincount(
            self.fold * K + self.y, minlength=F * K).reshape(F, K)
        self.class_log_prior = np.stack([class_log_prior(c.astype(float), method, self.alpha) for c in train_class])
        self._tables, self._exp_tables = {}, {}
        self._join_tables = _BudgetCache(memory // 4)
        self._joins = {}
        self._forest = None
        self._observed = None
        self._barren = None
        self._contributions = _BudgetCache(memory)
        self._eliminations = _BudgetCache(memory // 4)
        self._root_messages = _BudgetCache(memory // 4)
        self.n_rows = n
        self._zero_rows = None
        self._row_blocks = _RowBlocks((self.n_classes, n))

    def column(self, i: int) -> np.ndarray:
        """The codes of feature ``i`` (contiguous)."""
        return self._columns[i]

    def new_rows(self, like=None) -> np.ndarray:
        """A ``(K, n)`` array of per-row values to keep (a memo, a search's state): a copy
        of ``like``, else uninitialised."""
        out = self._row_blocks.empty()
        if like is not None:
            np.copyto(out, like)
        return out

    # -- accuracy --------------------------------------------------------------------
    def accuracy(self, jll: np.ndarray) -> float:
        """Mean over folds of each fold's accuracy (bnclassify's ``cv``); a tie goes to the
        first class (argmax's rule)."""
        return self._fold_mean(correct_per_fold(jll, self.y, self.fold, self.n_folds))

    def _fold_mean(self, per_fold: np.ndarray) -> float:
        """Mean over the folds that hold rows of ``per_fold`` (a sum per fold) / the fold's size."""
        # np.mean's own arithmetic (a sum, then a division), without its overhead: it is
        # taken for every candidate.
        if self._all_nonempty:
            return float((per_fold / self.fold_sizes).sum() / self._n_nonempty)
        return float((per_fold[self._nonempty] / self.fold_sizes[self._nonempty]).sum() / self._n_nonempty)

    def accuracy_of(self, total: np.ndarray, plus=(), minus=()) -> float:
        """:meth:`accuracy` of ``total + sum(plus) - sum(minus)`` (added in that order),
        without building it with the compiled kernels: one pass over the rows per
        candidate instead of one per array operation, the same floating-point sums."""
        return self._fold_mean(correct_per_fold(total, self.y, self.fold, self.n_folds, plus, minus))

    def row_log_loss(self, total: np.ndarray, plus=(), minus=()) -> np.ndarray:
        """Each row's ``-log P(true class | x)`` under ``total + sum(plus) - sum(minus)``,
        with its training folds' parameters, times ``n / (folds * its fold's size)``: their
        plain mean is the mean over folds of each fold's mean (as :meth:`accuracy`), the
        cross-validated log-loss of the wrappers' ``stopping="log_loss"``."""
        candidate = sum_terms(plus, total)
        if candidate is total:
            candidate = total.copy()
        if minus:
            candidate -= sum_terms(minus)
        top = candidate.max(axis=0)
        own = candidate[self.y, np.arange(self.n_rows)]
        candidate -= top  # written over the sum: one array for the whole row loss
        np.exp(candidate, out=candidate)
        loss = np.log(candidate.sum(axis=0))
        loss += top
        loss -= own
        return loss * self._row_weight

    def accuracy_swapping_family(self, total: np.ndarray, i: int, parents: tuple, old_parents: tuple) -> float:
        """:meth:`accuracy_of` ``(total, [contribution(i, parents)], [contribution(i, old_parents)])``
        on a table with no missing value, the new family's table read as the rows are
        scored: its per-row array is neither built nor kept (a search scores many more
        families than it accepts)."""
        correct = correct_per_fold_swapped(total, self.log_table(i, parents), self.fold, self._parent_codes(parents),
                                           self.column(i), self.contribution(i, old_parents), self.y, self.fold,
                                           self.n_folds)
        return self._fold_mean(correct)

    def accuracy_adding_member(self, total: np.ndarray, members: tuple, minus: np.ndarray):
        """:meth:`accuracy_of` ``(total, [factor], [minus])``, where ``factor`` is the per-row
        ``log P(x_last | c, x_earlier)`` of ``members``' last member given the others, read
        from its table as the rows are scored (a join scored without building its array).
        ``None`` where that does not apply (missing values, or a table larger than the
        rows): then build the join's contribution."""
        if self.has_missing:
            return None
        small = self._small_member_table(members)
        if small is None:
            return None
        table, parent, child = small
        return self._fold_mean(correct_per_fold_swapped(total, table, self.fold, parent, child, minus, self.y,
                                                        self.fold, self.n_folds))

    # -- moves described by small values (what a search sends to its workers) ----------
    def accuracy_after(self, total: np.ndarray, structure: Structure, changes: dict) -> float:
        """:meth:`accuracy` of :meth:`change_parents` ``(total, structure, changes)``."""
        return self.accuracy(self.change_parents(total, structure, changes))

    def accuracy_changing_parents(self, total: np.ndarray, structure: Structure, changes: dict) -> float:
        """:meth:`accuracy_after`, scored without building the new totals where the table
        has no missing value (the same sums)."""
        if self.has_missing:
            return self.accuracy_after(total, structure, changes)
        if len(changes) == 1:
            (i, parents), = changes.items()
            return self.accuracy_swapping_family(total, i, parents, structure.parents[i])
        plus = [self.contribution(i, p) for i, p in changes.items()]
        minus = [self.contribution(i, structure.parents[i]) for i in changes]
        return self.accuracy_of(total, plus, minus)

    def join_terms(self, added: tuple, removed: tuple, smoothing: str) -> tuple:
        """The :meth:`join_contribution` arrays of the supernodes a move adds and removes."""
        return ([self.join_contribution(s, smoothing) for s in added],
                [self.join_contribution(s, smoothing) for s in removed])

    def accuracy_of_joins(self, total: np.ndarray, added: tuple, removed: tuple, smoothing: str,
                          member=None) -> float:
        """:meth:`accuracy_of` the supernodes ``added`` and ``removed``. ``member``,
        ``(members, lone)``: the move adds the last of ``members`` to the others and removes
        the supernode ``lone`` (``None``: nothing), scored from the member's table where
        :meth:`accuracy_adding_member` can."""
        if member is not None and smoothing == "per_table":
            members, lone = member
            minus = self.zero_rows() if lone is None else self.join_contribution(lone, smoothing)
            score = self.accuracy_adding_member(total, members, minus)
            if score is not None:
                return score
        return self.accuracy_of(total, *self.join_terms(added, removed, smoothing))

    def zero_rows(self) -> np.ndarray:
        """A ``(K, n)`` array of zeros (kept): the contribution of nothing."""
        if self._zero_rows is None:
            self._zero_rows = np.zeros((self.n_classes, self.n_rows))
        return self._zero_rows

    def prior_total(self) -> np.ndarray:
        """``log P(c)`` of each row's training folds: the total of a model without features."""
        return self.class_log_prior.T[:, self.fold]

    # -- families of original features ----------------------------------------------
    def _fold_family_counts(self, i: int, parents: tuple) -> np.ndarray:
        """Training-fold counts ``N(c, pa_i, x_i)``, shape ``(F, K, q, r)``: one pass over
        the rows counts every fold; a fold's training counts are all minus its own."""
        F, K = self.n_folds, self.n_classes
        q = int(np.prod(self.cardinalities[list(parents)])) if parents else 1
        r = int(self.cardinalities[i])
        per_fold = fold_counts(self._fold_class, F * K, self._parent_codes(parents), q, self.column(i),
                               r).reshape(F, K, q, r)
        return np.subtract(per_fold.sum(axis=0, keepdims=True), per_fold, out=per_fold)

    def _parent_codes(self, parents: tuple) -> np.ndarray:
        """Each row's parent configuration (:func:`~pybnc.inference.forest.parent_configuration`),
        ``-1`` where a parent is missing."""
        if len(parents) == 1:
            return self.column(parents[0])
        config = parent_configuration(self.codes, parents, self.cardinalities)
        if parents and self.has_missing:
            config[~self.observed[:, list(parents)].all(axis=1)] = -1
        return config

    def _fold_marginal(self, child_codes: np.ndarray, levels: int) -> np.ndarray:
        """Friedman's ``N(x) / N`` per training fold, over rows where the child is observed."""
        keep = child_codes >= 0
        per_fold = np.bincount(self.fold[keep] * levels + child_codes[keep],
                               minlength=self.n_folds * levels).reshape(self.n_folds, levels).astype(float)
        train = per_fold.sum(axis=0, keepdims=True) - per_fold
        sums = train.sum(axis=1, keepdims=True)
        return np.where(sums > 0, train / np.where(sums > 0, sums, 1.0), 1.0 / levels)[:, None, None, :]

    def log_table(self, i: int, parents: tuple) -> np.ndarray:
        """Training-fold log CPT of feature ``i`` given ``parents``, shape ``(F, K, q, r_i)``."""
        key = (i, parents)
        if key not in self._tables:
            r = int(self.cardinalities[i])
            q = float(np.prod(self.cardinalities[list(parents)])) if parents else 1.0
            marginal = self._fold_marginal(self.column(i), r) if self.method == "friedman" else None
            self._tables[key] = log_theta(self._fold_family_counts(i, parents), self.method, self.alpha,
                                          r, q, self.n_classes, marginal, overwrite=True)
        return self._tables[key]

    def exp_table(self, i: int, parents: tuple) -> np.ndarray:
        """``exp`` of :meth:`log_table` (memoised): the probabilities themselves."""
        key = (i, parents)
        if key not in self._exp_tables:
            self._exp_tables[key] = np.exp(self.log_table(i, parents))
        return self._exp_tables[key]

    def contribution(self, i: int, parents: tuple) -> np.ndarray:
        """``log P(x_i | c, parents)`` per row and class, 0 where the family is not fully observed."""
        return self._contributions.get_or(("feature", i, parents), lambda: gather_rows(
            self.log_table(i, parents), self.fold, self._parent_codes(parents), self.column(i),
            out=self.new_rows(), add=False))

    def total_for(self, structure: Structure) -> np.ndarray:
        """Exact per-row ``log P(x_observed, c)`` of a structure over all its features."""
        total = self.prior_total() + sum_terms(self.contribution(i, p) for i, p in enumerate(structure.parents))
        if self.has_missing:
            hard = self._rows_with_missing_parents_or_children(structure)
            if hard.size:
                total[:, hard] = self.exact_rows(hard, structure).T
        return total

    def _rows_with_missing_parents_or_children(self, structure: Structure) -> np.ndarray:
        has_child = np.zeros(structure.n_features, dtype=bool)
        for parents in structure.parents:
            has_child[list(parents)] = True
        hard = np.zeros(self.n_rows, dtype=bool)
        for i, parents in enumerate(structure.parents):
            if parents:
                hard |= self.observed[:, i] & ~self.observed[:, list(parents)].all(axis=1)
            if has_child[i]:
                hard |= ~self.observed[:, i]
        return np.flatnonzero(hard)

    def _observed_sum(self, structure: Structure) -> np.ndarray:
        """``log P(c)`` plus every fully observed family's term, per row: the part of the
        total that needs no inference (kept for the structure last asked about)."""
        if self._observed is None or self._observed[0] != structure:
            total = self.prior_total() + sum_terms(self.contribution(i, p) for i, p in enumerate(structure.parents))
            self._observed = (structure, total)
        return self._observed[1]

    def exact_rows(self, rows: np.ndarray, structure: Structure, observed=None) -> np.ndarray:
        """Exact ``log P(x_observed, c)`` of some rows, each with its own training folds' tables
        (``observed``: their :meth:`_observed_sum`, if known)."""
        tables = [self.log_table(i, p) for i, p in enumerate(structure.parents)]
        if structure.is_one_dependence:
            return _forest_rows_jll(self.codes[rows], structure, self.class_log_prior, tables, self.fold[rows])
        # Every table the scorer learns sums to one over its child (joined features,
        # whose listed levels may not, never reach elimination: they have no parents).
        return eliminate_rows_jll(self.codes[rows], structure, self.class_log_prior, tables,
                                  self.cardinalities, groups=self.fold[rows], normalised=[True] * len(tables),
                                  memo=self._eliminations, observed_jll=observed,
                                  pattern_ids=self.pattern_ids[rows])

    def change_parents(self, total: np.ndarray, structure: Structure, changes: dict) -> np.ndarray:
        """Per-row totals after giving each feature ``i`` in ``changes`` the parents ``changes[i]``.

        Rows where every changed family is observed, or whose changed feature is missing
        with nothing observed below it, are updated by difference; the rest exactly
        (cached forest messages when trees are hung under one feature, else inference).
        """
        new_parents = list(structure.parents)
        new = None
        for i, parents in changes.items():  # all additions, then all subtractions (accuracy_of's order)
            if new is None:
                new = total + self.contribution(i, parents)
            else:
                new += self.contribution(i, parents)
            new_parents[i] = tuple(parents)
        if new is None:
            new = total.copy()
        for i in changes:
            new -= self.contribution(i, structure.parents[i])
        if not self.has_missing:
            return new
        new_parent = {p for parents in changes.values() for p in parents}
        if (len(new_parent) == 1 and all(not structure.parents[i] and len(p) == 1 for i, p in changes.items())
                and self._below(structure)[0]):
            # Trees hung under one feature (TAN-HC, TAN-HCSP): nothing new below a hung root,
            # so its rows are local where it and its new parent are observed or it sums out
            # to one as before; the rest exactly, by cached forest messages.
            parent = new_parent.pop()
            local = np.ones(self.n_rows, dtype=bool)
            for i in changes:
                local &= (self.observed[:, i] & self.observed[:, parent]) | self._barren_rows(structure, i)
            hard = np.flatnonzero(~local)
            if hard.size:
                if self._forest is None or self._forest.structure != structure:
                    self._forest = ForestMessages(self, structure, previous=self._forest, memo=self._root_messages)
                new[:, hard] = total[:, hard] + self._forest.hang_roots(hard, parent, list(changes)).T
            return new
        new_structure = Structure(tuple(new_parents))
        children = [set() for _ in range(structure.n_features)]
        for s in (structure, new_structure):
            for p, v in s.arcs:
                children[p].add(v)
        local = np.ones(self.n_rows, dtype=bool)
        for i in changes:
            family = sorted({i, *structure.parents[i], *new_parents[i]})
            # A missing feature with nothing observed below it sums out to one either way.
            local &= self.observed[:, family].all(axis=1) | self._barren_under(children, i)
        hard = np.flatnonzero(~local)
        if hard.size == 0:
            return new
        observed = self._observed_sum(structure)[:, hard]
        for i, parents in changes.items():
            observed += self.contribution(i, parents)[:, hard] - self.contribution(i, structure.parents[i])[:, hard]
        new[:, hard] = self.exact_rows(hard, new_structure, observed.T).T
        return new

    def _below(self, structure: Structure) -> tuple:
        """``(is_one_dependence, children, barren masks)`` of the structure last asked
        about (the moves of a search step share it)."""
        if self._barren is None or self._barren[0] != structure:
            children = [[] for _ in range(structure.n_features)]
            for p, v in structure.arcs:
                children[p].append(v)
            self._barren = (structure, (structure.is_one_dependence, children, {}))
        return self._barren[1]

    def _barren_rows(self, structure: Structure, i: int) -> np.ndarray:
        """Rows where feature ``i`` is missing with nothing observed below it in
        ``structure``: it sums out to one."""
        _, children, masks = self._below(structure)
        if i not in masks:
            masks[i] = self._barren_under(children, i)
        return masks[i]

    def _barren_under(self, children: list, i: int) -> np.ndarray:
        """Rows where feature ``i`` is missing and so is everything below it in the arcs
        ``children`` (each feature's children)."""
        below, stack = set(), list(children[i])
        while stack:
            v = stack.pop()
            if v not in below:
                below.add(v)
                stack.extend(children[v])
        mask = ~self.observed[:, i]
        if below:
            mask &= ~self.observed[:, sorted(below)].any(axis=1)
        return mask

    # -- joined features (supernodes of FSSJ and BSEJ) ---------------------------------
    def chain(self, members: tuple) -> tuple:
        """``(codes, keys)`` of the ordered members' last prefix over all rows (memoised per
        prefix, so joins that share a prefix share its coding); ``keys`` is ``None`` for
        one member."""
        if members not in self._joins and len(members) == 1:
            self._joins[members] = self.column(members[0]).astype(np.int64), None
        if members not in self._joins:
            previous, _ = self.chain(members[:-1])
            self._joins[members] = compact_join(previous, self.column(members[-1]),
                                                int(self.cardinalities[members[-1]]))
        return self._joins[members]

    def _chain_keys(self, members: tuple) -> list:
        return [self.chain(members[: j + 1])[1] for j in range(1, len(members))]

    def _fold_table(self, parent, n_parent, child, levels, r_full, q_full) -> np.ndarray:
        """Training-fold log table ``(F, K, n_parent, levels)`` of ``child`` given ``parent``."""
        F, K = self.n_folds, self.n_classes
        per_fold = fold_counts(self._fold_class, F * K, parent, n_parent, child, levels).reshape(F, K, n_parent, levels)
        train = np.subtract(per_fold.sum(axis=0, keepdims=True), per_fold, out=per_fold)
        marginal = self._fold_marginal(child, levels) if self.method == "friedman" else None
        return log_theta(train, self.method, self.alpha, r_full, q_full, self.n_classes, marginal, overwrite=True)

    def join_tables(self, members: tuple, smoothing: str) -> list:
        """The training-fold tables of a supernode, one per factor of
        :func:`~pybnc.search.joins.table_factors` (memoised)."""
        cards = self.cardinalities
        if smoothing == "product":
            def product_table():
                codes, keys = self.chain(members)
                levels = int(cards[members[0]]) if keys is None else keys.size + 1
                return self._fold_table(np.zeros(self.n_rows, dtype=np.int64), 1, codes, levels,
                                        float(np.prod(cards[list(members)].astype(float))), 1.0)

            return [self._join_tables.get_or(("product", members), product_table)]

        return [self.log_table(members[0], ())] + [self._member_table(members[: j + 1])
                                                    for j in range(1, len(members))]

    def _member_table(self, members: tuple) -> np.ndarray:
        """Training-fold table of the last member given the earlier ones (memoised)."""
        def make():
            parent, parent_keys = self.chain(members[:-1])
            cards = self.cardinalities
            n_parent = int(cards[members[0]]) if parent_keys is None else parent_keys.size + 1
            child = members[-1]
            return self._fold_table(parent, n_parent, self.column(child), int(cards[child]), float(cards[child]),
                                    float(np.prod(cards[list(members[:-1])].astype(float))))

        return self._join_tables.get_or(("member", members), make)

    def _small_member_table(self, members: tuple):
        """``(table, parent codes, child codes)`` of the last member of ``members`` given the
        others when its training-fold table is no larger than the rows (then it is smoothed
        whole and read per row), else ``None``."""
        parent, parent_keys = self.chain(members[:-1])
        q = int(self.cardinalities[members[0]]) if parent_keys is None else parent_keys.size + 1
        if self.n_folds * q * int(self.cardinalities[members[-1]]) > self.n_rows:
            return None
        return self._member_table(members), parent, self.column(members[-1])

    def _add_member_factor(self, members: tuple, out: np.ndarray) -> None:
        """``out +=`` :meth:`_member_factor` ``(members)``, reading a small table straight into
        ``out`` (the same sums, without the factor's own array)."""
        small = self._small_member_table(members)
        if small is None:
            out += self._member_factor(members)
        else:
            gather_rows(small[0], self.fold, small[1], small[2], out=out)

    def _member_factor(self, members: tuple) -> np.ndarray:
        """Per-row ``log P(x_last | c, x_earlier members)`` of the last member of ``members``
        given the others (0 unless all are observed), memoised per prefix."""
        def make():
            small = self._small_member_table(members)
            if small is not None:
                return gather_rows(small[0], self.fold, small[1], small[2], out=self.new_rows(), add=False)
            parent, parent_keys = self.chain(members[:-1])
            child = self.column(members[-1])
            q = int(self.cardinalities[members[0]]) if parent_keys is None else parent_keys.size + 1
            r = int(self.cardinalities[members[-1]])
            K, F = self.n_classes, self.n_folds
            ok = (parent >= 0) & (child >= 0)
            # A table larger than the rows (long joins): each row needs one cell of its
            # training folds' table. Count per fold, take the row's cell and parent
            # configuration (training = all - own fold), smooth only those (K, n) values.
            # The cells are the members' combinations that occur (the chain's labels), so
            # the counts have at most K x F x rows entries, however large q x r.
            cell, cell_keys = self.chain(members)  # -1 exactly where ok is False
            if cell_keys.size == 0:  # no row has every member observed: the factor is 0 everywhere
                return np.zeros((K, self.n_rows))
            n_cells, every = cell_keys.size, np.zeros(self.n_rows, dtype=np.int8)
            parent = parent if ok.all() else np.where(ok, parent, -1)
            per_cell = fold_counts(self._fold_major, K * F, cell, n_cells, every, 1).reshape(K, F, n_cells)
            per_parent = fold_counts(self._fold_major, K * F, parent, q, every, 1).reshape(K, F, q)
            n_cell = training_counts(per_cell, np.maximum(cell, 0), self.fold)
            n_parent = training_counts(per_parent, np.maximum(parent, 0), self.fold)
            marginal = None
            if self.method == "friedman":
                marginal = self._fold_marginal(child, r)[:, 0, 0, :][self.fold, np.maximum(child, 0)]
            q_full = float(np.prod(self.cardinalities[list(members[:-1])].astype(float)))
            prior, prior_total = pseudo_counts(self.method, self.alpha, float(r), q_full, K, marginal)
            np.add(n_parent, prior_total, out=n_parent)
            out = _log_ratio(np.add(n_cell, prior, out=n_cell), n_parent, float(r), overwrite=True)
            if self.has_missing:
                out[:, ~ok] = 0.0
            return out

        return self._contributions.get_or(("member", members), make)

    def join_contribution(self, members: tuple, smoothing: str = "per_table") -> np.ndarray:
        """Exact ``log P(x_observed members | c)`` per row and class of a supernode
        (``members`` in their order; the product's order does not matter)."""
        if len(members) == 1:
            return self.contribution(members[0], ())
        if smoothing == "product":
            members = tuple(sorted(members))

        def make():
            if smoothing == "per_table":
                # Start from the longest prefix already scored (a BSEJ join b + a starts
                # from b): its rows with a missing member before an observed one are
                # recomputed below anyway, the others are sums of the same factors.
                start = next((j for j in range(len(members) - 1, 1, -1)
                              if ("join", smoothing, members[:j]) in self._contributions), 1)
                first = self._contributions.get(("join", smoothing, members[:start])) if start > 1 else None
                out = self.new_rows(self.contribution(members[0], ()) if first is None else first)
                for j in range(start, len(members)):  # the same additions in the same order
                    self._add_member_factor(members[: j + 1], out)
            else:
                out = gather_rows(self.join_tables(members, smoothing)[0], self.fold, np.zeros(self.n_rows, int),
                                  self.chain(members)[0])
            if self.has_missing:
                x = self.codes[:, list(members)]
                hard = needs_sum(x < 0, smoothing)
                if hard.any():
                    out[:, hard] = supernode_log_likelihood(
                        x[hard], self.cardinalities[list(members)], self._chain_keys(members),
                        self.join_tables(members, smoothing), smoothing, self.fold[hard]).T
            return out

        return self._contributions.get_or(("join", smoothing, members), make)
