"""ESKDB: an ensemble of selective kDBs with HDP smoothing (Zhang, Petitjean & Buntine,
"Bayesian network classifiers using ensembles and smoothing", KAIS 2020).

Each member is an :class:`pybnc.SKDB` whose attribute order is drawn at random:
the first member takes the order of decreasing ``I(X_i; C)``; every other draws the
features one after another with probability proportional to their mutual
information with the class among those not drawn yet (features of zero information
close the order, strongest first), as the authors' code. Each feature's candidate
parents are the ``k`` earlier features of highest ``I(X_i; X_j | C)``; leave-one-out
selects the prefix and ``k'`` (:mod:`pybnc.search.skdb`) and the tables are smoothed
by hierarchical Dirichlet processes (:mod:`pybnc.parameters.hdp`). The prediction is the mean
of the members' class posteriors.

Numeric columns: the first member keeps the encoder's cut points (MDL); with
``member_bins="sampled"`` (the paper's stochastic discretisation) every other member
draws its own by :func:`pybnc.encode.discretize.sampled_mdl_cut_points` from the training
rows, so its attribute order, parents and tables are learnt from its own codes (the
mutual information too) and it codes new rows with its own cuts. Learning from
counts alone (no rows) keeps the encoder's cuts. Only the numeric columns differ
between members (:mod:`pybnc.averaging.member_bins`): the table is coded once, at fit
and at predict, and each member recodes its numeric columns from their distinct values;
it counts the pairs that involve a numeric column (for its ranking) and its own
families, not every pair again.

Defaults are the authors' (their ESKDB scripts: 20 members, ``k = 5``, 1000 Gibbs
iterations, concentrations tied per level).
"""

from __future__ import annotations

import copy
import time
from numbers import Integral
from typing import NamedTuple

import numpy as np
from joblib import delayed
from sklearn.utils import check_random_state

from .._utils.validation import StrOptions, fit_context
from .._utils.parallel import run_jobs
from .._utils.progress import progress
from ..estimators._fitted_state import InconsistentState, check_structure, check_tables, fitted_array, fitted_list
from ..estimators.base import BaseBNC, Encoding, keep_arguments
from ..estimators._constraints import POSITIVE_INT
from ..estimators.capabilities import Capabilities, capabilities
from ..inference.forest import joint_log_likelihood
from ..parameters.hdp import SharedChains
from ..encode import interval_labels
from ..estimators.base import _check_table
from ..scores.information import class_mutual_information, pairwise_cmi
from ..search.kdb import ranked_parents, sahami_order
from ..search.leave_one_out import LookupCache
from ..search.skdb import SKDB, SKDB_CONSTRAINTS
from .member_bins import NumericValues, member_statistics


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


MEMBER_BINS = ("sampled", "shared")
#: The other members are fitted on ``n_jobs`` threads where the first took this long.
THREADED_MEMBER_SECONDS = 0.1


def member_layout(encoder, cuts: list) -> tuple[np.ndarray, np.ndarray]:
    """The cardinalities and missing codes of the fitted ``encoder`` cutting column ``j``
    at ``cuts[j]`` (None: as it was), without building its labels (what scoring reads)."""
    cardinalities, missing_codes = encoder.cardinalities_.copy(), encoder.missing_codes_.copy()
    for j, column_cuts in enumerate(cuts):
        if column_cuts is not None:
            n_bins = len(column_cuts) + 1
            if missing_codes[j] >= 0:  # missing="category": its level stays the last
                missing_codes[j] = n_bins
            cardinalities[j] = n_bins + (missing_codes[j] >= 0)
    return cardinalities, missing_codes


def with_cut_points(encoder, cuts: list):
    """A copy of the fitted ``encoder`` cutting column ``j`` at ``cuts[j]`` (None: as it was)."""
    out = copy.copy(encoder)
    out.cut_points_, out.categories_ = list(encoder.cut_points_), list(encoder.categories_)
    out.cardinalities_, out.missing_codes_ = member_layout(encoder, cuts)
    for j, column_cuts in enumerate(cuts):
        if column_cuts is not None:
            levels = interval_labels(column_cuts)
            if out.missing_codes_[j] >= 0:
                levels = np.append(levels, encoder.categories_[j][-1:])
            out.cut_points_[j], out.categories_[j] = column_cuts, levels
    return out


class _Member(NamedTuple):
    """What the ensemble keeps of a fitted member. Not the member itself: its family
    counts (tens of megabytes a member on a table of many numeric columns) would all be
    held until the last member is fitted, and every later member would pay for fresh
    memory (digits: from the fifteenth member on, 0.3 s a member instead of 0.12 s)."""

    n_selected_: int
    k_selected_: int
    structure_: object
    class_log_prior_: np.ndarray
    log_cpts_: list


def _fit_member(params, encoding, codes, counts, order, ranked, y, chains, lookups) -> _Member:
    fitted = SKDB(**params)._fit_ranked(encoding, codes, y, counts, order, ranked, chains, lookups)
    return _Member(fitted.n_selected_, fitted.k_selected_, fitted.structure_, fitted.class_log_prior_,
                   fitted.log_cpts_)


class ESKDB(BaseBNC):
    """Ensemble of selective kDBs with HDP smoothing (Zhang, Petitjean & Buntine 2020).

    See :mod:`pybnc.averaging.eskdb`.

    Parameters
    ----------
    n_estimators : int, default=20
        Members (the authors' runs: 20).
    k : int, default=5
        Largest number of feature parents each member tries.
    loss : {"rmse", "log_loss", "zero_one"}, default="rmse"
        Leave-one-out loss of each member's selection.
    smoothing : {"hdp", "hgs", "bayes", "mle"}, default="hdp"
        Members' parameter learner (see :class:`pybnc.SKDB`): ``hgs``, hierarchical
        gradient smoothing, is deterministic and needs no sampling.
    alpha : float, default=None
    hdp_iterations : int, default=1000
        Gibbs iterations per member (the authors' ESKDB runs: 1000).
    member_bins : {"sampled", "shared"}, default="sampled"
        ``"sampled"``: every member but the first draws its own cut points of the
        numeric columns (stochastic MDL, as the paper); ``"shared"``: all use the
        encoder's.
    random_state : int, RandomState or None, default=None
        Seeds the orders and the Gibbs samplers.
    n_jobs : int, default=None
        Members fitted in parallel (joblib; ``-1`` all cores): on threads, which share
        the members' HDP chains and leave-one-out lookups (a family table several
        members hold is sampled once, on a stream seeded by its counts, so the model
        does not depend on ``n_jobs``); under a backend the caller chooses
        (``joblib.parallel_backend("dask")``, processes) each member samples its own,
        with the same result. The first member is fitted alone: the others go to the
        workers only where it took ``THREADED_MEMBER_SECONDS`` (0.1 s) or more, since a
        quicker member is mostly numpy on small arrays, which threads take turns at.
    verbose : int, default=1
        Progress over the members (see :mod:`pybnc._utils.progress`).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.

    Attributes
    ----------
    orders_ : ndarray of shape (n_estimators, n_features)
        Each member's attribute order.
    member_cut_points_ : list of list
        ``member_cut_points_[m][j]``: member ``m``'s cut points of column ``j``, None
        where it uses the encoder's.
    n_selected_, k_selected_ : ndarray of shape (n_estimators,)
        Features and parents each member's leave-one-out selection kept.
    structures_ : list of Structure
    class_log_priors_ : ndarray of shape (n_estimators, n_classes)
    member_log_cpts_ : list of list of ndarray
        ``member_log_cpts_[m][i]``: member ``m``'s table of feature ``i``, shape ``(K, q, r)``.
    counts_ : Counts

    Notes
    -----
    The Gibbs sampler dominates the cost: each of the ``hdp_iterations`` sweeps visits
    every observed parent configuration of every selected feature's tree, so a fit
    costs about ``n_estimators * hdp_iterations * n_features * (k + 1) * min(n_rows,
    configurations)`` node updates. The paper's settings suit tables of tens to a few
    hundred features (one member on 300 rows x 500 binary features: ~20 s); on wider
    tables lower ``hdp_iterations`` or ``n_estimators``, or use ``smoothing="bayes"``,
    which needs no sampling.

    Examples
    --------
    >>> from pybnc import ESKDB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = ESKDB(n_estimators=3, k=2, hdp_iterations=50, random_state=0, verbose=0).fit(X, y)
    >>> model.predict_proba(X.head(2)).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    def __init__(self, n_estimators=20, k=5, loss="rmse", smoothing="hdp", alpha=None, hdp_iterations=1000,
                 member_bins="sampled", random_state=None, n_jobs=None, verbose=1, encoder=None):
        keep_arguments(self, locals())

    # Members with their own bins draw them from the raw values, not the codes.
    _capabilities = Capabilities(learns_from_codes=False, averages_structures=True, smooths_by_hdp=True)
    _parameter_constraints = {**SKDB_CONSTRAINTS, "n_estimators": POSITIVE_INT,
                              "member_bins": [StrOptions(set(MEMBER_BINS))], "n_jobs": [Integral, None]}

    @fit_context(skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Learn the members from a table ``X`` and labels ``y``; returns ``self``.

        Members with their own bins (``member_bins="sampled"``) draw them from the
        values of ``X``. ``sample_weight``: integer weights, learned as repeated rows
        (:attr:`Capabilities.sample_weight <pybnc.estimators.capabilities.Capabilities>`)."""
        X, y, _ = self._weighted_rows(X, y, sample_weight)
        codes, y_codes, counts = self._encode_fit(X, y)
        self.counts_ = counts.to_keep()
        self._fit_members(X, codes, y_codes, counts)
        return self

    def _fit_encoded(self, codes, y, counts):
        """From coded rows alone: every member keeps the encoder's bins."""
        self._fit_members(None, codes, y, counts)

    def _fit_members(self, rows, codes, y, counts):
        rng = check_random_state(self.random_state)
        draw_bins = (self.member_bins == "sampled" and rows is not None and self.n_estimators > 1
                     and "discretised" in self.encoder_.kinds_)
        # a stream of its own, so that tables without numeric columns draw the same orders
        bins_rng = np.random.default_rng(rng.randint(2**31 - 1)) if draw_bins else None
        if draw_bins:  # read once: members differ in the numeric columns only
            numeric = NumericValues(self.encoder_, _check_table(rows))
            class_tables = numeric.class_tables(y, len(self.classes_))
        shared = (codes, counts, class_mutual_information(counts), pairwise_cmi(counts)[0])
        members, orders, cut_points = [], [], []
        for m in range(self.n_estimators):
            cuts = [None] * len(self.encoder_.columns_)
            encoder, (member_codes, member_counts, class_mi, cmi) = self.encoder_, shared
            if draw_bins and m > 0:
                cuts = numeric.draw_cut_points(class_tables, len(cuts), bins_rng)
                encoder = with_cut_points(self.encoder_, cuts)
                member_codes = numeric.code(codes, cuts, encoder.missing_codes_)
                # the member's kDB counts its own families; the pairs are needed for the
                # ranking only, and only those involving a numeric column changed
                member_counts, class_mi, cmi = member_statistics(counts, shared[3], member_codes, y,
                                                                 encoder.cardinalities_, numeric.columns)
            order = sahami_order(class_mi) if m == 0 else sampled_order(class_mi, rng)
            params = dict(k=self.k, loss=self.loss, smoothing=self.smoothing, alpha=self.alpha,
                          hdp_iterations=self.hdp_iterations, random_state=int(rng.randint(2**31 - 1)),
                          verbose=0, encoder=self.encoder)
            members.append((params, Encoding.of_model(self, encoder), member_codes, member_counts, order,
                            ranked_parents(order, cmi, int(self.k))))
            orders.append(order)
            cut_points.append(cuts)
        # drawn last: the orders are those of the ensemble without shared chains
        chains = SharedChains(int(self.hdp_iterations), random_state=rng.randint(2**31 - 1)) \
            if self.smoothing == "hdp" else None
        lookups = LookupCache()
        bar = progress(total=len(members), desc="ESKDB members", verbose=self.verbose)
        try:
            # The first member here: where it is quick, its work is numpy on small arrays,
            # which holds the GIL, and threads taking turns at it are slower than one.
            start = time.perf_counter()
            fitted = [_fit_member(*members[0], y, chains, lookups)]
            bar.update(1)
            n_jobs = self.n_jobs if time.perf_counter() - start >= THREADED_MEMBER_SECONDS else 1
            # threads: the chains release the GIL and share their cache; a backend chosen by
            # the caller (processes, Dask) runs the members as well, each smoothing its own
            jobs = (delayed(_fit_member)(*member, y, chains, lookups) for member in members[1:])
            for member in run_jobs(jobs, n_jobs, return_as="generator"):
                fitted.append(member)
                bar.update(1)
        finally:
            bar.close()
        # The members' tables, not the member objects: plain arrays in the model file.
        self.orders_ = np.array(orders)
        self.member_cut_points_ = cut_points
        self.n_selected_ = np.array([m.n_selected_ for m in fitted])
        self.k_selected_ = np.array([m.k_selected_ for m in fitted])
        self.structures_ = [m.structure_ for m in fitted]
        self.class_log_priors_ = np.array([m.class_log_prior_ for m in fitted])
        self.member_log_cpts_ = [m.log_cpts_ for m in fitted]

    def member_encoders(self) -> list:
        """Each member's encoder: the fitted ``encoder_`` with the member's cut points."""
        return [self.encoder_ if all(c is None for c in cuts) else with_cut_points(self.encoder_, cuts)
                for cuts in getattr(self, "member_cut_points_", [[None]] * len(self.structures_))]

    def _check_fitted_state(self):
        super()._check_fitted_state()
        n_classes, columns = len(self.classes_), self.encoder_.columns_
        structures = fitted_list(self, "structures_")
        n_members = len(structures)
        if n_members == 0:
            raise InconsistentState("structures_", "an ensemble without members")
        fitted_array(self, "class_log_priors_", (n_members, n_classes))
        # The order runs over the kept columns: an identifier the encoder left out has no place.
        fitted_array(self, "orders_", (n_members, len(columns)), kinds="iu")
        if hasattr(self, "member_cut_points_"):
            for m, cuts in enumerate(fitted_list(self, "member_cut_points_", n_members)):
                fitted_list(None, f"member_cut_points_[{m}]", len(columns), value=cuts)
                for j, (kind, c) in enumerate(zip(self.encoder_.kinds_, cuts)):
                    if c is None:
                        continue
                    c = fitted_array(None, f"member_cut_points_[{m}][{j}]", (None,), value=c)
                    if kind != "discretised" or np.any(np.diff(c) <= 0):
                        raise InconsistentState(f"member_cut_points_[{m}][{j}]",
                                                "cut points of a categorical column, or not increasing")
        tables = fitted_list(self, "member_log_cpts_", n_members)
        for m, (structure, encoder) in enumerate(zip(structures, self.member_encoders())):
            parents = check_structure(structure, len(columns), f"structures_[{m}]")
            check_tables(tables[m], parents, encoder.cardinalities_, n_classes, f"member_log_cpts_[{m}]",
                         finite=False)

    def _member_layouts(self) -> list:
        """Each member's (cardinalities, missing codes): :func:`member_layout` of its cuts."""
        cut_points = getattr(self, "member_cut_points_", [[None]] * len(self.structures_))
        shared = (self.encoder_.cardinalities_, self.encoder_.missing_codes_)
        return [shared if all(c is None for c in cuts) else member_layout(self.encoder_, cuts) for cuts in cut_points]

    def member_log_joint(self, member_codes) -> list:
        """Each member's ``log P(x, c)``, exact with missing values, from each member's
        coded rows (``encoder.transform(X)`` for each of :meth:`member_encoders`)."""
        # the members' tables are distributions: a missing leaf is pruned unchecked
        known = capabilities(self).tables_are_probabilities
        return [joint_log_likelihood(codes, structure, prior, tables, cardinalities, tables_are_probabilities=known)
                for codes, structure, prior, tables, (cardinalities, _) in zip(
                    member_codes, self.structures_, self.class_log_priors_, self.member_log_cpts_,
                    self._member_layouts())]

    def _joint_log_likelihood(self, X):
        return self._mean_posterior(self.member_log_joint(self.member_codes(self._align(X))))

    def member_codes(self, X) -> list:
        """Each member's coded rows of ``X`` (as ``encoder.transform(X)`` for each of
        :meth:`member_encoders`): the table coded once by ``encoder_``, then only the
        numeric columns recoded by each member's own cut points."""
        codes = self.encoder_.transform(X)
        cut_points = getattr(self, "member_cut_points_", [[None]] * len(self.structures_))
        if all(c is None for cuts in cut_points for c in cuts):
            return [codes] * len(cut_points)
        numeric = NumericValues(self.encoder_, X)
        return [codes if all(c is None for c in cuts) else numeric.code(codes, cuts, missing_codes)
                for cuts, (_, missing_codes) in zip(cut_points, self._member_layouts())]

    def _explain_rows(self, X):
        coded = self.member_codes(self._align(X))
        return coded, coded[0] >= 0  # a value is missing in every member's coding alike

    def _masked_jll(self, coded, rows, keep):
        return self._mean_posterior(self.member_log_joint([np.where(keep, c[rows], -1) for c in coded]))

    def _jll_encoded(self, codes):
        """From rows coded by ``encoder_``: only when no member drew its own bins."""
        if any(c is not None for cuts in getattr(self, "member_cut_points_", []) for c in cuts):
            raise ValueError("This ESKDB's members cut numeric columns their own way: score raw rows "
                             "(predict_proba(X)), not rows coded by encoder_.")
        return self._mean_posterior(self.member_log_joint([codes] * len(self.structures_)))

    @staticmethod
    def _mean_posterior(member_jll):
        # mean of the members' posteriors; its log is log P(x, c) up to a per-row constant.
        # Each posterior is normalised in linear space (no log of the normaliser to exp
        # again): the mean is floored below, and a member's floor would not reach 1e-14.
        posterior = np.zeros(np.shape(member_jll[0]))
        for jll in member_jll:
            member = np.exp(jll - jll.max(axis=1, keepdims=True))
            posterior += member / member.sum(axis=1, keepdims=True)
        posterior /= len(member_jll)
        # HDP tables differ between classes by sampling, so a summed-out feature adds up
        # to 1 within an ulp that differs by class: rounding at 1e-14 keeps the exact ties
        # of equal evidence (predict follows the first class) without moving anything else.
        return np.log(np.maximum(np.round(posterior, 14), 1e-300))
