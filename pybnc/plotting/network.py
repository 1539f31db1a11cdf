"""The network of a fitted classifier: its layout, a matplotlib picture, SVG for notebooks and
the web page, Graphviz DOT text."""

from __future__ import annotations

import re

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._utils.optional import require

CLASS_COLOUR = "#f2b84b"
FEATURE_COLOUR = "#e8eef8"
ARC_COLOUR = "#1d4e89"
CLASS_ARC_COLOUR = "#b8b8b8"


def _network(model):
    """The network a fitted classifier shows: its label, its feature names and their
    parent lists. A fitted AutoBNC shows its choice, as the command line and the web page
    do."""
    check_is_fitted(model)
    label = type(model).__name__
    chosen = getattr(model, "best_estimator_", None)
    if chosen is not None:
        model, label = chosen, f"{label}'s choice ({type(chosen).__name__})"
    if getattr(model, "structure_", None) is None:  # one network (capabilities' one_network): its structure
        raise TypeError(
            f"{label} has no single network to draw: plot_network and to_dot need a "
            "classifier with one structure (NaiveBayes, TAN, FAN, kDB, ...)."
        )
    return label, [str(c) for c in model.encoder_.columns_], [list(p) for p in model.structure_.parents]


def _wrap(name: str, width: int = 14) -> str:
    """Break a long name after its separators (``-``, ``_``, ``.``, space) into short lines."""
    parts = [p for p in re.split(r"(?<=[-_. ])", name) if p]
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(line.rstrip() for line in lines)


def _layers(parents) -> list:
    """Depth of each feature: 0 for roots, else one more than its deepest parent."""
    depth = [0] * len(parents)
    order, done = [], set()
    while len(order) < len(parents):
        ready = [i for i in range(len(parents)) if i not in done and all(p in done for p in parents[i])]
        if not ready:
            raise ValueError("The augmenting arcs contain a cycle.")
        for i in ready:
            depth[i] = 1 + max((depth[p] for p in parents[i]), default=-1)
            done.add(i)
        order += ready
    return depth


def _tree_order(parents) -> list:
    """Features in depth-first order of the forest, so that each subtree stays together."""
    children = [[] for _ in parents]
    for i, ps in enumerate(parents):
        if ps:
            children[ps[0]].append(i)
    sizes = [1] * len(parents)

    def size(i):
        sizes[i] = 1 + sum(size(c) for c in children[i])
        return sizes[i]

    roots = [i for i, ps in enumerate(parents) if not ps]
    for r in roots:
        size(r)
    order = []

    def visit(i):
        order.append(i)
        for c in sorted(children[i], key=lambda c: -sizes[c]):
            visit(c)

    # Big trees first, single features last: the picture reads from its structure.
    for r in sorted(roots, key=lambda r: -sizes[r]):
        visit(r)
    return order


def _tidy_x(parents) -> np.ndarray:
    """Tidy tree x: leaves in depth-first order on consecutive slots, parents centred over children."""
    children = [[] for _ in parents]
    for i, ps in enumerate(parents):
        if ps:
            children[ps[0]].append(i)
    order = _tree_order(parents)
    xs = np.zeros(len(parents))
    slot = 0
    for i in order:  # leaves take the next slot in depth-first order
        if not children[i]:
            xs[i] = slot
            slot += 1
    for i in reversed(order):  # children come after their parent in depth-first order
        if children[i]:
            xs[i] = np.mean([xs[c] for c in children[i]])
    return xs / max(slot - 1, 1) if slot > 1 else xs + 0.5


def network_layout(parents) -> dict:
    """Positions ``{feature index: (x, y)}`` of a layered drawing; the class goes above ``y = 0``.

    Each feature sits one layer (``y`` step 1) below its deepest parent. A forest is
    drawn as tidy trees: leaves on consecutive slots in depth-first order, each
    parent centred over its children, so that no two augmenting arcs cross. Other
    structures (several parents) spread each layer evenly. ``x`` spans ``[0, 1]``.

    Examples
    --------
    >>> pos = network_layout([[], [0], [0], []])
    >>> pos[0][1] > pos[1][1] == pos[2][1]
    True
    """
    n = len(parents)
    depth = _layers(parents)
    if all(len(p) <= 1 for p in parents):
        xs = _tidy_x(parents)
    else:
        xs = np.zeros(n)
        for d in range(max(depth, default=0) + 1):
            members = [i for i in range(n) if depth[i] == d]
            if d > 0:  # barycentre of the parents, to keep arcs short
                wanted = np.array([np.mean([xs[p] for p in parents[i]]) for i in members])
                members = [members[k] for k in np.argsort(wanted, kind="stable")]
            slots = np.linspace(0, 1, len(members) + 2)[1:-1] if len(members) > 1 else [0.5]
            xs[members] = slots
    return {i: (float(xs[i]), -1.0 - depth[i]) for i in range(n)}


def plot_network(model, ax=None, path=None, *, title=None, fontsize=None, class_name="class", **kw):
    """Draw the network of a fitted classifier.

    The class node is on top; every feature hangs below it in layers (a feature one
    layer below its deepest feature parent). The class-to-feature arcs are thin and
    light; the augmenting arcs between features are dark arrows.

    Parameters
    ----------
    model : AugmentedNaiveBayes or AutoBNC
        A fitted classifier with one network (of AutoBNC: its choice's).
    ax : matplotlib Axes, optional
        Where to draw; a new figure sized to the network otherwise.
    path : str or os.PathLike, optional
        Save the figure there (SVG, PNG, PDF by the extension).
    title : str, optional
        Default: the estimator name and its arc count.
    fontsize : float, optional
        Label size; default shrinks with the widest layer.
    class_name : str, default="class"
        Label of the class node.
    **kw
        Passed to ``Figure.savefig`` (``dpi=...``).

    Returns
    -------
    matplotlib Axes
        The drawing: the class on top, each feature below its parents.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pybnc import TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> ax = plot_network(TAN().fit(X, y))
    >>> ax.get_title()
    'TAN: 6 features, 5 augmenting arcs'
    """
    plt = require("matplotlib.pyplot", "plot_network")
    from matplotlib.patches import FancyArrowPatch

    label, names, parents = _network(model)
    pos = network_layout(parents)
    depth = _layers(parents)
    n_layers = max(depth, default=0) + 1
    # Horizontal room per node: the distinct x positions (tree slots) share the width.
    n_slots = max(len({round(x, 6) for x, _ in pos.values()}), 1)
    labels = [_wrap(s) for s in names]
    n_lines = [label.count("\n") + 1 for label in labels]
    longest = max((len(line) for label in labels for line in label.split("\n")), default=1)
    if ax is None:
        width = float(np.clip(0.11 * longest * n_slots + 1.5, 6, 24))
        per_layer = 0.4 + 0.22 * max(n_lines, default=1)
        # the axes are off: no room for ticks, only for the title above
        _, ax = plt.subplots(figsize=(width, max(3.5, 1.6 + per_layer * n_layers)),
                             gridspec_kw=dict(left=0.02, right=0.98, bottom=0.02, top=0.9))
    spacing = ax.figure.get_figwidth() * ax.get_position().width / n_slots
    fitting = 0.85 * spacing * 72 / (0.62 * longest)  # points at which the longest label fits
    if fontsize is None:
        fontsize = float(np.clip(fitting, 7, 11))
    rotate = 30 if fitting < fontsize else 0
    top = (0.5, 0.0)
    for i, (x, y) in pos.items():
        ax.plot([top[0], x], [top[1], y], color=CLASS_ARC_COLOUR, lw=0.6, alpha=0.6, zorder=1)
    node_box = dict(boxstyle="round,pad=0.3", fc=FEATURE_COLOUR, ec="#6b7f99", lw=0.8)
    for i, (x, y) in pos.items():
        # Names are plain text: a column named "$x$" must not be typeset (or fail) as maths.
        ax.text(x, y, labels[i], ha="center", va="center", fontsize=fontsize, rotation=rotate,
                bbox=node_box, zorder=3, parse_math=False)
    ax.text(top[0], top[1], class_name, ha="center", va="center", fontsize=fontsize + 2, weight="bold",
            bbox=dict(boxstyle="round,pad=0.45", fc=CLASS_COLOUR, ec="#9a6b12", lw=1), zorder=4,
            parse_math=False)
    margin = 0.5 / n_slots
    ax.set_xlim(-margin, 1 + margin)
    ax.set_ylim(-n_layers - 0.6, 0.5)
    # Arcs leave a box at its bottom and enter the next at its top, so that arrowheads
    # stay visible however flat the arc: half a box height in data units.
    points_per_unit = ax.figure.get_figheight() * ax.get_position().height * 72 / (n_layers + 1.1)
    half = (0.6 * fontsize * np.array(n_lines) + 3) / points_per_unit
    arcs = [(p, i) for i, ps in enumerate(parents) for p in ps]
    for p, i in arcs:
        # Arcs that skip layers bend, so that they do not run through the nodes between.
        skip = depth[i] - depth[p]
        side = np.sign(pos[i][0] - pos[p][0]) or (1 if i % 2 else -1)
        rad = 0.0 if skip == 1 else float(side) * (0.15 + 0.12 * (skip - 1))
        start, end = (pos[p][0], pos[p][1] - half[p]), (pos[i][0], pos[i][1] + half[i])
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9 + fontsize / 2,
                                     color=ARC_COLOUR, lw=1.6, shrinkA=0, shrinkB=1,
                                     connectionstyle=f"arc3,rad={rad}", zorder=2))
    ax.axis("off")
    ax.set_title(title if title is not None else
                 f"{label}: {len(names)} features, {len(arcs)} augmenting arcs", parse_math=False)
    from matplotlib.lines import Line2D

    ax.legend(handles=[Line2D([], [], color=CLASS_ARC_COLOUR, lw=1, label="class → feature"),
                       Line2D([], [], color=ARC_COLOUR, lw=1.8, marker=">", label="augmenting arc")],
              loc="upper right", fontsize=8, frameon=False)
    if path is not None:
        ax.figure.savefig(path, bbox_inches="tight", **kw)
    return ax


def network_svg(model) -> str | None:
    """The network of :func:`plot_network` as SVG markup, or ``None`` when there is none
    to draw (not fitted, no single network, or matplotlib missing).

    Fitted single-network classifiers show it in notebooks (their ``_repr_svg_``).

    Examples
    --------
    >>> from pybnc import TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> network_svg(TAN()) is None, network_svg(TAN().fit(X, y)).startswith("<svg")
    (True, True)
    """
    from sklearn.exceptions import NotFittedError

    try:
        _network(model)
        import matplotlib
        import matplotlib.pyplot as plt
    except (NotFittedError, TypeError, ImportError):
        return None
    import io

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pybnc"}):
        ax = plot_network(model)
        try:
            ax.figure.savefig(buffer, format="svg", bbox_inches="tight")
        finally:
            plt.close(ax.figure)
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]  # no XML prolog: the markup also goes inline into HTML


def _dot_id(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(model, class_name="class") -> str:
    """The network as Graphviz DOT text (``dot -Tsvg model.dot > model.svg``).

    The class node is drawn on top; class arcs are light, augmenting arcs dark.

    Examples
    --------
    >>> from pybnc import TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> dot = to_dot(TAN().fit(X, y))
    >>> dot.splitlines()[0], dot.count("->")
    ('digraph TAN {', 11)
    """
    label, names, parents = _network(model)
    class_id = class_name
    while class_id in names:  # a feature named like the class node keeps its own node
        class_id += "_"
    lines = [f"digraph {label if label.isidentifier() else _dot_id(label)} {{",
             '  node [shape=box, style="rounded,filled", fillcolor="#e8eef8", fontname="Helvetica"];',
             f'  {_dot_id(class_id)} [label={_dot_id(class_name)}, shape=ellipse, fillcolor="{CLASS_COLOUR}"];']
    lines += [f"  {_dot_id(n)};" for n in names]
    lines += [f'  {_dot_id(class_id)} -> {_dot_id(n)} [color="{CLASS_ARC_COLOUR}", arrowsize=0.5];' for n in names]
    lines += [f'  {_dot_id(names[p])} -> {_dot_id(names[i])} [color="{ARC_COLOUR}", penwidth=2];'
              for i, ps in enumerate(parents) for p in ps]
    return "\n".join(lines + ["}"]) + "\n"


# -- results ------------------------------------------------------------------------------------
