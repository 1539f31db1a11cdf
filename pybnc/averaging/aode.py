"""AODE: averaged one-dependence estimators (Webb, Boughton & Wang 2005).

Every feature ``j`` in turn is the *super-parent* of all the others, giving the
one-dependence estimate ``P(c, x_j) prod_{i != j} P(x_i | c, x_j)``; AODE averages
these over the super-parents whose value was seen often enough in training:

    P(c, x) ~ 1/|Q(x)| sum_{j in Q(x)} P(c, x_j) prod_{i != j} P(x_i | c, x_j),
    Q(x) = {j : x_j observed and F(x_j) >= m},

``F(x_j)`` the number of training rows with that value (the paper's minimum-frequency
rule). When ``Q(x)`` is empty the row is classified by naive Bayes with the same
parameter learner, as in the paper and in Weka's ``AODE``.

All tables come from the pairwise class-conditional counts (:mod:`pybnc.counts.tables`):
``P(c, x_j) = (N(c, x_j) + a) / (N_j + K r_j a)`` and
``P(x_i | c, x_j) = (N(c, x_j, x_i) + a) / (N(c, x_j, x_i observed) + r_i a)``, the
paper's Laplace estimates at ``a = 1``; ``N_j`` counts the rows where ``x_j`` is
observed (available cases).

Missing values at predict time
------------------------------
* A missing child ``x_i`` is summed out of each one-dependence estimate: its factor
  sums to one over ``x_i``'s levels, so it is exactly left out.
* A missing super-parent ``x_j`` is not in ``Q(x)``: its estimate drops out of the
  average (Webb et al.; Weka). This is a policy, not marginalisation: summing the
  average over ``x_j`` would keep ``j``'s estimate with ``x_j`` summed out, and the
  minimum-frequency rule makes the average depend on ``x_j`` in a way no sum removes.

Vectorisation: the log tables of all ordered feature pairs form one
``(K, W, W)`` array laid out like the counts, so for the rows where a super-parent
value is on, one matrix product of their one-hot encoding with that value's slice
gives every class's sum of child log-probabilities; the average is a log-sum-exp
over super-parents.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._utils.validation import Interval
from .._utils.blas import one_blas_thread
from ..counts.tables import Counts, one_hot_offsets
from ..estimators import _discriminative
from ..estimators._fitted_state import fitted_array
from ..estimators.base import BaseBNC, keep_arguments
from ..estimators._constraints import ALPHA, DISCRIMINATIVE_WEIGHTING, ENCODER, smoothing_options
from ..estimators.capabilities import Capabilities
from ..inference.forest import joint_log_likelihood
from ..parameters.learn import learn_parameters, log_ratio, pseudo_counts, resolve_alpha
from ..structure import Structure
from . import alr_weights

# Bound on the (K, rows, W) block of super-parent sums held at once (float64 cells).
_BLOCK_CELLS = 1 << 21
#: explain's masked rows gather each row's cells (aode_masked_log_joint) from this many
#: one-hot columns on: below it a prediction's loop over the columns costs less than a
#: gathering per row (car, 21 columns: 0.01 s against 0.05 s for 20 rows; chess, 73: 0.89
#: against 0.28 s).
_GATHER_FROM_WIDTH = 32


def super_parent_log_tables(counts: Counts, method: str, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Log tables of every super-parent one-dependence estimator.

    Parameters
    ----------
    counts : Counts
    method : {"bayes", "mle"}
    alpha : float
        Dirichlet pseudo-count (ignored by ``"mle"``).

    Returns
    -------
    log_joint : ndarray of shape (K, W)
        ``log P(c, x_j = a)`` at column ``offsets[j] + a``.
    log_child : ndarray of shape (K, W, W)
        ``log P(x_i = b | c, x_j = a)`` at ``[c, offsets[j] + a, offsets[i] + b]``;
        zero on the diagonal blocks (``i == j``), which no estimator uses.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> c = count(np.array([[0, 1], [1, 1]]), np.array([0, 1]), [2, 2], 2)
    >>> log_joint, log_child = super_parent_log_tables(c, "bayes", 1.0)
    >>> np.exp(log_joint[:, :2]).round(3).tolist()  # P(c, x_0) = (N + 1) / (2 + 4)
    [[0.333, 0.167], [0.167, 0.333]]
    """
    k = counts.n_classes
    cards = np.asarray(counts.cardinalities, dtype=np.int64)
    column = counts.column_feature
    r = cards[column]  # levels of each column's feature
    member = (column[:, None] == np.arange(cards.shape[0])[None, :]).astype(np.float64)  # (W, d)
    levels = counts.levels
    log_joint = log_estimate(levels, (levels.sum(axis=0) @ member)[column], k * r, method, alpha)
    log_child = child_log_estimate(counts.dense_joint(), column, method, alpha)
    same = column[:, None] == column[None, :]
    log_child[:, same] = 0.0
    return log_joint, log_child


def child_log_estimate(n: np.ndarray, column: np.ndarray, method: str, alpha: float) -> np.ndarray:
    """``log P(x_l = e | c, ...)`` from counts ``n`` of shape ``(K, W, ..., W)`` whose last
    axis is the child's column ``e``: :func:`log_estimate` over the levels of the
    child's feature (``column`` gives each column's feature), computed by blocks of the
    second axis so that the temporaries stay a slice of the result."""
    out = np.empty_like(n)
    if column.size == 0:
        return out
    first_level = np.r_[True, column[1:] != column[:-1]]  # a feature's levels are adjacent columns
    starts = np.flatnonzero(first_level)
    run = np.cumsum(first_level) - 1  # each column's feature, among the features with a level
    r = np.diff(np.r_[starts, column.size])[run]  # levels of each column's feature
    step = max(1, _BLOCK_CELLS // max(n[:, :1].size, 1))
    a = pseudo_counts(method, alpha, r, 1, 1)[0]
    if np.ndim(a) == 0 and a > 0:  # every denominator positive: log_ratio's value in three passes, not ten
        return _child_log_dirichlet(n, starts, run, r, float(a), step, out)
    for start in range(0, n.shape[1], step):
        block = n[:, start : start + step]
        total = np.add.reduceat(block, starts, axis=-1)[..., run]  # over the child's levels
        out[:, start : start + step] = log_estimate(block, total, r, method, alpha)
    return out


def _child_log_dirichlet(n, starts, run, r, a: float, step: int, out: np.ndarray) -> np.ndarray:
    """:func:`child_log_estimate` for a positive pseudo-count ``a`` per cell, to the same
    bits: ``log(max((n + a) / (total + r a), 1e-300))`` written in place, the totals'
    denominators taken once per child feature rather than once per cell."""
    widths = np.diff(np.r_[starts, run.size])
    equal = bool((widths == widths[0]).all())
    for start in range(0, n.shape[1], step):
        block = out[:, start : start + step]
        np.add(n[:, start : start + step], a, out=block)
        # the same sum as log_estimate's: the counts' total over the child's levels, then r a
        denominator = np.add.reduceat(n[:, start : start + step], starts, axis=-1) + widths * a
        if equal:  # every feature as wide: divide through a view, no cell-sized temporary
            np.divide(block.reshape(block.shape[:-1] + (widths.size, widths[0])), denominator[..., None],
                      out=block.reshape(block.shape[:-1] + (widths.size, widths[0])))
        else:
            block /= denominator[..., run]
        if not a / denominator.max(initial=0.0) > 1e-300:  # else no estimate is below the floor
            np.maximum(block, 1e-300, out=block)
        np.log(block, out=block)
    return out


def log_estimate(n, total, cells, method: str, alpha: float) -> np.ndarray:
    """``log((n + a) / (total + cells a))`` (``a = 0`` for ``mle``), uniform ``1 / cells``
    where the denominator is 0, floored at ``1e-300`` (as :mod:`pybnc.parameters.learn`).

    ``total`` is the count summed over the ``cells`` outcomes that ``n`` is one of."""
    a = pseudo_counts(method, alpha, cells, 1, 1)[0]
    return log_ratio(n + a, total + cells * a, cells)


def aode_log_joint(codes, offsets, log_joint, log_child, qualifies) -> tuple[np.ndarray, np.ndarray]:
    """``log`` of the AODE average for each row and class.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    offsets : ndarray of shape (d + 1,)
        One-hot column offset of each feature.
    log_joint, log_child : ndarray
        From :func:`super_parent_log_tables`.
    qualifies : ndarray of shape (W,), bool
        Whether each feature value may be a super-parent (frequency rule).

    Returns
    -------
    jll : ndarray of shape (n, K)
        ``log(1/|Q| sum_{j in Q} P(c, x_j) prod_{i != j, x_i observed} P(x_i | c, x_j))``;
        ``-inf`` on rows with no super-parent.
    has_parent : ndarray of shape (n,), bool
        Rows with at least one super-parent.
    """
    n, d = codes.shape
    k, width = log_joint.shape
    observed = codes >= 0
    if width == 0:  # no feature was ever observed: no super-parent anywhere
        return np.full((n, k), -np.inf), np.zeros(n, dtype=bool)
    # A missing cell reads column 0 (masked below): offsets[j] itself may be W when
    # feature j, never observed in training, has no level.
    columns = np.where(observed, offsets[:-1] + codes, 0)
    usable = observed & qualifies[columns]
    feature = np.repeat(np.arange(d), np.diff(offsets))  # of each column
    jll = np.empty((n, k))
    step = max(1, _BLOCK_CELLS // max(width, k * d))
    for start in range(0, n, step):
        rows = slice(start, start + step)
        onehot = observed_onehot(columns[rows], observed[rows], width)
        terms = np.zeros((onehot.shape[0], k, d))
        # Super-parent column a, for the rows where it is on: their one-hot children
        # times log P(x_i | c, a) (a missing child is off: summed out), one GEMM per column.
        with one_blas_thread():
            for a in range(width):
                on = np.flatnonzero(onehot[:, a] > 0)
                if on.size:
                    terms[on, :, feature[a]] = onehot[on] @ log_child[:, a].T + log_joint[:, a]
        # rows with no super-parent stay -inf (naive Bayes takes them)
        jll[rows] = log_mean_exp(terms, usable[rows], axis=2)
    return jll, usable.any(axis=1)


def aode_masked_log_joint(row, keep, offsets, log_joint, log_child, qualifies) -> tuple[np.ndarray, np.ndarray]:
    """:func:`aode_log_joint` of one row under many masks (what :meth:`explain` asks).

    A masked copy of ``row`` (``keep[m]`` says which features it keeps) reads only the
    row's own cells, so the ``K x o x o`` table of ``log P(x_i | c, x_j)`` between its
    ``o`` observed values is gathered once, and every mask's sums are one product with
    that table: ``o`` columns a mask rather than :func:`aode_log_joint`'s ``W`` (every
    level of every feature), and no copy of one-hot rows per super-parent. Equal to
    :func:`aode_log_joint` on the masked rows up to the order of the sums.

    Parameters
    ----------
    row : ndarray of shape (d,), int, ``-1`` for missing
    keep : ndarray of shape (m, d), bool
    offsets, log_joint, log_child, qualifies
        As :func:`aode_log_joint`.

    Returns
    -------
    jll : ndarray of shape (m, K)
    has_parent : ndarray of shape (m,), bool
    """
    k = log_joint.shape[0]
    observed = np.flatnonzero(row >= 0)
    columns = offsets[observed] + row[observed]
    kept = keep[:, observed].astype(np.float64)  # (m, o): the mask's children
    usable = (kept > 0) & qualifies[columns][None, :]
    jll = np.empty((keep.shape[0], k))
    step = max(1, _BLOCK_CELLS // max(observed.size, 1))
    for c in range(k):  # one class's o x o table at a time (o may be thousands), gathered once
        table = log_child[c][np.ix_(columns, columns)].T  # zero between a feature and itself
        for start in range(0, kept.shape[0], step):
            rows = slice(start, start + step)
            terms = kept[rows] @ table + log_joint[c, columns]
            jll[rows, c] = log_mean_exp(terms[:, None, :], usable[rows], axis=2)[:, 0]
    return jll, usable.any(axis=1)


def observed_onehot(columns: np.ndarray, observed: np.ndarray, width: int) -> np.ndarray:
    """``(m, W)`` one-hot encoding of a block of rows; missing cells stay all zero."""
    onehot = np.zeros((columns.shape[0], width))
    r, f = np.nonzero(observed)
    onehot[r, columns[r, f]] = 1.0
    return onehot


def log_mean_exp(terms: np.ndarray, usable: np.ndarray, axis: int = 1) -> np.ndarray:
    """``log(mean_e exp(terms[:, e, :]))`` over the usable estimates ``e`` of each row,
    ``terms`` of shape ``(m, E, K)`` (``(m, K, E)`` with ``axis=2``); ``-inf`` on rows
    with none."""
    terms = np.where(np.expand_dims(usable, 3 - axis), terms, -np.inf)
    top = terms.max(axis=axis)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(divide="ignore"):
        total = np.log(np.exp(terms - np.expand_dims(top, axis)).sum(axis=axis))
    return total + top - np.log(np.maximum(usable.sum(axis=1), 1))[:, None]


class AODE(BaseBNC):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005).

    Averages the ``n`` one-dependence estimators in which one feature (the
    super-parent) is a parent of all the others; see :mod:`pybnc.averaging.aode`
    for the formula, the tables and the treatment of missing values.

    Parameters
    ----------
    min_count : int, default=30
        Minimum-frequency rule ``m``: a feature value is a super-parent only when
        it occurs in at least ``m`` training rows (of any class). 30 is the value
        of Webb, Boughton & Wang (2005, sect. 3), the reference definition; Weka's
        ``AODE`` defaults to 1. ``0`` uses every observed feature. A row without a
        qualifying super-parent is classified by naive Bayes.
    smoothing : {"bayes", "mle"}, default="bayes"
        ``bayes``: Dirichlet posterior means with pseudo-count ``alpha`` (``alpha=1``
        is the paper's Laplace estimate); ``mle``: relative frequencies (an unseen
        configuration gets the uniform distribution, a zero probability the floor
        ``1e-300``).
    alpha : float, default=None
        Pseudo-count for ``bayes`` (default 1).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "discriminative"}, default=None
        ``"discriminative"``: AODE in the ALR^n form (:mod:`pybnc.averaging.alr`): one
        weight per cell of every one-dependence estimator's tables and class, the
        estimators' weighted terms combined in log space on top of AODE's own average,
        learned for the conditional log-likelihood (``docs/discriminative.md``).
    discriminative_penalty : float or None, default=None
    discriminative_max_iter : int, default=500
        As :class:`pybnc.NaiveBayes`.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
        The class labels and the input columns, as :class:`pybnc.NaiveBayes`.
    log_joint_ : ndarray of shape (n_classes, W)
        ``log P(c, x_j = a)`` per one-hot column ``offsets[j] + a``.
    log_child_ : ndarray of shape (n_classes, W, W)
        ``log P(x_i = b | c, x_j = a)`` at ``[c, offsets[j] + a, offsets[i] + b]``.
    super_parent_ok_ : ndarray of shape (W,), bool
        Feature values that pass the minimum-frequency rule.
    class_log_prior_, log_cpts_ : naive Bayes tables of the fallback.

    Examples
    --------
    >>> from pybnc import AODE
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = AODE().fit(X, y)
    >>> round(model.score(X, y), 3)
    0.94
    """

    # every table comes from the pairwise counts; a missing super-parent is left out
    _capabilities = Capabilities(learns_from_counts=True, passes=1, sums_missing_exactly=False,
                                 averages_structures=True, sample_weight="counts", weightings=_discriminative.ONLY)
    _parameter_constraints = {**ENCODER, "min_count": [Interval(Real, 0, None, closed="left")],
                              "smoothing": smoothing_options("bayes", "mle"), "alpha": ALPHA,
                              **DISCRIMINATIVE_WEIGHTING}

    def __init__(self, min_count=30, smoothing="bayes", alpha=None, encoder=None,
                 weighting=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    def _refine_capabilities(self, declared):
        return _discriminative.refine(declared) if _discriminative.wanted(self) else declared

    @property
    def _n_parents(self) -> int:
        return 1

    def _fit_encoded(self, codes, y, counts):
        self._fit_super_parents(counts)
        self._weigh(counts, codes, y)

    def _weigh(self, counts, codes, y) -> None:
        """``weighting="discriminative"``: the ALR^n weights, from the rows in memory (a fit
        from counts alone has none: out of core, :meth:`_learn_in_passes` reads them)."""
        if _discriminative.wanted(self) and codes.shape[0]:
            alr_weights.weigh_alr(self, self._n_parents, counts, codes, y)

    def _learn_in_passes(self, counts):
        """Out of core: the tables from the counts, then (``weighting="discriminative"``) the
        weights, one pass over the blocks per evaluation."""
        yield from super()._learn_in_passes(counts)
        if _discriminative.wanted(self):
            yield from alr_weights.weigh_alr_in_passes(self, self._n_parents, counts)

    def _fit_super_parents(self, counts):
        """The one-dependence estimators' tables and naive Bayes's (AnDE's fallback too)."""
        alpha = resolve_alpha(self.smoothing, self.alpha)
        self.log_joint_, self.log_child_ = super_parent_log_tables(counts, self.smoothing, alpha)
        value_counts = counts.levels.sum(axis=0)
        self.super_parent_ok_ = value_counts >= self.min_count
        fallback = learn_parameters(Structure.naive_bayes(counts.n_features), counts, self.smoothing, alpha)
        self.class_log_prior_, self.log_cpts_ = fallback.class_log_prior, fallback.log_cpts

    def _check_fitted_state(self):
        super()._check_fitted_state()
        k, width = len(self.classes_), int(self.encoder_.cardinalities_.sum())
        fitted_array(self, "log_joint_", (k, width))
        fitted_array(self, "log_child_", (k, width, width))
        fitted_array(self, "super_parent_ok_", (width,), kinds="b")

    def _jll_encoded(self, codes):
        if _discriminative.wanted(self):
            return alr_weights.alr_jll(self, self._n_parents, codes)
        return self._generative_jll(codes)

    def _masked_jll(self, coded, rows, keep):
        # explain's masked copies of a few rows: each row's own cells gathered once
        # (aode_masked_log_joint); AnDE and the discriminative weights read every row
        offsets = one_hot_offsets(self.encoder_.cardinalities_)
        if self._n_parents != 1 or _discriminative.wanted(self) or offsets[-1] < _GATHER_FROM_WIDTH:
            return super()._masked_jll(coded, rows, keep)
        jll = np.empty((rows.size, len(self.classes_)))
        has_parent = np.empty(rows.size, dtype=bool)
        for row in np.unique(rows):
            at = np.flatnonzero(rows == row)
            jll[at], has_parent[at] = aode_masked_log_joint(coded[row], keep[at], offsets, self.log_joint_,
                                                            self.log_child_, self.super_parent_ok_)
        lone = ~has_parent
        if lone.any():
            jll[lone] = self._naive_jll(np.where(keep[lone], coded[rows[lone]], -1))
        return jll

    def _generative_jll(self, codes):
        """The model's log joint without discriminative weights."""
        return self._super_parent_jll(codes)

    def _super_parent_jll(self, codes):
        """The average over super-parents, naive Bayes where none qualifies (AnDE's fallback too)."""
        offsets = one_hot_offsets(self.encoder_.cardinalities_)
        jll, has_parent = aode_log_joint(codes, offsets, self.log_joint_, self.log_child_, self.super_parent_ok_)
        if not has_parent.all():
            jll[~has_parent] = self._naive_jll(codes[~has_parent])
        return jll

    def _naive_jll(self, codes):
        """Naive Bayes's log joint: the rows without a super-parent take it."""
        return joint_log_likelihood(codes, Structure.naive_bayes(codes.shape[1]), self.class_log_prior_,
                                    self.log_cpts_, self.encoder_.cardinalities_)
