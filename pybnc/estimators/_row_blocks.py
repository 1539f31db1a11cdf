"""Out-of-core learning for classifiers whose statistics are more than pairwise counts.

:class:`BaseBNC` learns block by block from the pairwise counts alone. SKDB and A2DE
need more: family counts of several parents, three-way counts, a leave-one-out pass.
This mixin lets them learn block by block (the base keeps the encoder and pairwise
counts, then the subclass absorbs the coded block into its own statistics) and gives
the several
passes of :func:`pybnc.streaming.fit_blocks` and :func:`pybnc.streaming.fit_dask`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .base import BaseBNC


def level_moves(old_categories, new_categories) -> list | None:
    """For each feature, the new index of every old level, or None when nothing moved."""
    moves = [pd.Index(new).get_indexer(old) for old, new in zip(old_categories, new_categories)]
    if all(len(m) == len(n) and np.array_equal(m, np.arange(len(m))) for m, n in zip(moves, new_categories)):
        return None
    return moves


class RowBlocksMixin:
    """``partial_fit`` and multi-pass streaming for estimators with statistics of their own.

    A subclass implements ``_absorb_block(codes, y_codes, moves, first)`` (add one coded
    block to its statistics, padding them first when ``moves`` reports grown
    encodings), ``_learn_from_statistics()`` and, when it needs several passes over the data,
    ``_passes(read)`` where ``read()`` yields coded ``(codes, y_codes)`` blocks afresh
    on every call.
    """

    def _add_block(self, X, y, classes):
        """The base's running pairwise counts (encoder grown if need be), and the block
        absorbed into this estimator's own statistics."""
        old = [np.asarray(c).copy() for c in self.encoder_.categories_] if hasattr(self, "counts_") else None
        counts = super()._add_block(X, y, classes)
        moves = None if old is None else level_moves(old, self.encoder_.categories_)
        codes = self._encode(X)
        self._absorb_block(codes, self._encode_labels(y, codes.shape[0]), moves, first=old is None)
        return counts

    def _fit_from_counts(self, counts, families=None) -> None:
        """Learn from the pairwise counts and the statistics absorbed block by block."""
        self.counts_ = counts
        self._learn_from_statistics()

    def _fit_block_passes(self, blocks, target, classes, split):
        """:func:`pybnc.streaming.fit_blocks` for an estimator that needs several passes.

        The first pass learns the encoding and the pairwise counts (as ``partial_fit``);
        ``_passes`` then reads the blocks again, coded with the final encoding.
        """
        if callable(blocks):
            fresh = blocks
        elif iter(blocks) is blocks:
            raise TypeError(
                f"{type(self).__name__} reads the data several times, and this iterator can be read only "
                "once. Pass a list of blocks, or a function that returns a fresh iterable, e.g. "
                "lambda: pd.read_csv(path, chunksize=100_000)."
            )
        else:
            def fresh():
                return iter(blocks)
        for name in ("counts_", "family_counts_"):
            self.__dict__.pop(name, None)
        started = False
        for block in fresh():
            X, y = split(block, target)
            BaseBNC._add_block(self, X, y, None if started else classes)
            started = True
        if not started:
            raise ValueError("blocks is empty: there are no rows to fit.")

        def read():
            for block in fresh():
                X, y = split(block, target)
                codes = self._encode(X)
                yield codes, self._encode_labels(y, codes.shape[0])

        self._passes(read)
        return self
