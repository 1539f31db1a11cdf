"""Synthetic data drawn from a random TAN (the shapes the issues' targets speak of)."""

import numpy as np


def sample_tan(n_rows, n_features, *, n_classes=2, cardinalities=(2, 4), seed=0):
    """Rows drawn from a random TAN: a random tree over the features, Dirichlet(1) tables.

    Returns ``(codes, y)``: an int32 array (n_rows, n_features) and int class codes.
    """
    rng = np.random.default_rng(seed)
    cards = rng.integers(cardinalities[0], cardinalities[1] + 1, n_features)
    parent = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n_features)])
    y = rng.integers(0, n_classes, n_rows)
    codes = np.empty((n_rows, n_features), dtype=np.int32)
    for i in range(n_features):
        rp = cards[parent[i]] if parent[i] >= 0 else 1
        table = rng.dirichlet(np.ones(cards[i]) * 0.5, size=(n_classes, rp))
        cdf = np.cumsum(table, axis=-1)
        row_cdf = cdf[y, codes[:, parent[i]] if parent[i] >= 0 else 0]
        codes[:, i] = np.minimum((rng.random(n_rows)[:, None] > row_cdf).sum(axis=1), cards[i] - 1)
    return codes, y
