"""Members of an ensemble that cut the numeric columns their own way (ESKDB's
``member_bins="sampled"``) while sharing the categorical columns.

Only the discretised columns differ between such members, so everything else is done
once: the categorical columns are coded once by the fitted encoder and their codes
shared, each numeric column's distinct values are found once (a member codes the
column by cutting those values, not the rows), its class counts per distinct value
are taken once (every stochastic MDL draw starts from them), and the information
between two categorical columns is the shared one. Per member remain the draw, the
numeric columns' codes and the pairs that involve a numeric column.
"""

from __future__ import annotations

import numpy as np

from ..counts.tables import Counts, count, one_hot_offsets, segment_sums
from ..encode.discretize import class_count_table, distinct_midpoints, sampled_mdl_columns
from ..encode import MISSING, as_frame, float_values
from ..scores.information import _xlogx, class_mutual_information, pairwise_cmi

#: Share of the one-hot width held by the numeric columns from which a member counts
#: every pair again rather than those involving a numeric column only: the two cost
#: about alike per pair counted (the rows' product, then a few passes per pair table),
#: the second a little more when it covers every pair.
RECOUNT_ALL_SHARE = 0.9


class NumericValues:
    """The discretised columns of a fitted ``encoder``, read once from a table.

    Attributes
    ----------
    columns : list of int
        The encoder's discretised columns.
    distinct : list of ndarray
        Each one's distinct observed values, increasing.
    index : list of ndarray
        Each row's position among them, ``-1`` where the value is missing.
    boundaries : list of ndarray
        The cuts each column may take: between each two adjacent distinct values.
    """

    def __init__(self, encoder, X):
        frame = as_frame(X)
        items = [col for _, col in frame.items()]
        self.columns, self.distinct, self.index = [], [], []
        for j, kind in enumerate(encoder.kinds_):
            if kind == "discretised":
                values = float_values(items[encoder.positions_[j]], encoder.columns_[j])
                observed = ~np.isnan(values)
                distinct, inverse = np.unique(values[observed], return_inverse=True)
                index = np.full(values.shape[0], -1, dtype=np.int64)
                index[observed] = inverse.ravel()
                self.columns.append(j)
                self.distinct.append(distinct)
                self.index.append(index)
        self.boundaries = [distinct_midpoints(distinct) for distinct in self.distinct]

    def class_tables(self, y: np.ndarray, n_classes: int) -> list:
        """Each column's ``(distinct values, classes)`` row counts."""
        return [class_count_table(index[index >= 0], y[index >= 0], distinct.size, n_classes)
                for distinct, index in zip(self.distinct, self.index)]

    def draw_cut_points(self, class_tables: list, n_columns: int, rng) -> list:
        """New cut points of every discretised column by stochastic MDL, all columns at
        once (:func:`pybnc.encode.discretize.sampled_mdl_columns`), None for the other
        columns."""
        cuts = [None] * n_columns
        for j, drawn in zip(self.columns, sampled_mdl_columns(class_tables, self.boundaries, rng)):
            cuts[j] = drawn
        return cuts

    def code(self, codes: np.ndarray, cuts: list, missing_codes: np.ndarray) -> np.ndarray:
        """``codes`` (coded by the encoder) with column ``j`` recoded by ``cuts[j]`` where
        that is not None, as ``encoder.transform`` codes it: bin
        ``searchsorted(cuts, value, side="right")``, missing values ``missing_codes[j]``
        (the member encoder's) or :data:`~pybnc.encode.MISSING`. A new array: ``codes``
        is shared by every member and stays as it was."""
        out = codes.copy()
        for j, distinct, index in zip(self.columns, self.distinct, self.index):
            if cuts[j] is not None:
                bins = np.searchsorted(cuts[j], distinct, side="right").astype(out.dtype)
                observed = index >= 0
                out[:, j] = missing_codes[j] if missing_codes[j] >= 0 else MISSING
                out[observed, j] = bins[index[observed]]
        return out


def member_level_counts(counts: Counts, member_codes: np.ndarray, y: np.ndarray, cardinalities,
                        columns: list) -> Counts:
    """Class and level counts of a member's coded rows: those of ``columns`` counted from
    ``member_codes``, the others taken from the shared ``counts``."""
    cardinalities = np.asarray(cardinalities, dtype=np.int64)
    member = Counts(cardinalities, counts.class_counts, levels=np.zeros((counts.n_classes, int(cardinalities.sum()))))
    off, shared_off, recount = member.offsets, counts.offsets, set(columns)
    for j in range(len(cardinalities)):
        if j in recount:
            observed = member_codes[:, j] >= 0
            table = class_count_table(member_codes[observed, j], y[observed], int(cardinalities[j]), counts.n_classes)
            member.levels[:, off[j] : off[j + 1]] = table.T
        else:
            member.levels[:, off[j] : off[j + 1]] = counts.levels[:, shared_off[j] : shared_off[j + 1]]
    return member


def cmi_rows(codes: np.ndarray, y: np.ndarray, cardinalities, n_classes: int, rows: list,
             chunk_rows: int = 1 << 16, chunk_cells: int = 1 << 22) -> np.ndarray:
    """``I(X_i; X_j | C)`` for ``i`` in ``rows`` and every ``j``, shape ``(len(rows), d)``,
    each pair over the rows where both are observed (as :func:`pybnc.scores.information.pairwise_cmi`,
    unrounded and unsymmetrised; the ``(i, i)`` entries mean nothing).

    Per class, the product of the one-hot columns of ``rows`` with those of every
    feature gives those rows of the pair table only, a group of features of about
    ``chunk_cells`` cells at a time; the information of each pair is
    ``sum N log N + N_c log N_c - sum N_ca log N_ca - sum N_cb log N_cb`` over its
    block, over its total."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    off = one_hot_offsets(cards)
    width, d = int(off[-1]), len(cards)
    rows = np.asarray(rows, dtype=np.int64)
    per_pair, n_pair = np.zeros((rows.size, d)), np.zeros((rows.size, d))
    y = np.asarray(y, dtype=np.int64)
    step = max(1, min(chunk_rows, (1 << 24) // (width + 1)))  # one-hot chunks near 64 MiB
    groups = np.cumsum(cards[rows]) // max(1, chunk_cells // max(width, 1))
    for group in np.unique(groups):
        where = np.flatnonzero(groups == group)
        mine = rows[where]
        local = one_hot_offsets(cards[mine])
        picked = np.concatenate([np.arange(off[i], off[i + 1]) for i in mine])
        for c in range(n_classes):
            coded = codes[y == c]
            gram = np.zeros((picked.size, width))
            for start in range(0, coded.shape[0], step):
                chunk = coded[start : start + step]
                onehot = np.zeros((chunk.shape[0], width + 1), dtype=np.float32)
                onehot[np.arange(chunk.shape[0])[:, None], np.where(chunk >= 0, off[:-1] + chunk, width)] = 1.0
                onehot = onehot[:, :width]  # the spare column collected the missing cells
                gram += np.dot(onehot[:, picked].T, onehot)  # float32: exact below 2**24 rows per chunk
            within_i = segment_sums(gram, off, axis=1)  # N(c, x_i = a) within pair (i, j)
            within_j = segment_sums(gram, local, axis=0)  # N(c, x_j = b) within pair (i, j)
            total = segment_sums(within_i, local, axis=0)
            cells = segment_sums(segment_sums(_xlogx(gram), local, axis=0), off, axis=1)
            per_pair[where] += (cells + _xlogx(total) - segment_sums(_xlogx(within_i), local, axis=0)
                                - segment_sums(_xlogx(within_j), off, axis=1))
            n_pair[where] += total
    return np.where(n_pair > 0, per_pair / np.where(n_pair > 0, n_pair, 1.0), 0.0)


def member_statistics(counts: Counts, shared_cmi: np.ndarray, member_codes: np.ndarray, y: np.ndarray,
                      cardinalities, columns: list) -> tuple[Counts, np.ndarray, np.ndarray]:
    """A member's class and level counts (no pairs: its kDB counts its own families),
    ``I(X_i; C)`` and ``I(X_i; X_j | C)``, where only ``columns`` differ from the shared
    ``counts`` and ``shared_cmi``.

    The pairs involving ``columns`` are counted from ``member_codes`` (:func:`cmi_rows`)
    and the others kept, rounded and symmetrised as :func:`pybnc.scores.information.pairwise_cmi`
    does, so that equal information ties exactly. When ``columns`` hold
    :data:`RECOUNT_ALL_SHARE` of the one-hot width or more there is little to keep, and
    every pair is counted again."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    if int(cards[columns].sum()) >= RECOUNT_ALL_SHARE * int(cards.sum()):
        full = count(member_codes, y, cards, counts.n_classes)
        level_counts, cmi = Counts(cards, full.class_counts, levels=full.levels), pairwise_cmi(full)[0]
        return level_counts, class_mutual_information(level_counts), cmi
    level_counts = member_level_counts(counts, member_codes, y, cards, columns)
    cmi = shared_cmi.copy()
    if columns:
        fresh = cmi_rows(member_codes, y, cards, counts.n_classes, columns)
        cmi[columns, :] = fresh
        cmi[:, columns] = fresh.T
        among = fresh[:, columns]
        cmi[np.ix_(columns, columns)] = (among + among.T) / 2.0
        cmi[columns, :] = np.maximum(np.round(cmi[columns, :], 12), 0.0)
        cmi[:, columns] = cmi[columns, :].T
        np.fill_diagonal(cmi, 0.0)
    return level_counts, class_mutual_information(level_counts), cmi
