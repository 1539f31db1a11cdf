"""Classifiers with one learned structure: naive Bayes, TAN and the MDL-optimal FAN."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import StrOptions
from ..counts.tables import Counts
from ..parameters.learn import check_table_size, family_counts, learn_parameters, n_free_parameters
from ..scores.penalties import penalised
from ..structure import Structure, chow_liu
from ..inference.forest import joint_log_likelihood
from ..parameters.weighting import AWNB_TREES, WEIGHTINGS, weight_tables
from ._constraints import ALPHA, DISCRIMINATIVE_CONSTRAINTS, ENCODER, smoothing_options
from . import _discriminative
from .base import BaseBNC, keep_arguments
from .capabilities import Capabilities, capabilities


class AugmentedNaiveBayes(BaseBNC):
    """A Bayesian network classifier with one structure; subclasses choose it."""

    _capabilities = Capabilities(one_network=True)
    #: The feature weights of ``weighting`` (None: the tables as learned); a class
    #: without the parameter keeps them so.
    weighting = None

    def _refine_capabilities(self, declared):
        if _discriminative.wanted(self):
            return _discriminative.refine(declared)
        if self.weighting is not None:  # the weights are learned from the rows themselves
            return declared.replace(learns_from_counts=False, passes=0, tables_are_probabilities=False,
                                    sample_weight="repeats")
        return declared

    def _learn_structure(self, counts: Counts, codes: np.ndarray, y: np.ndarray) -> Structure:
        raise NotImplementedError

    def _fit_encoded(self, codes, y, counts):
        self.structure_ = self._learn_structure(counts, codes, y)
        self._set_parameters(counts, codes, y)

    def _set_parameters(self, counts, codes, y):
        check_table_size(self.structure_, counts.cardinalities, counts.n_classes, self.encoder_.columns_)
        if self.smoothing == "hdp" and capabilities(self).smooths_by_hdp:
            tables = self._hdp_parameters(counts, codes, y)
        else:
            tables = learn_parameters(self.structure_, counts, self.smoothing, self.alpha, codes, y,
                                      getattr(self, "family_counts_", None))
        log_cpts, weights = tables.log_cpts, None
        if _discriminative.wanted(self):
            self._set_network(self.structure_, tables.class_log_prior, log_cpts)
            if codes.shape[0]:  # the weights need the rows (out of core: further passes)
                _discriminative.weigh_network(self, counts, codes, y)
            return
        if self.weighting is not None:  # a parameter of NaiveBayes, TAN and FAN
            log_cpts, weights = weight_tables(
                self.weighting, codes, y, self.structure_, tables.class_log_prior, tables.log_cpts,
                self.encoder_.cardinalities_, self.random_state, awnb_tree=self.awnb_tree,
            )
        self._set_network(self.structure_, tables.class_log_prior, log_cpts, weights)

    def _set_network(self, structure: Structure, class_log_prior, log_cpts: list, feature_weights=None) -> None:
        """Keep a learned network: its structure, tables and feature weights (None: all
        ones), and the arcs by name. Every learner of one network ends here."""
        self.structure_ = structure
        self.class_log_prior_ = class_log_prior
        # C order, as a loaded model holds them: sums over a table's levels (a value missing or
        # unseen at predict) then run in one order, so a saved model predicts to the bit
        self.log_cpts_ = [np.ascontiguousarray(table) for table in log_cpts]
        self.feature_weights_ = np.ones(len(log_cpts)) if feature_weights is None else feature_weights
        names = self.feature_names_
        self.arcs_ = [(names[u], names[v]) for u, v in structure.arcs]

    def _learn_in_passes(self, counts):
        """Out of core: the generative model from the counts, then (``weighting=
        "discriminative"``) the weights, one pass over the blocks per evaluation."""
        yield from super()._learn_in_passes(counts)
        yield from self._weigh_in_passes(counts)

    def _weigh_in_passes(self, counts):
        """The discriminative weights' passes over the blocks, if the model has them."""
        if _discriminative.wanted(self):
            yield from _discriminative.weigh_network_in_passes(self, counts)

    def _weighted_features(self):
        """The features whose tables ``weighting="discriminative"`` weights (None: every
        feature; SKDB: those it selected)."""
        return None

    def _hdp_parameters(self, counts, codes, y):
        """``smoothing="hdp"``: every family smoothed by :func:`pybnc.parameters.hdp.hdp_parameters`."""
        from ..parameters.hdp import back_off_order, hdp_parameters

        ranked = back_off_order(counts, self.structure_)
        cards = counts.cardinalities
        tables = []
        for i, parents in enumerate(self.structure_.parents):
            n = family_counts(counts, self.structure_, i, codes, y, getattr(self, "family_counts_", None))
            n = n.reshape(counts.n_classes, *cards[list(parents)], cards[i])  # parents by index
            perm = [parents.index(p) for p in ranked[i]]
            tables.append(n.transpose(0, *(1 + np.array(perm, dtype=int)), n.ndim - 1))
        return hdp_parameters(counts, tables, ranked, random_state=self.random_state, verbose=self.verbose)

    def _jll_encoded(self, codes):
        if _discriminative.wanted(self):
            return _discriminative.network_jll(self, codes)
        # WANBIA's weighted tables are not distributions: renormalise a missing feature's.
        return joint_log_likelihood(codes, self.structure_, self.class_log_prior_, self.log_cpts_,
                                    self.encoder_.cardinalities_,
                                    normalise_missing=self.weighting == "wanbia",
                                    tables_are_probabilities=capabilities(self).tables_are_probabilities)

    def _independent_groups(self):
        # Given the class, the features of separate components of the network are
        # independent: log P(x_observed, c) sums one term per component.
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        n = self.structure_.n_features
        arcs = np.array(self.structure_.arcs, dtype=np.int64).reshape(-1, 2)
        graph = coo_matrix((np.ones(len(arcs)), (arcs[:, 0], arcs[:, 1])), shape=(n, n))
        _, label = connected_components(graph, directed=False)
        return [np.flatnonzero(label == g) for g in range(label.max() + 1)]

    # -- scores -------------------------------------------------------------------
    def n_parameters(self) -> int:
        """Number of free parameters: ``(K - 1) + sum_i K q_i (r_i - 1)``."""
        check_is_fitted(self)
        return n_free_parameters(self.structure_, self.encoder_.cardinalities_, len(self.classes_))

    def log_likelihood(self, X, y) -> float:
        """``sum_rows log P(x_observed, y)`` under the fitted parameters (nats).

        Missing feature values are summed out exactly.
        """
        y_codes = self._encode_labels(y, len(X))
        jll = self._joint_log_likelihood(X)
        return float(jll[np.arange(len(y_codes)), y_codes].sum())

    def aic(self, X, y) -> float:
        """``LL - |theta|`` (bnclassify's convention: higher is better)."""
        return penalised(self.log_likelihood(X, y), self.n_parameters(), len(X), "aic")

    def bic(self, X, y) -> float:
        """``LL - |theta| log(N) / 2`` (higher is better)."""
        return penalised(self.log_likelihood(X, y), self.n_parameters(), len(X), "bic")

    # -- inspection --------------------------------------------------------------
    def conditional_table(self, feature) -> pd.DataFrame:
        """``P(feature | class, parent)`` as a labelled table (rows: class and parent levels)."""
        check_is_fitted(self)
        names = self.feature_names_
        i = names.index(str(feature)) if not isinstance(feature, (int, np.integer)) else int(feature)
        cats = self.encoder_.categories_
        parents = self.structure_.parents[i]
        levels = [list(self.classes_)] + [list(cats[p]) for p in parents]
        index = pd.MultiIndex.from_product(levels, names=["class"] + [names[p] for p in parents])
        probs = np.exp(self.log_cpts_[i]).reshape(len(index), -1)
        return pd.DataFrame(probs, index=index, columns=pd.Index(cats[i], name=names[i]))

    def to_networkx(self):
        """The network as a ``networkx.DiGraph``: the class node (``"class"``) points at
        every feature; augmenting arcs carry ``kind="augmenting"``."""
        from .._utils.optional import require

        nx = require("networkx", "to_networkx")

        check_is_fitted(self)
        graph = nx.DiGraph()
        graph.add_node("class", kind="class")
        for name in self.feature_names_:
            graph.add_node(name, kind="feature")
            graph.add_edge("class", name, kind="class")
        for u, v in self.arcs_:
            graph.add_edge(u, v, kind="augmenting")
        return graph

    def plot(self, ax=None, path=None, **kw):
        """Draw the network (class on top); see :func:`pybnc.plotting.plot_network`."""
        from ..plotting import plot_network

        return plot_network(self, ax=ax, path=path, **kw)

    def to_dot(self) -> str:
        """The network as Graphviz DOT text; see :func:`pybnc.plotting.to_dot`."""
        from ..plotting import to_dot

        return to_dot(self)

    def _repr_svg_(self):
        """In notebooks a fitted model shows its network; see :func:`pybnc.plotting.network_svg`."""
        from ..plotting import network_svg

        return network_svg(self)

    def _repr_mimebundle_(self, **kwargs):
        # Jupyter prefers HTML to SVG, so the network also replaces scikit-learn's HTML diagram.
        bundle = super()._repr_mimebundle_(**kwargs)
        svg = self._repr_svg_()
        if svg is not None:
            bundle.update({"image/svg+xml": svg, "text/html": svg})
        return bundle


#: The parameters of NaiveBayes, TAN and FAN.
_NETWORK_CONSTRAINTS = {
    **ENCODER,
    "smoothing": smoothing_options(),
    "alpha": ALPHA,
    "weighting": [StrOptions({w for w in WEIGHTINGS if w is not None}), None],
    "awnb_tree": [StrOptions(set(AWNB_TREES))],
    "random_state": ["random_state"],
    **DISCRIMINATIVE_CONSTRAINTS,
}

#: NaiveBayes, TAN and FAN: at most one feature parent, so every table is read from the
#: class, level or pair counts, which are additive.
_FROM_COUNTS = AugmentedNaiveBayes._capabilities.replace(learns_from_counts=True, passes=1, sample_weight="counts",
                                                         weightings=tuple(w for w in WEIGHTINGS if w))


class NaiveBayes(AugmentedNaiveBayes):
    """Naive Bayes over discrete (and discretised) features.

    Parameters
    ----------
    smoothing : {"bayes", "backoff", "hgs", "mle", "friedman", "ms"}, default="bayes"
        Parameter learner (:mod:`pybnc.parameters.learn`): the Dirichlet posterior mean
        (Laplace's rule at ``alpha=1``), back-off (the same for tables without feature
        parents), hierarchical gradient smoothing (``P(x | c)`` shrunk toward ``P(x)``),
        maximum likelihood, Friedman's smoothing (Cerquides & López de
        Màntaras 2003 eq. 3) or multinomial sampling (eq. 4).
    alpha : float, default=None
        Smoothing strength: the Dirichlet pseudo-count of ``"bayes"`` and ``"backoff"``
        (default 1), ``N0`` of ``"friedman"`` (5), the equivalent sample size ``lambda``
        of ``"ms"`` (10).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "awnb", "wanbia", "discriminative"}, default=None
        Feature weights used as exponents of the tables: AWNB (Hall 2007; tree
        depths on 10 bootstrap half-samples, tables renormalised) or WANBIA (Zaidi
        et al. 2013; conditional log-likelihood by L-BFGS-B). See
        :mod:`pybnc.parameters.weighting` for the treatment of missing values.
        ``"discriminative"``: one weight per table cell and class, learned for the
        conditional log-likelihood from the generative tables (Zaidi et al. 2014, 2017;
        ``docs/discriminative.md``).
    awnb_tree : {"c45", "rpart", "cart"}, default="c45"
        AWNB's trees: C4.5 (multiway splits on nominal features, gain ratio, as Hall
        2007), R's rpart as bnclassify grows it (binary groupings of a feature's
        levels) or scikit-learn's CART on the codes (binary threshold splits, which
        weight many more features). Used only with ``weighting="awnb"``.
    random_state : int, RandomState or None, default=None
        Seeds AWNB's bootstrap subsamples and trees.
    discriminative_penalty : float or None, default=None
        With ``weighting="discriminative"``: ``lambda`` of the penalty
        ``lambda / 2 * ||w - 1||^2`` that holds the weights near the generative model
        (larger is closer to it). None: chosen on the training rows by held-out log-loss
        (``docs/discriminative.md``).
    discriminative_max_iter : int, default=500
        Most L-BFGS iterations of ``weighting="discriminative"`` (a
        ``ConvergenceWarning`` says when they run out; the best weights found are kept).

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    encoder_ : Encoder
        The fitted encoder.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.
    structure_ : Structure
        Feature parents of each feature (the class is a parent of all): none here.
    arcs_ : list of (str, str)
        Augmenting arcs by name: none here.
    class_log_prior_ : ndarray of shape (n_classes,)
    log_cpts_ : list of ndarray
        ``log_cpts_[i][c, 0, k] = log P(x_i = k | class c)``.
    feature_weights_ : ndarray of shape (n_features,)
        Exponent of each feature's table (all ones without ``weighting``).

    Examples
    --------
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = NaiveBayes().fit(X, y)
    >>> model.predict_proba(X.head(2)).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    # every table is a feature given the class: level counts only
    _capabilities = _FROM_COUNTS.replace(pair_counts=False)
    _parameter_constraints = _NETWORK_CONSTRAINTS

    def __init__(self, smoothing="bayes", alpha=None, encoder=None, weighting=None, awnb_tree="c45",
                 random_state=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    def _learn_structure(self, counts, codes, y):
        return Structure.naive_bayes(counts.n_features)


class TAN(AugmentedNaiveBayes):
    """Tree-augmented naive Bayes by the Chow-Liu algorithm (Friedman et al. 1997),
    or with a penalised criterion a forest-augmented one (bnclassify's ``tan_cl``).

    Parameters
    ----------
    criterion : {"loglik", "aic", "bic", "mdl"}, default="loglik"
        ``loglik`` learns a tree (``n - 1`` augmenting arcs); the penalised criteria
        keep an arc only when it raises the score, giving a forest. ``mdl`` is
        Hamine & Helman's optimal forest, identical to ``bic``. Each tree is directed
        away from its first feature in column order; ties are broken by feature index.
    smoothing : {"backoff", "bayes", "hgs", "mle", "friedman", "ms"}, default="backoff"
        Parameter learner (:mod:`pybnc.parameters.learn`): back-off (each table shrunk
        toward the table of one parent fewer, down to Laplace's ``P(x_i | c)``, the
        strength chosen by leave-one-out from the counts; ``"bayes"`` for a feature
        without parents), the Dirichlet posterior mean, hierarchical gradient smoothing
        (the tree ``P(x)``, ``P(x | c)``, ``P(x | c, parent)``, strengths by
        leave-one-out), maximum likelihood, Friedman's
        smoothing (Cerquides & López de Màntaras 2003 eq. 3) or multinomial sampling
        (eq. 4). The default is back-off because a tree gives every feature but one a
        parent whatever the data say (``docs/user-guide.md``, "Smoothing").
    alpha : float, default=None
        Smoothing strength: the Dirichlet pseudo-count of ``"bayes"`` and of the bottom
        table of ``"backoff"`` (default 1), ``N0`` of ``"friedman"`` (5), the equivalent
        sample size ``lambda`` of ``"ms"`` (10).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "awnb", "wanbia", "discriminative"}, default=None
        Feature weights used as exponents of the tables: AWNB (Hall 2007) or WANBIA
        (Zaidi et al. 2013), see :mod:`pybnc.parameters.weighting`; ``"discriminative"``:
        one weight per table cell and class, learned for the conditional
        log-likelihood from the generative tables (``docs/discriminative.md``).
    awnb_tree : {"c45", "rpart", "cart"}, default="c45"
        AWNB's trees: C4.5, R's rpart as bnclassify grows it, or scikit-learn's CART on
        the codes. Used only with ``weighting="awnb"``.
    random_state : int, RandomState or None, default=None
        Seeds AWNB's bootstrap subsamples and trees.
    discriminative_penalty : float or None, default=None
        With ``weighting="discriminative"``: ``lambda`` of the penalty
        ``lambda / 2 * ||w - 1||^2`` that holds the weights near the generative model.
        None: chosen on the training rows by held-out log-loss (``docs/discriminative.md``).
    discriminative_max_iter : int, default=500
        Most L-BFGS iterations of ``weighting="discriminative"``.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    encoder_ : Encoder
        The fitted encoder.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.
    structure_ : Structure
        Feature parents of each feature (the class is a parent of all).
    arcs_ : list of (str, str)
        Augmenting arcs ``(parent_feature, child_feature)`` by name.
    class_log_prior_ : ndarray of shape (n_classes,)
    log_cpts_ : list of ndarray
        ``log_cpts_[i][c, j, k] = log P(x_i = k | class c, parent configuration j)``.
    feature_weights_ : ndarray of shape (n_features,)
        Exponent of each feature's table (all ones without ``weighting``).

    Examples
    --------
    >>> from pybnc import TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> len(TAN().fit(X, y).arcs_)
    5
    """

    _capabilities = _FROM_COUNTS
    _parameter_constraints = {**_NETWORK_CONSTRAINTS, "criterion": [StrOptions({"loglik", "aic", "bic", "mdl"})]}

    def __init__(self, criterion="loglik", smoothing="backoff", alpha=None, encoder=None, weighting=None,
                 awnb_tree="c45", random_state=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    def _learn_structure(self, counts, codes, y):
        return chow_liu(counts, self.criterion)


class FAN(AugmentedNaiveBayes):
    """The MDL-optimal forest-augmented naive Bayes (Hamine & Helman 2004).

    Among all augmented naive Bayes whose augmenting arcs form a forest, the one of
    least MDL score: arcs with ``N I(X_i; X_j | C)`` above the threshold
    ``T_R = K (r_i - 1)(r_j - 1) log(N) / 2`` form a graph whose maximum spanning
    forest is returned. Same structure as ``TAN(criterion="mdl")``.

    Parameters
    ----------
    smoothing : {"bayes", "backoff", "hgs", "mle", "friedman", "ms"}, default="bayes"
        Parameter learner (:mod:`pybnc.parameters.learn`): the Dirichlet posterior mean,
        back-off (each table shrunk toward the table of one parent fewer), hierarchical
        gradient smoothing (each node of the tree of parent values toward its parent),
        maximum likelihood, Friedman's smoothing (Cerquides & López de Màntaras 2003 eq. 3) or
        multinomial sampling (eq. 4). The default is the Dirichlet mean because an arc
        is kept only where the data support it (``docs/user-guide.md``, "Smoothing").
    alpha : float, default=None
        Smoothing strength: the Dirichlet pseudo-count of ``"bayes"`` and of the bottom
        table of ``"backoff"`` (default 1), ``N0`` of ``"friedman"`` (5), the equivalent
        sample size ``lambda`` of ``"ms"`` (10).
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    weighting : {None, "awnb", "wanbia", "discriminative"}, default=None
        Feature weights used as exponents of the tables: AWNB (Hall 2007) or WANBIA
        (Zaidi et al. 2013), see :mod:`pybnc.parameters.weighting`; ``"discriminative"``:
        one weight per table cell and class, learned for the conditional
        log-likelihood from the generative tables (``docs/discriminative.md``).
    awnb_tree : {"c45", "rpart", "cart"}, default="c45"
        AWNB's trees: C4.5, R's rpart as bnclassify grows it, or scikit-learn's CART on
        the codes. Used only with ``weighting="awnb"``.
    random_state : int, RandomState or None, default=None
        Seeds AWNB's bootstrap subsamples and trees.
    discriminative_penalty : float or None, default=None
        With ``weighting="discriminative"``: ``lambda`` of the penalty
        ``lambda / 2 * ||w - 1||^2`` that holds the weights near the generative model.
        None: chosen on the training rows by held-out log-loss (``docs/discriminative.md``).
    discriminative_max_iter : int, default=500
        Most L-BFGS iterations of ``weighting="discriminative"``.

    Attributes
    ----------
    classes_, encoder_, structure_, arcs_, class_log_prior_, log_cpts_, feature_weights_
        As :class:`pybnc.TAN` (and ``n_features_in_``, ``feature_names_in_``).

    Examples
    --------
    >>> from pybnc import FAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> FAN().fit(X, y).arcs_
    []
    """

    _capabilities = _FROM_COUNTS
    _parameter_constraints = _NETWORK_CONSTRAINTS

    def __init__(self, smoothing="bayes", alpha=None, encoder=None, weighting=None, awnb_tree="c45",
                 random_state=None, discriminative_penalty=None,
                 discriminative_max_iter=_discriminative.DEFAULT_MAX_ITER):
        keep_arguments(self, locals())

    def _learn_structure(self, counts, codes, y):
        return chow_liu(counts, "mdl")
