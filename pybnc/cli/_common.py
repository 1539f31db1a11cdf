"""Shared pieces of the command line: models by short name, data options, output helpers."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np
import pandas as pd

from ..registry import BY_SHORT_NAME
from ..registry import configured
from ..registry import model as registered_model

MODEL_HELP = "Short names: " + ", ".join(BY_SHORT_NAME) + "."


def model_class(name: str):
    """The class of a short name of the model registry (:mod:`pybnc.registry`)."""
    try:
        return registered_model(name).cls
    except KeyError as exc:
        raise click.BadParameter(exc.args[0], param_hint="'--model(s)'") from None


#: Hyperparameters that take a list of column names: given on the command line as ``a,b``.
LIST_PARAMS = ("categorical_features", "numeric_features")
#: The options of the models' :class:`~pybnc.Encoder` (``--set n_bins=10``).
ENCODING_OPTIONS = ("n_bins", "discretizer", "missing", "id_columns", "min_frequency", "categorical_features",
                    "numeric_features")


def _parse_value(text: str, key: str = ""):
    if key in LIST_PARAMS:
        return [name.strip() for name in text.strip("[]").split(",") if name.strip()]
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def build_models(names: str, smoothing=None, alpha=None, options=(), seed=None, quiet=False, cv=None) -> dict:
    """``{short name: estimator}`` from ``"nb,tan"``, with hyperparameters set where the
    estimator has them (an option no model accepts is an error); the encoding options
    (``n_bins``, ``discretizer``, ``missing``, ...) are set on its ``encoder``, and
    ``cv`` (the inner folds) on every model that cross-validates. ``seed`` becomes the
    ``random_state`` of randomised learners (wrappers' inner folds) unless set
    explicitly, so that equal seeds give equal results. A model with ``n_jobs`` (auto,
    eskdb) uses every core unless ``--set n_jobs=...`` says otherwise: its results do
    not depend on it."""
    keys = [n.strip().lower() for n in names.split(",") if n.strip()]
    if not keys:
        raise click.BadParameter("give at least one model, e.g. --models nb,tan.")
    settings = {k: v for k, v in (("smoothing", smoothing), ("alpha", alpha), ("cv", cv)) if v is not None}
    for option in options:
        if "=" not in option:
            raise click.BadParameter(f"{option!r} is not KEY=VALUE (e.g. criterion=bic).",
                                     param_hint="'--set'")
        key, value = option.split("=", 1)
        settings[key.strip()] = _parse_value(value.strip(), key.strip())
    models, used = {}, set()
    for key in keys:
        models[key] = configured(key, settings, seed, quiet)
        have = models[key].get_params()
        used |= {k for k in settings if k in have or f"encoder__{k}" in have}
    unused = set(settings) - used
    if unused:
        raise click.BadParameter(f"no chosen model has the parameter(s) {sorted(unused)}.")
    return models


# -- data --------------------------------------------------------------------------------
@dataclass
class DataChoice:
    """The data options of a command: a bundled dataset, or a file read by
    :func:`pybnc.io.read_table` (with ``target`` its class column)."""

    dataset: str | None = None
    file: str | None = None
    target: str | None = None
    header: bool | None = None
    sep: str | None = None
    encoding: str | None = None
    decimal: str | None = None

    def given(self) -> bool:
        return bool(self.dataset or self.file)


_SEPARATORS = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|", "whitespace": r"\s+"}


def file_options(purpose: str):
    """``--file FILE`` (alias ``--csv``, ``--parquet``) with the reading options."""
    def decorate(f):
        f = click.option("--encoding", metavar="NAME",
                         help="Text encoding of --file (default: detected; BOM, UTF-8, Windows-1252, "
                              "Latin-1).")(f)
        f = click.option("--decimal", type=click.Choice([".", ","]),
                         help="Decimal mark of the numbers of a text --file, the other mark then "
                              "separating thousands (default: detected; 0,649 and 1.234,5 have a "
                              "decimal comma).")(f)
        f = click.option("--sep", type=click.Choice(list(_SEPARATORS)),
                         help="Delimiter of a text --file (default: detected).")(f)
        f = click.option("--header/--no-header", default=None,
                         help="Whether the first row of a text --file holds the column names "
                              "(default: detected, and said on stderr). Without one, columns are "
                              "col1, col2, ...")(f)
        return click.option("--file", "--csv", "--parquet", "file", metavar="FILE",
                            type=click.Path(exists=True, dir_okay=False),
                            help=f"{purpose}: delimited text (CSV, TSV, UCI .data; delimiter, encoding "
                                 "and header row detected; '?' or empty = missing), ARFF or Parquet, "
                                 "gzip-compressed or not, or an Excel .xlsx workbook (its first sheet).")(f)
    return decorate


def data_options(required=True):
    """``--dataset NAME | --file FILE --target COLUMN`` and the reading options, given to
    the command as one ``data`` argument (a :class:`DataChoice`)."""
    def decorate(f):
        @functools.wraps(f)
        def command(*args, dataset, file, target, header, sep, encoding, decimal, **kwargs):
            return f(*args, data=DataChoice(dataset, file, target, header, sep, encoding, decimal), **kwargs)

        command = click.option("--target", metavar="COLUMN", help="Class column of --file.")(command)
        command = file_options("A table with a class column (needs --target)")(command)
        hint = "" if required else " Optional."
        return click.option("--dataset", metavar="NAME",
                            help=f"A bundled UCI dataset (see `pybnc datasets`).{hint}")(command)
    return decorate


def read_file(data: DataChoice) -> tuple:
    """``(frame, what was decided)`` of ``data.file`` read by :func:`pybnc.io.read_table`;
    the caller says the decision on stderr once the table is accepted (an error stays
    the one line on stderr)."""
    from ..io import read_table

    frame, report = read_table(data.file, header=data.header, sep=_SEPARATORS.get(data.sep),
                               encoding=data.encoding, decimal=data.decimal, return_report=True)
    hint = ""
    if report.format == "text" and report.header_detected:
        hint = " (--no-header if it is data)" if report.header else " (--header if it holds the names)"
    return frame, f"read {report.describe()}{hint}"


def load_data(data: DataChoice, required=True):
    """``(X, y, name)`` from the data options, or ``None`` when none is given and optional."""
    if data.dataset and data.file:
        raise click.UsageError("give only one of --dataset and --file (or --csv/--parquet).")
    if not data.given():
        if required:
            raise click.UsageError("give the data: --dataset NAME, or --file FILE --target COLUMN.")
        return None
    if data.dataset:
        from ..datasets import load_dataset

        X, y = load_dataset(data.dataset)
        return X, y, data.dataset
    path = data.file
    if not data.target:
        raise click.UsageError(f"--target COLUMN is needed with {path}: which column is the class?")
    frame, decided = read_file(data)
    if data.target not in frame.columns:
        raise click.BadParameter(f"column {data.target!r} is not in {path}; columns: "
                                 f"{', '.join(map(str, frame.columns))}.", param_hint="'--target'")
    click.echo(decided, err=True)
    X, y = frame.drop(columns=[data.target]), frame[data.target]
    if X.shape[1] == 0:
        raise click.UsageError(f"{path} has no column besides the class column {data.target!r}: a "
                               "classifier needs feature columns.")
    if len(X) == 0:
        raise click.UsageError(f"{path} has column names but no rows of data.")
    unlabeled = y.isna().to_numpy()
    if unlabeled.all():
        raise click.UsageError(f"the class column {data.target!r} of {path} is empty in every row.")
    if unlabeled.any():  # a command line user cannot drop them before the fit: say it and go on
        click.echo(f"warning: {int(unlabeled.sum())} row(s) of {path} have no class in {data.target!r} "
                   f"(first: data row {int(np.flatnonzero(unlabeled)[0]) + 1}); they are left out.", err=True)
        X, y = X[~unlabeled], y[~unlabeled]
    return X, y, Path(path).name.split(".")[0]


def verbosity(quiet: bool) -> int:
    return 0 if quiet else 1


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="No progress bars.")(f)


def model_options(f):
    """``--smoothing``, ``--alpha``, ``--cv`` and repeated ``--set KEY=VALUE`` hyperparameters."""
    f = click.option("--set", "options", multiple=True, metavar="KEY=VALUE",
                     help="Any other hyperparameter, e.g. --set criterion=bic; the encoding options ("
                          + ", ".join(ENCODING_OPTIONS) + ") go to the models' encoder, e.g. --set n_bins=10, "
                          "--set categorical_features=age,zip (repeatable). Models with n_jobs (auto, eskdb) use "
                          "every core unless --set n_jobs=1.")(f)
    f = click.option("--cv", type=click.IntRange(min=2),
                     help="Inner cross-validation folds of the models that cross-validate (tanhc, tanhcsp, fssj, "
                          "bsej, kdb with --set search=hc, auto); default: each model's, 5.")(f)
    f = click.option("--alpha", type=float, help="Smoothing strength of the parameter learner.")(f)
    return click.option("--smoothing", type=click.Choice(["bayes", "backoff", "mle", "friedman", "ms", "hdp"]),
                        help="Parameter learner, on the models that take it (default: each model's own, by the "
                             "rule of docs/user-guide.md: 'backoff' for tan and kdb, 'hdp' for eskdb, else "
                             "'bayes').")(f)


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


def write_table(frame: pd.DataFrame, path, relation: str = "data") -> None:
    """By extension: Parquet (.parquet, .pq), ARFF (.arff), an Excel workbook (.xlsx),
    headerless CSV as UCI's .data files, else CSV with a header row."""
    suffix = Path(str(path)).suffix.lower()
    if suffix in (".parquet", ".pq"):
        frame.to_parquet(path, index=False)
    elif suffix == ".xlsx":
        try:
            import openpyxl  # noqa: F401
        except ImportError:
            raise click.UsageError(f'writing {path} needs openpyxl: pip install "pybnc[excel]", '
                                   "or write .csv") from None
        frame.to_excel(path, index=False, sheet_name=str(relation)[:31] or "data")
    elif suffix == ".arff":
        from ..io import write_arff

        write_arff(frame, path, relation)
    else:
        frame.to_csv(path, index=False, header=suffix != ".data")
