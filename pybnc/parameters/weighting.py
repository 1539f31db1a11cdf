"""Feature weighting of the conditional tables: AWNB (Hall 2007) and WANBIA (Zaidi et al. 2013).

Both give each feature ``X_i`` one weight ``w_i`` in ``[0, 1]`` used as an exponent
of its conditional table, as described in the bnclassify methods vignette.

AWNB
    ``w_i = (1/M) sum_t 1 / sqrt(d_ti)``, ``d_ti`` the minimum testing depth of
    ``X_i`` (root = 1) in an unpruned classification tree learned on the ``t``-th
    bootstrap subsample (``w`` gets 0 from a tree that does not test ``X_i``). The
    tables become ``theta^w / sum_k theta^w``: still conditional distributions, so it
    applies to any structure and exact marginalisation of missing values is
    unchanged. ``awnb_tree`` chooses the trees: ``"c45"`` (default, Hall's C4.5:
    multiway splits, gain ratio, missing values as fractional rows;
    :mod:`pybnc.parameters.c45_tree`), ``"rpart"`` (R's ``rpart`` as bnclassify calls
    it: binary splits, ``minsplit=2``, ``minbucket=1``, ``cp=0``, no surrogates; it
    reproduces bnclassify's AWNB; :mod:`pybnc.parameters.rpart_tree`) or ``"cart"``
    (scikit-learn's CART on the integer codes).
WANBIA
    Weights maximise the conditional log-likelihood of the training data under
    ``P(c | x; w) ∝ P(c) prod_i P(x_i | pa_i, c)^{w_i}`` with L-BFGS-B and the
    vignette's analytic gradient, bounds ``[0, 1]``, start at ``w = 1``. The tables
    are ``w_i log theta`` and are **not** normalised.

Choices of pybnc (documented, tested)
-------------------------------------
* WANBIA applies to any structure (bnclassify: naive Bayes only): ``theta`` is
  then ``P(x_i | pa_i, c)``. For naive Bayes this is exactly the vignette.
* WANBIA weighs the estimator's own tables, so the optimiser maximises the CLL of the
  model it returns (maximum likelihood gives the vignette's tables, a zero probability
  floored at ``1e-300``; the default, alpha = 1, is bnclassify's ``smooth = 1``).
* Missing values, following the vignette ("replace by 1"): while fitting, a family
  with a missing member contributes 1. At prediction a missing feature's own table
  is renormalised over its values and then summed out exactly, so a missing leaf
  contributes exactly 1 (dropped) and a missing parent of an observed feature is
  marginalised. For naive Bayes both rules coincide; with arcs, fitting drops the family
  of an observed feature whose parent is missing (for the weights only).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_random_state

from .c45_tree import c45_testing_depths
from .rpart_tree import rpart_testing_depths
from ..structure.dag import Structure

#: ``"discriminative"`` is :mod:`pybnc.parameters.discriminative`'s, applied by the estimators.
WEIGHTINGS = (None, "awnb", "wanbia", "discriminative")
AWNB_TREES = ("c45", "rpart", "cart")


# -- AWNB -----------------------------------------------------------------------------
def min_testing_depths(tree, n_features: int) -> np.ndarray:
    """Minimum depth (root = 1) at which a fitted sklearn tree tests each feature; inf if never."""
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=np.int64)
    depth[0] = 1
    frontier = np.array([0])
    while frontier.size:
        left, right = t.children_left[frontier], t.children_right[frontier]
        internal = left >= 0
        kids = np.concatenate([left[internal], right[internal]])
        depth[kids] = np.tile(depth[frontier[internal]] + 1, 2)
        frontier = kids
    best = np.full(n_features, np.inf)
    tested = t.children_left >= 0
    np.minimum.at(best, t.feature[tested], depth[tested].astype(np.float64))
    return best


def awnb_weights(codes, y, n_trees: int = 10, bootstrap: float = 0.5, random_state=None,
                 tree: str = "c45", n_levels=None) -> np.ndarray:
    """AWNB feature weights (Hall 2007) from ``n_trees`` bootstrap trees.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    y : ndarray of shape (n,), int
    n_trees : int, default=10
        Number ``M`` of bootstrap subsamples (bnclassify's ``awnb_trees``).
    bootstrap : float in (0, 1], default=0.5
        Subsample size relative to ``n``, drawn with replacement
        (bnclassify's ``awnb_bootstrap``).
    random_state : int, RandomState or None
    tree : {"c45", "rpart", "cart"}, default="c45"
        C4.5 trees (Hall's), rpart trees (bnclassify's) or scikit-learn's CART on the
        codes (see the module notes).
    n_levels : sequence of int, optional
        Levels of each feature, for ``"rpart"`` (see :func:`pybnc.parameters.rpart_tree.rpart_testing_depths`).

    Returns
    -------
    ndarray of shape (d,)
        Weights in ``[0, 1]``; 0 for a feature no tree tests.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> codes = np.column_stack([y, rng.integers(0, 3, 200)])  # x0 = class, x1 noise
    >>> awnb_weights(codes, y, random_state=0).tolist()
    [1.0, 0.0]
    """
    if not (isinstance(n_trees, (int, np.integer)) and n_trees >= 1):
        raise ValueError(f"awnb_trees must be an integer >= 1, got {n_trees!r}.")
    if not (0 < float(bootstrap) <= 1):
        raise ValueError(f"awnb_bootstrap must be a fraction in (0, 1], got {bootstrap!r}.")
    if tree not in AWNB_TREES:
        raise ValueError(f"awnb_tree={tree!r} is not one of {AWNB_TREES}.")
    codes = np.asarray(codes)
    y = np.asarray(y)
    rng = check_random_state(random_state)
    n, d = codes.shape
    X = np.where(codes >= 0, codes, np.nan).astype(np.float64)
    size = max(1, int(round(float(bootstrap) * n)))
    total = np.zeros(d)
    for _ in range(n_trees):
        rows = rng.randint(0, n, size=size)
        if tree in ("c45", "rpart"):
            # A bootstrap sample as row multiplicities: the same tree, fewer rows to scan.
            weight = np.bincount(rows, minlength=n).astype(np.float64)
            drawn = np.flatnonzero(weight)
            if tree == "c45":
                depths = c45_testing_depths(codes[drawn], y[drawn], weight[drawn])
            else:
                depths = rpart_testing_depths(codes[drawn], y[drawn], weight[drawn], n_levels)
        else:
            from sklearn.tree import DecisionTreeClassifier  # here: sklearn.tree is slow to import

            cart = DecisionTreeClassifier(random_state=rng.randint(np.iinfo(np.int32).max))
            cart.fit(X[rows], y[rows])
            depths = min_testing_depths(cart, d)
        total += 1.0 / np.sqrt(depths)
    return total / n_trees


def awnb_tables(log_cpts, weights) -> list:
    """``log(theta^w / sum_k theta^w)`` for each table; ``w = 0`` gives the uniform table."""
    out = []
    for table, w in zip(log_cpts, weights):
        scaled = float(w) * np.asarray(table)
        out.append(scaled - logsumexp(scaled, axis=-1, keepdims=True))
    return out


# -- WANBIA ---------------------------------------------------------------------------
def family_log_entries(codes, structure: Structure, log_cpts, cardinalities) -> np.ndarray:
    """``L[j, c, i] = log theta_i(x_i^(j) | pa_i^(j), c)``, 0 where the family has a missing member.

    Returns an array of shape ``(n, K, d)``: the CLL of weights ``w`` is then
    ``log_softmax(log P(c) + L @ w)`` at the true class.
    """
    codes = np.asarray(codes)
    cards = np.asarray(cardinalities, dtype=np.int64)
    n, d = codes.shape
    k = np.asarray(log_cpts[0]).shape[0]
    out = np.zeros((n, k, d))
    safe = np.maximum(codes, 0)
    for i, table in enumerate(log_cpts):
        family = list(structure.parents[i]) + [i]
        complete = (codes[:, family] >= 0).all(axis=1)
        if not complete.any():  # e.g. a member never observed (no level): its entries stay 0
            continue
        idx = np.ravel_multi_index(tuple(safe[:, family].T), tuple(cards[family]))
        out[complete, :, i] = np.asarray(table).reshape(k, -1)[:, idx[complete]].T
    return out


def wanbia_objective(weights, entries, y, class_log_prior):
    """Mean negative conditional log-likelihood and its gradient (vignette eq. for ``g_i``).

    Parameters
    ----------
    weights : ndarray of shape (d,)
    entries : ndarray of shape (n, K, d)
        From :func:`family_log_entries`.
    y : ndarray of shape (n,), int
    class_log_prior : ndarray of shape (K,)

    Returns
    -------
    (float, ndarray of shape (d,))
    """
    n, k, d = entries.shape
    flat = entries.reshape(n * k, d)
    jll = class_log_prior[None, :] + (flat @ weights).reshape(n, k)
    norm = logsumexp(jll, axis=1)
    rows = np.arange(n)
    value = float(np.sum(norm - jll[rows, y])) / n
    posterior = np.exp(jll - norm[:, None])
    # g_i = sum_j (log theta_i(x_j | c_j) - sum_c P(c | x_j; w) log theta_i(x_j | c)).
    gradient = posterior.reshape(-1) @ flat - entries[rows, y].sum(axis=0)
    return value, gradient / n


def wanbia_weights(codes, y, structure: Structure, class_log_prior, log_cpts, cardinalities,
                   max_iter: int = 1000):
    """WANBIA weights by L-BFGS-B on the conditional log-likelihood.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    y : ndarray of shape (n,), int
    structure, class_log_prior, log_cpts, cardinalities
        The unweighted model (see the module notes on which tables to pass).
    max_iter : int, default=1000

    Returns
    -------
    weights : ndarray of shape (d,) in ``[0, 1]``
    result : scipy.optimize.OptimizeResult

    Examples
    --------
    >>> import numpy as np
    >>> from pybnc.counts.tables import count
    >>> from pybnc.parameters.learn import learn_parameters
    >>> from pybnc.structure import Structure
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 500)
    >>> x = np.where(rng.random(500) < 0.8, y, 1 - y)
    >>> codes = np.column_stack([x, x])  # the same feature twice
    >>> s = Structure.naive_bayes(2)
    >>> t = learn_parameters(s, count(codes, y, [2, 2], 2), "mle")
    >>> w, _ = wanbia_weights(codes, y, s, t.class_log_prior, t.log_cpts, [2, 2])
    >>> round(float(w.sum()), 2)
    1.0
    """
    from scipy.optimize import minimize  # here, as sklearn.tree above: only WANBIA needs it

    y = np.asarray(y, dtype=np.int64)
    entries = family_log_entries(codes, structure, log_cpts, cardinalities)
    prior = np.asarray(class_log_prior, dtype=np.float64)
    d = entries.shape[2]
    result = minimize(
        wanbia_objective, np.ones(d), args=(entries, y, prior), jac=True, method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * d, options={"maxiter": max_iter},
    )
    return np.clip(result.x, 0.0, 1.0), result


# -- the estimator hooks ------------------------------------------------------------------
def weight_tables(weighting, codes, y, structure: Structure, class_log_prior, log_cpts, cardinalities,
                  random_state=None, awnb_trees: int = 10, awnb_bootstrap: float = 0.5, awnb_tree: str = "c45"):
    """Apply ``weighting`` to fitted tables; returns ``(log_cpts, feature_weights)``.

    The tables of ``"wanbia"`` are not conditional distributions: predict with
    ``normalise_missing=True`` (see the module notes).
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r} is not one of None, 'awnb', 'wanbia', 'discriminative'.")
    d = len(log_cpts)
    if weighting is None:
        return log_cpts, np.ones(d)
    if weighting == "awnb":
        weights = awnb_weights(codes, y, awnb_trees, awnb_bootstrap, random_state, awnb_tree, cardinalities)
        return awnb_tables(log_cpts, weights), weights
    weights, _ = wanbia_weights(codes, y, structure, class_log_prior, log_cpts, cardinalities)
    return [w * np.asarray(t) for w, t in zip(weights, log_cpts)], weights
