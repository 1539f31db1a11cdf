"""MANB: exact Bayesian model averaging over the 2^n feature subsets of naive Bayes.

Dash & Cooper (2002) and Wei et al. (2011, online appendix); the general-``alpha``
form is bnclassify's (methods vignette, "Exact model averaging for naive Bayes").

Why the average over 2^n structures costs O(n)
----------------------------------------------
A structure ``G`` is a subset of features with an arc from the class; the others are
independent of the class. With the prior ``P(G) = prod_i p^{s_i} (1 - p)^{1 - s_i}``
and Dirichlet(``alpha``) parameter priors, the marginal likelihood factorises over
features, ``P(D | G) = P(D_C) prod_i L_i(s_i)``, so the posterior over subsets is a
product of independent Bernoullis with

    P(arc_i | D) = p L_i(1) / (p L_i(1) + (1 - p) L_i(0)),

``L_i(1) = prod_c Gamma(r a) / Gamma(N_ic + r a) prod_k Gamma(N_ick + a) / Gamma(a)``,
``L_i(0)`` the same with the class-pooled counts ``N_ik``. The posterior predictive of
one structure is ``P(c | D) prod_i theta_i(s_i)`` with ``theta_i(1) = P(x_i | c, D)``
and ``theta_i(0) = P(x_i | D)`` (Dirichlet posterior means; the parameters are
independent a posteriori, so the mean of the product is the product of the means).
A sum over all subsets of a product of per-feature terms, each linear in ``s_i``,
is the product of the per-feature sums, hence exactly

    sum_G P(G | D) P(c, x | G, D) = P(c | D) prod_i [pi_i theta_ijk + (1 - pi_i) theta_ik],

the vignette's per-parameter formula. So MANB is a naive Bayes with averaged
tables, and the class posterior is the full Bayesian one: ``P(c | x, D)`` is this
averaged joint normalised over ``c`` -- *not* the ``P(G | D)``-weighted average of the
subsets' class posteriors ``P(c | x, G, D)``, which ignores what ``x`` says about ``G``.

Missing values: a naive Bayes' likelihood of the observed cells factorises over
features given the (always observed) class, so with available-case counts both
``L_i`` and the posteriors above are exact for data missing at random; at predict
time a missing feature's averaged factor sums to one over its levels and drops out.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import gammaln, log_expit

from .._utils.validation import Interval
from ..counts.tables import Counts
from ..estimators.augmented import NaiveBayes
from ..estimators._constraints import ENCODER
from ..estimators.base import keep_arguments
from ..parameters.learn import class_log_prior, conditional_log_table


def _log_dirichlet_multinomial(table: np.ndarray, alpha: float) -> np.ndarray:
    """``log P(counts)`` under a symmetric Dirichlet(``alpha``) per row of the last axis.

    Returns an array with the last axis summed out (one log marginal likelihood per
    row of ``table``).
    """
    r = table.shape[-1]
    if r == 0:  # a feature never observed: the empty table has probability 1
        return np.zeros(table.shape[:-1])
    return (
        gammaln(r * alpha)
        - gammaln(table.sum(axis=-1) + r * alpha)
        + (gammaln(table + alpha) - gammaln(alpha)).sum(axis=-1)
    )


def arc_log_marginal_likelihoods(counts: Counts, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature log marginal likelihoods with and without the arc class -> feature.

    Parameters
    ----------
    counts : Counts
    alpha : float
        Symmetric Dirichlet pseudo-count, ``> 0``.

    Returns
    -------
    with_arc, without_arc : ndarray of shape (n_features,)
        ``log L_i(1) = sum_c log DM(N_ic. ; alpha)`` and
        ``log L_i(0) = log DM(N_i.. ; alpha)`` over the rows where ``x_i`` is observed.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> c = count(np.array([[0], [0], [1], [1]]), np.array([0, 0, 1, 1]), [2], 2)
    >>> with_arc, without_arc = arc_log_marginal_likelihoods(c, 1.0)
    >>> bool(with_arc[0] > without_arc[0])  # the feature copies the class
    True
    """
    with_arc = np.empty(counts.n_features)
    without_arc = np.empty(counts.n_features)
    for i in range(counts.n_features):
        n_cik = counts.feature(i)
        with_arc[i] = _log_dirichlet_multinomial(n_cik, alpha).sum()
        without_arc[i] = _log_dirichlet_multinomial(n_cik.sum(axis=0), alpha)
    return with_arc, without_arc


def arc_posterior_log_odds(counts: Counts, alpha: float, arc_prior: float) -> np.ndarray:
    """``log P(arc_i | D) - log P(no arc_i | D)`` for every feature, shape ``(n,)``.

    ``+inf``/``-inf`` when ``arc_prior`` is 1 or 0.
    """
    with_arc, without_arc = arc_log_marginal_likelihoods(counts, alpha)
    with np.errstate(divide="ignore"):
        prior_log_odds = np.log(arc_prior) - np.log1p(-arc_prior)
    return prior_log_odds + with_arc - without_arc


def manb_log_tables(counts: Counts, alpha: float, arc_prior: float):
    """MANB tables: class log prior, averaged log CPTs and the arc posteriors.

    Returns
    -------
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray of shape (K, 1, r_i)
        ``log(pi_i P(x_i | c, D) + (1 - pi_i) P(x_i | D))``.
    arc_posterior : ndarray of shape (n_features,)
        ``pi_i = P(arc class -> x_i | D)``.
    """
    log_odds = arc_posterior_log_odds(counts, alpha, arc_prior)
    log_pi, log_not_pi = log_expit(log_odds), log_expit(-log_odds)
    log_cpts = []
    for i in range(counts.n_features):
        n_cik = counts.feature(i)
        with_arc = conditional_log_table(n_cik[:, None, :], "bayes", alpha)
        without_arc = conditional_log_table(n_cik.sum(axis=0)[None, None, :], "bayes", alpha)
        log_cpts.append(np.logaddexp(log_pi[i] + with_arc, log_not_pi[i] + without_arc))
    return class_log_prior(counts.class_counts, "bayes", alpha), log_cpts, np.exp(log_pi)


class MANB(NaiveBayes):
    """Naive Bayes averaged exactly over all 2^n feature subsets (MANB).

    Bayesian model averaging over every naive Bayes obtained by keeping or dropping
    each arc class -> feature, in time linear in the number of features (Dash &
    Cooper 2002; Wei et al. 2011; bnclassify's ``lp(..., manb_prior=)``). The
    averaged model is a naive Bayes whose table for feature ``i`` is
    ``pi_i P(x_i | c, D) + (1 - pi_i) P(x_i | D)``, ``pi_i`` the posterior probability
    of the arc; its joint ``P(c, x | D)`` equals the explicit posterior-weighted sum
    over the 2^n structures exactly (see :mod:`pybnc.averaging.manb`).

    Parameters
    ----------
    arc_prior : float, default=0.5
        Prior probability of each arc class -> feature, in ``[0, 1]``; 1 gives
        :class:`NaiveBayes` with ``smoothing="bayes"``, 0 ignores every feature.
    alpha : float, default=1.0
        Symmetric Dirichlet pseudo-count (``> 0``) of every parameter prior; it also
        enters the marginal likelihoods.
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.

    Attributes
    ----------
    classes_, encoder_, structure_, arcs_, class_log_prior_, log_cpts_, feature_weights_
        As :class:`pybnc.TAN` (and ``n_features_in_``, ``feature_names_in_``).
    arc_posterior_ : ndarray of shape (n_features,)
        ``P(arc class -> x_i | D)`` for every feature.

    Examples
    --------
    >>> from pybnc import MANB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = MANB().fit(X, y)
    >>> model.arc_posterior_.round(3).tolist()
    [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    """

    _capabilities = NaiveBayes._capabilities.replace(averages_structures=True, weightings=())
    # alpha also enters the marginal likelihoods: a pseudo-count of 0 has none
    _parameter_constraints = {**ENCODER, "arc_prior": [Interval(Real, 0, 1, closed="both")],
                              "alpha": [Interval(Real, 0, None, closed="neither")]}

    def __init__(self, arc_prior=0.5, alpha=1.0, encoder=None):
        keep_arguments(self, locals())

    def _set_parameters(self, counts, codes, y):
        class_log_prior, log_cpts, self.arc_posterior_ = manb_log_tables(counts, float(self.alpha),
                                                                         float(self.arc_prior))
        self._set_network(self.structure_, class_log_prior, log_cpts)  # averaged tables, not weighted ones
