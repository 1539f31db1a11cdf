"""Hill-climbing tree-augmented naive Bayes (Keogh & Pazzani 2002), as bnclassify's
``tan_hc`` and ``tan_hcsp``: augmenting arcs chosen by cross-validated accuracy."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..estimators._constraints import WRAPPER_CONSTRAINTS
from ..estimators.augmented import AugmentedNaiveBayes
from ..structure.dag import Structure
from ._greedy import (FoldsFollowTheRows, MoveScoring, WrapperParams, hill_climb, make_scorer, named_trace,
                      pick_best, report_stop, search_folds)


class SearchState(NamedTuple):
    structure: Structure
    total: np.ndarray  # exact per-row log P(x_observed, c) under the training folds


def ancestors(structure: Structure, i: int) -> set:
    """Feature ancestors of feature ``i`` (the class excluded)."""
    seen, stack = set(), list(structure.parents[i])
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(structure.parents[v])
    return seen


def addable_arcs(structure: Structure, max_parents: int) -> list:
    """Arcs ``(j, i)`` that keep every feature within ``max_parents`` feature parents
    and the graph acyclic (bnclassify's ``augment_ode_arcs`` / ``augment_kdb_arcs``).

    Between two features without feature parents the two directions give Markov
    equivalent networks (same skeleton, no new v-structure), so only one is kept:
    the arc from the later column to the earlier (``j > i``), the one bnclassify's
    ``augment_ode_arcs`` keeps (``discard_reversed`` keeps the lower of two reversed
    rows, and the arcs from later orphans come lower). The direction matters for
    later steps: the child can take no further parent.
    """
    parents = structure.parents
    children = [i for i in range(structure.n_features) if len(parents[i]) < max_parents]
    if len(children) <= 1 and max_parents == 1:
        return []
    arcs = []
    for j in range(structure.n_features):
        blocked = ancestors(structure, j) | {j}
        for i in children:
            if i in blocked or j in parents[i]:
                continue
            if not parents[i] and not parents[j] and j < i:
                continue
            arcs.append((j, i))
    return arcs


class _ArcSearch(FoldsFollowTheRows, AugmentedNaiveBayes):
    """Shared machinery of the arc-adding wrappers (TAN-HC, TAN-HCSP, kDB-HC)."""

    _desc = "search"
    # The search counts each family it scores and the final tables are counted from the
    # rows (pybnc.parameters.learn.family_counts): counting every pair up front would cost a
    # large part of a fit on a small table.
    _capabilities = AugmentedNaiveBayes._capabilities.replace(pair_counts=False, searches_by_cv=True)

    def _arc_move(self, scorer, state: SearchState, changes: dict, describe):
        def apply():
            parents = list(state.structure.parents)
            for i, p in changes.items():
                parents[i] = tuple(sorted(p))
            structure = Structure(tuple(parents))
            return SearchState(structure, scorer.change_parents(state.total, state.structure, changes))

        return describe, ("accuracy_changing_parents", (state.total, state.structure, changes)), apply

    def _arc_candidates(self, scorer, state: SearchState, arcs) -> list:
        # A feature never observed in training (no level) is neither a parent nor a child:
        # it carries nothing, and as a parent it would hide its child's counts.
        seen = scorer.cardinalities > 0
        return [self._arc_move(scorer, state, {i: state.structure.parents[i] + (j,)}, ("arc", j, i))
                for j, i in arcs if seen[j] and seen[i]]

    def _run_search(self, codes, y, counts, step) -> Structure:
        """``step(scorer, state, rng, score_moves)``: the candidates of a state, their
        scores as :class:`~pybnc.search._greedy.MoveScoring` takes them."""
        folds, rng = search_folds(self, y)
        scorer = make_scorer(self, codes, y, counts, folds, rng)
        start = Structure.naive_bayes(counts.n_features)
        total = scorer.total_for(start)
        with MoveScoring(scorer, self.n_jobs) as score_moves:
            state, trace = hill_climb(SearchState(start, total), scorer.accuracy(total),
                                      lambda s: step(scorer, s, rng, score_moves), self.epsilon, rng, self.verbose,
                                      self._desc, score_moves=score_moves)
        names = self.feature_names_
        self.search_trace_ = named_trace(
            trace, lambda m: m if isinstance(m, str) else f"add arc {names[m[1]]} -> {names[m[2]]}")
        report_stop(self, self.search_trace_, "naive Bayes", scorer.n_folds)
        return state.structure


class TANHC(WrapperParams, _ArcSearch):
    """Tree-augmented naive Bayes by hill climbing (Keogh & Pazzani 2002; bnclassify ``tan_hc``).

    Starts from naive Bayes and repeatedly adds the augmenting arc that most raises
    the ``cv``-fold cross-validated accuracy, as long as it gains at least
    ``epsilon``; every feature keeps at most one feature parent and the arcs stay
    acyclic. Of two reversed arcs between parentless features (equivalent networks)
    only one is scored. Candidates are scored incrementally from cached per-fold
    counts and per-row contributions (see :mod:`pybnc.search._engine`); rows with
    missing values are scored exactly.

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

    Examples
    --------
    >>> from pybnc import TANHC
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = TANHC(random_state=0, verbose=0).fit(X, y)
    >>> model.search_trace_[0]["move"], len(model.arcs_) <= 5
    ('start', True)
    """

    _desc = "TAN-HC"
    _parameter_constraints = WRAPPER_CONSTRAINTS

    def _learn_structure(self, counts, codes, y):
        def step(scorer, state, rng, score_moves):
            return self._arc_candidates(scorer, state, addable_arcs(state.structure, 1))

        return self._run_search(codes, y, counts, step)


class TANHCSP(WrapperParams, _ArcSearch):
    """Tree-augmented naive Bayes by super-parent hill climbing (Keogh & Pazzani 2002;
    bnclassify ``tan_hcsp``).

    Each step first picks the *super-parent*: the feature that, made the parent of
    every parentless feature it can take (no cycle), gives the best cross-validated
    accuracy; then it scores adding one arc from the super-parent to each of those
    features and accepts the best if it gains at least ``epsilon``.

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

    Examples
    --------
    >>> from pybnc import TANHCSP
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = TANHCSP(random_state=0, verbose=0).fit(X, y)
    >>> model.predict_proba(X.head(1)).sum().round(6)
    np.float64(1.0)
    """

    _desc = "TAN-HCSP"
    _parameter_constraints = WRAPPER_CONSTRAINTS

    def _learn_structure(self, counts, codes, y):
        def step(scorer, state, rng, score_moves):
            structure = state.structure
            seen = scorer.cardinalities > 0  # see _arc_candidates
            orphans = [i for i, p in enumerate(structure.parents) if not p and seen[i]]
            if len(orphans) <= 1:
                return []
            sp_children = {}
            for f in np.flatnonzero(seen).tolist():
                blocked = ancestors(structure, f) | {f}
                kids = [i for i in orphans if i not in blocked]
                if kids:
                    sp_children[f] = kids
            superparents = list(sp_children)
            scores = np.array(score_moves([
                ("accuracy_after", (state.total, structure, {c: (f,) for c in sp_children[f]})) for f in superparents]))
            best = superparents[pick_best(scores, rng)]
            return self._arc_candidates(scorer, state, [(best, c) for c in sp_children[best]])

        return self._run_search(codes, y, counts, step)
