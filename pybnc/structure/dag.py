"""The structure of an augmented naive Bayes: the class is a parent of every
(selected) feature; ``parents[i]`` lists the *feature* parents of feature ``i``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Structure:
    """Feature parents of each feature; the class is an implicit parent of every feature.

    Parameters
    ----------
    parents : tuple of tuple of int
        ``parents[i]`` are the feature parents of feature ``i`` (empty for naive Bayes).

    Examples
    --------
    >>> s = Structure.from_arcs(3, [(0, 1), (1, 2)])
    >>> s.parents, s.arcs, s.topological_order()
    (((), (0,), (1,)), [(0, 1), (1, 2)], [0, 1, 2])
    """

    parents: tuple

    @classmethod
    def naive_bayes(cls, n_features: int) -> "Structure":
        return cls(tuple(() for _ in range(n_features)))

    @classmethod
    def from_arcs(cls, n_features: int, arcs) -> "Structure":
        parents = [[] for _ in range(n_features)]
        for u, v in arcs:
            parents[int(v)].append(int(u))
        return cls(tuple(tuple(sorted(p)) for p in parents))

    @property
    def n_features(self) -> int:
        return len(self.parents)

    @property
    def arcs(self) -> list:
        """Augmenting arcs ``(parent, child)``, sorted by child then parent."""
        return [(p, i) for i, ps in enumerate(self.parents) for p in ps]

    @property
    def is_one_dependence(self) -> bool:
        return all(len(p) <= 1 for p in self.parents)

    def topological_order(self) -> list:
        """Features ordered so that every parent precedes its children (ties by index)."""
        remaining = {i: set(p) for i, p in enumerate(self.parents)}
        order = []
        while remaining:
            ready = sorted(i for i, p in remaining.items() if not p)
            if not ready:
                raise ValueError("The augmenting arcs contain a cycle.")
            for i in ready:
                del remaining[i]
            for p in remaining.values():
                p.difference_update(ready)
            order.extend(ready)
        return order

    def parent_array(self) -> np.ndarray:
        """For one-dependence structures: the feature parent of each feature, -1 for none."""
        if not self.is_one_dependence:
            raise ValueError("parent_array() needs at most one feature parent per feature.")
        return np.array([p[0] if p else -1 for p in self.parents], dtype=np.int64)
