"""Significance tests for comparing classifiers on cross-validation folds.

References
----------
Cerquides, J. & Lopez de Mantaras, R. (2003). Tractable Bayesian learning of
tree augmented naive Bayes classifiers. ICML-03 (paired t-test at 5% over
10-fold cross-validation; Tables 2-3 count significant wins per dataset).

Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error.
Machine Learning 52, 239-281 (corrected resampled t-test).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "TTestResult",
    "paired_t_test",
    "corrected_resampled_t_test",
    "win_tie_loss",
    "significant_wins",
    "HIGHER_IS_BETTER",
]

#: Direction of the metrics of :mod:`pybnc.evaluation.metrics`, used when
#: ``higher_is_better`` is not given to :func:`win_tie_loss`.
HIGHER_IS_BETTER = {
    "accuracy": True,
    "error_rate": False,
    "log_loss": False,
    "log_score": False,
    "brier_score": False,
}


@dataclass(frozen=True)
class TTestResult:
    """Outcome of a paired t-test of scores ``a`` against scores ``b``.

    Attributes
    ----------
    statistic : float
        t statistic of the differences ``a - b``.
    p_value : float
        Two-sided p-value with ``k - 1`` degrees of freedom.
    mean_difference : float
        Mean of ``a - b``.
    verdict : {"win", "tie", "loss"}
        From ``a``'s point of view: "win" when ``a`` is significantly better
        at level ``alpha``, "loss" when significantly worse, else "tie".
    """

    statistic: float
    p_value: float
    mean_difference: float
    verdict: str


def _differences(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a and b must be 1-D of equal length, got {a.shape} and {b.shape}")
    if a.shape[0] < 2:
        raise ValueError("a paired t-test needs at least 2 paired scores")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("scores must be finite")
    return a - b


def _t_test(d, variance_factor, alpha, higher_is_better):
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    k = d.shape[0]
    mean = float(np.mean(d))
    var = float(np.var(d, ddof=1))
    if var == 0.0:
        # Identical differences: no spread, so either no evidence at all
        # (all zero) or a difference of fixed sign in every fold.
        if mean == 0.0:
            t, p = 0.0, 1.0
        else:
            t, p = float(np.copysign(np.inf, mean)), 0.0
    else:
        t = mean / np.sqrt(var * variance_factor)
        p = float(2.0 * stats.t.sf(abs(t), df=k - 1))
    if p < alpha and mean != 0.0:
        verdict = "win" if (mean > 0) == bool(higher_is_better) else "loss"
    else:
        verdict = "tie"
    return TTestResult(float(t), p, mean, verdict)


def paired_t_test(a, b, alpha=0.05, higher_is_better=True) -> TTestResult:
    """Two-sided paired t-test on per-fold scores.

    The statistic and p-value equal ``scipy.stats.ttest_rel(a, b)``, except
    that identical differences in every fold give ``t = 0, p = 1`` (all zero)
    or ``t = +-inf, p = 0`` where scipy would give NaN.

    Parameters
    ----------
    a, b : array-like of shape (k,)
        Scores of two models on the same k folds.
    alpha : float, default=0.05
        Significance level of the verdict.
    higher_is_better : bool, default=True
        False for losses such as error rate or LogScore.

    Returns
    -------
    TTestResult

    Examples
    --------
    >>> r = paired_t_test([0.9, 0.8, 0.85, 0.95], [0.8, 0.7, 0.8, 0.8])
    >>> round(r.statistic, 3), r.verdict
    (4.899, 'win')
    >>> paired_t_test([0.1, 0.2, 0.15, 0.05], [0.2, 0.3, 0.2, 0.2],
    ...               higher_is_better=False).verdict
    'win'
    """
    d = _differences(a, b)
    return _t_test(d, 1.0 / d.shape[0], alpha, higher_is_better)


def corrected_resampled_t_test(
    a, b, n_train, n_test, alpha=0.05, higher_is_better=True
) -> TTestResult:
    """Corrected resampled t-test of Nadeau & Bengio (2003).

    Overlapping training sets make fold scores correlated, so the variance of
    the mean difference is inflated to ``var * (1/k + n_test/n_train)``
    instead of ``var / k``; the statistic is compared with a t distribution
    with ``k - 1`` degrees of freedom.

    Parameters
    ----------
    a, b : array-like of shape (k,)
        Scores of two models on the same k train/test splits.
    n_train, n_test : float
        Number of training and test instances per split (averages are fine).
    alpha : float, default=0.05
    higher_is_better : bool, default=True

    Returns
    -------
    TTestResult

    Examples
    --------
    >>> r = corrected_resampled_t_test([1, 2, 3, 4], [0, 0, 0, 0], n_train=3, n_test=1)
    >>> round(r.statistic, 4)
    2.5355
    """
    if not (n_train > 0 and n_test > 0):
        raise ValueError("n_train and n_test must be positive")
    d = _differences(a, b)
    return _t_test(d, 1.0 / d.shape[0] + n_test / n_train, alpha, higher_is_better)


def _pair_verdicts(results, model, other, metric, higher_is_better, alpha, test, cols, by):
    """Verdict of ``model`` against ``other`` on each (by..., dataset) group."""
    dataset, model_col, fold = cols
    keys = [*by, dataset, fold]
    extra = ["n_train", "n_test"] if test == "corrected" else []
    left = results.loc[results[model_col] == model, keys + [metric] + extra]
    right = results.loc[results[model_col] == other, keys + [metric]]
    paired = left.merge(right, on=keys, suffixes=("_a", "_b"))
    rows = []
    for group, g in paired.groupby([*by, dataset], sort=True):
        if len(g) < 2:
            continue
        group = group if isinstance(group, tuple) else (group,)
        a, b = g[f"{metric}_a"].to_numpy(), g[f"{metric}_b"].to_numpy()
        if test == "paired":
            r = paired_t_test(a, b, alpha, higher_is_better)
        else:
            r = corrected_resampled_t_test(
                a, b, g["n_train"].mean(), g["n_test"].mean(), alpha, higher_is_better
            )
        rows.append((*group, r.verdict))
    return pd.DataFrame(rows, columns=[*by, dataset, "verdict"])


def _check_results(results, metric, higher_is_better, test, cols, by):
    if metric not in results.columns:
        raise ValueError(f"results has no column {metric!r}")
    needed = [*cols, *by] + (["n_train", "n_test"] if test == "corrected" else [])
    missing = [c for c in needed if c not in results.columns]
    if missing:
        raise ValueError(f"results lacks columns {missing}")
    if test not in ("paired", "corrected"):
        raise ValueError(f"test must be 'paired' or 'corrected', got {test!r}")
    if results.duplicated([*by, *cols]).any():
        raise ValueError("results has several rows for one (dataset, model, fold)")
    if higher_is_better is None:
        if metric not in HIGHER_IS_BETTER:
            raise ValueError(f"say whether higher {metric!r} is better (higher_is_better)")
        higher_is_better = HIGHER_IS_BETTER[metric]
    return higher_is_better


def win_tie_loss(
    results,
    baseline,
    metric,
    *,
    higher_is_better=None,
    alpha=0.05,
    test="paired",
    by=(),
    dataset_col="dataset",
    model_col="model",
    fold_col="fold",
) -> pd.DataFrame:
    """Count datasets where each model beats, ties or loses to a baseline.

    As in Cerquides & Lopez de Mantaras (2003), Tables 2-3, a model *wins* on
    a dataset when a paired t-test at level ``alpha`` over the folds finds it
    significantly better than the baseline, *loses* when significantly worse,
    and *ties* otherwise.  Counts are numbers of datasets.  Folds are paired
    by the fold column; a dataset on which a model or the baseline has fewer
    than two common folds (e.g. a model skipped on large datasets) is not
    counted for that model.

    Parameters
    ----------
    results : pandas.DataFrame
        Long format, one row per (dataset, model, fold) and per value of the
        ``by`` columns, with columns ``dataset``, ``model``, ``fold`` (names
        configurable), the ``metric`` column, any ``by`` columns and, for
        ``test="corrected"``, ``n_train`` and ``n_test``.
    baseline : str
        Model the others are compared with.
    metric : str
        Column holding the per-fold score.
    higher_is_better : bool, optional
        Inferred for the names in :data:`HIGHER_IS_BETTER`, else required.
    alpha : float, default=0.05
    test : {"paired", "corrected"}, default="paired"
        Plain paired t-test (as in the paper) or the Nadeau-Bengio correction.
    by : sequence of str, default=()
        Extra columns giving separate counts, e.g. the fraction of training
        data used (the .1/.5/1 columns of the paper's tables).
    dataset_col, model_col, fold_col : str
        Names of the identifying columns.

    Returns
    -------
    pandas.DataFrame
        Indexed by model (preceded by the ``by`` columns), with integer columns
        ``wins``, ``ties``, ``losses`` and ``datasets`` (their sum).

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "dataset": ["d1"] * 6 + ["d2"] * 6,
    ...     "model": ["nb", "nb", "nb", "tan", "tan", "tan"] * 2,
    ...     "fold": [0, 1, 2] * 4,
    ...     "accuracy": [.70, .72, .71, .80, .83, .81, .90, .91, .92, .90, .92, .91]})
    >>> win_tie_loss(df, "nb", "accuracy")  # doctest: +NORMALIZE_WHITESPACE
           wins  ties  losses  datasets
    model
    tan       1     1       0         2
    """
    by = [by] if isinstance(by, str) else list(by)
    cols = (dataset_col, model_col, fold_col)
    hib = _check_results(results, metric, higher_is_better, test, cols, by)
    if baseline not in set(results[model_col]):
        raise ValueError(f"baseline {baseline!r} is not among the models")
    others = [m for m in pd.unique(results[model_col]) if m != baseline]
    parts = []
    for model in others:
        v = _pair_verdicts(results, model, baseline, metric, hib, alpha, test, cols, by)
        v[model_col] = model
        parts.append(v)
    verdicts = pd.concat(parts, ignore_index=True) if parts else None
    if verdicts is None or verdicts.empty:
        table = pd.DataFrame(0, index=pd.Index(others, name=model_col),
                             columns=["wins", "ties", "losses"])
    else:
        table = (
            pd.crosstab([verdicts[c] for c in [*by, model_col]], verdicts["verdict"])
            .reindex(columns=["win", "tie", "loss"], fill_value=0)
            .rename(columns={"win": "wins", "tie": "ties", "loss": "losses"})
        )
        table.columns.name = None
    if not by:
        # Models never comparable with the baseline still get a (zero) row.
        table = table.reindex(pd.Index(others, name=model_col), fill_value=0)
    table["datasets"] = table.sum(axis=1)
    return table.astype(np.int64)


def significant_wins(
    results,
    metric,
    *,
    higher_is_better=None,
    alpha=0.05,
    test="paired",
    by=(),
    dataset_col="dataset",
    model_col="model",
    fold_col="fold",
) -> pd.DataFrame:
    """All-pairs table of significant wins, laid out as the paper's Tables 2-3.

    Entry ``[row, column]`` is the number of datasets on which the row model
    is significantly better than the column model; the diagonal is 0.  With
    ``by`` columns the result's columns are a MultiIndex (column model, by...).
    Parameters are those of :func:`win_tie_loss`.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "dataset": ["d1"] * 6,
    ...     "model": ["nb", "nb", "nb", "tan", "tan", "tan"],
    ...     "fold": [0, 1, 2] * 2,
    ...     "error_rate": [.30, .28, .29, .20, .17, .19]})
    >>> significant_wins(df, "error_rate")  # doctest: +NORMALIZE_WHITESPACE
    model  nb  tan
    model
    nb      0    0
    tan     1    0
    """
    by = [by] if isinstance(by, str) else list(by)
    cols = (dataset_col, model_col, fold_col)
    hib = _check_results(results, metric, higher_is_better, test, cols, by)
    models = list(pd.unique(results[model_col]))
    rows = []
    for m, other in permutations(models, 2):
        v = _pair_verdicts(results, m, other, metric, hib, alpha, test, cols, by)
        for key, g in v.groupby(by, sort=True) if by else [((), v)]:
            key = key if isinstance(key, tuple) else (key,)
            rows.append((m, other, *key, int((g["verdict"] == "win").sum())))
    counts = pd.DataFrame(rows, columns=["row", "column", *by, "wins"])
    table = counts.pivot_table(
        index="row", columns=["column", *by], values="wins", aggfunc="sum", fill_value=0
    )
    table = table.reindex(index=models, fill_value=0)
    if not by:
        table = table.reindex(columns=models, fill_value=0)
    table.index.name = model_col
    table.columns.names = [model_col, *by] if by else [model_col]
    return table.astype(np.int64)
