"""Pictures of cross-validation results: learning curves and model comparisons (the long
table of :func:`pybnc.evaluation.cross_validate`)."""

from __future__ import annotations

import numpy as np

from .._utils.optional import require

#: The ``dataset`` column of :func:`pybnc.evaluation.cross_validate` when none is named.
DEFAULT_DATASET = "data"

def _check_results(results, metric, needed=("dataset", "model")):
    missing = [c for c in (*needed, metric) if c not in results.columns]
    if missing:
        raise ValueError(
            f"results has no column {missing}; expected the long table of "
            f"pybnc.evaluation.cross_validate (columns dataset, model, fold, train_fraction, "
            f"accuracy, log_loss, log_score, brier, fit_time); got {list(results.columns)}."
        )


def _panels(n: int, ax):
    plt = require("matplotlib.pyplot", "pybnc.plotting")

    if ax is not None:
        axes = np.atleast_1d(ax).ravel()
        if axes.size < n:
            raise ValueError(f"{n} datasets need {n} axes, got {axes.size}; pass ax=None for a new figure.")
        return axes
    cols = min(n, 3)
    rows = -(-n // cols)
    _, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False, layout="constrained")
    for extra in axes.ravel()[n:]:
        extra.set_visible(False)
    return axes.ravel()


def plot_learning_curve(results, metric="accuracy", ax=None, path=None, **kw):
    """Mean ``metric`` against the training fraction, one line per model, one panel per dataset.

    Parameters
    ----------
    results : DataFrame
        Long table of :func:`pybnc.evaluation.cross_validate` (see the module doc);
        needs ``dataset``, ``model``, ``train_fraction`` and ``metric``.
    metric : str, default="accuracy"
    ax : Axes or array of Axes, optional
        One per dataset.
    path : str or os.PathLike, optional
        Save the figure there.
    **kw
        Passed to ``Figure.savefig``.

    Returns
    -------
    Axes, or ndarray of Axes (several datasets)
        Bands show one standard error of the mean over folds.

    Examples
    --------
    >>> import matplotlib, pandas as pd
    >>> matplotlib.use("Agg")
    >>> res = pd.DataFrame({"dataset": "car", "model": ["NB", "NB", "TAN", "TAN"],
    ...                     "fold": 0, "train_fraction": [0.5, 1.0, 0.5, 1.0],
    ...                     "accuracy": [0.8, 0.85, 0.82, 0.93]})
    >>> plot_learning_curve(res).get_xlabel()
    'share of training fold'
    """
    _check_results(results, metric, ("dataset", "model", "train_fraction"))
    datasets = list(dict.fromkeys(results["dataset"]))
    axes = _panels(len(datasets), ax)
    stats = results.groupby(["dataset", "model", "train_fraction"], sort=False)[metric].agg(["mean", "sem", "count"])
    for panel, name in zip(axes, datasets):
        for model, curve in stats.loc[name].groupby(level="model", sort=False):
            curve = curve.droplevel("model").sort_index()
            x = curve.index.to_numpy(float)
            panel.plot(x, curve["mean"], marker="o", ms=4, label=model)
            sem = curve["sem"].fillna(0).to_numpy()
            panel.fill_between(x, curve["mean"] - sem, curve["mean"] + sem, alpha=0.2)
        if str(name) != DEFAULT_DATASET or len(datasets) > 1:  # cross_validate's name for an unnamed table
            panel.set_title(str(name))
        panel.set_xlabel("share of training fold")
        panel.set_ylabel(metric)
        panel.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    if path is not None:
        axes[0].figure.savefig(path, bbox_inches="tight", **kw)
    return axes[0] if len(datasets) == 1 else axes[: len(datasets)]


def plot_comparison(results, metric="accuracy", baseline=None, ax=None, path=None, **kw):
    """Compare models across datasets on one metric, at the largest training fraction.

    Without ``baseline``: a dot plot, one row per dataset, one marker per model
    (mean over folds, bars one standard error). With ``baseline``: the scatter plot
    of Friedman et al. (1997): the baseline's mean on the x axis, each other
    model's on the y axis, one point per dataset; points above the diagonal are
    datasets where the model scores higher.

    Parameters
    ----------
    results : DataFrame
        Long table of :func:`pybnc.evaluation.cross_validate` (see the module doc).
    metric : str, default="accuracy"
    baseline : str, optional
        A model name of ``results["model"]``.
    ax : Axes, optional
    path : str or os.PathLike, optional
    **kw
        Passed to ``Figure.savefig``.

    Returns
    -------
    matplotlib Axes
        A dot plot of each model's mean score per dataset, or the scatter against ``baseline``.

    Examples
    --------
    >>> import matplotlib, pandas as pd
    >>> matplotlib.use("Agg")
    >>> res = pd.DataFrame({"dataset": ["car", "car", "votes", "votes"], "model": ["NB", "TAN"] * 2,
    ...                     "fold": 0, "accuracy": [0.85, 0.93, 0.90, 0.92]})
    >>> plot_comparison(res, baseline="NB").get_xlabel()
    'NB accuracy'
    """
    plt = require("matplotlib.pyplot", "plot_comparison")

    _check_results(results, metric)
    if "train_fraction" in results.columns:
        results = results[results["train_fraction"] == results["train_fraction"].max()]
    stats = results.groupby(["dataset", "model"], sort=False)[metric].agg(["mean", "sem"])
    means = stats["mean"].unstack("model")
    models = list(dict.fromkeys(results["model"]))
    datasets = list(dict.fromkeys(results["dataset"]))
    means = means.loc[datasets, models]
    if ax is None:
        size = (5.2, 5.0) if baseline is not None else (7, 1.2 + 0.4 * len(datasets))
        _, ax = plt.subplots(figsize=size, layout="constrained")
    if baseline is not None:
        if baseline not in models:
            raise ValueError(f"baseline={baseline!r} is not a model of results; models: {models}.")
        x = means[baseline]
        for model in models:
            if model != baseline:
                ax.scatter(x, means[model], label=model, s=28, alpha=0.85)
        lo, hi = np.nanmin(means.to_numpy()), np.nanmax(means.to_numpy())
        pad = 0.05 * (hi - lo or 1)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"{baseline} {metric}")
        ax.set_ylabel(f"other model {metric}")
        ax.set_aspect("equal", adjustable="datalim")
    else:
        sem = stats["sem"].unstack("model").loc[datasets, models].fillna(0)
        rows = np.arange(len(datasets))
        offsets = np.linspace(-0.25, 0.25, len(models)) if len(models) > 1 else [0.0]
        for model, dy in zip(models, offsets):
            ax.errorbar(means[model], rows + dy, xerr=sem[model], fmt="o", ms=4, capsize=2, label=model)
        ax.set_yticks(rows, [str(d) for d in datasets])
        ax.invert_yaxis()
        ax.set_xlabel(metric)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if path is not None:
        ax.figure.savefig(path, bbox_inches="tight", **kw)
    return ax
