"""Counting: sufficient statistics from coded rows, additive over blocks, folds and partitions.

:mod:`pybnc.counts.tables` counts the class, every feature's levels and every pair of
features (dense, reduced or sparse); :mod:`pybnc.counts.families` counts chosen
families (a feature and several parents) for kDB learned out of core.
"""

from .families import FamilyCounts, count_families
from .tables import ClassTotals, Counts, count, pair_layout, remap_counts

__all__ = ["ClassTotals", "Counts", "count", "pair_layout", "remap_counts", "FamilyCounts", "count_families"]
