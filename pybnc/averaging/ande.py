"""AnDE: averaged n-dependence estimators (Webb, Boughton, Zheng, Ting & Salem, MLJ 2012).

AnDE averages, over every set ``S`` of ``n`` features whose values in the row were
seen at least ``m`` times in training, the estimate

    P(c, x_S) prod_{l not in S} P(x_l | c, x_S).

``n = 1`` is AODE (:mod:`pybnc.averaging.aode`, whose code it runs); ``n = 2`` is
A2DE, the average over feature pairs ``{i, j}``:

    P(c, x) ~ 1/|Q(x)| sum_{{i,j} in Q(x)} P(c, x_i, x_j) prod_{l != i, j} P(x_l | c, x_i, x_j),

with ``P(c, x_i, x_j) = (N(c, x_i, x_j) + a) / (N_ij + K r_i r_j a)`` and
``P(x_l | c, x_i, x_j) = (N(c, x_i, x_j, x_l) + a) / (N(c, x_i, x_j, x_l observed) + r_l a)``
(the paper's Laplace estimates at ``a = 1``). A row without a qualifying pair is
classified by A1DE (AODE), which itself falls back to naive Bayes: the paper's rule.

The three-way counts ``N(c, x_i, x_j, x_l)`` are one ``(K, W, W, W)`` array laid out
like the pairwise counts (``W`` one-hot columns), counted by one small Gram matrix per
class and column (the one-hot rows where that column is on). They are additive:
``partial_fit`` and ``fit_blocks`` learn in one pass, ``fit_dask`` in two.

Missing values: counts are available-case. At predict time a missing child is summed
out of every estimate exactly (its factor sums to one); a pair with a missing member
is not in ``Q(x)``, as AODE drops a missing super-parent (Webb et al.'s policy).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._utils.validation import Interval
from .._utils.blas import one_blas_thread
from ..counts.tables import column_features, moved_columns, one_hot_offsets
from ..estimators import _discriminative
from ..estimators._fitted_state import fitted_array
from ..estimators.base import keep_arguments
from ..parameters.learn import resolve_alpha
from . import alr_weights
from .aode import AODE, child_log_estimate, log_estimate, log_mean_exp, observed_onehot

# Largest (K, W, W, W) three-way table accepted (float64 cells: 2 GiB).
MAX_TRIPLE_CELLS = 1 << 28
# Bound on the (rows, K, W, W) block of child sums held at once.
_BLOCK_CELLS = 1 << 22


def _check_triple_size(n_classes: int, width: int) -> None:
    cells = n_classes * width**3
    if cells > MAX_TRIPLE_CELLS:
        raise ValueError(
            f"AnDE(n=2) needs K * W^3 = {cells:,} three-way counts ({n_classes} classes, W = {width} "
            f"feature levels in all), more than {MAX_TRIPLE_CELLS:,}. Use AnDE(n=1) (AODE), fewer "
            "features, or fewer levels: a smaller n_bins for numeric columns, and for categorical "
            "ones rare levels grouped into one (e.g. keep a column's 20 most frequent levels and "
            "map the rest to 'other')."
        )


def count_triples(codes, y, cardinalities, n_classes: int, weights=None) -> np.ndarray:
    """Class-conditional counts of every feature triple.

    Returns
    -------
    ndarray of shape (K, W, W, W)
        ``[c, off_i + a, off_j + b, off_l + e] = N(c, x_i = a, x_j = b, x_l = e)`` over
        the rows where the three are observed, for three different features (cells
        that take two columns of one feature are 0). Additive over row blocks. With
        ``weights``, each row counts its weight.

    Examples
    --------
    >>> import numpy as np
    >>> t = count_triples(np.array([[0, 1, 1], [0, 1, -1]]), np.array([1, 1]), [2, 2, 2], 2)
    >>> t[1, 0, 3, 5].item(), t[1, 5, 0, 3].item()   # N(c=1, x0=0, x1=1, x2=1), in any order
    (1.0, 1.0)
    """
    offsets = one_hot_offsets(cardinalities)
    width = int(offsets[-1])
    _check_triple_size(n_classes, width)
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    # Anchored on column a, the counts N(c, a, b, e) are the Gram matrix of the one-hot
    # rows of class c where a is on: one small float32 GEMM per class, anchor and chunk
    # of rows (exact: a chunk has fewer than 2**24 rows), written to a contiguous slice.
    out = np.zeros((n_classes, width, width, width))
    step = max(1, min(1 << 20, _BLOCK_CELLS // max(width, 1)))
    columns = np.where(codes >= 0, offsets[:-1] + codes, width)  # missing -> spare column
    dtype = np.float32 if weights is None else np.float64  # a weighted product: not exact in float32
    with one_blas_thread():
        for c in range(n_classes):
            rows = np.flatnonzero(y == c)
            for start in range(0, rows.size, step):
                cols = columns[rows[start : start + step]]
                onehot = np.zeros((cols.shape[0], width + 1), dtype=dtype)
                onehot[np.arange(cols.shape[0])[:, None], cols] = 1.0
                weighted = onehot if weights is None else onehot * weights[rows[start : start + step], None]
                for a in range(width):
                    on = onehot[:, a] > 0
                    out[c, a] += onehot[on, :width].T @ weighted[on, :width]
    # Two columns of one feature are never both on, so what is left to clear is where
    # two of the indices are the same column (there the Gram matrix holds pair counts).
    same = np.arange(width)
    out[:, same, same, :] = 0.0
    out[:, same, :, same] = 0.0
    out[:, :, same, same] = 0.0
    return out


def pair_log_tables(joint: np.ndarray, triples: np.ndarray, cardinalities, method: str, alpha: float):
    """A2DE's tables from the pairwise and three-way counts.

    Returns
    -------
    log_pair : ndarray of shape (K, W, W)
        ``log P(c, x_i = a, x_j = b)`` at ``[c, off_i + a, off_j + b]`` (``i != j``).
    log_child : ndarray of shape (K, W, W, W)
        ``log P(x_l = e | c, x_i = a, x_j = b)``; zero where ``l`` is ``i`` or ``j``.
    """
    cards = np.asarray(cardinalities, dtype=np.int64)
    column = column_features(cards)
    r = cards[column]  # levels of each column's feature
    k = joint.shape[0]
    member = (column[:, None] == np.arange(cards.shape[0])[None, :]).astype(np.float64)  # (W, d)
    pair_total = member.T @ joint.sum(axis=0) @ member
    log_pair = log_estimate(joint, pair_total[column][:, column], k * r[:, None] * r[None, :], method, alpha)
    log_child = child_log_estimate(triples, column, method, alpha)
    same = column[:, None] == column[None, :]
    log_pair[:, same] = 0.0
    for a in range(column.size):  # by anchor: no (W, W, W) mask
        log_child[:, a, (same[a, :, None] | same[a, None, :]) | same] = 0.0
    return log_pair, log_child


def a2de_log_joint(codes, offsets, log_pair, log_child, qualifies):
    """``log`` of the A2DE average for each row and class; rows with no qualifying pair
    are ``-inf`` and flagged False in the second result."""
    n, d = codes.shape
    k, width = log_pair.shape[0], log_pair.shape[1]
    observed = codes >= 0
    columns = offsets[:-1] + np.maximum(codes, 0)
    first, second = np.triu_indices(d, 1)
    if first.size == 0 or width == 0:  # no pair of observed levels: AODE takes every row
        return np.full((n, k), -np.inf), np.zeros(n, dtype=bool)
    # (a feature with no level has no observed cell: its clipped column is never used)
    columns = np.minimum(columns, width - 1)
    usable = observed[:, first] & observed[:, second] & qualifies[columns[:, first], columns[:, second]]
    pair_by_column = np.ascontiguousarray(log_pair.transpose(1, 0, 2))  # (W, K, W)
    pair_start = np.concatenate([[0], np.cumsum(np.arange(d - 1, 0, -1))])  # pairs (i, i+1 ..) are contiguous
    classes = np.arange(k)[:, None]
    jll = np.empty((n, k))
    step = max(1, _BLOCK_CELLS // (k * first.size))
    for start in range(0, n, step):
        rows = slice(start, start + step)
        cols, seen = columns[rows], observed[rows]
        m = cols.shape[0]
        onehot = observed_onehot(cols, seen, width)
        terms = np.zeros((m, k, first.size))
        # Anchored on the lower member's column a, the rows where a is on: their one-hot
        # times log P(x_l | c, a, b) over every later column b gives each pair's sum over
        # the children (missing children are off: summed out), one GEMM per anchor.
        with one_blas_thread():
            for i in range(d - 1):
                lo, later = int(offsets[i]), int(offsets[i + 1])
                if later == width:  # the later features have no level: never observed, pairs unused
                    break
                block = terms[:, :, pair_start[i] : pair_start[i + 1]]  # the pairs (i, j > i)
                for a in range(lo, later):
                    on = np.flatnonzero(onehot[:, a] > 0)
                    if on.size == 0:
                        continue
                    sums = onehot[on] @ log_child[:, a, later:].reshape(-1, width).T  # (on, K (W - later))
                    b = cols[on, None, i + 1 :]  # the rows' later columns
                    flat = (np.arange(on.size)[:, None, None] * k + classes) * (width - later) + b - later
                    # (clip: a later feature with no level is never observed, its pairs unused)
                    block[on] = np.take(sums, flat, mode="clip") + pair_by_column[a][classes, b]
        jll[rows] = log_mean_exp(terms, usable[rows], axis=2)
    return jll, usable.any(axis=1)


class AnDE(AODE):
    """Averaged n-dependence estimators, ``n = 1`` (AODE) or ``n = 2`` (A2DE).

    Webb, Boughton, Zheng, Ting & Salem (MLJ 2012); see :mod:`pybnc.averaging.ande`
    for the estimates, the fallback and the treatment of missing values.
    ``AnDE(n=1)`` is :class:`AODE`. Learns from counts in one pass, so it fits block
    by block (``partial_fit``, ``fit_blocks``, ``fit_dask``).

    Parameters
    ----------
    n : {1, 2}, default=2
        Features per super-parent set.
    min_count : int, default=30
        A super-parent set qualifies when its values occur in at least this many
        training rows (AODE's rule; ``0`` uses every observed set).
    smoothing : {"bayes", "mle"}, default="bayes"
    alpha : float, default=None
        Pseudo-count for ``bayes`` (default 1, the paper's Laplace estimate).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "discriminative"}, default=None
        ``"discriminative"``: AnDE in the ALR^n form (:mod:`pybnc.averaging.alr`).
    discriminative_penalty : float or None, default=None
    discriminative_max_iter : int, default=500
        As :class:`pybnc.NaiveBayes`.

    Attributes
    ----------
    triple_counts_ : ndarray of shape (n_classes, W, W, W)
        ``N(c, x_i, x_j, x_l)`` (``n = 2`` only).
    log_pair_ : ndarray of shape (n_classes, W, W)
        ``log P(c, x_i, x_j)`` (``n = 2`` only).
    log_pair_child_ : ndarray of shape (n_classes, W, W, W)
        ``log P(x_l | c, x_i, x_j)`` (``n = 2`` only).
    pair_ok_ : ndarray of shape (W, W), bool
        Value pairs that pass the minimum-frequency rule (``n = 2`` only).
    log_joint_, log_child_, super_parent_ok_, class_log_prior_, log_cpts_
        AODE's tables (the model for ``n = 1``, the fallback for ``n = 2``).

    Examples
    --------
    >>> from pybnc import AnDE
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> round(AnDE(n=2).fit(X, y).score(X, y), 3)
    0.986
    """

    _parameter_constraints = {**AODE._parameter_constraints, "n": [Interval(Integral, 1, 2, closed="both")]}
    #: the three-way counts (n = 2) grow block by block, as the counts do
    _running_state = (*AODE._running_state, "triple_counts_")

    def __init__(self, n=2, min_count=30, smoothing="bayes", alpha=None, encoder=None,
                 weighting=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    @property
    def _n_parents(self) -> int:
        return int(self.n)

    def _fit_encoded(self, codes, y, counts):
        if self.n == 2:
            triples = count_triples(codes, y, counts.cardinalities, counts.n_classes)
        self._fit_tables(counts, triples if self.n == 2 else None)
        self._weigh(counts, codes, y)

    def _fit_tables(self, counts, triples):
        self._fit_super_parents(counts)
        if triples is None:
            return
        alpha = resolve_alpha(self.smoothing, self.alpha)
        self.triple_counts_ = triples
        joint = counts.dense_joint()  # the triples are dense anyway: (K, W, W) is the smaller
        self.log_pair_, self.log_pair_child_ = pair_log_tables(joint, triples, counts.cardinalities,
                                                               self.smoothing, alpha)
        self.pair_ok_ = joint.sum(axis=0) >= self.min_count

    def _absorb_block(self, codes, y, moves, first, weights=None):
        if self.n == 1:
            return
        cards = self.encoder_.cardinalities_
        block = count_triples(codes, y, cards, len(self.classes_), weights)
        running = None if first else getattr(self, "triple_counts_", None)
        if running is not None and moves is not None:
            cols = moved_columns(moves, cards)
            padded = np.zeros_like(block)
            padded[np.ix_(np.arange(block.shape[0]), cols, cols, cols)] = running
            running = padded
        self.triple_counts_ = block if running is None else running + block

    def _fit_from_counts(self, counts, families=None):
        """From the running counts and the three-way counts absorbed block by block."""
        self._forget_fit(keep=self._running_state)
        self.counts_ = counts
        self._fit_tables(counts, self.triple_counts_ if self.n == 2 else None)

    def _learn_in_passes(self, counts):
        """fit_dask's second pass: the three-way counts."""
        self.counts_ = counts
        triples = None
        if self.n == 2:
            cards, n_classes = counts.cardinalities, counts.n_classes
            triples = yield lambda codes, y, weights=None: count_triples(codes, y, cards, n_classes, weights)
        self._fit_tables(counts, triples)
        if _discriminative.wanted(self):
            yield from alr_weights.weigh_alr_in_passes(self, self.n, counts)

    def _check_fitted_state(self):
        super()._check_fitted_state()
        if self.n == 2:
            k, width = len(self.classes_), int(self.encoder_.cardinalities_.sum())
            fitted_array(self, "log_pair_", (k, width, width))
            fitted_array(self, "log_pair_child_", (k, width, width, width))
            fitted_array(self, "pair_ok_", (width, width), kinds="b")

    def _generative_jll(self, codes):
        if self.n == 1:
            return self._super_parent_jll(codes)
        offsets = one_hot_offsets(self.encoder_.cardinalities_)
        jll, has_pair = a2de_log_joint(codes, offsets, self.log_pair_, self.log_pair_child_, self.pair_ok_)
        if not has_pair.all():  # the paper's fallback to A(n-1)DE
            jll[~has_pair] = self._super_parent_jll(codes[~has_pair])
        return jll
