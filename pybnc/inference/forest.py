"""Joint log-likelihood ``log P(x_observed, c)`` of an augmented naive Bayes.

Complete rows are a sum of table look-ups. Rows with missing values are answered
exactly by summing the missing features out: given the class, the features of a
one-dependence model form a forest, so one upward pass of sum-product messages per
tree (in log space, vectorised over rows and classes) is exact and linear in the
number of features. Structures with several feature parents per feature (kDB) go
through variable elimination, in :mod:`pybnc.inference.elimination` when available.
"""

from __future__ import annotations

import numpy as np

from .._utils.logsumexp import logsumexp
from ..structure.dag import Structure


def parent_configuration(codes: np.ndarray, parents, cardinalities) -> np.ndarray:
    """Row-major index of each row's parent configuration (0 when there are none).

    Rows where a parent is missing get an arbitrary index; callers mask them.
    """
    if not parents:
        return np.zeros(codes.shape[0], dtype=np.int64)
    if len(parents) == 1:
        return np.maximum(codes[:, parents[0]], 0).astype(np.int64)
    sub = np.maximum(codes[:, list(parents)], 0)
    return np.ravel_multi_index(tuple(sub.T), tuple(np.asarray(cardinalities)[list(parents)]))


def complete_rows_jll(codes, structure: Structure, class_log_prior, log_cpts, cardinalities) -> np.ndarray:
    """``log P(x, c)`` for rows with no missing value, shape ``(n, K)``."""
    n = codes.shape[0]
    jll = np.empty((n, class_log_prior.shape[0]))
    jll[:] = class_log_prior
    for i, table in enumerate(log_cpts):
        k, q, r = table.shape
        idx = parent_configuration(codes, structure.parents[i], cardinalities) * r + codes[:, i]
        if n < q * r:  # fewer rows than cells (many-levelled parents): gather from the table as it is
            jll += table.reshape(k, q * r)[:, idx].T
        else:  # (q * r, K) rows: one contiguous gather per feature is the fast path
            jll += np.ascontiguousarray(table.reshape(k, q * r).T).take(idx, axis=0)
    return jll


def _forest_rows_jll(codes, structure: Structure, class_log_prior, log_cpts, groups=None) -> np.ndarray:
    """Exact ``log P(x_observed, c)`` by upward message passing on each tree given the class.

    With ``groups``, ``class_log_prior`` is ``(G, K)``, every table ``(G, K, q, r)``
    and row ``m`` reads group ``groups[m]`` (cross-validation: each row its own
    training folds' tables, all in one pass).
    """
    shared = groups is None  # one set of tables for every row: read them without a per-row copy
    if shared:
        groups = np.zeros(codes.shape[0], dtype=np.int64)
        class_log_prior, log_cpts = np.asarray(class_log_prior)[None], [np.asarray(t)[None] for t in log_cpts]
    m, k = codes.shape[0], class_log_prior.shape[1]
    parent = structure.parent_array()
    incoming = [None] * structure.n_features
    total = class_log_prior[groups].copy()
    for v in reversed(structure.topological_order()):
        table = log_cpts[v]  # (G, K, q, r)
        # An observed value is a gather; only rows missing v need a sum over its levels.
        # Zeros: a row whose parent is observed fills only that parent value's entry.
        message = np.zeros((m, k, table.shape[2]))
        obs = codes[:, v] >= 0
        x = codes[obs, v]
        message[obs] = table[0].transpose(2, 0, 1)[x] if shared else table.transpose(0, 3, 1, 2)[groups[obs], x]
        if incoming[v] is not None:
            message[obs] += incoming[v][obs, :, x][:, :, None]
        mis = ~obs
        if mis.any():
            # v missing, its parent observed: the sum over v's levels for that parent value only
            known = np.flatnonzero(mis & (codes[:, parent[v]] >= 0)) if parent[v] >= 0 else np.empty(0, np.int64)
            if known.size:
                a = codes[known, parent[v]]
                own = table[0].transpose(1, 0, 2)[a] if shared else table.transpose(0, 2, 1, 3)[groups[known], a]
                message[known, :, a] = logsumexp(own + incoming[v][known] if incoming[v] is not None else own)
            rest = mis.copy()
            rest[known] = False
            if not rest.any():
                pass
            elif shared and incoming[v] is None:  # no observed descendant: the same sum in every row
                message[rest] = logsumexp(table[0])
            else:
                own = table[0][None] if shared else table[groups[rest]]
                message[rest] = logsumexp(own + incoming[v][rest][:, :, None, :] if incoming[v] is not None else own)
        if parent[v] < 0:
            total += message[:, :, 0]
        elif incoming[parent[v]] is None:
            incoming[parent[v]] = message
        else:
            incoming[parent[v]] += message
    return total


def joint_log_likelihood(codes, structure: Structure, class_log_prior, log_cpts, cardinalities,
                         normalise_missing: bool = False, tables_are_probabilities: bool = False) -> np.ndarray:
    """``log P(x_observed, c)`` for every row and class, shape ``(n, K)``.

    Parameters
    ----------
    codes : ndarray of shape (n, d), int, ``-1`` for missing
    structure : Structure
    class_log_prior : ndarray of shape (K,)
    log_cpts : list of ndarray ``(K, q_i, r_i)``
    cardinalities : ndarray of shape (d,)
    normalise_missing : bool, default=False
        For tables that are not conditional distributions (WANBIA's weighted ones):
        a missing feature's own table is renormalised over its values before it is
        summed out, so a missing leaf contributes exactly 1. Conditional tables are
        unchanged by it.
    tables_are_probabilities : bool, default=False
        The caller knows every table to be a conditional distribution (its model's
        capabilities say so): a missing feature with no observed descendant is then
        pruned without first summing each table over its child to check (on tables of
        millions of cells, that check cost more than the rest of the inference).

    Returns
    -------
    ndarray of shape (n, K)
        Exact: missing features are summed out, not imputed.
    """
    codes = np.asarray(codes)
    has_missing = (codes < 0).any(axis=1)
    if not has_missing.any():
        return complete_rows_jll(codes, structure, class_log_prior, log_cpts, cardinalities)
    jll = np.empty((codes.shape[0], class_log_prior.shape[0]))
    complete = ~has_missing
    jll[complete] = complete_rows_jll(codes[complete], structure, class_log_prior, log_cpts, cardinalities)
    if normalise_missing:
        rows_missing = np.flatnonzero(has_missing)
        patterns, inverse = np.unique(codes[rows_missing] < 0, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        normalised = [t - logsumexp(t, axis=-1)[..., None] for t in log_cpts]
        for p, pattern in enumerate(patterns):
            rows = rows_missing[inverse == p]
            tables = [normalised[i] if pattern[i] else log_cpts[i] for i in range(len(log_cpts))]
            jll[rows] = joint_log_likelihood(codes[rows], structure, class_log_prior, tables, cardinalities)
        return jll
    if structure.is_one_dependence:
        jll[has_missing] = _forest_rows_jll(codes[has_missing], structure, class_log_prior, log_cpts)
    else:
        from .elimination import eliminate_rows_jll

        normalised = [True] * len(log_cpts) if tables_are_probabilities else None
        jll[has_missing] = eliminate_rows_jll(codes[has_missing], structure, class_log_prior, log_cpts, cardinalities,
                                              normalised=normalised)
    return jll
