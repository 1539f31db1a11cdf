"""Selective k-dependence Bayesian classifier (Martínez, Webb, Chen & Zaidi, JMLR 2016).

Three passes over the data:

1. the pairwise counts give Sahami's order (decreasing ``I(X_i; C)``) and each
   feature's ``k`` candidate parents, ranked by ``I(X_i; X_j | C)``
   (:func:`pybnc.search.kdb.sahami_ranking`);
2. one family table per feature, ``N(c, pa_1 .. pa_k, x_i)`` with a missing slot
   per feature (:func:`pybnc.counts.families.count_families`); the tables of ``k' < k``
   parents are its exact marginals;
3. every training row is classified by every candidate model (the first ``s``
   features of the order, each with its first ``k'`` ranked parents, for all
   ``s <= n`` and ``k' <= k``) with that row's own counts subtracted
   (leave-one-out, :mod:`pybnc.search.leave_one_out`), and the candidate of least
   loss is kept.

Leave-one-out is exact and costs no refit: removing row ``x`` with class ``y``
lowers ``N(y, pa(x), x_i)`` and ``N(y, pa(x))`` by one and nothing else, so each
row's held-out posterior is read from the total counts. The structure (order and
candidate parents) is learned once from all rows, as in the paper; leave-one-out
selects among the candidates.

Missing values: counts are available-case (a family's table counts the rows where
its features are observed). In the selection pass a factor whose child or any used
parent is missing in the held-out row is left out (the child is summed out exactly;
a missing parent would need variable elimination per row and candidate, which the
selection does not do). The fitted model predicts rows with missing values by exact
variable elimination (:func:`pybnc.inference.forest.joint_log_likelihood`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._utils.validation import Interval, StrOptions
from ..counts.families import FamilyCounts, count_families
from ..estimators._constraints import ALPHA, ENCODER, POSITIVE_INT, smoothing_options
from ..estimators.augmented import AugmentedNaiveBayes
from ..estimators import _discriminative
from ..estimators._constraints import DISCRIMINATIVE_WEIGHTING
from ..estimators.base import keep_arguments, run_passes
from ..parameters.hdp import hdp_class_log_prior, hdp_log_cpts, hdp_parameters, ranked_to_sorted
from ..parameters.hierarchical import hgs_log_cpts
from ..parameters.learn import class_log_prior, conditional_log_table, resolve_alpha
from ..structure.dag import Structure
from .kdb import sahami_ranking
from .leave_one_out import loo_losses, loo_lookups

LOSSES = ("rmse", "log_loss", "zero_one")
#: Largest family table (cells, missing slots included): a candidate parent that would
#: make it larger is not taken (adult's 40-level columns as 5 parents: 10^9 cells).
MAX_FAMILY_CELLS = 1 << 22


#: The parameters of SKDB (and of ESKDB's members).
SKDB_CONSTRAINTS = {
    **ENCODER,
    "k": [Interval(Integral, 0, None, closed="left")],
    "loss": [StrOptions(set(LOSSES))],
    "smoothing": smoothing_options("bayes", "mle", "hgs", "hdp"),
    "alpha": ALPHA,
    "hdp_iterations": POSITIVE_INT,
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


def cap_parents(ranked_parents, cardinalities, n_classes: int) -> list:
    """Each feature's ranked parents, cut before the first that makes its family table
    exceed :data:`MAX_FAMILY_CELLS` cells."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    out = []
    for i, parents in enumerate(ranked_parents):
        cells, kept = n_classes * (int(cards[i]) + 1), []
        for p in parents:
            cells *= int(cards[p]) + 1
            if cells > MAX_FAMILY_CELLS:
                break
            kept.append(p)
        out.append(tuple(kept))
    return out


def select_candidate(losses: np.ndarray) -> tuple[int, int]:
    """``(s, k')`` of least loss; ties go to fewer features, then fewer parents (the
    paper's scan from the class prior alone)."""
    flat = int(np.argmin(losses.ravel()))
    s, k_sel = divmod(flat, losses.shape[1])
    return s, (0 if s == 0 else k_sel)


class SKDB(AugmentedNaiveBayes):
    """Selective k-dependence Bayesian classifier (Martínez et al., JMLR 2016).

    Sahami's kDB (features in decreasing mutual information with the class, each
    with up to ``k`` earlier features as parents ranked by conditional mutual
    information) from which leave-one-out cross-validation, computed exactly from
    the counts, selects how many features to keep (a prefix of the order) and how
    many parents ``k' <= k`` each keeps. See :mod:`pybnc.search.skdb`.

    Out of core: ``fit_blocks`` (blocks given as a list or a function returning a
    fresh iterator) and ``fit_dask`` make the paper's three passes and give the
    same model as ``fit``. There is no ``partial_fit``: one pass cannot give the
    order, the families and the leave-one-out losses that all the rows decide.

    Parameters
    ----------
    k : int, default=5
        Largest number of feature parents tried (the paper's ``k = 5``).
    loss : {"rmse", "log_loss", "zero_one"}, default="rmse"
        Leave-one-out loss that selects the model: root mean squared error of the
        true class probability (the paper's), log-loss or error rate.
    smoothing : {"bayes", "mle", "hgs", "hdp"}, default="bayes"
        Parameter learner of the fitted model: Dirichlet posterior mean with
        pseudo-count ``alpha``, relative frequencies, hierarchical gradient smoothing
        (Zhang et al. 2020, :mod:`pybnc.parameters.hierarchical`) or hierarchical Dirichlet
        process smoothing (Petitjean et al. 2018, :mod:`pybnc.parameters.hdp`); both
        hierarchies condition on the class first, then on the parents strongest first.
        The selection uses ``bayes``/``mle`` (``hgs``, ``hdp``: ``bayes``), as Zhang et
        al.'s ESKDB.
    alpha : float, default=None
        Pseudo-count of ``bayes`` (default 1), also of the selection with ``hdp``.
    hdp_iterations : int, default=500
        Gibbs iterations of ``smoothing="hdp"`` (the paper: 5000).
    random_state : int, RandomState or None, default=None
        Seeds the Gibbs sampler of ``smoothing="hdp"``.
    verbose : int, default=1
        Progress of the Gibbs sampler (see :mod:`pybnc._utils.progress`).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "discriminative"}, default=None
        ``"discriminative"``: the selected model's tables weighted, one weight per
        cell and class, for the conditional log-likelihood (``docs/discriminative.md``);
        the features left out stay out.
    discriminative_penalty : float or None, default=None
    discriminative_max_iter : int, default=500
        As :class:`pybnc.NaiveBayes`.

    Attributes
    ----------
    order_ : ndarray of shape (n_features,)
        Features in decreasing ``I(X_i; C)``.
    ranked_parents_ : list of tuple of int
        Candidate parents of each feature, strongest first (cut before a parent that
        would make the family table exceed ``MAX_FAMILY_CELLS``).
    selection_loss_ : ndarray of shape (n_features + 1, k + 1)
        Mean leave-one-out loss (RMSE for ``"rmse"``) of each candidate
        ``[s, k']``; row 0 is the class prior alone.
    n_selected_ : int
        Features kept (the first ``n_selected_`` of ``order_``); the others do not
        take part in the prediction.
    k_selected_ : int
        Parents kept per feature.
    family_counts_ : FamilyCounts
        One table per feature in ``order_``, with all ``k`` candidate parents.
    structure_, class_log_prior_, log_cpts_, arcs_, feature_weights_
        As :class:`pybnc.KDB`; a feature not kept has no parents and a table
        uniform over its levels for every class.

    Examples
    --------
    >>> from pybnc import SKDB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = SKDB(k=2).fit(X, y)
    >>> model.n_selected_, model.k_selected_
    (6, 2)
    >>> round(model.score(X, y), 3)
    0.979
    """

    # out of core through fit_blocks / fit_dask, in the three passes
    _capabilities = AugmentedNaiveBayes._capabilities.replace(passes=3, smooths_by_hdp=True,
                                                              weightings=_discriminative.ONLY)
    _parameter_constraints = {**SKDB_CONSTRAINTS, **DISCRIMINATIVE_WEIGHTING}

    def __init__(self, k=5, loss="rmse", smoothing="bayes", alpha=None, hdp_iterations=500, random_state=None,
                 verbose=1, encoder=None,
                 weighting=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    @property
    def _selection_smoothing(self) -> str:
        return "bayes" if self.smoothing in ("hdp", "hgs") else self.smoothing

    # -- the three passes ---------------------------------------------------------------
    def _fit_encoded(self, codes, y, counts):
        order, ranked = sahami_ranking(counts, int(self.k))
        run_passes(self._passes_from_order(counts, order, ranked), lambda: iter([(codes, y)]))
        if _discriminative.wanted(self) and codes.shape[0]:
            _discriminative.weigh_network(self, counts, codes, y)

    def _weighted_features(self) -> np.ndarray:
        """The features the selected model keeps (the others are not weighted)."""
        return np.sort(self.order_[: self.n_selected_])

    def _fit_ranked(self, encoding, codes, y, counts, order, ranked_parents, chains=None, lookups=None):
        """Passes 2 and 3 for a given attribute order and candidate parents (strongest
        first), the hook of ensembles that draw their own orders (ESKDB); ``encoding``
        is the encoding the rows were coded with; ``chains`` and ``lookups`` the
        :class:`~pybnc.parameters.hdp.SharedChains` and
        :class:`~pybnc.search.leave_one_out.LookupCache` the ensemble's members share
        (None: this fit's own). Returns ``self``."""
        self._start_fit(encoding)
        self._shared_chains, self._shared_lookups = chains, lookups
        run_passes(self._passes_from_order(counts, order, ranked_parents), lambda: iter([(codes, y)]))
        return self

    def _learn_in_passes(self, counts):
        """Out of core: Sahami's order from the first pass's counts, then passes 2 and 3."""
        order, ranked = sahami_ranking(counts, int(self.k))
        yield from self._passes_from_order(counts, order, ranked)
        yield from self._weigh_in_passes(counts)

    def _passes_from_order(self, counts, order, ranked_parents):
        """Passes 2 (family counts) and 3 (leave-one-out losses) over the rows, then the
        selected model (a generator driven by :func:`~pybnc.estimators.base.run_passes`)."""
        alpha = resolve_alpha(self._selection_smoothing, self.alpha)
        self.order_ = np.asarray(order)
        self.ranked_parents_ = cap_parents(ranked_parents, counts.cardinalities, counts.n_classes)
        families = [self.ranked_parents_[i] + (int(i),) for i in self.order_]
        cards, n_classes, k = counts.cardinalities, counts.n_classes, int(self.k)
        fc = yield lambda codes, y: count_families(codes, y, cards, n_classes, families)
        lookups = loo_lookups(fc, k, alpha, cache=self._loo_cache())  # once for all the blocks
        losses = yield lambda codes, y: loo_losses(fc, self.order_, codes, y, k, alpha, self.loss, lookups=lookups)
        self._select(fc, losses, counts, alpha)

    # -- the selected model -----------------------------------------------------------
    def _select(self, fc: FamilyCounts, losses: np.ndarray, counts, alpha: float) -> None:
        n = fc.n_rows
        mean = losses / max(n, 1.0)
        self.selection_loss_ = np.sqrt(mean) if self.loss == "rmse" else mean
        self.n_selected_, self.k_selected_ = select_candidate(losses)
        self.family_counts_ = fc
        cards = self.encoder_.cardinalities_
        n_classes = len(self.classes_)
        parents = [()] * len(cards)
        ranked = [()] * len(cards)
        tables = []
        for position, i in enumerate(self.order_):
            i = int(i)
            if position < self.n_selected_:
                ranked[i] = self.ranked_parents_[i][: self.k_selected_]
                n_kept = len(self.ranked_parents_[i])
                tables.append(fc.marginal(position, list(range(len(ranked[i]))) + [n_kept]))
                parents[i] = tuple(sorted(ranked[i]))
            else:  # not in the model: uniform for every class, no effect on the posterior
                tables.append(np.zeros((n_classes, int(cards[i]))))
        in_order = [int(i) for i in self.order_]
        if self.smoothing == "hdp":
            prior, by_position = self._hdp_tables(counts, tables, [ranked[i] for i in in_order])
        elif self.smoothing == "hgs":
            prior = class_log_prior(counts.class_counts, self.smoothing, alpha)
            by_position = hgs_log_cpts(tables, [ranked[i] for i in in_order])
        else:
            prior = class_log_prior(counts.class_counts, self.smoothing, alpha)
            by_position = [conditional_log_table(ranked_to_sorted(t, ranked[i]), self.smoothing, alpha)
                           for t, i in zip(tables, in_order)]
        log_cpts = [None] * len(cards)
        for i, table in zip(in_order, by_position):
            log_cpts[i] = table
        self._set_network(Structure(tuple(parents)), prior, log_cpts)

    def _loo_cache(self):
        """The :class:`~pybnc.search.leave_one_out.LookupCache` this fit shares with
        others (an ensemble's members share one: :meth:`_fit_ranked`), or None."""
        return getattr(self, "_shared_lookups", None)

    def _hdp_tables(self, counts, tables, ranked) -> tuple:
        """The class log prior and the HDP-smoothed log tables of the selected model,
        ``tables[i]`` with parents ``ranked[i]`` (strongest first): by the
        :class:`~pybnc.parameters.hdp.SharedChains` an ensemble's members share
        (:meth:`_fit_ranked`), so that a table several members hold is sampled once; else
        on this fit's own chains."""
        chains = getattr(self, "_shared_chains", None)
        if chains is not None:
            return hdp_class_log_prior(counts), hdp_log_cpts(chains.estimates(tables), ranked)
        fitted = hdp_parameters(counts, tables, ranked, int(self.hdp_iterations), self.random_state, self.verbose)
        return fitted.class_log_prior, fitted.log_cpts
