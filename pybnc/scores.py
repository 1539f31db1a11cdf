"""Information-theoretic quantities and decomposable scores, all from counts.

Everything is in nats. Pairwise quantities are computed for all feature pairs at
once from the ``(K, W, W)`` joint table of :class:`pybnc.counts.Counts`, with block
sums done by ``np.add.reduceat`` rather than a Python loop over pairs.

Score conventions follow bnclassify: higher is better,
``AIC = LL - |theta|`` and ``BIC = LL - |theta| log(N) / 2``.
"""

from __future__ import annotations

import numpy as np

from .counts import Counts, segment_sums


def _xlogy_sum(counts: np.ndarray, axis=None) -> np.ndarray:
    """Sum of ``n log n`` with ``0 log 0 = 0``."""
    safe = np.where(counts > 0, counts, 1.0)
    return np.sum(counts * np.log(safe), axis=axis)


def entropy(counts: np.ndarray) -> float:
    """Entropy (nats) of the empirical distribution given by a table of counts.

    >>> round(entropy(np.array([1.0, 1.0])), 6) == round(np.log(2), 6)
    True
    """
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum()
    if n <= 0:
        return 0.0
    return float(np.log(n) - _xlogy_sum(counts) / n)


def mutual_information(table: np.ndarray) -> float:
    """``I(A; B)`` (nats) of a 2-D contingency table ``N(a, b)``.

    >>> mutual_information(np.array([[5.0, 0.0], [0.0, 5.0]])) == np.log(2)
    True
    """
    table = np.asarray(table, dtype=np.float64)
    return entropy(table.sum(axis=1)) + entropy(table.sum(axis=0)) - entropy(table.ravel())


def class_mutual_information(counts: Counts) -> np.ndarray:
    """``I(X_i; C)`` for every feature, over the rows where ``X_i`` is observed."""
    out = np.empty(counts.n_features)
    for i in range(counts.n_features):
        out[i] = mutual_information(counts.feature(i).T)
    return out


def _block_sums(joint: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    row_margin = segment_sums(joint, offsets, axis=2)  # (K, W, d): N(c, x_i = a) within pair (i, j)
    col_margin = segment_sums(joint, offsets, axis=1)  # (K, d, W): N(c, x_j = b) within pair (i, j)
    pair_total = segment_sums(row_margin, offsets, axis=1)  # (K, d, d): N(c) within pair (i, j)
    return row_margin, col_margin, pair_total


def pairwise_cmi(counts: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Conditional mutual information ``I(X_i; X_j | C)`` of every feature pair.

    Each pair uses the rows where both features are observed (available-case
    analysis); its marginals are taken from the same rows, so every estimate is a
    true mutual information of one empirical distribution and never negative.

    Returns
    -------
    cmi : ndarray of shape (n_features, n_features)
        Symmetric, zero diagonal.
    n_pair : ndarray of shape (n_features, n_features)
        Number of rows behind each pair's estimate.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts import count
    >>> x = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> cmi, _ = pairwise_cmi(count(x, np.array([0, 0, 1, 1]), [2, 2], 2))
    >>> bool(np.isclose(cmi[0, 1], np.log(2)))
    True
    """
    joint = counts.joint
    offsets = counts.offsets
    feat = counts.column_feature
    row_margin, col_margin, pair_total = _block_sums(joint, offsets)
    # N log(N * N_c / (N_ca * N_cb)) summed cell by cell; cells with N = 0 add nothing,
    # and a positive cell has positive margins, so every log below is finite.
    positive = joint > 0
    log = lambda a: np.log(np.where(positive, a, 1.0))  # noqa: E731
    terms = joint * (
        log(joint)
        + log(pair_total[:, feat][:, :, feat])
        - log(row_margin[:, :, feat])
        - log(col_margin[:, feat, :])
    )
    per_pair = segment_sums(segment_sums(terms.sum(axis=0), offsets, axis=0), offsets, axis=1)
    n_pair = pair_total.sum(axis=0)
    cmi = np.where(n_pair > 0, per_pair / np.where(n_pair > 0, n_pair, 1.0), 0.0)
    cmi = np.maximum((cmi + cmi.T) / 2.0, 0.0)  # rounding can leave -1e-17
    np.fill_diagonal(cmi, 0.0)
    return cmi, n_pair


def arc_parameters(cardinalities: np.ndarray, n_classes: int) -> np.ndarray:
    """Free parameters an augmenting arc between two features adds: ``K (r_i - 1)(r_j - 1)``."""
    r = np.asarray(cardinalities, dtype=np.float64) - 1.0
    return n_classes * np.outer(r, r)


def penalty_per_parameter(criterion: str, n_rows: float) -> float:
    """What one free parameter costs: 0 (loglik), 1 (AIC), ``log(N) / 2`` (BIC, MDL)."""
    if criterion == "loglik":
        return 0.0
    if criterion == "aic":
        return 1.0
    if criterion in ("bic", "mdl"):
        return float(np.log(n_rows) / 2.0) if n_rows > 1 else 0.0
    raise ValueError(f"criterion={criterion!r} is not one of 'loglik', 'aic', 'bic', 'mdl'.")


def ode_arc_weights(counts: Counts, criterion: str = "loglik") -> np.ndarray:
    """Score gain of each augmenting arc of a one-dependence estimator.

    ``w_ij = N I(X_i; X_j | C) - penalty * K (r_i - 1)(r_j - 1)``, symmetric: the
    gain does not depend on the arc's direction. With ``mdl`` (and ``bic``) the
    penalty is Hamine & Helman's threshold ``T_R`` times ``N``, so an arc improves
    the score exactly when its weight is positive.
    """
    cmi, n_pair = pairwise_cmi(counts)
    n = counts.n_rows
    weights = n * cmi - penalty_per_parameter(criterion, n) * arc_parameters(counts.cardinalities, counts.n_classes)
    # Two features never observed in the same row (one of them never observed at all,
    # say) give no evidence for an arc, and the child would lose its own counts: -inf.
    weights[n_pair == 0] = -np.inf
    np.fill_diagonal(weights, -np.inf)
    return weights


def penalised(log_likelihood: float, n_parameters: int, n_rows: float, criterion: str) -> float:
    """``LL - penalty * |theta|`` for the given criterion."""
    return float(log_likelihood - penalty_per_parameter(criterion, n_rows) * n_parameters)
