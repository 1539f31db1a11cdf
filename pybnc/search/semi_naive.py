"""Semi-naive Bayes by forward sequential selection and joining (FSSJ) and backward
sequential elimination and joining (BSEJ), Pazzani 1996, as bnclassify's ``fssj`` and
``bsej``; ``stopping="epsilon"`` is bnclassify's search rule, the default
``stopping="log_loss"`` ranks moves by cross-validated log-loss (see the classes).

The model is a naive Bayes over *supernodes*: each is one feature or a join of
several, independent of the other supernodes given the class. How a join's
``P(x_members | c)`` is smoothed is ``join_smoothing`` (see
:mod:`pybnc.search.joins`): ``"per_table"`` is bnclassify's complete DAG among the
members, one smoothed table per member given the earlier members; ``"product"``
smooths the Cartesian product as one feature with ``prod r_i`` levels. They are
different models, not a rounding apart: BSEJ (``epsilon=0``) on nursery, 10-fold
cross-validation over 5 seeds, scores 96.6-97.2 % with per-table smoothing (R
bnclassify: 97.2 %) and 95.6-95.9 % with the product, whose heavier smoothing of
large joins also steers the search towards smaller joins; FSSJ on splice 94.0-95.0 %
against 91.9-93.4 % (R: 94.8 %).

The members' order follows bnclassify, because per-table smoothing depends on it:
FSSJ appends a joined feature after the supernode's members; BSEJ joining two
supernodes puts the members of the one whose first column comes later first (the
"parent" of bnclassify's ``merge_supernodes``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._utils.validation import StrOptions
from ..estimators._fitted_state import InconsistentState, fitted_array
from ..estimators.base import BaseBNC, keep_arguments
from ..estimators._constraints import WRAPPER_CONSTRAINTS
from ..estimators.capabilities import Capabilities
from ..parameters.learn import class_log_prior, resolve_alpha
from ._engine import log_theta, sum_terms
from ._greedy import (FoldsFollowTheRows, MoveScoring, hill_climb, make_scorer, named_trace, report_stop,
                      search_folds)
from ._rows import fold_counts
from .joins import JOIN_SMOOTHINGS, chain_levels, fit_chain, supernode_log_likelihood, table_factors


class _State(NamedTuple):
    supernodes: tuple  # tuples of feature indices, each in its members' order
    total: np.ndarray


def fit_supernode(x: np.ndarray, y: np.ndarray, cards, n_classes: int, method: str, alpha: float,
                  smoothing: str) -> tuple:
    """Coding and log tables of one supernode learned from rows ``x`` (members in order).

    Returns ``(keys, tables)``: the chain's keys (:func:`~pybnc.search.joins.fit_chain`)
    and one ``(K, parent configurations, levels)`` log table per factor of
    :func:`~pybnc.search.joins.table_factors`.
    """
    prefixes, keys = fit_chain(x, cards)
    levels = chain_levels(cards, keys)
    zeros = np.zeros(x.shape[0], dtype=np.int64)
    tables = []
    for parent_step, child_step in table_factors(smoothing, x.shape[1]):
        parent = zeros if parent_step is None else prefixes[parent_step]
        n_parent = 1 if parent_step is None else levels[parent_step]
        if smoothing == "per_table":
            child, n_child = x[:, child_step], int(cards[child_step])
            r_full, q_full = float(n_child), float(np.prod(np.asarray(cards[:child_step], dtype=float)))
        else:
            child, n_child = prefixes[child_step], levels[child_step]
            r_full, q_full = float(np.prod(np.asarray(cards, dtype=float))), 1.0
        n = fold_counts(y, n_classes, parent, n_parent, child, n_child)
        marginal = None
        if method == "friedman":
            seen = np.bincount(child[child >= 0], minlength=n_child).astype(float)
            marginal = seen / seen.sum() if seen.sum() > 0 else np.full(n_child, 1.0 / n_child)
        tables.append(log_theta(n, method, alpha, r_full, q_full, n_classes, marginal))
    return keys, tables


class _SemiNaiveParams:
    """The constructor of FSSJ and BSEJ: bnclassify's arguments and ``join_smoothing``."""

    def __init__(self, cv=5, epsilon=0.01, smoothing="bayes", alpha=None, encoder=None, join_smoothing="per_table",
                 stopping="log_loss", random_state=None, verbose=1, n_jobs=None):
        keep_arguments(self, locals())


class _SemiNaiveSearch(FoldsFollowTheRows, BaseBNC):
    """Shared search and model of FSSJ and BSEJ."""

    # supernodes have no parents: class and level counts only
    _capabilities = Capabilities(pair_counts=False, joins_features=True, searches_by_cv=True)
    _parameter_constraints = {**WRAPPER_CONSTRAINTS, "join_smoothing": [StrOptions(set(JOIN_SMOOTHINGS))],
                              "stopping": [StrOptions({"log_loss", "epsilon"})]}

    def _step(self, scorer, state: _State) -> list:
        raise NotImplementedError

    def _move(self, scorer, state: _State, removed: tuple, added: tuple, supernodes: tuple, describe,
              member=None):
        """A candidate for :func:`hill_climb`, scored by
        :meth:`~pybnc.search._engine.CVScorer.accuracy_of_joins` (``member`` as there)."""
        def apply():
            plus, minus = scorer.join_terms(added, removed, self.join_smoothing)
            total = scorer.new_rows(state.total)
            for a in plus:
                total += a
            for a in minus:
                total -= a
            return _State(supernodes, total)

        score = ("accuracy_of_joins", (state.total, added, removed, self.join_smoothing, member))
        return (describe, score, apply,
                lambda: scorer.row_log_loss(state.total, *scorer.join_terms(added, removed, self.join_smoothing)))

    def _fit_encoded(self, codes, y, counts):
        folds, rng = search_folds(self, y)
        scorer = make_scorer(self, codes, y, counts, folds, rng)
        init = self._initial_supernodes(counts.n_features)
        total = scorer.prior_total() + sum_terms((scorer.join_contribution(s, self.join_smoothing) for s in init), 0.0)
        init_loss = scorer.row_log_loss(total) if self.stopping == "log_loss" else None
        with MoveScoring(scorer, self.n_jobs) as score_moves:
            state, trace = hill_climb(_State(init, total), scorer.accuracy(total), lambda s: self._step(scorer, s),
                                      self.epsilon, rng, self.verbose, self._desc, init_loss, score_moves)
        names = self.feature_names_
        label = lambda s: "(" + " x ".join(names[i] for i in s) + ")"  # noqa: E731

        def describe(move):
            if isinstance(move, str):
                return move
            kind, *nodes = move
            return f"{kind} " + " & ".join(label(s) if isinstance(s, tuple) else names[s] for s in nodes)

        self.search_trace_ = named_trace(trace, describe)
        report_stop(self, self.search_trace_, self._start_model, scorer.n_folds)
        self._set_model(state.supernodes, codes, y, counts)

    def _set_model(self, supernodes, codes, y, counts):
        method, alpha = self.smoothing, resolve_alpha(self.smoothing, self.alpha)
        names = self.feature_names_
        self.supernodes_ = [tuple(names[i] for i in s) for s in supernodes]
        self.features_ = sorted((names[i] for s in supernodes for i in s), key=names.index)
        self.joins_ = [s for s in self.supernodes_ if len(s) > 1]
        self.class_log_prior_ = class_log_prior(counts.class_counts, method, alpha)
        self.supernode_indices_ = [tuple(int(i) for i in s) for s in supernodes]
        self.join_keys_, self.log_tables_ = [], []
        cards = counts.cardinalities
        for s in supernodes:
            keys, tables = fit_supernode(codes[:, list(s)], y, cards[list(s)], counts.n_classes, method, alpha,
                                         self.join_smoothing)
            self.join_keys_.append(keys)
            self.log_tables_.append(tables)

    def _check_fitted_state(self):
        super()._check_fitted_state()
        k, cards = len(self.classes_), self.encoder_.cardinalities_
        lists = [getattr(self, name, None) for name in ("supernode_indices_", "join_keys_", "log_tables_")]
        if not all(isinstance(v, list) for v in lists) or len({len(v) for v in lists}) != 1:
            raise InconsistentState("supernode_indices_", "join_keys_ and log_tables_ are not lists of one "
                                    "entry per supernode")
        seen = []
        for s, (members, keys) in enumerate(zip(*lists[:2])):
            if not (isinstance(members, tuple) and members and isinstance(keys, list)
                    and len(keys) == len(members) - 1
                    and all(type(i) is int and 0 <= i < cards.size and i not in seen for i in members)):
                raise InconsistentState(f"supernode_indices_[{s}]", "not distinct features with a key list "
                                        "per join step")
            seen += members
            levels = int(cards[members[0]])
            for t, (member, step) in enumerate(zip(members[1:], keys)):
                step = fitted_array(self, f"join_keys_[{s}][{t}]", (None,), kinds="iu", value=step)
                if np.any(np.diff(step) <= 0) or (step.size and (step[0] < 0 or step[-1] >= levels * cards[member])):
                    raise InconsistentState(f"join_keys_[{s}][{t}]", "not increasing keys of seen combinations")
                levels = step.size
            tables, factors = self.log_tables_[s], table_factors(self.join_smoothing, len(members))
            if not (isinstance(tables, list) and len(tables) == len(factors)):
                raise InconsistentState(f"log_tables_[{s}]", f"not a list of {len(factors)} tables")
            levels = chain_levels(cards[list(members)], keys)
            for t, (parent_step, child_step) in enumerate(factors):
                n_parent = 1 if parent_step is None else levels[parent_step]
                n_child = int(cards[members[child_step]]) if self.join_smoothing == "per_table" else levels[-1]
                fitted_array(self, f"log_tables_[{s}][{t}]", (k, n_parent, n_child), value=tables[t])

    def _independent_groups(self):
        return [np.array(members) for members in self.supernode_indices_]  # features in none are not read

    def _jll_encoded(self, codes):
        jll = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        cards = self.encoder_.cardinalities_
        for members, keys, tables in zip(self.supernode_indices_, self.join_keys_, self.log_tables_):
            jll += supernode_log_likelihood(codes[:, list(members)], cards[list(members)], keys,
                                            [t[None] for t in tables], self.join_smoothing)
        return jll






class FSSJ(_SemiNaiveParams, _SemiNaiveSearch):
    """Forward sequential selection and joining (Pazzani 1996; bnclassify ``fssj``).

    Starts from the class alone; each step either adds an unused feature as a new
    supernode or joins it to an existing supernode. With ``stopping="epsilon"``
    (bnclassify's rule) the move is the one that most raises the cross-validated
    accuracy, while the gain is at least ``epsilon``; with the default
    ``stopping="log_loss"`` (a departure from bnclassify and Pazzani 1996) it is the
    one that most lowers the cross-validated log-loss without losing accuracy (or that
    gains ``epsilon``), while there is one.

    Parameters
    ----------
    cv : int, cross-validation splitter or list of (train, test), default=5
        Folds of the cross-validation that scores each candidate (bnclassify's ``k``).
        An int draws that many stratified folds once per search as bnclassify's
        ``make_stratified_folds`` draws them (per class, a shuffled repetition of the
        fold ids), from ``random_state``: the same scheme, not R's random numbers. A
        scikit-learn splitter (``StratifiedKFold(10, shuffle=True, random_state=0)``)
        gives the folds itself, as does a list of ``(train, test)`` row positions; the
        test sets must part the rows.
    epsilon : float, default=0.01
        Minimum improvement in cross-validated accuracy to accept a move; the
        search stops when the best candidate gains less.
    smoothing : {"bayes", "mle", "friedman", "ms"}, default="bayes"
        Parameter learner, during the search and for the final model. ``"bayes"``
        with ``alpha=a`` is bnclassify's ``smooth = a`` (the same pseudo-count in every
        cell of every table, the class prior included).
    alpha : float, default=None
        Smoothing strength (bnclassify's ``smooth``, with ``smoothing="bayes"``; the
        method's default when ``None``: 1 for bayes, 5 friedman, 10 ms). bnclassify's
        own default ``smooth = 0`` is ``smoothing="mle"``.
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    join_smoothing : {"per_table", "product"}, default="per_table"
        How a join of features is smoothed. ``"per_table"`` is bnclassify's: the
        members form a complete DAG, each with its own smoothed table given the earlier
        members. ``"product"`` smooths the Cartesian product as one feature with
        ``prod r_i`` levels (pybnc's earlier behaviour). They give different models
        and different searches; see :mod:`pybnc.search.joins`.
    stopping : {"log_loss", "epsilon"}, default="log_loss"
        How a move is chosen and when the search stops. ``"epsilon"`` is bnclassify's
        (and Pazzani's with ``epsilon=0``): the most accurate move (ties at random),
        while it gains at least ``epsilon`` in CV accuracy. ``"log_loss"`` (pybnc's
        default, a departure from bnclassify): a move is acceptable if it loses no CV
        accuracy and lowers the CV log-loss (the same folds, the same rows), or gains
        ``epsilon`` in accuracy; the acceptable move of lowest CV log-loss wins. On
        small tables accuracy ties most moves, and bnclassify's rule either stops FSSJ
        at the class alone (``epsilon=0.01``: 5-10 points below naive Bayes on
        hepatitis, glass, cleve, lymph, primary-tumor) or walks the ties at random
        (``epsilon=0``); see ``docs/search_learners.md``.
    random_state : int, RandomState or None, default=None
        Draws the folds and breaks ties between equally good moves; an int makes the
        search deterministic.
    verbose : int, default=1
        0 silent; 1 a progress bar on terminals; 2 always a bar.
    n_jobs : int, default=None
        Candidate moves scored in parallel (joblib's processes; ``-1`` all cores), once
        a step takes a quarter of a second: below that, workers cost more than they
        save. The search and the model do not depend on it.

    Attributes
    ----------
    classes_ : ndarray
    encoder_ : Encoder
        The fitted encoder.
    n_features_in_ : int
    supernodes_ : list of tuple of str
        The model's supernodes: each a tuple of the feature names it joins.
    features_ : list of str
        Selected features (members of some supernode), in column order.
    joins_ : list of tuple of str
        The supernodes joining two or more features.
    class_log_prior_ : ndarray of shape (n_classes,)
    supernode_indices_ : list of tuple of int
        The supernodes by column index.
    join_keys_ : list of list of ndarray
        The combinations seen at fit, per supernode: the keys of each step of its
        chain of joins (see :mod:`pybnc.search.joins`).
    log_tables_ : list of list of ndarray
        Per supernode, its log tables ``(n_classes, parent configurations, levels)``:
        with ``join_smoothing="per_table"`` one per member given the earlier members
        (configurations seen at fit, then one row for an unseen one); with
        ``"product"`` one table whose levels are the combinations seen at fit, then
        one column for each combination never seen.

    search_trace_ : list of dict
        One entry per accepted move, in order: ``step``, ``move`` (a readable
        description), ``cv_accuracy`` after the move and ``n_candidates`` scored;
        the first is ``"start"``. The last entry has ``move="stop"``, the
        ``cv_accuracy`` of the returned model, the ``best_candidate`` accuracy of the
        last round (``None`` if there was no candidate) and the ``reason``. If no
        move was accepted, a :class:`~pybnc.search.StartModelWarning` says so.
        With ``stopping="log_loss"`` (FSSJ, BSEJ) every entry also has ``cv_log_loss``,
        the model's cross-validated log-loss.

    Examples
    --------
    >>> from pybnc import FSSJ
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = FSSJ(epsilon=0, random_state=0, verbose=0).fit(X, y)
    >>> model.search_trace_[1]["move"].startswith(("add", "join"))
    True
    """

    _desc = "FSSJ"
    _start_model = "the class alone (no feature)"

    @staticmethod
    def _initial_supernodes(n_features):
        return ()

    def _step(self, scorer, state):
        nodes = state.supernodes
        used = {i for s in nodes for i in s}
        unused = [i for i in range(scorer.codes.shape[1]) if i not in used]
        moves = [self._move(scorer, state, (), ((f,),), nodes + ((f,),), ("add", f)) for f in unused]
        # A joined feature comes after the supernode's members (bnclassify's order).
        # A feature never observed in training (no level) contributes nothing alone and
        # cannot inform a join: it is not joined.
        moves += [self._move(scorer, state, (s,), (s + (f,),), nodes[:i] + (s + (f,),) + nodes[i + 1:],
                             ("join", f, s), member=(s + (f,), None))
                  for f in unused if scorer.cardinalities[f] > 0 for i, s in enumerate(nodes)]
        return moves


class BSEJ(_SemiNaiveParams, _SemiNaiveSearch):
    """Backward sequential elimination and joining (Pazzani 1996; bnclassify ``bsej``).

    Starts from naive Bayes over all features; each step either removes a feature
    (from its supernode) or joins two supernodes into one. With ``stopping="epsilon"``
    (bnclassify's rule) the move is the one that most raises the cross-validated
    accuracy, while the gain is at least ``epsilon``: at ``epsilon=0.01`` it returns
    naive Bayes when no first move gains a full point (nursery is such a table), and
    says so (``StartModelWarning``). With the default ``stopping="log_loss"`` (a
    departure from bnclassify) it is the move that most lowers the cross-validated
    log-loss without losing accuracy (or that gains ``epsilon``), while there is one.

    Parameters
    ----------
    cv : int, cross-validation splitter or list of (train, test), default=5
        Folds of the cross-validation that scores each candidate (bnclassify's ``k``).
        An int draws that many stratified folds once per search as bnclassify's
        ``make_stratified_folds`` draws them (per class, a shuffled repetition of the
        fold ids), from ``random_state``: the same scheme, not R's random numbers. A
        scikit-learn splitter (``StratifiedKFold(10, shuffle=True, random_state=0)``)
        gives the folds itself, as does a list of ``(train, test)`` row positions; the
        test sets must part the rows.
    epsilon : float, default=0.01
        Minimum improvement in cross-validated accuracy to accept a move; the
        search stops when the best candidate gains less.
    smoothing : {"bayes", "mle", "friedman", "ms"}, default="bayes"
        Parameter learner, during the search and for the final model. ``"bayes"``
        with ``alpha=a`` is bnclassify's ``smooth = a`` (the same pseudo-count in every
        cell of every table, the class prior included).
    alpha : float, default=None
        Smoothing strength (bnclassify's ``smooth``, with ``smoothing="bayes"``; the
        method's default when ``None``: 1 for bayes, 5 friedman, 10 ms). bnclassify's
        own default ``smooth = 0`` is ``smoothing="mle"``.
    encoder : Encoder, default=None
        How the table is coded (bins, identifiers, missing values, rare levels; see
        :class:`pybnc.Encoder`); None: ``Encoder()``. Cloned at fit; the fitted
        copy is ``encoder_``.
    join_smoothing : {"per_table", "product"}, default="per_table"
        How a join of features is smoothed. ``"per_table"`` is bnclassify's: the
        members form a complete DAG, each with its own smoothed table given the earlier
        members. ``"product"`` smooths the Cartesian product as one feature with
        ``prod r_i`` levels (pybnc's earlier behaviour). They give different models
        and different searches; see :mod:`pybnc.search.joins`.
    stopping : {"log_loss", "epsilon"}, default="log_loss"
        How a move is chosen and when the search stops. ``"epsilon"`` is bnclassify's
        (and Pazzani's with ``epsilon=0``): the most accurate move (ties at random),
        while it gains at least ``epsilon`` in CV accuracy. ``"log_loss"`` (pybnc's
        default, a departure from bnclassify): a move is acceptable if it loses no CV
        accuracy and lowers the CV log-loss (the same folds, the same rows), or gains
        ``epsilon`` in accuracy; the acceptable move of lowest CV log-loss wins. On
        small tables accuracy ties most moves, and bnclassify's rule either stops FSSJ
        at the class alone (``epsilon=0.01``: 5-10 points below naive Bayes on
        hepatitis, glass, cleve, lymph, primary-tumor) or walks the ties at random
        (``epsilon=0``); see ``docs/search_learners.md``.
    random_state : int, RandomState or None, default=None
        Draws the folds and breaks ties between equally good moves; an int makes the
        search deterministic.
    verbose : int, default=1
        0 silent; 1 a progress bar on terminals; 2 always a bar.
    n_jobs : int, default=None
        Candidate moves scored in parallel (joblib's processes; ``-1`` all cores), once
        a step takes a quarter of a second: below that, workers cost more than they
        save. The search and the model do not depend on it.

    Attributes
    ----------
    classes_ : ndarray
    encoder_ : Encoder
        The fitted encoder.
    n_features_in_ : int
    supernodes_ : list of tuple of str
        The model's supernodes: each a tuple of the feature names it joins.
    features_ : list of str
        Selected features (members of some supernode), in column order.
    joins_ : list of tuple of str
        The supernodes joining two or more features.
    class_log_prior_ : ndarray of shape (n_classes,)
    supernode_indices_ : list of tuple of int
        The supernodes by column index.
    join_keys_ : list of list of ndarray
        The combinations seen at fit, per supernode: the keys of each step of its
        chain of joins (see :mod:`pybnc.search.joins`).
    log_tables_ : list of list of ndarray
        Per supernode, its log tables ``(n_classes, parent configurations, levels)``:
        with ``join_smoothing="per_table"`` one per member given the earlier members
        (configurations seen at fit, then one row for an unseen one); with
        ``"product"`` one table whose levels are the combinations seen at fit, then
        one column for each combination never seen.

    search_trace_ : list of dict
        One entry per accepted move, in order: ``step``, ``move`` (a readable
        description), ``cv_accuracy`` after the move and ``n_candidates`` scored;
        the first is ``"start"``. The last entry has ``move="stop"``, the
        ``cv_accuracy`` of the returned model, the ``best_candidate`` accuracy of the
        last round (``None`` if there was no candidate) and the ``reason``. If no
        move was accepted, a :class:`~pybnc.search.StartModelWarning` says so.
        With ``stopping="log_loss"`` (FSSJ, BSEJ) every entry also has ``cv_log_loss``,
        the model's cross-validated log-loss.

    Examples
    --------
    >>> from pybnc import BSEJ
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = BSEJ(random_state=0, verbose=0).fit(X, y)
    >>> len(model.features_) <= 6
    True
    """

    _desc = "BSEJ"
    _start_model = "naive Bayes over all features"

    @staticmethod
    def _initial_supernodes(n_features):
        return tuple((i,) for i in range(n_features))

    def _step(self, scorer, state):
        # Supernodes are kept in the order of their first column, bnclassify's order of
        # connected components; joining a (earlier) with b puts b's members first.
        nodes = state.supernodes
        arrange = lambda kept: tuple(sorted(kept, key=min))  # noqa: E731
        moves = []
        for s in nodes:
            for f in s:
                rest = tuple(i for i in s if i != f)
                kept = [t for t in nodes if t != s] + ([rest] if rest else [])
                moves.append(self._move(scorer, state, (s,), (rest,) if rest else (), arrange(kept),
                                        ("remove", f)))
        joinable = [s for s in nodes if scorer.cardinalities[list(s)].all()]  # see FSSJ's step
        for ia, a in enumerate(joinable):
            for b in joinable[ia + 1:]:
                kept = [t for t in nodes if t not in (a, b)] + [b + a]
                # Joining a lone feature a adds its factor given b's members and drops a's own.
                member = (b + a, a) if len(a) == 1 else None
                moves.append(self._move(scorer, state, (a, b), (b + a,), arrange(kept), ("join", a, b), member))
        return moves
