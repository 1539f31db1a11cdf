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
elimination steps only. The compiled kernels (``_laplacian_c.c``, built at install)
run the same elimination per graph, over the lower triangle only, in linear arithmetic
where the weights' range allows it and with a tabled log-add elsewhere, on every core
for large batches; in linear arithmetic TBMATAN's graphs run four at a time, one per
vector lane (``_laplacian_lanes.h``). The results agree to rounding.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from .._utils.blas import available_cores
from .._utils.logsumexp import logsumexp
from .._utils.native import load_kernels

_native = load_kernels("pybnc.averaging._laplacian_c")
#: Below this many (graph, edge) cells a batch runs on one thread (a thread handshake
#: costs more than it saves).
_SERIAL_CELLS = 1 << 18
#: The compiled kernels' plain-double elimination runs several graphs at once, one per
#: vector lane (the same arithmetic per graph); False: one graph at a time, the
#: reference the tests compare the lanes with.
_LANES = True
#: Rows per batch of the numpy engine's weights: keeps (rows x classes x n x n) float64
#: near 32 MB (the compiled kernels build each row's weights in place).
_BATCH_BYTES = 1 << 25


def log_tree_sum(log_weights: np.ndarray, engine: str = "auto") -> np.ndarray:
    """Log of the weighted number of spanning trees of complete graphs.

    Parameters
    ----------
    log_weights : ndarray of shape (..., n, n)
        Symmetric log edge weights; ``-inf`` means no edge. The diagonal is ignored.
    engine : {"auto", "compiled", "numpy"}, default="auto"
        ``auto`` takes the compiled kernels when they are built.

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
    >>> w = np.log(np.array([[1, 1, 2], [1, 1, 3], [2, 3, 1]], dtype=float))
    >>> round(float(np.exp(log_tree_sum(w))), 12)  # trees: 1*2 + 1*3 + 2*3
    11.0
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    n = log_weights.shape[-1]
    batch_shape = log_weights.shape[:-2]
    if n <= 1:
        return np.zeros(batch_shape)
    flat = log_weights.reshape(-1, n, n)
    if _use_compiled(engine):
        flat = np.ascontiguousarray(flat)
        out = np.empty(flat.shape[0])
        _in_parallel(lambda part: _native.tree_sums(flat[part], part.stop - part.start, n, out[part]),
                     flat.shape[0], n * n)
        return out.reshape(batch_shape)
    ground = flat[:, : n - 1, n - 1].copy()  # (B, n-1): edges to the ground node
    # The weights stay symmetric under elimination and the diagonal is never read (a
    # pivot is rebuilt from its row), so only the strict lower triangle is kept, packed
    # row by row: (i, j), i > j, at i (i - 1) / 2 + j. The rows of nodes 0..k-1 are then
    # the first k (k - 1) / 2 entries, and eliminating node k updates just those.
    rows_i, cols_j = np.tril_indices(n - 1, -1)
    work = flat[:, rows_i, cols_j]
    total = np.zeros(flat.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in range(n - 1, 0, -1):
            k = m - 1  # eliminate the last remaining node; nodes 0..k-1 stay
            start = k * (k - 1) // 2
            row = work[:, start : start + k]  # its edges to the remaining nodes
            g_k = ground[:, k]
            log_pivot = np.logaddexp(g_k, logsumexp(row)) if k else g_k
            total += log_pivot
            if k == 0:
                break
            # -inf pivot: node cut off, det = 0; keep the arithmetic NaN-free.
            safe_pivot = np.where(np.isfinite(log_pivot), log_pivot, 0.0)
            scaled = row - safe_pivot[:, None]
            if start:
                block = work[:, :start]
                np.logaddexp(block, scaled[:, rows_i[:start]] + row[:, cols_j[:start]], out=block)
            np.logaddexp(ground[:, :k], scaled + g_k[:, None], out=ground[:, :k])
    return total.reshape(batch_shape)


def _use_compiled(engine: str) -> bool:
    if engine not in ("auto", "compiled", "numpy"):
        raise ValueError(f"engine={engine!r} is not one of 'auto', 'compiled', 'numpy'.")
    if engine == "compiled" and _native is None:
        raise ImportError("engine='compiled' needs pybnc's C kernels: reinstall with a C compiler "
                          "(pip install .), or python setup.py build_ext --inplace in a source checkout.")
    return _native is not None and engine != "numpy"


def _in_parallel(run, n_items: int, cells_per_item: int) -> None:
    """``run(slice)`` over ``n_items`` in one chunk per core on joblib's threads when the
    batch is large (the kernels release the GIL; threads whatever
    ``joblib.parallel_config`` says, as the chunks write into one array), else in one call."""
    workers = min(available_cores(), 8)
    if workers == 1 or n_items < 2 or n_items * cells_per_item < _SERIAL_CELLS:
        run(slice(0, n_items))
        return
    bounds = np.linspace(0, n_items, workers + 1).astype(int)
    Parallel(n_jobs=workers, require="sharedmem")(delayed(run)(slice(a, b))
                                                   for a, b in zip(bounds[:-1], bounds[1:]) if b > a)


def kron_reduce(log_weights: np.ndarray, eliminate: np.ndarray):
    """Eliminate the nodes ``eliminate`` from a complete graph, keeping the others.

    Gaussian elimination of the Laplacian, node by node, in the subtraction-free form
    above: the kept nodes' graph gets extra weights ``w_uk w_kv / d_k`` and the tree
    sum factorises, ``T(G) = prod_k d_k * T(G')``. TBMATAN uses it for features whose
    edge factors are 1 in every row (one level, or none): their part of every row's
    elimination is the same, so it is done once.

    Parameters
    ----------
    log_weights : ndarray of shape (n, n)
        Log edge weights (diagonal ignored).
    eliminate : ndarray of shape (n,), bool

    Returns
    -------
    log_extra : ndarray of shape (m, m)
        Log weights to *add* to the kept nodes' edges (``-inf`` where nothing is
        added; ``m`` kept nodes, in their order).
    log_constant : float
        ``sum_k log d_k``.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.log(np.array([[1, 1, 2], [1, 1, 3], [2, 3, 1]], dtype=float))
    >>> extra, const = kron_reduce(w, np.array([False, False, True]))
    >>> float(np.exp(const + np.logaddexp(w[0, 1], extra[0, 1])).round(12))  # 11 trees, as log_tree_sum
    11.0
    """
    eliminate = np.asarray(eliminate, dtype=bool)
    n = eliminate.size
    work = np.array(log_weights, dtype=np.float64)
    kept = ~eliminate
    work[np.ix_(kept, kept)] = -np.inf  # kept pairs hold only what elimination adds
    np.fill_diagonal(work, -np.inf)
    remaining = np.ones(n, dtype=bool)
    constant = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        for k in np.flatnonzero(eliminate):
            remaining[k] = False
            rest = np.flatnonzero(remaining)
            if rest.size == 0:
                break  # every node eliminated: the last one is the root the reduced Laplacian leaves out
            log_pivot = float(logsumexp(work[k, rest]))
            constant += log_pivot
            if not np.isfinite(log_pivot):
                continue
            through = work[k, rest][:, None] + work[k, rest][None, :] - log_pivot
            np.fill_diagonal(through, -np.inf)
            work[np.ix_(rest, rest)] = np.logaddexp(work[np.ix_(rest, rest)], through)
    return work[np.ix_(kept, kept)], constant


def log_tree_sums_for_rows(log_beta, log_h, columns, drop=None, engine="auto", log_extra=None):
    """Log tree sums of the weights ``beta_uv h_c(x_u, x_v) (+ extra_uv)`` of every row and class.

    Parameters
    ----------
    log_beta : ndarray of shape (n, n)
        Log edge weights shared by all rows.
    log_h : ndarray of shape (K, W, W)
        Log factors per pair of one-hot columns.
    columns : ndarray of shape (m, n), int
        One-hot column of each row's value of each feature.
    drop : ndarray of shape (m, n), bool, optional
        Features whose factors ``h`` are replaced by 1.
    engine : {"auto", "compiled", "numpy"}, default="auto"
    log_extra : ndarray of shape (n, n), optional
        Log weights added to every edge after the factors (:func:`kron_reduce`).

    Returns
    -------
    ndarray of shape (m, K)
        ``log_tree_sum(log_beta + log_h[c][columns[r]][:, columns[r]])``, computed
        without materialising the ``(m, K, n, n)`` weights by the compiled kernels.

    Examples
    --------
    >>> import numpy as np
    >>> log_beta, log_h = np.zeros((3, 3)), np.zeros((2, 6, 6))
    >>> np.exp(log_tree_sums_for_rows(log_beta, log_h, np.array([[0, 2, 4]]))).round(9).tolist()  # 3 trees
    [[3.0, 3.0]]
    """
    columns = np.ascontiguousarray(columns, dtype=np.int64)
    if drop is None:
        drop = np.zeros(columns.shape, dtype=bool)
    if log_extra is None:
        log_extra = np.full(np.shape(log_beta), -np.inf)
    n = columns.shape[1]
    if n > 1 and _use_compiled(engine):
        k, width = log_h.shape[0], log_h.shape[-1]
        log_beta, log_h = np.ascontiguousarray(log_beta, dtype=np.float64), np.ascontiguousarray(log_h, dtype=np.float64)
        log_extra = np.ascontiguousarray(log_extra, dtype=np.float64)
        drop = np.ascontiguousarray(drop)
        has_extra = bool(np.isfinite(log_extra).any())
        out = np.empty((columns.shape[0], k))
        _in_parallel(lambda part: _native.rows_tree_sums(log_beta, log_h, k, width, columns[part], drop[part],
                                                         log_extra, has_extra, out[part], _LANES),
                     columns.shape[0], k * n * n)
        return out
    step = max(1, _BATCH_BYTES // (8 * log_h.shape[0] * max(n, 1) ** 2))
    if columns.shape[0] > step:
        return np.concatenate([log_tree_sums_for_rows(log_beta, log_h, columns[i : i + step], drop[i : i + step],
                                                      "numpy", log_extra) for i in range(0, columns.shape[0], step)])
    log_hr = log_h[:, columns[:, :, None], columns[:, None, :]]  # (K, m, n, n)
    log_hr = np.where((drop[:, :, None] | drop[:, None, :])[None], 0.0, log_hr)
    with np.errstate(invalid="ignore"):
        weights = np.logaddexp(np.swapaxes(log_hr, 0, 1) + log_beta, log_extra)
    return log_tree_sum(weights, engine="numpy")
