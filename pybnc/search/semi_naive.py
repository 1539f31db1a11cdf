"""Semi-naive Bayes by forward sequential selection and joining (FSSJ) and backward
sequential elimination and joining (BSEJ), Pazzani 1996, as bnclassify's ``fssj`` and
``bsej``.

The model is a naive Bayes over *supernodes*: each is one feature or the Cartesian
product of several (a joined feature, whose levels are the combinations of its
members' levels), independent of the others given the class. A joined feature
with a missing member is missing, and a missing supernode is summed out (it
contributes nothing), which is exact since supernodes have no feature parents.

bnclassify stores a join as a complete DAG among its members, so with Bayesian
smoothing its tables differ slightly from the product feature's; with ``params="mle"``
and complete data both are the same distribution. Here the product is smoothed as
one feature with ``prod r_i`` levels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..estimators._fitted_state import InconsistentState, fitted_array
from ..estimators.base import BaseBNC
from ..parameters import class_log_prior, resolve_alpha
from ._engine import compact_join, log_theta
from ._greedy import _TRACE_DOC, _WRAPPER_DOC, WrapperParams, hill_climb, make_scorer, named_trace, validate_search


class _State(NamedTuple):
    supernodes: tuple  # sorted tuples of feature indices
    total: np.ndarray


def fit_join(codes: np.ndarray, members: tuple, cardinalities) -> list:
    """Learn the coding of the Cartesian product of the columns ``members``.

    Returns the sorted keys of the combinations seen at each step of the product
    (a list of int arrays, empty for a single feature), for :func:`encode_join`.
    """
    joined = codes[:, members[0]].astype(np.int64)
    keys = []
    for member in members[1:]:
        joined, step_keys = compact_join(joined, codes[:, member], int(cardinalities[member]))
        keys.append(step_keys)
    return keys


def join_levels(members: tuple, cardinalities, keys: list) -> int:
    """Levels of a fitted supernode: its seen combinations, plus one for unseen ones if joined."""
    return keys[-1].size + 1 if keys else int(cardinalities[members[0]])


def encode_join(codes: np.ndarray, members: tuple, cardinalities, keys: list) -> np.ndarray:
    """Codes of a fitted product: ``0 .. U-1`` for the ``U`` combinations seen at fit,
    ``U`` for an unseen combination, ``-1`` where a member is missing.

    Examples
    --------
    >>> import numpy as np
    >>> cards = np.array([2, 2])
    >>> keys = fit_join(np.array([[0, 1], [1, 1], [0, 1]]), (0, 1), cards)
    >>> encode_join(np.array([[1, 1], [1, 0], [-1, 0]]), (0, 1), cards, keys).tolist()
    [1, 2, -1]
    """
    joined = codes[:, members[0]].astype(np.int64)
    missing = joined < 0
    unseen = np.zeros(joined.shape[0], dtype=bool)
    for member, step_keys in zip(members[1:], keys):
        right = codes[:, member]
        missing |= right < 0
        key = joined * int(cardinalities[member]) + right
        if step_keys.size == 0:  # every training row missed a member
            unseen[:] = True
            joined = np.zeros_like(key)
            continue
        idx = np.minimum(np.searchsorted(step_keys, key), step_keys.size - 1)
        unseen |= step_keys[idx] != key
        joined = idx
    if keys:
        joined = np.where(unseen, keys[-1].size, joined)
    return np.where(missing, -1, joined)


class _SemiNaiveSearch(BaseBNC):
    """Shared search and model of FSSJ and BSEJ."""

    def _step(self, scorer, state: _State) -> list:
        raise NotImplementedError

    def _move(self, scorer, state: _State, removed: tuple, added: tuple, describe):
        total = state.total.copy()
        for s in removed:
            total -= scorer.join_contribution(s)
        for s in added:
            total += scorer.join_contribution(s)
        supernodes = tuple(sorted([s for s in state.supernodes if s not in removed] + list(added)))
        return describe, scorer.accuracy(total), lambda: _State(supernodes, total)

    def _fit_encoded(self, codes, y, counts):
        rng = validate_search(self, codes.shape[0], self.k)
        scorer = make_scorer(self, codes, y, counts, self.k, rng)
        init = self._initial_supernodes(counts.n_features)
        total = scorer.prior_total() + sum((scorer.join_contribution(s) for s in init), 0.0)
        state, trace = hill_climb(_State(init, total), scorer.accuracy(total), lambda s: self._step(scorer, s),
                                  self.epsilon, rng, self.verbose, self._desc)
        names = self.feature_names_
        label = lambda s: "(" + " x ".join(names[i] for i in s) + ")"  # noqa: E731

        def describe(move):
            if isinstance(move, str):
                return move
            kind, *nodes = move
            return f"{kind} " + " & ".join(label(s) if isinstance(s, tuple) else names[s] for s in nodes)

        self.search_trace_ = named_trace(trace, describe)
        self._set_model(state.supernodes, codes, y, counts)

    def _set_model(self, supernodes, codes, y, counts):
        method, alpha = self.params, resolve_alpha(self.params, self.alpha)
        K = counts.n_classes
        names = self.feature_names_
        self.supernodes_ = [tuple(names[i] for i in s) for s in supernodes]
        self.features_ = sorted((names[i] for s in supernodes for i in s), key=names.index)
        self.joins_ = [s for s in self.supernodes_ if len(s) > 1]
        self.class_log_prior_ = class_log_prior(counts.class_counts, method, alpha)
        self.supernode_indices_ = [tuple(int(i) for i in s) for s in supernodes]
        self.join_keys_, self.log_tables_ = [], []
        cards = counts.cardinalities
        for s in supernodes:
            keys = fit_join(codes, s, cards)
            joined = encode_join(codes, s, cards, keys)
            # A joined feature has one extra column for combinations first seen at predict time.
            levels = join_levels(s, cards, keys)
            keep = joined >= 0
            n = np.bincount(y[keep] * levels + joined[keep], minlength=K * levels).reshape(K, 1, levels)
            n = n.astype(np.float64)
            marginal = None
            if method == "friedman":
                n_x = n.sum(axis=(0, 1))
                marginal = n_x / n_x.sum() if n_x.sum() > 0 else np.full(levels, 1.0 / levels)
            full_levels = float(np.prod(cards[list(s)].astype(float)))
            self.join_keys_.append(keys)
            self.log_tables_.append(log_theta(n, method, alpha, full_levels, 1.0, K, marginal)[:, 0, :])

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
            fitted_array(self, f"log_tables_[{s}]", (k, join_levels(members, cards, keys)), value=self.log_tables_[s])

    def _jll_encoded(self, codes):
        jll = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        cards = self.encoder_.cardinalities_
        for members, keys, table in zip(self.supernode_indices_, self.join_keys_, self.log_tables_):
            joined = encode_join(codes, members, cards, keys)
            observed = joined >= 0
            jll[observed] += table.T[joined[observed]]
        return jll


_SEMI_FITTED = """
    Attributes
    ----------
    classes_ : ndarray
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
        The combinations seen at fit, per supernode (see :func:`encode_join`).
    log_tables_ : list of ndarray
        ``log P(supernode level | class)`` per supernode, shape ``(n_classes, levels)``;
        a joined feature lists the combinations seen at fit, then one column for
        combinations first seen at predict time.
"""


class FSSJ(WrapperParams, _SemiNaiveSearch):
    __doc__ = f"""Forward sequential selection and joining (Pazzani 1996; bnclassify ``fssj``).

    Starts from the class alone; each step either adds an unused feature as a new
    supernode or joins it to an existing supernode, whichever most raises the
    cross-validated accuracy, while the gain is at least ``epsilon``.

    Parameters
    ----------{_WRAPPER_DOC}{_SEMI_FITTED}{_TRACE_DOC}
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

    @staticmethod
    def _initial_supernodes(n_features):
        return ()

    def _step(self, scorer, state):
        used = {i for s in state.supernodes for i in s}
        unused = [i for i in range(scorer.codes.shape[1]) if i not in used]
        moves = [self._move(scorer, state, (), ((f,),), ("add", f)) for f in unused]
        moves += [self._move(scorer, state, (s,), (tuple(sorted(s + (f,))),), ("join", f, s))
                  for f in unused for s in state.supernodes]
        return moves


class BSEJ(WrapperParams, _SemiNaiveSearch):
    __doc__ = f"""Backward sequential elimination and joining (Pazzani 1996; bnclassify ``bsej``).

    Starts from naive Bayes over all features; each step either removes a feature
    (from its supernode) or joins two supernodes into their Cartesian product,
    whichever most raises the cross-validated accuracy, while the gain is at least
    ``epsilon``.

    Parameters
    ----------{_WRAPPER_DOC}{_SEMI_FITTED}{_TRACE_DOC}
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

    @staticmethod
    def _initial_supernodes(n_features):
        return tuple((i,) for i in range(n_features))

    def _step(self, scorer, state):
        nodes = state.supernodes
        moves = []
        for s in nodes:
            for f in s:
                rest = tuple(i for i in s if i != f)
                moves.append(self._move(scorer, state, (s,), (rest,) if rest else (), ("remove", f)))
        moves += [self._move(scorer, state, (a, b), (tuple(sorted(a + b)),), ("join", a, b))
                  for ia, a in enumerate(nodes) for b in nodes[ia + 1:]]
        return moves
