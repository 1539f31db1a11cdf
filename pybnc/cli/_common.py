"""Shared pieces of the command line: model registry, data options, output helpers."""

from __future__ import annotations

import importlib
from pathlib import Path

import click
import numpy as np
import pandas as pd

#: Short name -> (module, class, one-line description). Classes that have not landed
#: in this installation are reported when asked for, never at import.
REGISTRY = {
    "nb": ("pybnc.estimators", "NaiveBayes", "naive Bayes"),
    "tan": ("pybnc.estimators", "TAN", "tree-augmented naive Bayes (Chow-Liu)"),
    "fan": ("pybnc.estimators", "FAN", "MDL-optimal forest-augmented naive Bayes"),
    "tbmatan": ("pybnc.averaging", "TBMATAN", "exact Bayesian model averaging over TANs"),
    "sstbmatan": ("pybnc.averaging", "SSTBMATAN", "structure-stubborn TBMATAN (K=5)"),
    "manb": ("pybnc.averaging", "MANB", "model-averaged naive Bayes"),
    "aode": ("pybnc.averaging", "AODE", "averaged one-dependence estimators"),
    "kdb": ("pybnc.search", "KDB", "k-dependence Bayesian classifier"),
    "tanhc": ("pybnc.search", "TANHC", "TAN by hill-climbing on CV accuracy"),
    "tanhcsp": ("pybnc.search", "TANHCSP", "TAN-HC with super-parents"),
    "fssj": ("pybnc.search", "FSSJ", "forward sequential selection and joining"),
    "bsej": ("pybnc.search", "BSEJ", "backward sequential elimination and joining"),
}
MODEL_HELP = "Short names: " + ", ".join(REGISTRY) + "."


def model_class(name: str):
    key = name.strip().lower()
    if key not in REGISTRY:
        raise click.BadParameter(f"unknown model {name!r}; known models: {', '.join(REGISTRY)}.",
                                 param_hint="'--model(s)'")
    module, cls, _ = REGISTRY[key]
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError):
        raise click.UsageError(f"model {key!r} ({module}.{cls}) is not available in this pybnc "
                               "installation yet; choose another with --models.") from None


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def build_models(names: str, params=None, alpha=None, options=(), seed=None, quiet=False) -> dict:
    """``{short name: estimator}`` from ``"nb,tan"``, with hyperparameters set where the
    estimator has them (an option no model accepts is an error). ``seed`` becomes the
    ``random_state`` of randomised learners (wrappers' inner folds) unless set
    explicitly, so that equal seeds give equal results."""
    keys = [n.strip().lower() for n in names.split(",") if n.strip()]
    if not keys:
        raise click.BadParameter("give at least one model, e.g. --models nb,tan.")
    settings = {k: v for k, v in (("params", params), ("alpha", alpha)) if v is not None}
    for option in options:
        if "=" not in option:
            raise click.BadParameter(f"{option!r} is not KEY=VALUE (e.g. criterion=bic).",
                                     param_hint="'--set'")
        key, value = option.split("=", 1)
        settings[key.strip()] = _parse_value(value.strip())
    models, used = {}, set()
    for key in keys:
        model = model_class(key)()
        accepted = {k: v for k, v in settings.items() if k in model.get_params()}
        used |= set(accepted)
        defaults = {"random_state": seed, "verbose": 0 if quiet else None}
        for k, v in defaults.items():
            if v is not None and k in model.get_params() and k not in settings:
                accepted[k] = v
        models[key] = model.set_params(**accepted)
    unused = set(settings) - used
    if unused:
        raise click.BadParameter(f"no chosen model has the parameter(s) {sorted(unused)}.")
    return models


# -- data --------------------------------------------------------------------------------
def read_table(path) -> pd.DataFrame:
    """A CSV (``?`` and empty cells are missing) or Parquet file, by extension."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        return pd.read_parquet(path)
    return pd.read_csv(path, na_values=["?"], skipinitialspace=True)


def data_options(required=True):
    """``--dataset NAME | --csv FILE | --parquet FILE`` with ``--target COLUMN``."""
    def decorate(f):
        file_type = click.Path(exists=True, dir_okay=False)
        f = click.option("--target", metavar="COLUMN", help="Class column of --csv/--parquet.")(f)
        f = click.option("--parquet", type=file_type, help="A Parquet file (needs --target).")(f)
        f = click.option("--csv", "csv_path", type=file_type,
                         help="A CSV file, '?' or empty = missing (needs --target).")(f)
        hint = "" if required else " Optional."
        return click.option("--dataset", metavar="NAME",
                            help=f"A bundled UCI dataset (see `pybnc datasets`).{hint}")(f)
    return decorate


def load_data(dataset=None, csv_path=None, parquet=None, target=None, required=True):
    """``(X, y, name)`` from the data options, or ``None`` when none is given and optional."""
    given = [v for v in (dataset, csv_path, parquet) if v]
    if len(given) > 1:
        raise click.UsageError("give only one of --dataset, --csv and --parquet.")
    if not given:
        if required:
            raise click.UsageError("give the data: --dataset NAME, or --csv FILE --target COLUMN.")
        return None
    if dataset:
        from ..datasets import load_dataset

        X, y = load_dataset(dataset)
        return X, y, dataset
    path = csv_path or parquet
    if not target:
        raise click.UsageError(f"--target COLUMN is needed with {path}: which column is the class?")
    frame = read_table(path)
    if target not in frame.columns:
        raise click.BadParameter(f"column {target!r} is not in {path}; columns: "
                                 f"{', '.join(map(str, frame.columns))}.", param_hint="'--target'")
    return frame.drop(columns=[target]), frame[target], Path(path).stem


def verbosity(quiet: bool) -> int:
    return 0 if quiet else 1


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="No progress bars.")(f)


def model_options(f):
    """``--params``, ``--alpha`` and repeated ``--set KEY=VALUE`` hyperparameters."""
    f = click.option("--set", "options", multiple=True, metavar="KEY=VALUE",
                     help="Any other hyperparameter, e.g. --set criterion=bic (repeatable).")(f)
    f = click.option("--alpha", type=float, help="Smoothing strength of the parameter learner.")(f)
    return click.option("--params", type=click.Choice(["bayes", "mle", "friedman", "ms"]),
                        help="Parameter learner (default: the model's own, 'bayes').")(f)


def mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    std = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.4f} ± {std:.4f}"


def print_table(title, columns, rows, out=None):
    from rich.table import Table

    out = out or console()
    if title:  # a line of its own: a table title would wrap at the table's width
        out.print(title, markup=False)
    table = Table(box=None, header_style="bold", pad_edge=False)
    for i, name in enumerate(columns):
        table.add_column(name, justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*map(str, row))
    out.print(table)


def console():
    """A rich console on the current stdout (made per call: tests swap stdout)."""
    from rich.console import Console

    out = Console(highlight=False)
    # Pipes and files get no colour codes and a width that never cuts a table.
    return out if out.is_terminal else Console(highlight=False, width=100)


def save_model(model, path):
    import pybnc

    save = getattr(pybnc, "save", None) or importlib.import_module("pybnc.io").save
    save(model, path)


def load_model(path):
    import pybnc

    load = getattr(pybnc, "load", None) or importlib.import_module("pybnc.io").load
    return load(path)


def write_table(frame: pd.DataFrame, path) -> None:
    if str(path).lower().endswith((".parquet", ".pq")):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
