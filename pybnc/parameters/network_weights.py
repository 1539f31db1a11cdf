"""Discriminative weights of a network's tables: naive Bayes, TAN, FAN, kDB, SKDB.

Every table of the network is a block of cells: cell 0 the class prior, then each
feature's table (parent configuration major) and, for a feature with parents, its
back-off table ``P(x_i | c)``. A row reads the prior and one cell per observed
feature; :func:`fit_network_weights` fits one weight per cell and class with
:func:`pybnc.parameters.discriminative.fit_weights`.

Missing values
--------------
A missing feature contributes nothing: its own cell is not read. For naive Bayes
this is exactly what summing it out does (its table sums to one), so at ``w = 1`` the
scores are the generative model's on every row. A feature whose parent is missing
reads its *back-off* cell ``log P(x_i | c)`` (the naive Bayes table, weighted like any
other cell) when back-off tables are given, else nothing: the weighted tables are not
distributions, so the missing parent is not summed out (at ``w = 1`` the score of such
a row is that of the network with the arc removed, not the exact marginal;
``docs/missing-values.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ..structure.dag import Structure
from .discriminative import DEFAULT_MAX_ITER, RowDesign, design_scores, fit_weights, merge_rows, with_base


@dataclass(frozen=True)
class NetworkCells:
    """Where each table of a network sits among the cells.

    Cell 0 is the class prior; feature ``i``'s table (``q_i * r_i`` cells, parent
    configuration major) starts at ``table_start[i]``; its back-off table ``P(x_i | c)``
    (``r_i`` cells, features with parents only) at ``back_off_start[i]`` (-1: none).
    ``features`` are the features that take part (SKDB leaves some out).
    """

    structure: Structure
    cardinalities: np.ndarray
    table_start: np.ndarray
    back_off_start: np.ndarray
    features: np.ndarray
    n_cells: int


#: Networks of at most this many cells (times classes) are read from one array of all
#: their tables, built once: cheaper than a gather per table where the tables are many
#: and small (thousands of columns).
_JOINED_CELLS = 1 << 22


class GatheredCells:
    """The network's log tables read at the cells asked for: ``values(cells)`` is the
    ``(K, len(cells))`` of :func:`network_cells`'s array, without that array being built
    for a large network (a kDB family of two many-levelled parents holds millions of
    cells, a few hundred read)."""

    def __init__(self, blocks: list, starts: np.ndarray):
        self.blocks, self.starts = blocks, starts
        self._joined = None

    def __call__(self, cells) -> np.ndarray:
        cells = np.asarray(cells, dtype=np.int64)
        k = self.blocks[0].shape[0]
        if k * (int(self.starts[-1]) + self.blocks[-1].shape[1]) <= _JOINED_CELLS:
            if self._joined is None:
                self._joined = np.concatenate(self.blocks, axis=1)
            return self._joined[:, cells]
        out = np.empty((k, cells.size))
        block = np.searchsorted(self.starts, cells, side="right") - 1
        order = np.argsort(block, kind="stable")  # each table's cells together, one gather per table
        tables, first = np.unique(block[order], return_index=True)
        for b, lo, hi in zip(tables, first, np.append(first[1:], cells.size)):
            mine = order[lo:hi]
            out[:, mine] = self.blocks[b][:, cells[mine] - self.starts[b]]
        return out


def network_cells(structure: Structure, class_log_prior, log_cpts, back_off=None, features=None,
                  gathered: bool = False):
    """The network's log tables as one ``(K, n_cells)`` array, and their layout.

    Parameters
    ----------
    structure : Structure
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray of shape (K, q_i, r_i)
    back_off : list of ndarray of shape (K, r_i), optional
        ``log P(x_i | c)``, read for an observed feature whose parent is missing.
    features : array-like of int, optional
        The features that take part (default all).
    gathered : bool, default=False
        Return the values as a :class:`GatheredCells` (read cell by cell, as
        :func:`~pybnc.parameters.discriminative.fit_weights` accepts them) rather than one array.

    Returns
    -------
    log_values : ndarray of shape (K, n_cells), or GatheredCells
    layout : NetworkCells
    """
    d = structure.n_features
    cards = np.array([np.asarray(t).shape[2] for t in log_cpts], dtype=np.int64)
    k = np.asarray(class_log_prior).shape[0]
    blocks = [np.asarray(class_log_prior, dtype=np.float64)[:, None]]
    table_start = np.full(d, -1, dtype=np.int64)
    back_off_start = np.full(d, -1, dtype=np.int64)
    used = np.arange(d) if features is None else np.sort(np.asarray(features, dtype=np.int64))
    at = 1
    for i in used:
        table = np.asarray(log_cpts[i], dtype=np.float64)
        table_start[i] = at
        blocks.append(table.reshape(k, -1))
        at += blocks[-1].shape[1]
        if back_off is not None and structure.parents[i]:
            back_off_start[i] = at
            blocks.append(np.asarray(back_off[i], dtype=np.float64).reshape(k, -1))
            at += blocks[-1].shape[1]
    layout = NetworkCells(structure, cards, table_start, back_off_start, used, at)
    if gathered:
        return GatheredCells(blocks, np.cumsum([0] + [b.shape[1] for b in blocks[:-1]])), layout
    return np.concatenate(blocks, axis=1), layout


def network_design(codes, layout: NetworkCells, y=None, sample_weight=None) -> RowDesign:
    """The cells each row reads: the prior, each observed feature's family cell (its back-off
    cell when a parent is missing, nothing without back-off)."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    cards = layout.cardinalities
    columns = [np.zeros(n, dtype=np.int64)]
    present = [np.ones(n, dtype=bool)]
    for i in layout.features:
        observed = codes[:, i] >= 0
        cell = np.maximum(codes[:, i], 0).astype(np.int64)
        complete = observed.copy()
        config = np.zeros(n, dtype=np.int64)
        for p in layout.structure.parents[i]:  # row-major over the parents in increasing index
            config = config * cards[p] + np.maximum(codes[:, p], 0)
            complete &= codes[:, p] >= 0
        family = layout.table_start[i] + config * cards[i] + cell
        if layout.back_off_start[i] >= 0:
            family = np.where(complete, family, layout.back_off_start[i] + cell)
            complete = observed
        columns.append(family)
        present.append(complete)
    present = np.column_stack(present)
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))])
    matrix = scipy.sparse.csr_matrix((np.ones(int(indptr[-1])), np.column_stack(columns)[present], indptr),
                                     shape=(n, layout.n_cells))
    y = np.zeros(n, dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return RowDesign(matrix, y, weight)


def fit_network_weights(structure: Structure, class_log_prior, log_cpts, codes, y, back_off=None, features=None,
                        penalty: float = 1.0, sample_weight=None, max_iter: int = DEFAULT_MAX_ITER,
                        tol: float = 1e-7, generative=None):
    """Discriminative weights of a network's tables: the pure learner of the estimators.

    Parameters
    ----------
    structure : Structure
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray of shape (K, q_i, r_i)
        The generative log tables (the starting point).
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    y : ndarray of shape (n,), int
    back_off : list of ndarray of shape (K, r_i), optional
        ``log P(x_i | c)``, read where a feature's parent is missing.
    features : array-like of int, optional
        The features that take part (default all).
    penalty, max_iter, tol
        See :func:`~pybnc.parameters.discriminative.fit_weights`.
    sample_weight : ndarray of shape (n,), optional
    generative : callable, optional
        ``generative(codes)``: the network's exact log joint ``(n, K)`` (missing values
        summed out). A row then scores ``generative(x) + sum (w - 1) log theta`` over its
        cells, so weights of 1 give the generative model on every row; without it a row
        scores the sum of its cells (the same on complete rows).

    Returns
    -------
    DiscriminativeFit
        Score rows with :func:`network_scores` (the same ``generative``).

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> from pybnc.parameters.learn import learn_parameters
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> x = np.where(rng.random(400) < 0.8, y, 1 - y)
    >>> codes = np.column_stack([x, x, x])  # one feature three times: naive Bayes triple-counts it
    >>> s = Structure.naive_bayes(3)
    >>> t = learn_parameters(s, count(codes, y, [2, 2, 2], 2), "bayes")
    >>> fit = fit_network_weights(s, t.class_log_prior, t.log_cpts, codes, y, penalty=0.1)
    >>> scores = network_scores(codes, s, t.class_log_prior, t.log_cpts, fit=fit)
    >>> bool(fit.converged), round(float(np.mean(scores.argmax(1) == y)), 2)
    (True, 0.8)
    """
    log_values, layout = network_cells(structure, class_log_prior, log_cpts, back_off, features, gathered=True)
    codes, y, weight = merge_rows(codes, y, sample_weight)
    design = network_design(codes, layout, y, weight)
    if generative is not None:
        design = with_base(design, generative(codes), log_values)
    return fit_weights(log_values, [design], penalty, max_iter, tol, n_cells=layout.n_cells)


def network_scores(codes, structure: Structure, class_log_prior, log_cpts, back_off=None, features=None, fit=None,
                   generative=None):
    """``score(c | x)`` of every row, shape ``(n, K)``.

    Without ``fit``: the sum of the cells the row reads (:func:`network_design`), the
    generative log joint on complete rows. With ``fit``
    (:func:`fit_network_weights`): ``generative(codes)`` (or that sum) plus
    ``sum (w - 1) log theta`` over the row's cells.
    """
    log_values, layout = network_cells(structure, class_log_prior, log_cpts, back_off, features, gathered=True)
    matrix = network_design(codes, layout).matrix
    if fit is None:
        return design_scores(matrix, log_values)
    base = generative(codes) if generative is not None else design_scores(matrix, log_values)
    return base + design_scores(matrix, fit.deltas(log_values))
