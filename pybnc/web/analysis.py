"""What the web pages compute: read a table, fit a classifier, cross-validate it, draw it.

Nothing here knows about HTTP. Every problem caused by the user's table or choices is
raised as :class:`UserError`, whose message is shown on the page as it is.
"""

from __future__ import annotations

import io
import re
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Folds of the cross-validation table (fewer when the largest class is smaller).
N_FOLDS = 10
#: Rows of one conditional table shown on the page; the whole table is in the model file.
MAX_TABLE_ROWS = 120
#: A non-float column with more distinct values is left out (an identifier or free text).
MAX_LEVELS = 500
#: Memory allowed for the pairwise counts, ``n_classes * W**2 * 8`` bytes (W: levels in all).
MAX_COUNT_BYTES = 1e9
#: Learners that search by an inner cross-validation: slow on big tables.
SLOW_MODELS = ("tanhc", "tanhcsp", "fssj", "bsej")

# pyplot keeps global state; the server answers requests on several threads.
_PLOT_LOCK = threading.Lock()


class UserError(ValueError):
    """A problem with the uploaded table or the chosen options, worded for the page."""


@dataclass
class Outcome:
    """Everything the result page shows about one fitted classifier."""

    model_key: str
    model: object
    source: str
    target: str
    X: pd.DataFrame
    y: pd.Series
    cv: list = field(default_factory=list)  # rows: (name, accuracy, log-loss) as "mean ± std"
    n_folds: int = 0
    arcs: list | None = None
    supernodes: list | None = None  # FSSJ/BSEJ: kept features, joined ones together
    svg: str | None = None
    tall: bool = False
    tables: list = field(default_factory=list)  # (feature, parents, html, rows cut)
    notes: list = field(default_factory=list)


def model_choices() -> list:
    """``[(short name, description), ...]`` of the command line's model registry."""
    from ..cli._common import REGISTRY

    return [(key, description) for key, (_, _, description) in REGISTRY.items()]


def dataset_choices() -> list:
    """Names of the bundled datasets that load without a download."""
    from ..datasets import describe, list_datasets

    return [name for name in list_datasets() if describe(name).get("bundled", True)]


# -- input ------------------------------------------------------------------------------------
def read_csv(data: bytes) -> pd.DataFrame:
    """The uploaded bytes as a table, read by :func:`pybnc.io.read_table` (the command
    line's reader): delimiter, encoding and header row detected; ARFF and Parquet too."""
    from ..io import read_table

    try:
        frame = read_table(data, name="The file")
    except (ValueError, ImportError) as exc:
        raise UserError(f"Could not read the file as CSV, ARFF or Parquet: {' '.join(str(exc).split())}") from None
    if frame.shape[1] < 2:
        raise UserError(f"The table has {frame.shape[1]} column(s); it needs at "
                        "least one feature column and a class column.")
    if len(frame) < 2:
        raise UserError("The table has fewer than two rows.")
    return frame


def split_target(frame: pd.DataFrame, target: str | None):
    """``(X, y, target, notes)``; the last column is the class when ``target`` is empty."""
    target = (target or "").strip() or frame.columns[-1]
    if target not in frame.columns:
        raise UserError(f"There is no column {target!r}; the columns are: {', '.join(frame.columns)}.")
    notes = []
    y = frame[target]
    unlabeled = y.isna()
    if unlabeled.all():
        raise UserError(f"The class column {target!r} is empty.")
    if unlabeled.any():
        notes.append(f"{int(unlabeled.sum())} row(s) without a class value were left out.")
        frame, y = frame[~unlabeled], y[~unlabeled]
    if y.nunique() < 2:
        raise UserError(f"The class column {target!r} has a single value ({y.iloc[0]!r}); "
                        "a classifier needs at least two classes.")
    if pd.api.types.is_float_dtype(y) and (y % 1 != 0).any():
        raise UserError(f"The class column {target!r} holds continuous numbers; choose a column of "
                        "categories (the class to predict).")
    X = frame.drop(columns=[target]).reset_index(drop=True)
    return X, y.reset_index(drop=True), target, notes


def load_bundled(name: str):
    """``(X, y)`` of a bundled dataset, as a :class:`UserError` when it is not there."""
    from ..datasets import load_dataset

    try:
        X, y = load_dataset(name)
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None
    return X, pd.Series(y, name=getattr(y, "name", None) or "class")


def build(model_key: str):
    """A fresh estimator from a command-line short name, quiet and seeded."""
    import click

    from ..cli._common import build_models

    try:
        return build_models(model_key, seed=0, quiet=True)[model_key.strip().lower()]
    except click.ClickException as exc:
        raise UserError(exc.format_message()) from None


# -- the work ---------------------------------------------------------------------------------
def analyse(X: pd.DataFrame, y: pd.Series, model_key: str, source: str, target: str, notes=()):
    """Fit ``model_key`` on all rows, cross-validate it next to naive Bayes, draw it.

    Parameters
    ----------
    X : DataFrame
    y : Series
    model_key : str
        A short name of the command line's registry (``nb``, ``tan``, ...).
    source : str
        The table's name on the page.
    target : str
        The class column's name.
    notes : sequence of str
        Remarks to show with the result (e.g. dropped rows).

    Returns
    -------
    Outcome
    """
    from ..evaluation import cross_validate

    key = model_key.strip().lower()
    model = build(key)
    X, notes = _fit_in_memory(X, y, list(notes))
    out = Outcome(key, model, source, target, X, y, notes=notes)
    largest = int(y.value_counts().max())
    out.n_folds = min(N_FOLDS, largest)
    if out.n_folds < 2:
        raise UserError("Too few rows for cross-validation: every class has a single row.")
    models = {"nb": build("nb")} if key == "nb" else {"nb": build("nb"), key: build(key)}
    # Warnings (few rows of a class, unseen levels) become notes on the page, not log noise.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.fit(X, y)
            results = cross_validate(models, X, y, cv=out.n_folds, random_state=0,
                                     dataset=source, verbose=0)
        except (ValueError, TypeError, KeyError, MemoryError) as exc:
            raise UserError(f"Fitting {key} failed: {' '.join(str(exc).split())}") from None
    out.notes += list(dict.fromkeys(" ".join(str(w.message).split()) for w in caught))
    for name in models:
        rows = results[results["model"] == name]
        out.cv.append((name, _mean_std(rows["accuracy"]), _mean_std(rows["log_loss"])))
    out.arcs = [(str(u), str(v)) for u, v in model.arcs_] if hasattr(model, "arcs_") else None
    if hasattr(model, "supernodes_"):
        out.supernodes = [tuple(map(str, node)) for node in model.supernodes_]
    out.svg = network_svg(model, out.notes)
    out.tall = is_tall(out.svg)
    out.tables = conditional_tables(model)
    return out


def _fit_in_memory(X: pd.DataFrame, y: pd.Series, notes: list):
    """Leave out identifier-like columns and refuse tables whose pairwise counts would not
    fit in memory: one upload must not take the server down."""
    levels = {c: min(X[c].nunique(), 5) if pd.api.types.is_float_dtype(X[c]) else X[c].nunique()
              for c in X.columns}
    wide = [c for c, n in levels.items() if n > MAX_LEVELS]
    if wide:
        notes.append(f"Left out {len(wide)} column(s) with more than {MAX_LEVELS} distinct values "
                     f"(identifiers or free text?): {', '.join(wide[:10])}{', ...' if len(wide) > 10 else ''}. "
                     "Numbers written with a decimal point are binned instead.")
        X = X.drop(columns=wide)
    if X.shape[1] == 0:
        raise UserError("No feature column is left to learn from.")
    width = sum(n for c, n in levels.items() if c not in wide) + X.shape[1]
    if y.nunique() * width**2 * 8 > MAX_COUNT_BYTES:
        raise UserError(f"The table is too wide for this page: {X.shape[1]} features with {width} "
                        f"values in all and {y.nunique()} classes. Use fewer columns or values.")
    return X, notes


def _mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.4f} ± {values.std(ddof=1) if values.size > 1 else 0.0:.4f}"


def network_svg(model, notes: list) -> str | None:
    """The network drawn by :func:`pybnc.plotting.plot_network` as inline SVG markup.

    Returns ``None`` (with a note) for a model without one network, or when
    matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # a server never opens windows
        import matplotlib.pyplot as plt

    except ImportError:
        notes.append("The network picture needs matplotlib: pip install 'pybnc[plot]'.")
        return None
    try:
        from ..plotting import plot_network
    except ImportError:
        notes.append("This pybnc installation has no pybnc.plotting: the network is not drawn.")
        return None
    if not hasattr(model, "structure_"):
        why = ("joins features into compound nodes (listed below)" if hasattr(model, "supernodes_")
               else "averages many networks")
        notes.append(f"{type(model).__name__} {why}: there is no single network of the features to draw.")
        return None
    buffer = io.StringIO()
    with _PLOT_LOCK, matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pybnc"}):
        ax = plot_network(model)
        ax.figure.savefig(buffer, format="svg", bbox_inches="tight")
        plt.close(ax.figure)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and DOCTYPE: the SVG sits inside HTML
    # Natural size (labels stay legible); CSS only shrinks it to the column.
    head, rest = svg.split(">", 1)
    return head + ' class="network" role="img" aria-label="learned network">' + rest


def is_tall(svg: str | None) -> bool:
    """Whether a drawing is much taller than wide (a deep tree): the page then puts
    the scores beside it rather than below."""
    match = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg or "")
    return bool(match) and float(match.group(2)) > 1.4 * float(match.group(1))


def conditional_tables(model) -> list:
    """``[(feature, parent features, html table, rows cut)]`` for models with one network."""
    if not hasattr(model, "conditional_table"):
        return []
    tables = []
    parents = model.structure_.parents
    names = model.feature_names_
    for i, name in enumerate(names):
        table = model.conditional_table(name)
        cut = max(0, len(table) - MAX_TABLE_ROWS)
        html = table.head(MAX_TABLE_ROWS).to_html(float_format=lambda v: f"{v:.3f}", border=0,
                                                   classes="cpt")
        tables.append((name, [names[p] for p in parents[i]], html, cut))
    return tables


def predictions(outcome: Outcome) -> pd.DataFrame:
    """In-sample predictions of the fitted model: the true class, the prediction and
    one ``P(<class>)`` column per class, as ``pybnc predict`` writes them."""
    model = outcome.model
    proba = model.predict_proba(outcome.X)
    out = pd.DataFrame({outcome.target: outcome.y.to_numpy(),
                        "prediction": model.classes_[np.argmax(proba, axis=1)]})
    for k, label in enumerate(model.classes_):
        out[f"P({label})"] = proba[:, k]
    return out
