"""Log-determinant of weighted Laplacian minors, subtraction-free, in log space.

By the matrix-tree theorem, the sum over all spanning trees of a complete graph of
the product of their edge weights equals any principal ``(n-1)``-minor of the
graph's Laplacian. TBMATAN needs that sum for weights spanning thousands of
orders of magnitude, where LU factorisation (``np.linalg.slogdet``) loses every
digit: its pivots are differences of huge, nearly equal numbers.

Gaussian elimination of a Laplacian can be written without a single subtraction
(the GTH / Kron-reduction form). Eliminating node ``k`` with the last node as the
"ground" (the row and column the minor drops):

* pivot ``d_k = sum_{v != k} w_kv`` over all remaining nodes, ground included;
* every remaining pair gets ``w'_uv = w_uv + w_uk w_kv / d_k`` (the reduced graph
  is again a Laplacian, so its diagonal is again the sum of its weights);
* ``log det = sum_k log d_k``.

Only sums and products of positive numbers occur, so every step has a relative
error of a few ulps whatever the conditioning, and in log space (``logaddexp``)
nothing can under- or overflow. All operations are vectorised over a leading
batch dimension (test rows x classes); the loop runs over the ``n - 1``
elimination steps only.
"""

from __future__ import annotations

import numpy as np


def log_tree_sum(log_weights: np.ndarray) -> np.ndarray:
    """Log of the weighted number of spanning trees of complete graphs.

    Parameters
    ----------
    log_weights : ndarray of shape (..., n, n)
        Symmetric log edge weights; ``-inf`` means no edge. The diagonal is ignored.

    Returns
    -------
    ndarray of shape (...)
        ``log sum_T prod_{(u, v) in T} w_uv`` over the spanning trees ``T``, i.e. the
        log of the determinant of the Laplacian with the last row and column removed
        (``-inf`` when the graph is disconnected). For ``n == 1`` the single empty
        tree gives 0.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.log(np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]], dtype=float))
    >>> float(np.exp(log_tree_sum(w)))  # trees: 1*2 + 1*3 + 2*3
    11.0
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    n = log_weights.shape[-1]
    batch_shape = log_weights.shape[:-2]
    if n <= 1:
        return np.zeros(batch_shape)
    flat = log_weights.reshape(-1, n, n)
    ground = flat[:, : n - 1, n - 1].copy()  # (B, n-1): edges to the ground node
    work = flat[:, : n - 1, : n - 1].copy()
    total = np.zeros(flat.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in range(n - 1, 0, -1):
            k = m - 1  # eliminate the last remaining node; nodes 0..k-1 stay
            row = work[:, k, :k]  # its edges to the remaining nodes (not its own diagonal)
            g_k = ground[:, k]
            log_pivot = np.logaddexp(g_k, _logsumexp_last(row)) if k else g_k
            total += log_pivot
            if k == 0:
                break
            # -inf pivot: node cut off, det = 0; keep the arithmetic NaN-free.
            safe_pivot = np.where(np.isfinite(log_pivot), log_pivot, 0.0)
            scaled = row - safe_pivot[:, None]
            block = work[:, :k, :k]
            np.logaddexp(block, scaled[:, :, None] + row[:, None, :], out=block)
            np.logaddexp(ground[:, :k], scaled + g_k[:, None], out=ground[:, :k])
    return total.reshape(batch_shape)


def _logsumexp_last(a: np.ndarray) -> np.ndarray:
    """``log(sum(exp(a), axis=-1))`` with -inf rows mapped to -inf (no warnings)."""
    top = np.max(a, axis=-1)
    safe = np.where(np.isfinite(top), top, 0.0)
    return np.log(np.sum(np.exp(a - safe[..., None]), axis=-1)) + safe
