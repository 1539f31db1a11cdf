"""Commands that evaluate classifiers: ``compare``, ``cv``, ``experiment``, ``datasets``."""

from __future__ import annotations

import click
import pandas as pd

from ..estimators.capabilities import capabilities
from ._group import cli
from .model import features_used
from ._common import (MODEL_HELP, build_models, console, data_options, load_data, mean_std,
                      model_options, print_table, quiet_option, verbosity, write_table)

_FOLDS = click.option("--folds", default=10, show_default=True, type=click.IntRange(min=2),
                      help="Number of stratified cross-validation folds.")
_SEED = click.option("--seed", default=0, show_default=True, type=int,
                     help="Seed of the folds and subsamples (same seed, same results).")
_FRACTIONS = click.option("--fractions", default="1", show_default=True,
                          help="Fractions of each training fold to learn from, e.g. 0.1,0.5,1 "
                               "(learning curves).")
_OUTPUT = click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
                       help="Long results file (CSV, or Parquet or Excel by extension): one row per "
                            "dataset, model, fold and fraction.")
_SUMMARY_COLUMNS = ["dataset", "model", "fraction", "accuracy", "log-loss", "fit (ms)"]


def _models_option(default):
    return click.option("--models", default=default, show_default=True, metavar="NAMES",
                        help=f"Comma-separated models. {MODEL_HELP}")


def _fractions(text: str) -> tuple:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of numbers, e.g. 0.1,0.5,1.",
                                 param_hint="'--fractions'") from None
    if not values or not all(0 < v <= 1 for v in values):
        raise click.BadParameter(f"fractions must lie in (0, 1], got {text!r}.", param_hint="'--fractions'")
    return values


def _summary_rows(results):
    rows = []
    for (dataset, model, frac), g in results.groupby(["dataset", "model", "train_fraction"], sort=False):
        rows.append([dataset, model, f"{frac:g}", mean_std(g.accuracy), mean_std(g.log_loss),
                     f"{1000 * g.fit_time.mean():.1f}"])
    return rows


def _print_arcs(name, model, out):
    from rich.columns import Columns

    if not capabilities(model).one_network:
        return
    arcs = model.arcs_
    out.print(f"\n{name.upper()} arcs, parent → child (fitted on all rows): {len(arcs)}"
              + (" — none: every feature depends on the class only." if not arcs else ""))
    if arcs:
        out.print(Columns([f"{u} → {v}" for u, v in arcs], padding=(0, 3)), markup=False)


@cli.command()
@data_options()
@_models_option("nb,tan,fan")
@_FOLDS
@_SEED
@model_options
@quiet_option
def compare(data, models, folds, seed, smoothing, alpha, cv, options, quiet):
    """Compare classifiers by stratified k-fold cross-validation.

    Prints accuracy and log-loss (mean ± std over the folds) and the mean time to
    learn one fold's model (from the fold's counts where that equals a refit), then
    the arcs of the TAN learned on all rows (of the first model with arcs when TAN
    is not compared). All models are scored on the same folds.

    \b
    Examples:
      pybnc compare --dataset chess
      pybnc compare --file data.csv --target class --models nb,tan,aode --folds 5
    """
    from ..evaluation import cross_validate

    X, y, name = load_data(data)
    estimators = build_models(models, smoothing, alpha, options, seed, quiet, cv)
    results = cross_validate(estimators, X, y, cv=folds, random_state=seed, dataset=name,
                             verbose=verbosity(quiet))
    out = console()
    shown = "tan" if "tan" in estimators else next(
        (k for k, m in estimators.items() if capabilities(m).one_network), None)
    fitted = estimators[shown].fit(X, y) if shown is not None else None
    features = features_used(fitted, X.columns) if fitted is not None else f"{X.shape[1]} features"
    out.print(f"{name}: {len(X)} rows, {features}, {pd.Series(y).nunique()} classes; "
              f"stratified {folds}-fold cross-validation, seed {seed}\n", markup=False)
    rows = [r[1:2] + r[3:] for r in _summary_rows(results)]
    print_table(None, ["model", "accuracy", "log-loss", "fit (ms)"], rows, out)
    if fitted is not None:
        _print_arcs(shown, fitted, out)


@cli.command(name="cv")
@data_options()
@_models_option("nb,tan")
@_FOLDS
@_SEED
@_FRACTIONS
@model_options
@_OUTPUT
@quiet_option
def cv_command(data, models, folds, seed, fractions, smoothing, alpha, cv, options, output, quiet):
    """Cross-validate several models on the same folds and write every fold's scores.

    Columns: dataset, model, fold, train_fraction, accuracy, log_loss, log_score,
    brier, fit_time, predict_time, n_train, n_test. A summary is printed.

    \b
    Examples:
      pybnc cv --dataset car --models nb,tan,fan --folds 10 -o car-cv.csv
      pybnc cv --file car.arff --target class -o car-cv.csv
      pybnc cv --file car.data --target col7 -o car-cv.csv
    """
    from ..evaluation import cross_validate

    X, y, name = load_data(data)
    estimators = build_models(models, smoothing, alpha, options, seed, quiet, cv)
    results = cross_validate(estimators, X, y, cv=folds, random_state=seed, train_fractions=_fractions(fractions), dataset=name,
                             verbose=verbosity(quiet))
    write_table(results, output)
    print_table(f"{name}: stratified {folds}-fold CV, seed {seed} ({len(results)} rows → {output})",
                _SUMMARY_COLUMNS, _summary_rows(results))


@cli.command()
@click.option("--datasets", "names", required=True, metavar="NAMES",
              help="Comma-separated bundled datasets, e.g. car,votes (see `pybnc datasets`).")
@_models_option("nb,tan")
@_FOLDS
@_SEED
@_FRACTIONS
@model_options
@click.option("--metric", default="accuracy", show_default=True,
              type=click.Choice(["accuracy", "log_loss", "brier"]),
              help="Score of the win/tie/loss table.")
@_OUTPUT
@quiet_option
def experiment(names, models, folds, seed, fractions, smoothing, alpha, cv, options, metric, output, quiet):
    """Run datasets × models × folds × training fractions, as in the papers' tables.

    Writes the long results file, prints mean ± std per dataset, model and
    fraction, and the win/tie/loss counts of every model against the first one
    (paired t-test at 5% over the folds of each dataset).

    \b
    Example:
      pybnc experiment --datasets car,votes --models nb,tan --fractions 0.1,0.5,1 -o results.csv
    """
    from .._utils.progress import progress
    from ..datasets import load_dataset
    from ..evaluation import compare_to_baseline, cross_validate

    datasets = [n.strip() for n in names.split(",") if n.strip()]
    estimators = build_models(models, smoothing, alpha, options, seed, quiet, cv)
    frac = _fractions(fractions)
    loaded = {name: load_dataset(name) for name in datasets}  # unknown names fail before any work
    parts = []
    for name in progress(datasets, desc="datasets", verbose=verbosity(quiet)):
        X, y = loaded[name]
        parts.append(cross_validate(estimators, X, y, cv=folds, random_state=seed,
                                    train_fractions=frac, dataset=name, verbose=verbosity(quiet)))
    results = pd.concat(parts, ignore_index=True)
    write_table(results, output)
    out = console()
    print_table(f"{len(datasets)} datasets × {len(estimators)} models × {folds} folds "
                f"({len(results)} rows → {output})",
                _SUMMARY_COLUMNS, _summary_rows(results), out)
    if len(estimators) > 1:
        wtl = compare_to_baseline(results, metrics=[metric])
        cols = [c for c in ("train_fraction", "model", "wins", "ties", "losses") if c in wtl]
        baseline = next(iter(estimators))
        out.print()
        print_table(f"{metric}: wins / ties / losses against {baseline} (paired t-test, 5%)",
                    [c.replace("train_fraction", "fraction") for c in cols],
                    wtl[cols].astype(str).values.tolist(), out)


@cli.command(name="datasets")
@click.argument("name", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="With NAME: write the dataset to this file, class column last: CSV, or by "
                   "extension Parquet, ARFF (.arff) or headerless CSV as UCI's .data files.")
def datasets_command(name, output):
    """List the bundled UCI datasets, or describe (and export) one.

    \b
    Examples:
      pybnc datasets
      pybnc datasets car -o car.csv
      pybnc datasets car -o car.arff
    """
    from ..datasets import describe, list_datasets, load_dataset

    if name is None:
        if output:
            raise click.UsageError("-o needs a dataset NAME, e.g. pybnc datasets car -o car.csv.")
        rows = []
        for n in list_datasets():
            d = describe(n)
            rows.append([n, d["n_rows"], d["n_features"], d["n_continuous"], d["n_classes"],
                         "yes" if d["has_missing"] else "", "" if d["bundled"] else "not bundled"])
        print_table(None, ["name", "rows", "features", "continuous", "classes", "missing", ""], rows)
        return
    d = describe(name)
    click.echo(f"{d['name']}: {d['n_rows']} rows, {d['n_features']} features "
               f"({d['n_continuous']} continuous), {d['n_classes']} classes"
               f"{', with missing values' if d['has_missing'] else ''}")
    if output:
        X, y = load_dataset(name)
        frame = X.copy()
        frame[y.name or "class"] = y
        write_table(frame, output, relation=name)
        column = f"col{frame.shape[1]}" if str(output).lower().endswith(".data") else y.name or "class"
        click.echo(f"Wrote {output} (class column: {column!r})")
