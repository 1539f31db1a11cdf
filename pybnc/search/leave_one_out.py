"""SKDB's third pass: the leave-one-out loss of every candidate model, from the counts.

Removing row ``x`` with class ``y`` lowers ``N(y, pa(x), x_i)`` and ``N(y, pa(x))`` by
one and nothing else (and the number of rows by one, for the class prior), so each
row's held-out posterior under every candidate (the first ``s`` features of the
order, each with its first ``k'`` ranked parents) is read from the total counts.
Each family's factors for every ``k'`` are tabled once per fit over all its cells, as
the row's own class sees them and as the other classes do (:class:`_FactorLookup`);
the candidates grow one feature at a time along the order, so one running product per
``k'`` scores them all. The products are kept as each class's odds against the row's
own class, ``P(c, x) / P(y, x)``: the loss needs their sum alone, and a product of
odds needs no exponential per row and candidate (numpy's double ``exp`` is not
vectorised on most processors). Used by :class:`pybnc.SKDB`.

With the compiled kernel a family's factors are read from its non-zero cells through
hash tables of at most as many keys as rows, and no table over all cells is built (the
same floats: ``tests/test_family_counts.py``).
"""

from __future__ import annotations

import numpy as np

from .._utils.native import load_kernels
from ..counts.families import FamilyCounts, nonzero_cells, sum_over
from ..parameters.learn import ratio

_native = load_kernels("pybnc.search._leave_one_out_c")

# Rows held at once: (K, k + 1, rows) float64 arrays.
_BLOCK_CELLS = 1 << 22


def _theta(num: np.ndarray, den: np.ndarray, r: int, alpha: float, overwrite: bool = False) -> np.ndarray:
    """``(N + a) / (N_parent + r a)``, uniform where the denominator is 0 (as
    :func:`pybnc.parameters.learn.conditional_log_table`); ``overwrite``: ``num`` and
    ``den`` may be written over."""
    if alpha > 0 and overwrite:  # no denominator is 0: the same floats, without temporaries
        num += alpha
        den += r * alpha
        num /= den
        return np.maximum(num, 1e-300, out=num)
    return ratio(num + alpha, den + r * alpha, max(r, 1))


def _sub_tables(full: np.ndarray, n_parents: int, occupied=None):
    """For ``k' = 0 .. n_parents``: the family table with the last parents summed out
    (missing slots kept), and its sum over the child's observed levels (``occupied``:
    see :attr:`FamilyCounts.occupied <pybnc.counts.families.FamilyCounts>`)."""
    cells = nonzero_cells(full, occupied)
    child = full.ndim - 1
    if cells is not None:  # each table from the non-zero cells of the full one
        coords, values = cells
        observed = coords[child] < full.shape[-1] - 1  # the child's last slot is "missing"
        observed_cells = tuple(c[observed] for c in coords), values[observed]
        out = []
        for kept in range(n_parents + 1):
            dropped = range(1 + kept, 1 + n_parents)
            table = sum_over(full, dropped, cells) if kept < n_parents else full
            out.append((table, sum_over(full, (*dropped, child), observed_cells)))
        return out
    out = []
    table = full
    for kept in range(n_parents, -1, -1):  # each table from the next larger one: the full one is summed once
        if kept < n_parents:
            table = table.sum(axis=1 + kept)
        out.append((table, table[..., :-1].sum(axis=-1)))
    return out[::-1]


class _FactorLookup:
    """``P(x_i | c, first k' parents)`` of one family as a held-out row sees it.

    A row's class ``y`` sees its own counts lowered by one (``own``); the other classes
    see the totals (``other``); a factor with a missing child or used parent is 1 (left
    out). Read from tables over all cells (built once per fit) when there are no more
    cells than rows to score, else computed at the rows' cells: the same floats.
    """

    def __init__(self, table, parent_total, r: int, alpha: float, leave_out: bool, max_cells: float):
        n_classes = table.shape[0]
        self.slots = table.shape[1:]  # levels + 1 (missing) of each used parent, then of the child
        self.num = table.reshape(n_classes, -1)  # (K, cells)
        self.den = parent_total.reshape(n_classes, -1)  # (K, parent configurations)
        self.r, self.alpha, self.leave_out = r, alpha, leave_out
        self.other = self.own = None
        if self.num.shape[1] <= max_cells:
            den = np.repeat(self.den, self.slots[-1], axis=1)
            observed = np.ones((), dtype=bool)
            for size in self.slots:  # the last slot of every axis is "missing"
                observed = np.logical_and.outer(observed, np.arange(size) < size - 1)
            observed = observed.ravel()
            self.other = np.where(observed, _theta(self.num, den, r, alpha), 1.0)
            self.own = np.where(observed, _theta(self.num - 1, den - 1, r, alpha), 1.0) if leave_out \
                else self.other

    def __call__(self, config, child, y, observed):
        """Factors at parent configurations ``config`` and child slots ``child``: ``(K, m)``
        for every class (the row's own class as ``own`` sees it) and ``(m,)`` for ``y``."""
        cell = config * self.slots[-1] + child
        m = cell.shape[0]
        if self.other is not None:
            factor = np.take(self.other, cell, axis=1)
            own = np.take(self.own.ravel(), y * self.other.shape[1] + cell)
        else:
            num, den = np.take(self.num, cell, axis=1), np.take(self.den, config, axis=1)
            if self.leave_out:
                num[y, np.arange(m)] -= 1
                den[y, np.arange(m)] -= 1
            factor = np.where(observed, _theta(num, den, self.r, self.alpha, overwrite=True), 1.0)
            own = np.take(factor.ravel(), y * m + np.arange(m))
        if self.leave_out:
            factor.ravel()[y * m + np.arange(m)] = own
        return factor, own


class LookupCache:
    """Lookups of family tables shared by several fits (an ensemble's members): a
    family table's :class:`_FactorLookup` list is built once (they are only read), up to
    ``max_bytes`` of tables kept. Safe between threads (two may build the same entry)."""

    def __init__(self, max_bytes: int = 1 << 28):
        self.max_bytes, self.n_bytes, self._entries = max_bytes, 0, {}

    def get(self, key):
        return self._entries.get(key)

    def put(self, key, lookups: list) -> None:
        size = sum(a.nbytes for lookup in lookups for a in (lookup.num, lookup.other, lookup.own) if a is not None)
        if self.n_bytes + size <= self.max_bytes:
            self._entries[key] = lookups
            self.n_bytes += size


def _table_key(table: np.ndarray, occupied) -> tuple:
    """The bytes that tell ``table`` from another of its shape: its occupied cells and
    their counts where known (a few hundred bytes, not the table's megabytes)."""
    if occupied is None:
        return (table.tobytes(),)
    return occupied.tobytes(), table.ravel()[occupied].tobytes()


def loo_lookups(fc: FamilyCounts, k: int, alpha: float, leave_out: bool = True, max_cells=None,
                cache=None) -> list:
    """The :class:`_FactorLookup` of every family position and ``k' = 0 .. k``, built
    once for all the blocks of a fit (tables of at most ``max_cells`` cells, default
    the number of rows counted); ``cache``, a :class:`LookupCache`, shares them between
    fits. None with the compiled kernel, which reads the family tables themselves."""
    if _native is not None:
        return None
    max_cells = fc.n_rows if max_cells is None else max_cells
    out = []
    for p, (family, occupied) in enumerate(zip(fc.families, fc.occupied_cells())):
        r = int(fc.cardinalities[family[-1]])
        table = fc.tables[p]
        key = None if cache is None else (table.shape, _table_key(table, occupied), r, alpha, leave_out, max_cells)
        lookups = None if key is None else cache.get(key)
        if lookups is None:
            lookups = [_FactorLookup(sub, total, r, alpha, leave_out, max_cells)
                       for sub, total in _sub_tables(table, len(family) - 1, occupied)]
            if key is not None:
                cache.put(key, lookups)
        out.append(lookups)
    return out


def _row_loss(odds: np.ndarray, y: np.ndarray, loss: str, total=None) -> np.ndarray:
    """Loss summed over rows for each candidate; ``odds`` is ``(K, candidates, n)``, each
    class's ``P(c, x) / P(y, x)`` (1 at the row's class ``y``); ``total``: its sum over
    the classes, when known."""
    if loss == "zero_one":  # ties go to the first class, as predict
        return (np.argmax(odds, axis=0) != y).sum(axis=1).astype(np.float64)
    if total is None:
        total = odds.sum(axis=0)  # 1 / P(y | x); inf where the row's class is too unlikely to tell
    if loss == "rmse":
        return ((1.0 - 1.0 / total) ** 2).sum(axis=1)
    return np.minimum(np.log(total), -np.log(1e-15)).sum(axis=1)


def loo_losses(fc: FamilyCounts, order, codes, y, k: int, alpha: float, loss: str,
               leave_out: bool = True, lookups=None) -> np.ndarray:
    """Leave-one-out loss of every candidate model, summed over the rows given.

    Parameters
    ----------
    fc : FamilyCounts
        Counts of all training rows; family ``p`` is ``(ranked parents..., order[p])``.
    order : ndarray of shape (d,)
    codes, y : ndarray
        Training rows (``-1`` missing) and their class codes; any block of them.
    k : int
        Largest number of parents tried.
    alpha : float
        Dirichlet pseudo-count (0 for maximum likelihood).
    loss : {"rmse", "log_loss", "zero_one"}
    leave_out : bool, default=True
        Subtract each row from the counts (the rows are in ``fc``); False scores rows
        that ``fc`` does not hold (``partial_fit``'s new block).
    lookups : list, optional
        :func:`loo_lookups` of ``fc`` with the same ``alpha`` and ``leave_out``: build
        them once for all the blocks.

    Returns
    -------
    ndarray of shape (d + 1, k + 1)
        ``[s, k']``: summed loss of the model with the first ``s`` features of
        ``order``, each with its first ``k'`` ranked parents (row ``0`` is the class
        prior alone, the same for every ``k'``). RMSE is returned as the sum of
        squared errors ``(1 - P(y | x))^2``.
    """
    n_classes = fc.n_classes
    cards = fc.cardinalities
    out = np.zeros((len(order) + 1, k + 1))
    if lookups is None:
        lookups = loo_lookups(fc, k, alpha, leave_out)
    prior_counts = fc.class_counts[:, None]
    n = np.full((1, 1), prior_counts.sum() - float(leave_out))  # a held-out row leaves every class's total
    prior = _theta(prior_counts, n, n_classes, alpha)[:, 0]  # (K,)
    prior_own = _theta(prior_counts - 1, n, n_classes, alpha)[:, 0] if leave_out else prior
    step = max(1, _BLOCK_CELLS // (n_classes * (k + 1)))
    for start in range(0, codes.shape[0], step):
        block = codes[start : start + step]
        yb = np.asarray(y[start : start + step], dtype=np.int64)
        m = block.shape[0]
        rows = np.arange(m)
        odds = np.repeat(prior[:, None], m, axis=1)  # (K, m), then (K, k + 1, m): a row per candidate k'
        own = prior_own[yb]
        odds /= own
        odds[yb, rows] = 1.0
        out[0] += _row_loss(odds[:, None, :], yb, loss)[0]
        odds = np.repeat(odds[:, None, :], k + 1, axis=1)
        slots = np.where(block >= 0, block, cards[None, :]).astype(np.int64)
        if _native is not None:
            total = np.empty((k + 1, m))
            for p, (family, occupied) in enumerate(zip(fc.families, fc.occupied_cells())):
                _native.family_odds(fc.tables[p].reshape(-1), occupied, np.array(fc.tables[p].shape),
                                    np.ascontiguousarray(slots[:, family]), yb, k, float(alpha), leave_out,
                                    odds, total)
                out[p + 1] += _row_loss(odds, yb, loss, total)
            continue
        for p, family in enumerate(fc.families):
            child, parents = family[-1], family[:-1]
            config, observed = np.zeros(m, dtype=np.int64), block[:, child] >= 0
            for kept, lookup in enumerate(lookups[p]):
                if kept:  # one more parent: its slot joins the configuration
                    parent = parents[kept - 1]
                    config = config * (int(cards[parent]) + 1) + slots[:, parent]
                    observed = observed & (block[:, parent] >= 0)
                factor, own_factor = lookup(config, slots[:, child], yb, observed)
                factor /= own_factor  # 1 at the row's class, whose factor is its own
                if kept < len(parents):
                    odds[:, kept] *= factor
                else:  # every candidate k' >= the parents this family has
                    odds[:, kept:] *= factor[:, None, :]
            out[p + 1] += _row_loss(odds, yb, loss)
    return out
