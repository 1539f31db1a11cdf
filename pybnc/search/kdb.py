"""k-dependence Bayesian classifiers: Sahami's (1996) construction and bnclassify's
hill-climbing ``kdb`` (arcs added by cross-validated accuracy)."""

from __future__ import annotations

import numbers

import numpy as np

from ..estimators.augmented import _FITTED_DOC
from ..scores.information import class_mutual_information, pairwise_cmi
from ..structure.dag import Structure
from ._greedy import _TRACE_DOC, _WRAPPER_DOC, WrapperParams
from .tan_hc import _ArcSearch, addable_arcs

# The wrappers' argument docs without their ``k`` (here the number of parents).
_SEARCH_ARGS_DOC = "\n    epsilon" + _WRAPPER_DOC.split("\n    epsilon", 1)[1]


def sahami_ranking(counts, k: int) -> tuple[np.ndarray, list]:
    """Sahami's order and each feature's candidate parents, strongest first.

    Returns
    -------
    order : ndarray of shape (n_features,)
        Features in decreasing ``I(X_i; C)`` (ties: lower index first).
    ranked_parents : list of tuple of int
        ``ranked_parents[i]``: the (up to) ``k`` features before ``i`` in ``order``
        with the highest ``I(X_i; X_j | C)``, highest first (ties: lower index first).
    """
    class_mi = class_mutual_information(counts)
    cmi, n_pair = pairwise_cmi(counts)
    order = np.lexsort((np.arange(counts.n_features), -class_mi))
    ranked_parents = [()] * counts.n_features
    for position, i in enumerate(order):
        earlier = order[:position]
        # A feature never observed in the same row as X_i cannot inform it (nor be
        # informed: a feature never observed at all gets no parent).
        earlier = earlier[n_pair[i, earlier] > 0]
        ranked = earlier[np.lexsort((earlier, -cmi[i, earlier]))]
        ranked_parents[i] = tuple(int(j) for j in ranked[:k])
    return order, ranked_parents


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
    __doc__ = f"""k-dependence Bayesian classifier: every feature has the class and at most
    ``k`` features as parents.

    ``search="sahami"`` is Sahami's (1996) construction from mutual information (see
    :func:`sahami_structure`); no cross-validation is involved. ``search="hc"`` is
    bnclassify's ``kdb``: from naive Bayes, add the arc that most raises the
    stratified ``n_folds``-fold cross-validated accuracy while every feature keeps at
    most ``k`` feature parents and the graph stays acyclic, as long as it gains at
    least ``epsilon``. Of two reversed arcs between parentless features (equivalent
    networks) only one is scored. Rows with missing values are predicted (and, in
    the search, scored) by exact variable elimination. ``params="hdp"`` (with
    ``search="sahami"``) smooths every table by hierarchical Dirichlet processes
    (Petitjean et al. 2018, :mod:`pybnc.parameters.hdp`): 500 Gibbs iterations seeded by
    ``random_state``, progress shown as ``verbose`` says.

    Parameters
    ----------
    k : int, default=2
        Largest number of feature parents (bnclassify's ``kdbk``).
    search : {{"sahami", "hc"}}, default="sahami"
    n_folds : int, default=5
        Folds of the cross-validation scoring ``search="hc"`` (bnclassify's ``k``);
        the remaining search arguments are used by ``"hc"`` only.{_SEARCH_ARGS_DOC}{
    _FITTED_DOC}{_TRACE_DOC}        Only with ``search="hc"``.

    Examples
    --------
    >>> from pybnc import KDB
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> max(len(p) for p in KDB(k=2).fit(X, y).structure_.parents)
    2
    """

    _desc = "kDB-HC"
    _folds_name = "n_folds"
    _smooths_by_hdp = True  # params="hdp" (Petitjean et al. 2018), search="sahami" only

    def __init__(self, k=2, search="sahami", n_folds=5, epsilon=0.01, params="bayes", alpha=None,
                 random_state=None, verbose=1, n_bins=5, discretizer="mdl",
                 id_columns="drop", missing="sum", categorical_features=None, numeric_features=None):
        WrapperParams.__init__(self, k, epsilon, params, alpha, random_state, verbose, n_bins, discretizer,
                               id_columns, missing, categorical_features, numeric_features)
        self.search = search
        self.n_folds = n_folds

    @property
    def _counts_pairs(self) -> bool:
        return self.search != "hc"  # Sahami's order reads the pair counts; the search does not

    def _learns_in_two_passes(self) -> bool:
        return self.search == "sahami"  # the structure from pair counts, then its families

    def _learn_structure(self, counts, codes, y):
        if not isinstance(self.k, numbers.Integral) or isinstance(self.k, bool) or self.k < 0:
            raise ValueError(f"k (the most feature parents per feature) must be an integer >= 0, got {self.k!r}.")
        if self.search == "sahami":
            return sahami_structure(counts, int(self.k))
        if self.params == "hdp":
            raise ValueError("params='hdp' needs search='sahami': the hill-climbing scores candidate arcs "
                             "by cross-validation with the Dirichlet estimates ('bayes' or 'mle').")
        if self.search != "hc":
            raise ValueError(f"search={self.search!r} is not one of 'sahami', 'hc'.")

        def step(scorer, state, rng):
            return self._arc_candidates(scorer, state, addable_arcs(state.structure, int(self.k)))

        return self._run_search(codes, y, counts, self.n_folds, step)
