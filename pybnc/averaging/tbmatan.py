"""TBMATAN: the exact Bayesian model average over all tree-augmented naive Bayes.

Cerquides & López de Màntaras (2003), "Tractable Bayesian learning of tree
augmented naive Bayes classifiers", ICML. With a decomposable prior over TANs
(eqs. 6-15: a weight ``beta_uv`` per undirected edge, Dirichlet parameters with
hyperparameters ``N'``) the posterior is again decomposable (eqs. 20-22) and the
averaged predictive distribution is a spanning-tree sum (eqs. 17-19)::

    P(x, c | D) = P(c) prod_u P(x_u | c) * T(beta* o h(x, c)) / T(beta*)

where ``T(w) = sum_trees prod_edges w_uv`` (the matrix-tree theorem's Laplacian
minor), ``beta*_uv = beta_uv W_uv`` with ``W_uv`` the Bayes factor of edge
``u - v`` (eq. 22), and ``h_uv = P(x_u, x_v | c) / (P(x_u | c) P(x_v | c))`` under
the posterior-mean parameters (``N'* = N' + N``, eq. 21). The prior is the paper's:
``beta = 1`` (eq. 23) and ``N'_{v,u,C}(j, i, c) = lambda / (#C #A_u #A_v)`` (eq. 24).

``T`` is computed exactly in float64 by the subtraction-free log-space elimination
of :func:`pybnc.averaging._laplacian.log_tree_sum`, so no arbitrary precision is
needed, even where ``W_uv`` spans thousands of orders of magnitude.

Two documented departures, both invisible on complete data:

* ``W_uv`` is stored as the proper Bayes factor
  ``ML(x_u, x_v | C) / (ML(x_u | C) ML(x_v | C))``. Eq. 22 equals it times
  ``prod_c Gamma(N'_C) / Gamma(N'_C + N_C)``, a factor common to every edge that
  cancels in the posterior over trees (all trees have ``n - 1`` edges) and in
  SSTBMATAN's affine map of ``log W``.
* Training rows with missing values break the consistency (eqs. 10-12) that a
  decomposable distribution needs. pybnc uses available-case counts *per pair*:
  edge ``u - v``'s Bayes factor and its ``h_uv`` (with its own margins) come from
  the rows where both features are observed, ``P(x_u | c)`` from the rows where
  ``x_u`` is observed, ``P(c)`` from all rows. Each factor is then a posterior
  quantity of its own sub-sample; with complete data all of them are the paper's.
"""

from __future__ import annotations

import itertools
import threading
from numbers import Real

import numpy as np
import pandas as pd
from scipy.special import gammaln

from .._utils.warn import warn
from .._utils.validation import Interval
from .._utils.logsumexp import logsumexp
from ..counts.tables import Counts, one_hot_offsets, segment_sums
from ..estimators._fitted_state import InconsistentState, fitted_array
from ..estimators.base import BaseBNC, keep_arguments
from ..estimators._constraints import ENCODER, POSITIVE_INT
from ..estimators.capabilities import Capabilities
from ._laplacian import kron_reduce, log_tree_sum, log_tree_sums_for_rows

#: Prediction's (rows x features) working arrays, kept per thread between calls: a fresh
#: array of a megabyte costs more in page faults (about 0.3 ms) than the work done in
#: it. Only arrays up to _SCRATCH_BYTES are kept.
_scratch = threading.local()
_SCRATCH_BYTES = 1 << 23


def _scratch_array(name: str, shape: tuple, dtype) -> np.ndarray:
    """An uninitialised array of ``shape``, reused by the next call of this thread."""
    size, dtype = int(np.prod(shape)), np.dtype(dtype)
    if size * dtype.itemsize > _SCRATCH_BYTES:
        return np.empty(shape, dtype)
    held = getattr(_scratch, name, None)
    if held is None or held.size < size or held.dtype != dtype:
        held = np.empty(max(size, 1), dtype)
        setattr(_scratch, name, held)
    return held[:size].reshape(shape)


def _pair_statistics(counts: Counts):
    """Per-pair available-case margins from the ``(K, W, W)`` joint counts.

    Returns ``(row_margin (K, W, n), pair_total (K, n, n))``: ``row_margin[c, a, v]``
    counts level ``a`` (of its feature ``u``) over the rows of class ``c`` where both
    ``u`` and ``v`` are observed, ``pair_total[c, u, v]`` those rows.
    """
    row_margin = segment_sums(counts.dense_joint(), counts.offsets, axis=2)
    pair_total = segment_sums(row_margin, counts.offsets, axis=1)
    return row_margin, pair_total


def log_bayes_factors(counts: Counts, ess: float):
    """Log Bayes factor of every edge and log dependence ratios of every level pair.

    Parameters
    ----------
    counts : Counts
    ess : float
        Equivalent sample size ``lambda`` of the prior (eq. 24).

    Returns
    -------
    log_w : ndarray of shape (n, n)
        ``log ML(x_u, x_v | C) - log ML(x_u | C) - log ML(x_v | C)`` on the rows where
        both are observed; ``-inf`` on the diagonal.
    log_h : ndarray of shape (K, W, W)
        ``log P(a, b | c) - log P(a | c) - log P(b | c)`` for one-hot columns ``a``,
        ``b`` of different features, posterior means with the pair's own margins.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> x = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> log_w, log_h = log_bayes_factors(count(x, np.array([0, 0, 1, 1]), [2, 2], 2), 10.0)
    >>> bool(log_w[0, 1] > 0), bool(log_h[0, 0, 2] > 0)  # dependent pair, matching levels
    (True, True)
    """
    k = counts.n_classes
    cards = counts.cardinalities.astype(np.float64)
    feat = counts.column_feature
    row_margin, pair_total = _pair_statistics(counts)
    col_card = cards[feat]
    prior_cell = ess / (k * col_card[:, None] * col_card[None, :])  # (W, W), eq. 24
    prior_level = ess / (k * col_card)  # (W,): eq. 10 summed over the partner
    prior_class = ess / k  # eq. 11

    cell_terms = (gammaln(prior_cell + counts.dense_joint()) - gammaln(prior_cell)).sum(axis=0)
    log_ml_pair = segment_sums(segment_sums(cell_terms, counts.offsets, axis=0), counts.offsets, axis=1)
    level_terms = (gammaln(prior_level[None, :, None] + row_margin) - gammaln(prior_level)[None, :, None]).sum(axis=0)
    log_ml_first = segment_sums(level_terms, counts.offsets, axis=0)  # (n, n): [u, v] -> u's cells in pair (u, v)
    class_terms = (gammaln(prior_class + pair_total) - gammaln(prior_class)).sum(axis=0)
    # The class normalisers: ML(pair) has one, ML(u) and ML(v) one each, so one remains.
    log_w = log_ml_pair - log_ml_first - log_ml_first.T + class_terms
    np.fill_diagonal(log_w, -np.inf)

    pair_rows = pair_total[:, feat][:, :, feat]  # (K, W, W)
    level_a = row_margin[:, :, feat]  # count of a within pair (feat[a], feat[b])
    log_h = (
        np.log(prior_cell + counts.dense_joint())
        + np.log(prior_class + pair_rows)
        - np.log(prior_level[None, :, None] + level_a)
        - np.log(prior_level[None, None, :] + np.swapaxes(level_a, 1, 2))
    )
    same = feat[:, None] == feat[None, :]
    log_h[:, same] = 0.0
    return log_w, log_h


class TBMATAN(BaseBNC):
    """Exact Bayesian model averaging over all TANs (Cerquides & López de Màntaras 2003).

    Learning is counting (every pairwise class-conditional table, as TAN) plus one
    Bayes factor per feature pair; no structure is chosen. Classifying a row sums
    over all ``n^(n-2)`` trees by the matrix-tree theorem, one log-space
    determinant per class, exact to float64 accuracy. The determinants run in
    compiled code (built at install), on every core for large batches; without the
    compiled kernels, in vectorised numpy (slower, the same results to rounding).

    Parameters
    ----------
    alpha : float, default=10
        Equivalent sample size ``lambda`` of the prior (eq. 24; the paper uses 10): the
        strength the paper's multinomial sampling (eq. 4) takes, which is the ``alpha``
        of ``smoothing="ms"`` in the other classifiers, with the same default.
    max_missing_combinations : int, default=4096
        A row with missing values is answered exactly by summing eq. 17 over every
        combination of its missing features' levels, while the number of
        combinations is at most this bound. Beyond it, each missing feature is
        treated as a leaf in every tree: its factors ``h_uv`` are set to 1 and its
        ``P(x_u | c)`` dropped, which is exact for the trees in which no missing
        feature lies on the path between two observed ones. :meth:`missing_summary`
        tells which rows take which path, and a ``UserWarning`` is raised when any
        was approximated (saying how many of the missing cells are categories not
        seen in training, which count as missing).

        Why not a closed form: summing a missing feature ``m`` out of one tree gives
        1 where ``m`` is a leaf, but where ``m`` is an inner node with neighbours
        ``v_1 .. v_d`` it gives ``sum_a P(a | c) prod_i h(a, x_{v_i})``, a factor
        over ``d`` features that no product of pairwise edge weights expresses. With
        ``m`` as the Laplacian's ground node the tree sum is
        ``det(L_0 + diag(beta_vm h(a, x_v)))``, and the average of determinants over
        ``a`` is not the determinant of the averaged matrix. So the exact sum costs
        one tree sum per combination. What is done once for all rows: features with
        at most one level (a factor 1 in every tree) are eliminated from the
        Laplacian before any row is read (Kron reduction), which on tables with
        many "not applicable" columns removes most of the nodes.
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    class_log_prior_ : ndarray of shape (n_classes,)
        ``log P(c | D)``.
    feature_log_prob_ : ndarray of shape (n_classes, W)
        ``log P(x_u = a | c, D)`` per one-hot column (``W = sum of cardinalities``).
    log_dependence_ : ndarray of shape (n_classes, W, W)
        ``log h``: the log dependence ratios of eq. 19.
    log_edge_weights_ : ndarray of shape (n_features, n_features)
        ``log beta*_uv`` of the posterior over trees (eq. 20); ``-inf`` (no edge) for a
        feature never observed in training, which is in no tree.
    log_tree_normaliser_ : float
        ``log Z_beta*`` (eq. 8 with ``beta*``).

    Notes
    -----
    The paper cuts continuous attributes into 5 equal-frequency bins; pass
    ``encoder=Encoder(discretizer="quantile", n_bins=5)`` to follow its protocol
    (docs/cerquides2003.md). The default is MDL, as for every pybnc classifier.

    Examples
    --------
    >>> from pybnc import TBMATAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = TBMATAN().fit(X, y)
    >>> model.predict_proba(X.head(2)).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    # every table comes from the pairwise counts
    _capabilities = Capabilities(learns_from_counts=True, passes=1, averages_structures=True, sample_weight="counts")
    _parameter_constraints = {**ENCODER, "alpha": [Interval(Real, 0, None, closed="neither")],
                              "max_missing_combinations": POSITIVE_INT}

    def __init__(self, alpha=10.0, max_missing_combinations=4096, encoder=None):
        keep_arguments(self, locals())

    # -- learning -----------------------------------------------------------------
    def _fit_encoded(self, codes, y, counts):
        ess = float(self.alpha)  # the equivalent sample size lambda
        k = counts.n_classes
        self.class_log_prior_ = np.log(ess / k + counts.class_counts) - np.log(ess + counts.n_rows)
        level_counts = counts.levels  # (K, W): N(c, x_u = a)
        observed = segment_sums(level_counts, counts.offsets, axis=1)[:, counts.column_feature]
        col_card = counts.cardinalities[counts.column_feature]
        self.feature_log_prob_ = np.log(ess / (k * col_card) + level_counts) - np.log(ess / k + observed)
        log_w, self.log_dependence_ = log_bayes_factors(counts, ess)
        # A feature with one level (or none: never observed) is independent of every
        # other: its Bayes factors are exactly 1 and its factors h are 1 (what the
        # formulas give, up to rounding, for one level; empty count blocks for none).
        neutral = counts.cardinalities <= 1
        log_w[neutral, :] = 0.0
        log_w[:, neutral] = 0.0
        np.fill_diagonal(log_w, -np.inf)
        self.log_dependence_[:, neutral[counts.column_feature], :] = 0.0
        self.log_dependence_[:, :, neutral[counts.column_feature]] = 0.0
        log_beta = self._posterior_edge_weights(log_w)
        # A feature never observed (no level) is in no tree: with it, the trees through it
        # would cut its neighbours apart and change the average; without it, it
        # contributes nothing, as if the column were not there.
        present = counts.cardinalities > 0
        log_beta[~present, :] = -np.inf
        log_beta[:, ~present] = -np.inf
        self.log_edge_weights_ = log_beta
        self.log_tree_normaliser_ = float(log_tree_sum(log_beta[np.ix_(present, present)]))
        self.column_offsets_ = counts.offsets[:-1]

    def _check_fitted_state(self):
        super()._check_fitted_state()
        k, cards = len(self.classes_), self.encoder_.cardinalities_
        n, width = cards.size, int(cards.sum())
        fitted_array(self, "feature_log_prob_", (k, width))
        fitted_array(self, "log_dependence_", (k, width, width))
        fitted_array(self, "log_edge_weights_", (n, n), finite=False)  # log 0 = -inf: no edge
        if not np.array_equal(fitted_array(self, "column_offsets_", (n,), kinds="iu"), one_hot_offsets(cards)[:-1]):
            raise InconsistentState("column_offsets_", "differ from the encoding's column offsets")
        normaliser = np.asarray(getattr(self, "log_tree_normaliser_", None))
        fitted_array(self, "log_tree_normaliser_", (), value=normaliser)  # a finite float

    def _posterior_edge_weights(self, log_w):
        """``log beta* = log beta + log W`` with the uniform prior ``beta = 1`` (eq. 23)."""
        return log_w

    # -- prediction -----------------------------------------------------------------
    def _neutral(self) -> np.ndarray:
        """Features with at most one level: a factor 1 in every row, missing or not."""
        return self.encoder_.cardinalities_ <= 1

    def _missing_paths(self, codes):
        """Masks of the rows answered as complete, summed exactly, and approximated."""
        missing = (codes < 0) & ~self._neutral()
        has_missing = missing.any(axis=1)
        if not has_missing.any():  # the common case: skip the (rows x features) products
            return ~has_missing, has_missing, has_missing
        combinations = np.prod(np.where(missing, self.encoder_.cardinalities_, 1).astype(np.float64), axis=1)
        exact = has_missing & (combinations <= self.max_missing_combinations)
        return ~has_missing, exact, has_missing & ~exact

    def missing_summary(self, X) -> dict:
        """How many rows of ``X`` prediction answers complete, by the exact sum over
        missing values, or by the leaf approximation (``max_missing_combinations``),
        and how many cells hold a category not seen in training (treated as missing)."""
        codes, unseen = self._encode_with_unseen(X)
        complete, exact, approximate = self._missing_paths(codes)
        return {"complete": int(complete.sum()), "exact": int(exact.sum()), "approximate": int(approximate.sum()),
                "unseen_cells": int(unseen.sum())}

    def _encode_with_unseen(self, X):
        """Codes of ``X`` and the cells that are present but coded missing (a category
        not seen in training)."""
        X = self._align(X)
        codes = self.encoder_.transform(X)
        frame = pd.DataFrame(X.to_pandas() if hasattr(X, "to_pandas") else X)
        positions = self.encoder_._layout()[0]  # the input columns the encoder kept, in its order
        present = ~frame.isna().to_numpy()[:, positions]
        return codes, (codes < 0) & present

    def _joint_log_likelihood(self, X):
        X = self._align(X)
        codes = self.encoder_.transform(X)
        # which missing cells are unseen categories matters only to the warning of rows
        # beyond max_missing_combinations: found only when there are such rows
        return self._jll_encoded(codes, lambda: self._encode_with_unseen(X)[1])

    def _jll_encoded(self, codes, unseen=None):
        codes = np.asarray(codes)
        n_rows = codes.shape[0]
        k = len(self.classes_)
        complete, exact, approximate = self._missing_paths(codes)
        if complete.all():
            return self._complete_jll(codes)
        jll = np.empty((n_rows, k))
        if complete.any():
            jll[complete] = self._complete_jll(codes[complete])
        if exact.any():
            jll[exact] = self._summed_jll(codes[exact])
        if approximate.any():
            jll[approximate] = self._leaf_approximation_jll(codes[approximate])
            cells = int(((codes[approximate] < 0) & ~self._neutral()).sum())
            why = ""
            unseen = unseen() if callable(unseen) else unseen
            if unseen is not None and unseen[approximate].any():
                new = int(unseen[approximate].sum())
                why = (f" {new} of their {cells} missing cells hold categories not seen in training, which are "
                       "treated as missing" + (" (the input itself has no missing cell there)." if new == cells
                                               else "."))
            warn(
                f"{int(approximate.sum())} row(s) have more than max_missing_combinations="
                f"{self.max_missing_combinations} combinations of missing values; they were "
                "approximated by treating each missing feature as a leaf of every tree."
                f"{why} Raise max_missing_combinations for the exact sum (cost grows with the "
                "combinations, about a millisecond per thousand on a 2-core machine for 20 features).",
                UserWarning,
            )
        return jll

    def _reduction(self):
        """The kept (non-neutral) features, the extra weights and the log factor left
        by eliminating the neutral ones once (:func:`~pybnc.averaging._laplacian.kron_reduce`)."""
        neutral = self._neutral()
        present = self.encoder_.cardinalities_ > 0  # the others are in no tree (see _fit_encoded)
        extra, constant = kron_reduce(self.log_edge_weights_[np.ix_(present, present)], neutral[present])
        return np.flatnonzero(present & ~neutral), extra, constant

    def _complete_jll(self, codes, drop=None, reduction=None):
        """``log P(x, c | D)`` for rows with every (non-neutral) value present, ``(m, K)``.

        ``drop`` (bool ``(m, n)``), if given, marks features whose node factor and
        edge factors are replaced by 1 (the leaf approximation). Features with at most
        one level are always such a factor 1, and are eliminated once for all rows.
        """
        kept, extra, constant = self._reduction() if reduction is None else reduction
        # max(code, 0) + offset
        columns = np.add(codes, self.column_offsets_, out=_scratch_array("columns", codes.shape, np.int64),
                         casting="unsafe")
        np.maximum(columns, self.column_offsets_, out=columns)
        if kept.size < columns.shape[1]:
            columns = columns[:, kept]
        n = columns.shape[1]
        if drop is not None:
            drop = drop[:, kept]
        node = np.empty((columns.shape[0], len(self.classes_)))
        gathered = _scratch_array("gathered", columns.shape, np.float64)
        for c, log_prob in enumerate(self.feature_log_prob_):
            # a flat take per class: several times faster than fancy indexing (K, m, n);
            # "clip" (the columns are in range) spares the copy "raise" makes of ``out``
            np.take(log_prob, columns, out=gathered, mode="clip")
            if drop is not None:
                gathered[drop] = 0.0
            node[:, c] = gathered.sum(axis=1)
        jll = self.class_log_prior_[None, :] + node - self.log_tree_normaliser_ + constant
        if n <= 1:
            return jll
        beta = self.log_edge_weights_[np.ix_(kept, kept)]
        jll += log_tree_sums_for_rows(beta, self.log_dependence_, columns, drop, log_extra=extra)
        return jll

    def _summed_jll(self, codes):
        """Exact ``log P(x_observed, c | D)``: eq. 17 summed over the missing levels.

        Every tree that has a missing feature as an inner node couples its neighbours
        through it, so the sum does not reduce to new edge weights (only for the trees
        where each missing feature hangs as a leaf does it give factors 1; that is the
        leaf approximation). It is a sum of one tree sum per completion. Rows are
        grouped by their pattern of missing features, so the loop runs over distinct
        patterns, never over rows.
        """
        cards = self.encoder_.cardinalities_
        missing = (codes < 0) & ~self._neutral()
        reduction = self._reduction()
        patterns, which = np.unique(missing, axis=0, return_inverse=True)
        which = which.ravel()
        out = np.empty((codes.shape[0], len(self.classes_)))
        for p, pattern in enumerate(patterns):
            rows = np.flatnonzero(which == p)
            holes = np.flatnonzero(pattern)
            fills = np.array(list(itertools.product(*[range(int(cards[h])) for h in holes])), dtype=codes.dtype)
            block = max(1, (1 << 16) // len(fills))  # rows x completions per batch
            for start in range(0, rows.size, block):
                part = rows[start : start + block]
                expanded = np.repeat(codes[part][:, None, :], len(fills), axis=1)  # (r, F, n)
                expanded[:, :, holes] = fills[None]
                jll = self._complete_jll(expanded.reshape(-1, codes.shape[1]), reduction=reduction)
                out[part] = logsumexp(jll.reshape(part.size, len(fills), -1), axis=1)
        return out

    def _leaf_approximation_jll(self, codes):
        return self._complete_jll(codes, drop=codes < 0)

    # -- inspection -------------------------------------------------------------------
    def edge_log_weights(self):
        """Posterior log edge weights ``log beta*_uv`` as a labelled ``DataFrame``."""
        import pandas as pd

        names = self.feature_names_
        return pd.DataFrame(self.log_edge_weights_, index=names, columns=names)
