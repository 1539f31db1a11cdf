"""ESKDB: an ensemble of selective kDBs with HDP smoothing (Zhang, Petitjean & Buntine,
"Bayesian network classifiers using ensembles and smoothing", KAIS 2020).

Each member is an :class:`pybnc.SKDB` whose attribute order is drawn at random:
the first member takes the order of decreasing ``I(X_i; C)``; every other draws the
features one after another with probability proportional to their mutual
information with the class among those not drawn yet (features of zero information
close the order, strongest first), as the authors' code. Each feature's candidate
parents are the ``k`` earlier features of highest ``I(X_i; X_j | C)``; leave-one-out
selects the prefix and ``k'`` (:mod:`pybnc.search.skdb`) and the tables are smoothed
by hierarchical Dirichlet processes (:mod:`pybnc.hdp`). The prediction is the mean
of the members' class posteriors. The paper also varies the discretisation of
numeric attributes between members; here every member shares one encoding.
"""

from __future__ import annotations

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils import check_random_state

from .._progress import progress
from ..estimators._fitted_state import fitted_array
from ..estimators.base import BaseBNC, log_posterior
from ..inference import joint_log_likelihood
from ..scores import class_mutual_information, pairwise_cmi
from ..search.skdb import SKDB, cap_parents
from ..encode import with_encoding_params


def sampled_order(class_mi: np.ndarray, rng) -> np.ndarray:
    """Features drawn without replacement with probability proportional to ``class_mi``;
    those of zero information last, in decreasing information (ties by index)."""
    mi = np.maximum(np.asarray(class_mi, dtype=np.float64), 0.0)
    positive = np.flatnonzero(mi > 0)
    drawn = []
    weights = mi[positive].copy()
    for _ in range(positive.size):
        pick = rng.choice(positive.size, p=weights / weights.sum())
        drawn.append(int(positive[pick]))
        weights[pick] = 0.0
    rest = np.flatnonzero(mi <= 0)
    return np.array(drawn + [int(i) for i in rest], dtype=np.int64)


def ranked_parents_for(order: np.ndarray, cmi: np.ndarray, k: int) -> list:
    """Each feature's (up to) ``k`` earlier features in ``order`` of highest CMI, highest first."""
    ranked = [()] * len(order)
    for position, i in enumerate(order):
        earlier = order[:position]
        best = earlier[np.lexsort((earlier, -cmi[i, earlier]))]
        ranked[i] = tuple(int(j) for j in best[:k])
    return ranked


_ENCODING = ("n_bins", "discretizer", "id_columns", "missing", "categorical_features", "numeric_features")


def _fit_member(member, order, ranked, codes, y, counts):
    member.order_, member.ranked_parents_ = order, ranked
    member._fit_ranked(codes, y, counts)
    return member


@with_encoding_params
class ESKDB(BaseBNC):
    """Ensemble of selective kDBs with HDP smoothing (Zhang, Petitjean & Buntine 2020).

    See :mod:`pybnc.averaging.eskdb`.

    Parameters
    ----------
    n_estimators : int, default=5
        Members (the paper: 5 or more).
    k : int, default=5
        Largest number of feature parents each member tries.
    loss : {"rmse", "log_loss", "zero_one"}, default="rmse"
        Leave-one-out loss of each member's selection.
    params : {"hdp", "bayes", "mle"}, default="hdp"
        Members' parameter learner (see :class:`pybnc.SKDB`).
    alpha : float, default=None
    hdp_iterations : int, default=500
        Gibbs iterations per member (the paper: 5000).
    random_state : int, RandomState or None, default=None
        Seeds the orders and the Gibbs samplers.
    n_jobs : int, default=None
        Members fitted in parallel (joblib; ``-1`` all cores).
    verbose : int, default=1
        Progress over the members (see :mod:`pybnc._progress`).
    [encoding parameters]

    Attributes
    ----------
    orders_ : ndarray of shape (n_estimators, n_features)
        Each member's attribute order.
    n_selected_, k_selected_ : ndarray of shape (n_estimators,)
        Features and parents each member's leave-one-out selection kept.
    structures_ : list of Structure
    class_log_priors_ : ndarray of shape (n_estimators, n_classes)
    member_log_cpts_ : list of list of ndarray
        ``member_log_cpts_[m][i]``: member ``m``'s table of feature ``i``, shape ``(K, q, r)``.
    counts_ : Counts

    Examples
    --------
    >>> from pybnc import ESKDB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = ESKDB(n_estimators=3, k=2, hdp_iterations=50, random_state=0, verbose=0).fit(X, y)
    >>> model.predict_proba(X.head(2)).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    def __init__(self, n_estimators=5, k=5, loss="rmse", params="hdp", alpha=None, hdp_iterations=500,
                 random_state=None, n_jobs=None, verbose=1, n_bins=5, discretizer="mdl",
                 id_columns="drop", missing="sum", categorical_features=None, numeric_features=None):
        self.n_estimators = n_estimators
        self.k = k
        self.loss = loss
        self.params = params
        self.alpha = alpha
        self.hdp_iterations = hdp_iterations
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.n_bins = n_bins
        self.discretizer = discretizer
        self.id_columns = id_columns
        self.missing = missing
        self.categorical_features = categorical_features
        self.numeric_features = numeric_features

    def _fit_encoded(self, codes, y, counts):
        if (isinstance(self.n_estimators, bool) or not isinstance(self.n_estimators, numbers.Integral)
                or self.n_estimators < 1):
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}.")
        rng = check_random_state(self.random_state)
        class_mi = class_mutual_information(counts)
        cmi, _ = pairwise_cmi(counts)
        members, orders = [], []
        for m in range(self.n_estimators):
            order = (np.lexsort((np.arange(counts.n_features), -class_mi)) if m == 0
                     else sampled_order(class_mi, rng))
            member = SKDB(k=self.k, loss=self.loss, params=self.params, alpha=self.alpha,
                          hdp_iterations=self.hdp_iterations, random_state=int(rng.randint(2**31 - 1)),
                          verbose=0, **{name: getattr(self, name) for name in _ENCODING})
            member.classes_, member.encoder_, member.n_features_in_ = self.classes_, self.encoder_, self.n_features_in_
            if hasattr(self, "feature_names_in_"):
                member.feature_names_in_ = self.feature_names_in_
            member._check_params()  # a bad parameter fails here, not in a worker
            ranked = cap_parents(ranked_parents_for(order, cmi, int(self.k)), counts.cardinalities, counts.n_classes)
            members.append((member, order, ranked))
            orders.append(order)
        jobs = (delayed(_fit_member)(member, order, ranked, codes, y, counts) for member, order, ranked in members)
        runner = Parallel(n_jobs=self.n_jobs, return_as="generator")
        fitted = list(progress(runner(jobs), total=len(members), desc="ESKDB members", verbose=self.verbose))
        # The members' tables, not the member objects: plain arrays in the model file.
        self.orders_ = np.array(orders)
        self.n_selected_ = np.array([m.n_selected_ for m in fitted])
        self.k_selected_ = np.array([m.k_selected_ for m in fitted])
        self.structures_ = [m.structure_ for m in fitted]
        self.class_log_priors_ = np.array([m.class_log_prior_ for m in fitted])
        self.member_log_cpts_ = [m.log_cpts_ for m in fitted]

    def _check_fitted_state(self):
        super()._check_fitted_state()
        n_members, n_classes = len(self.structures_), len(self.classes_)
        fitted_array(self, "class_log_priors_", (n_members, n_classes))
        fitted_array(self, "orders_", (n_members, self.n_features_in_), kinds="iu")
        cards = self.encoder_.cardinalities_
        for m, (structure, tables) in enumerate(zip(self.structures_, self.member_log_cpts_)):
            for i, table in enumerate(tables):
                q = int(np.prod(cards[list(structure.parents[i])]))
                fitted_array(self, f"member_log_cpts_[{m}][{i}]", (n_classes, q, int(cards[i])), value=table, finite=False)

    def member_log_joint(self, codes) -> list:
        """Each member's ``log P(x, c)`` for coded rows, exact with missing values."""
        cards = self.encoder_.cardinalities_
        return [joint_log_likelihood(codes, structure, prior, tables, cards)
                for structure, prior, tables in zip(self.structures_, self.class_log_priors_, self.member_log_cpts_)]

    def _jll_encoded(self, codes):
        # mean of the members' posteriors; its log is log P(x, c) up to a per-row constant
        posterior = np.mean([np.exp(log_posterior(jll)) for jll in self.member_log_joint(codes)], axis=0)
        # HDP tables differ between classes by sampling, so a summed-out feature adds up
        # to 1 within an ulp that differs by class: rounding at 1e-14 keeps the exact ties
        # of equal evidence (predict follows the first class) without moving anything else.
        return np.log(np.maximum(np.round(posterior, 14), 1e-300))
