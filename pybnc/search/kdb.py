"""k-dependence Bayesian classifiers: Sahami's (1996) construction and bnclassify's
hill-climbing ``kdb`` (arcs added by cross-validated accuracy)."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._utils.validation import Interval, StrOptions
from ..counts.families import count_families
from ..estimators._constraints import WRAPPER_CONSTRAINTS, smoothing_options
from ..estimators.augmented import AugmentedNaiveBayes
from ..parameters.learn import METHODS
from ..scores.information import class_mutual_information, pairwise_cmi
from ..structure.dag import Structure
from ..estimators import _discriminative
from ..estimators._constraints import DISCRIMINATIVE_WEIGHTING
from ..estimators.base import keep_arguments
from .tan_hc import _ArcSearch, addable_arcs

def sahami_order(class_mi: np.ndarray) -> np.ndarray:
    """Features in decreasing ``I(X_i; C)`` (ties: lower index first): Sahami's order."""
    return np.lexsort((np.arange(class_mi.shape[0]), -class_mi))


def ranked_parents(order: np.ndarray, cmi: np.ndarray, k: int, n_pair: np.ndarray | None = None) -> list:
    """Each feature's (up to) ``k`` earlier features in ``order`` of highest
    ``I(X_i; X_j | C)`` (``cmi``), highest first (ties: lower index first).

    With ``n_pair`` (rows where both are observed), a feature never observed in the same
    row as ``X_i`` is not among its candidates: it cannot inform it.

    Examples
    --------
    >>> import numpy as np
    >>> cmi = np.array([[0, .5, .1], [.5, 0, .3], [.1, .3, 0]])
    >>> ranked_parents(np.array([2, 0, 1]), cmi, 1)
    [(2,), (0,), ()]
    """
    ranked = [()] * len(order)
    for position, i in enumerate(order):
        earlier = order[:position]
        if n_pair is not None:
            earlier = earlier[n_pair[i, earlier] > 0]
        best = earlier[np.lexsort((earlier, -cmi[i, earlier]))]
        ranked[i] = tuple(int(j) for j in best[:k])
    return ranked


def sahami_ranking(counts, k: int) -> tuple[np.ndarray, list]:
    """Sahami's order and each feature's candidate parents, strongest first.

    Returns
    -------
    order : ndarray of shape (n_features,)
        Features in decreasing ``I(X_i; C)`` (:func:`sahami_order`).
    ranked_parents : list of tuple of int
        ``ranked_parents[i]``: the (up to) ``k`` features before ``i`` in ``order``
        with the highest ``I(X_i; X_j | C)``, highest first (:func:`ranked_parents`);
        a feature never observed in the same row as ``X_i`` (nor one never observed at
        all) is not among them.
    """
    cmi, n_pair = pairwise_cmi(counts)
    order = sahami_order(class_mutual_information(counts))
    return order, ranked_parents(order, cmi, k, n_pair)


def sahami_structure(counts, k: int) -> Structure:
    """Sahami's kDB: features in decreasing ``I(X_i; C)``; each takes as parents the (up to)
    ``k`` features earlier in that order with the highest ``I(X_i; X_j | C)``.

    Ties are broken by feature index (the lower first). Both informations use the
    available cases, as :mod:`pybnc.scores.information`; two features never observed in the same
    row are never parent and child.

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> x = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]]); y = np.array([0, 1, 0, 1])
    >>> sahami_structure(count(x, y, [2, 2, 2], 2), 1).parents
    ((), (0,), (0,))
    """
    _, ranked_parents = sahami_ranking(counts, k)
    return Structure(tuple(tuple(sorted(p)) for p in ranked_parents))


class KDB(_ArcSearch):
    """k-dependence Bayesian classifier: every feature has the class and at most
    ``k`` features as parents.

    ``search="sahami"`` is Sahami's (1996) construction from mutual information (see
    :func:`sahami_structure`); no cross-validation is involved. ``search="hc"`` is
    bnclassify's ``kdb``: from naive Bayes, add the arc that most raises the
    ``cv``-fold cross-validated accuracy while every feature keeps at
    most ``k`` feature parents and the graph stays acyclic, as long as it gains at
    least ``epsilon``. Of two reversed arcs between parentless features (equivalent
    networks) only one is scored. Rows with missing values are predicted (and, in
    the search, scored) by exact variable elimination. ``smoothing="hdp"`` (with
    ``search="sahami"``) smooths every table by hierarchical Dirichlet processes
    (Petitjean et al. 2018, :mod:`pybnc.parameters.hdp`): 500 Gibbs iterations seeded by
    ``random_state``, progress shown as ``verbose`` says.

    Parameters
    ----------
    k : int, default=2
        Largest number of feature parents (bnclassify's ``kdbk``).
    search : {"sahami", "hc"}, default="sahami"
    cv : int, cross-validation splitter or list of (train, test), default=5
        Folds of the cross-validation scoring ``search="hc"`` (bnclassify's ``k``): an
        int draws that many stratified folds once per search, as bnclassify's
        ``make_stratified_folds``, from ``random_state``; a scikit-learn splitter gives
        the folds itself, as does a list of ``(train, test)`` row positions (the test
        sets must part the rows). ``cv``, ``epsilon`` and ``random_state`` are used by
        ``"hc"`` only.
    epsilon : float, default=0.01
        Minimum improvement in cross-validated accuracy to accept a move; the
        search stops when the best candidate gains less.
    smoothing : {"backoff", "bayes", "mle", "friedman", "ms", "hgs", "hdp"}, default="backoff"
        Parameter learner of the final model (:mod:`pybnc.parameters.learn`): back-off
        smoothing shrinks each table toward the table of one parent fewer, so that a
        family with more configurations than rows does not overfit (the default because
        every feature takes ``k`` parents whatever the data say; ``docs/user-guide.md``,
        "Smoothing"); ``hgs`` (hierarchical gradient smoothing) shrinks each node of the
        tree of parent values toward its parent node by a strength chosen by
        leave-one-out (under a Gamma prior); ``hdp`` see above. The hill-climbing scores its candidates with
        this learner (``bayes`` for ``backoff`` and ``hgs``).
    alpha : float, default=None
        Smoothing strength: the Dirichlet pseudo-count of ``"bayes"`` and of the bottom
        table of ``"backoff"`` (default 1), ``N0`` of ``"friedman"`` (5), the equivalent
        sample size ``lambda`` of ``"ms"`` (10).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    random_state : int, RandomState or None, default=None
        Draws the folds and breaks ties between equally good moves; an int makes the
        search deterministic.
    verbose : int, default=1
        0 silent; 1 a progress bar on terminals; 2 always a bar.
    weighting : {None, "discriminative"}, default=None
        ``"discriminative"``: one weight per table cell and class, learned for the
        conditional log-likelihood from the generative tables
        (``docs/discriminative.md``).
    discriminative_penalty : float or None, default=None
        With ``weighting="discriminative"``: ``lambda`` of the penalty
        ``lambda / 2 * ||w - 1||^2`` that holds the weights near the generative model
        (on the summed negative conditional log-likelihood; larger is closer to the
        generative model). None: chosen on the training rows by held-out log-loss
        (3-fold CV up to 3,000 rows, a 20 % hold-out beyond; out of core, where rows
        cannot be held out, :func:`pybnc.parameters.discriminative.default_penalty`);
        ``docs/discriminative.md``.
    discriminative_max_iter : int, default=500
        Most L-BFGS iterations of ``weighting="discriminative"`` (a
        ``ConvergenceWarning`` says when they run out; the best weights found are kept).
    n_jobs : int, default=None
        With ``search="hc"``: candidate moves scored in parallel (joblib's processes;
        ``-1`` all cores), once a step takes a quarter of a second: below that, workers
        cost more than they save. The search and the model do not depend on it.

    Attributes
    ----------
    classes_, encoder_, structure_, arcs_, class_log_prior_, log_cpts_, feature_weights_
        As :class:`pybnc.TAN` (and ``n_features_in_``, ``feature_names_in_``).

    search_trace_ : list of dict
        One entry per accepted move, in order: ``step``, ``move`` (a readable
        description), ``cv_accuracy`` after the move and ``n_candidates`` scored;
        the first is ``"start"``. The last entry has ``move="stop"``, the
        ``cv_accuracy`` of the returned model, the ``best_candidate`` accuracy of the
        last round (``None`` if there was no candidate) and the ``reason``. If no
        move was accepted, a :class:`~pybnc.search.StartModelWarning` says so.
        With ``stopping="log_loss"`` (FSSJ, BSEJ) every entry also has ``cv_log_loss``,
        the model's cross-validated log-loss.
        Only with ``search="hc"``.

    Examples
    --------
    >>> from pybnc import KDB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> max(len(p) for p in KDB(k=2).fit(X, y).structure_.parents)
    2
    """

    _desc = "kDB-HC"
    # Sahami's structure from the pair counts, then a second pass for its families;
    # smoothing="hdp" (Petitjean et al. 2018) with search="sahami" only.
    _capabilities = AugmentedNaiveBayes._capabilities.replace(passes=2, smooths_by_hdp=True, sample_weight="counts",
                                                              weightings=_discriminative.ONLY)
    _parameter_constraints = {
        **WRAPPER_CONSTRAINTS,
        "k": [Interval(Integral, 0, None, closed="left")],
        "search": [StrOptions({"sahami", "hc"})],
        "smoothing": smoothing_options(*METHODS, "hdp"),
        **DISCRIMINATIVE_WEIGHTING,
    }

    def __init__(self, k=2, search="sahami", cv=5, epsilon=0.01, smoothing="backoff", alpha=None, encoder=None,
                 random_state=None, verbose=1, weighting=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER, n_jobs=None):
        keep_arguments(self, locals())

    def _refine_capabilities(self, declared):
        if self.search == "hc":  # the search scores arcs on the rows, by cross-validation
            declared = _ArcSearch._capabilities.replace(weightings=_discriminative.ONLY)
            return _discriminative.refine(declared) if _discriminative.wanted(self) else declared
        return super()._refine_capabilities(declared)

    def _learn_in_passes(self, counts):
        """Sahami's structure from the first pass's counts; a second pass counts the
        families with several feature parents that it asks for, if any."""
        structure = self._learn_structure(counts, None, None)
        wanted = [tuple(p) + (i,) for i, p in enumerate(structure.parents) if len(p) > 1]
        cards, n_classes = counts.cardinalities, counts.n_classes
        families = (yield lambda codes, y, weights=None: count_families(codes, y, cards, n_classes, wanted, weights)
                    ) if wanted else None
        self._fit_from_counts(counts, families)
        yield from self._weigh_in_passes(counts)

    def _learn_structure(self, counts, codes, y):
        if self.search == "sahami":
            return sahami_structure(counts, int(self.k))
        # back-off tables (the default) are scored by their Dirichlet estimates (make_scorer)
        searched = WRAPPER_CONSTRAINTS["smoothing"][0].options | {"backoff", "hgs"}
        if self.smoothing not in searched:
            raise ValueError(f"smoothing={self.smoothing!r} needs search='sahami': the hill-climbing scores candidate "
                             f"arcs by cross-validation with one of {sorted(searched)}.")

        def step(scorer, state, rng, score_moves):
            return self._arc_candidates(scorer, state, addable_arcs(state.structure, int(self.k)))

        return self._run_search(codes, y, counts, step)
