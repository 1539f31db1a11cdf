"""Pictures of :meth:`~pybnc.estimators.base.BaseBNC.explain`'s Shapley values (re-exported
by :mod:`pybnc.plotting`): a waterfall for one row, a bar or a beeswarm for a table.

Red pushes towards the explained class, blue away from it. matplotlib is imported only
when a function draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils.optional import require

TOWARDS = "#d6404e"
AWAY = "#2b7bba"
BASE = "base_value"


def _values(explanation) -> pd.DataFrame:
    if not isinstance(explanation, pd.DataFrame) or BASE not in explanation.columns:
        raise TypeError(f"expected what model.explain(X) returns (a DataFrame with a {BASE!r} column), got "
                        f"{type(explanation).__name__}.")
    return explanation.drop(columns=BASE)


def _scale(explanation) -> str:
    output = getattr(explanation, "output", "log_odds")
    return "probability" if output == "probability" else "log-odds"


def _explained(explanation) -> str:
    target = getattr(explanation, "target", None)
    if target is None:
        return "towards the explained class"
    labels = pd.unique(target)
    return f"towards {labels[0]}" if len(labels) == 1 else "towards each row's predicted class"


def _shown_value(value) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return "missing"
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    text = str(value)
    return text if len(text) <= 18 else text[:17] + "…"


def _finish(ax, path, kw):
    if path is not None:
        ax.figure.savefig(path, bbox_inches="tight", **kw)
    return ax


def plot_waterfall(explanation, row=0, max_display=10, ax=None, path=None, **kw):
    """One row's explanation: from ``base_value`` up to the model's answer, one bar per feature.

    Parameters
    ----------
    explanation : DataFrame
        What ``model.explain(X)`` returns.
    row : int, default=0
        Position of the row.
    max_display : int, default=10
        Bars drawn; the smallest features beyond are one bar ("n other features").
    ax : matplotlib Axes, optional
    path : str or os.PathLike, optional
        Save the figure there.
    **kw
        Passed to ``Figure.savefig``.

    Returns
    -------
    matplotlib Axes
        The waterfall: one bar per feature from ``base_value`` to the row's output.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pybnc.datasets import load_dataset
    >>> from pybnc import TAN
    >>> X, y = load_dataset("car")
    >>> ax = plot_waterfall(TAN().fit(X, y).explain(X.iloc[[0]]))
    >>> ax.get_xlabel()
    'logit P(unacc | x)'
    """
    plt = require("matplotlib.pyplot", "plot_waterfall")

    values = _values(explanation)
    phi = values.iloc[row].to_numpy(float)
    base = float(explanation[BASE].iloc[row])
    names = list(values.columns)
    data = getattr(explanation, "data", None)
    labels = [f"{name} = {_shown_value(data.iloc[row][name])}" if data is not None and name in data.columns
              else name for name in names]
    order = np.argsort(-np.abs(phi), kind="stable")
    shown = order[: max_display - 1] if len(order) > max_display else order
    rest = np.setdiff1d(order, shown)
    bars = [(labels[j], phi[j]) for j in shown]
    if rest.size:
        bars.append((f"{rest.size} other features", float(phi[rest].sum())))
    bars = bars[::-1]  # smallest at the bottom, starting from the base value
    if ax is None:
        # constrained layout keeps long labels inside the figure however it is saved
        _, ax = plt.subplots(figsize=(7.5, 1.1 + 0.42 * len(bars)), layout="constrained")
    ends = base + np.cumsum([0.0] + [width for _, width in bars])
    for y, (label, width) in enumerate(bars):
        ax.barh(y, width, left=ends[y], color=TOWARDS if width >= 0 else AWAY, height=0.7)
        # the value sits beyond the bar's far end, on the side the bar grows towards
        ax.text(ends[y + 1], y, f" {width:+.3g} ", va="center", ha="left" if width >= 0 else "right",
                fontsize=8, parse_math=False)
    left = ends[-1]
    # room on both sides for the values printed beyond the bars (bars' edges are sticky)
    low, high = float(ends.min()), float(ends.max())
    pad = 0.22 * ((high - low) or 1.0)
    ax.set_xlim(low - pad, high + pad)
    ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=9)
    for label in ax.get_yticklabels():
        label.set_parse_math(False)
    ax.axvline(base, color="grey", lw=0.8, ls="--")
    ax.axvline(left, color="black", lw=0.8)
    target = getattr(explanation, "target", None)
    name = target.iloc[row] if target is not None else "target"
    scale = _scale(explanation)
    ax.set_xlabel(f"P({name} | x)" if scale == "probability" else f"logit P({name} | x)", parse_math=False)
    index = explanation.index[row]
    shown_row = f"row {row}" if index == row else f"row {row} ({index})"
    ax.set_title(f"{shown_row}: base value {base:.3g} → {left:.3g}", fontsize=10, parse_math=False)
    ax.grid(axis="x", alpha=0.3)
    return _finish(ax, path, kw)


def _beeswarm_offsets(x: np.ndarray, n_bins: int = 60) -> np.ndarray:
    """Vertical offsets that spread points of similar value (alternately up and down)."""
    if x.size == 0 or np.ptp(x) == 0:
        edges = np.zeros_like(x, dtype=int)
    else:
        edges = np.minimum(((x - x.min()) / np.ptp(x) * n_bins).astype(int), n_bins - 1)
    order = np.argsort(edges, kind="stable")
    sorted_bins = edges[order]
    starts = np.searchsorted(sorted_bins, sorted_bins, side="left")
    rank = np.arange(x.size) - starts  # position within its bin
    counts = np.bincount(edges, minlength=n_bins)
    spread = 0.4 / max(counts.max(initial=1), 1)
    offset = np.empty(x.size)
    offset[order] = np.where(rank % 2 == 0, 1, -1) * ((rank + 1) // 2) * spread
    return offset


def plot_importance(explanation, kind="bar", max_display=15, ax=None, path=None, **kw):
    """A table's explanations: each feature's mean ``|value|`` (``kind="bar"``, the global
    importance) or every row's value as a dot (``kind="beeswarm"``, coloured by the feature's
    value where the column is numeric).

    Parameters
    ----------
    explanation : DataFrame
        What ``model.explain(X)`` returns.
    kind : {"bar", "beeswarm"}, default="bar"
    max_display : int, default=15
        Most important features drawn.
    ax : matplotlib Axes, optional
    path : str or os.PathLike, optional
    **kw
        Passed to ``Figure.savefig``.

    Returns
    -------
    matplotlib Axes
        Features ranked by mean absolute contribution, the largest on top.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pybnc import NaiveBayes
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> ax = plot_importance(NaiveBayes().fit(X, y).explain(X.head(100)), kind="beeswarm")
    >>> ax.get_yticklabels()[0].get_text()
    'persons'
    """
    plt = require("matplotlib.pyplot", "plot_importance")

    if kind not in ("bar", "beeswarm"):
        raise ValueError(f"kind={kind!r} is not 'bar' or 'beeswarm' (a waterfall is plot_waterfall).")
    values = _values(explanation)
    importance = values.abs().mean(axis=0).sort_values(ascending=False, kind="stable")
    top = list(importance.index[:max_display])
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 1.2 + 0.38 * len(top)), layout="constrained")
    rows = np.arange(len(top))
    scale = _scale(explanation)
    if kind == "bar":
        ax.barh(rows, importance[top].to_numpy(), color=TOWARDS, height=0.7)
        ax.set_xlabel(f"mean |Shapley value| ({scale})")
    else:
        data = getattr(explanation, "data", None)
        colour_map = plt.get_cmap("coolwarm")
        coloured = False
        for y, name in zip(rows, top):
            x = values[name].to_numpy(float)
            column = data[name] if data is not None and name in data.columns else None
            colours = "#555555"
            if column is not None and pd.api.types.is_numeric_dtype(column) and column.nunique() > 1:
                numbers = column.to_numpy(float)
                low, high = np.nanpercentile(numbers, [5, 95])
                colours = colour_map(np.clip((numbers - low) / ((high - low) or 1.0), 0, 1))
                colours[np.isnan(numbers)] = (0.75, 0.75, 0.75, 1.0)
                coloured = True
            ax.scatter(x, y + _beeswarm_offsets(x), s=9, c=colours, alpha=0.8, linewidths=0)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel(f"Shapley value ({scale})")
        if coloured:
            bar = ax.figure.colorbar(plt.cm.ScalarMappable(cmap=colour_map), ax=ax, pad=0.01, aspect=30)
            bar.set_ticks([0, 1], labels=["low", "high"])
            bar.set_label("numeric feature value")
    ax.set_yticks(rows, top, fontsize=9)
    for label in ax.get_yticklabels():
        label.set_parse_math(False)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{len(values)} rows, {_explained(explanation)}", fontsize=10, parse_math=False)
    return _finish(ax, path, kw)


def explanation_svg(explanation, max_rows: int = 5000) -> str | None:
    """A waterfall (one row) or the importance bars (several) as SVG markup, or ``None``
    without matplotlib or with more than ``max_rows`` rows: what notebooks show above the table."""
    try:
        import matplotlib
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if len(explanation) == 0 or len(explanation) > max_rows:
        return None
    import io

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pybnc"}):
        ax = plot_waterfall(explanation) if len(explanation) == 1 else plot_importance(explanation)
        try:
            ax.figure.savefig(buffer, format="svg", bbox_inches="tight")
        finally:
            plt.close(ax.figure)
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]
