"""Commands around one model: ``fit``, ``predict``, ``info``, ``plot``."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np
import pandas as pd

from .._utils.optional import require
from ..estimators.capabilities import capabilities
from ._group import cli
from ._common import (MODEL_HELP, DataChoice, build_models, console, data_options, file_options, load_data,
                      load_model, model_options, print_table, read_file, save_model, write_table)

_MODEL = click.option("--model", "model_name", default="tan", show_default=True, metavar="NAME",
                      help=f"The classifier. {MODEL_HELP}")
_MODEL_FILE = click.argument("model_file", type=click.Path(exists=True, dir_okay=False))


_SEED = click.option("--seed", default=0, show_default=True, type=int,
                     help="random_state of randomised learners (the wrappers' inner folds).")


def _fit(data, model_name, smoothing, alpha, cv, options, seed):
    X, y, name = load_data(data)
    model = build_models(model_name, smoothing, alpha, options, seed, cv=cv)[model_name.strip().lower()]
    return model.fit(X, y), X, y, name


@cli.command()
@data_options()
@_MODEL
@model_options
@_SEED
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Model file to write (conventionally NAME.pbnc).")
def fit(data, model_name, smoothing, alpha, cv, options, seed, output):
    """Fit a classifier on all rows and save it with pybnc.save.

    \b
    Examples:
      pybnc fit --dataset car --model tan -o car-tan.pbnc
      pybnc fit --file data.csv --target class --model tan --smoothing ms --alpha 10 -o model.pbnc
    """
    model, X, _, name = _fit(data, model_name, smoothing, alpha, cv, options, seed)
    save_model(model, output)
    extra = f", {len(model.arcs_)} arcs" if capabilities(model).one_network else ""
    click.echo(f"Saved {type(model).__name__} fitted on {name} ({len(X)} rows, "
               f"{features_used(model, X.columns)}{extra}) to {output}")


def features_used(model, columns) -> str:
    """``"6 features"``, or ``"5 features (left out: 'id')"`` when the encoder left input
    columns out (identifiers): the count is of the features the model uses."""
    used = getattr(model, "feature_names_", None)
    if used is None:  # a wrapper (AutoBNC): its chosen model's
        used = getattr(getattr(model, "best_estimator_", None), "feature_names_", None)
    if used is None:
        return f"{len(columns)} features"
    left_out = [c for c in map(str, columns) if c not in set(used)]
    shown = ", ".join(map(repr, left_out[:5])) + (", ..." if len(left_out) > 5 else "")
    return f"{len(used)} features" + (f" (left out: {shown})" if left_out else "")


def _features(model, frame: pd.DataFrame, source) -> pd.DataFrame:
    """The model's input columns of ``frame`` (other columns, such as the class, left out);
    a column the encoder left out (an identifier) may be absent: the model never reads it."""
    names = list(getattr(model, "feature_names_in_", model.feature_names_))
    dropped = set(getattr(model.encoder_, "dropped_columns_", ()))
    missing = [c for c in names if c not in frame.columns and c not in dropped]
    if missing:
        raise click.UsageError(f"{source} lacks the model's feature column(s) {missing}.")
    return frame[[c for c in names if c in frame.columns]]


def _identifiers(frame: pd.DataFrame, names: tuple, source) -> pd.DataFrame:
    """The ``--id-column`` columns of ``frame``, to be carried into the output."""
    absent = [n for n in names if n not in frame.columns]
    if absent:
        raise click.BadParameter(f"{source} has no column {absent[0]!r}; its columns: "
                                 f"{', '.join(map(str, frame.columns[:20]))}"
                                 f"{', ...' if frame.shape[1] > 20 else ''}.", param_hint="'--id-column'")
    return frame[list(dict.fromkeys(names))].reset_index(drop=True)


@cli.command()
@_MODEL_FILE
@file_options("Rows to classify")
@click.option("--id-column", "id_columns", multiple=True, metavar="NAME",
              help="A column of the input (a row identifier) to copy into the output, before the "
                   "predictions; repeat for several.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Output file (CSV, or Parquet or Excel by extension); default: CSV on stdout.")
def predict(model_file, file, header, sep, encoding, decimal, id_columns, output):
    """Classify the rows of a table file (CSV and other text, ARFF, Parquet) with a saved model.

    The output has one row per input row, in their order: the --id-column
    columns, if any, then the predicted class in column `prediction`, then one
    column `P(<class>)` per class. Other input columns (such as the true class)
    are ignored; missing values are summed out exactly.

    \b
    Examples:
      pybnc predict car-tan.pbnc --file new-cars.csv -o predictions.csv
      pybnc predict churn.pbnc --file customers.csv --id-column customerID
    """
    if not file:
        raise click.UsageError("give the rows to classify with --file FILE (or --csv/--parquet).")
    model = load_model(model_file)
    frame, decided = read_file(DataChoice(file=file, header=header, sep=sep, encoding=encoding, decimal=decimal))
    X = _features(model, frame, file)
    ids = _identifiers(frame, id_columns, file)
    click.echo(decided, err=True)
    proba = model.predict_proba(X)
    out = ids.assign(prediction=model.classes_[np.argmax(proba, axis=1)])
    for k, label in enumerate(model.classes_):
        out[f"P({label})"] = proba[:, k]
    if output:
        write_table(out, output)
        click.echo(f"Wrote {len(out)} predictions to {output}", err=True)
    else:
        click.echo(out.to_csv(index=False), nl=False)


@cli.command()
@_MODEL_FILE
@data_options(required=False)
def info(model_file, data):
    """Show a saved model: kind, hyperparameters, classes, structure, parameter count.

    With data (--dataset, or --file with --target) also its
    log-likelihood, AIC and BIC on those rows (nats; higher is better).

    \b
    Examples:
      pybnc info car-tan.pbnc
      pybnc info car-tan.pbnc --dataset car
    """
    model = load_model(model_file)
    data = load_data(data, required=False)
    out = console()
    settings = ", ".join(f"{k}={v!r}" for k, v in model.get_params().items())
    out.print(f"[bold]{type(model).__name__}[/bold]({settings})", soft_wrap=True)
    out.print(f"classes: {', '.join(map(str, model.classes_))}", markup=False, soft_wrap=True)
    used = features_used(model, getattr(model, "feature_names_in_", [f"x{i}" for i in range(model.n_features_in_)]))
    out.print(f"features: {used.replace(' features', '', 1)}", markup=False, soft_wrap=True)  # "6", "5 (left out: ..)"
    rows = [["features used", used.split(" ")[0]], ["input columns", model.n_features_in_]]
    if hasattr(model, "best_estimator_"):  # AutoBNC: what it chose, then the choice itself
        table = model.cv_results_
        at = list(table["candidate"]).index(model.best_candidate_)
        out.print(f"chosen by a {model.n_splits_}-fold inner cross-validation: {model.best_candidate_}", markup=False,
                  soft_wrap=True)
        rows += [["candidates cross-validated", int(sum(s == "ok" for s in table["status"]))],
                 ["inner CV log-loss of the choice", f"{table['mean_test_log_loss'][at]:.4f}"],
                 ["inner CV accuracy of the choice", f"{table['mean_test_accuracy'][at]:.4f}"],
                 ["temperature of its probabilities", f"{getattr(model, 'temperature_', 1.0):.3f}"]]
        model = model.best_estimator_
        out.print(f"the choice: {type(model).__name__}({', '.join(f'{k}={v!r}' for k, v in model.get_params().items())})",
                  markup=False, soft_wrap=True)
    one_network = capabilities(model).one_network
    arcs = model.arcs_ if one_network else None
    if one_network:
        rows += [["free parameters", model.n_parameters()], ["augmenting arcs", len(arcs)]]
    if data is not None:
        X, y, name = data
        X = _features(model, X, name)
        if one_network:
            rows += [[f"log-likelihood on {name}", f"{model.log_likelihood(X, y):.4f}"],
                     [f"AIC on {name}", f"{model.aic(X, y):.4f}"],
                     [f"BIC on {name}", f"{model.bic(X, y):.4f}"]]
        else:
            rows.append([f"scores on {name}", f"not defined for {type(model).__name__}"])
    print_table(None, ["", "value"], rows, out)
    if arcs:
        out.print("arcs (parent → child):")
        for u, v in arcs:
            out.print(f"  {u} → {v}", markup=False)


@cli.command()
@click.argument("model_file", required=False, type=click.Path(exists=True, dir_okay=False))
@data_options(required=False)
@_MODEL
@model_options
@_SEED
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Image file (png, svg, pdf: by extension).")
def plot(model_file, data, model_name, smoothing, alpha, cv, options, seed, output):
    """Draw a classifier's network (class node on top, augmenting arcs between features).

    Either fit a model on data (--dataset or --file/--target, with --model) or
    give a saved model file.

    \b
    Examples:
      pybnc plot --dataset chess --model tan -o chess-tan.png
      pybnc plot car-tan.pbnc -o car-tan.svg
    """
    require("matplotlib", "pybnc plot").use("Agg")  # files only: never open a window
    import matplotlib.pyplot as plt

    from ..plotting import plot_network

    if model_file:
        if data.given():
            raise click.UsageError("give either a model file or data to fit, not both.")
        model = load_model(model_file)
    else:
        model = _fit(data, model_name, smoothing, alpha, cv, options, seed)[0]
    drawn = plot_network(model)
    figure = drawn if hasattr(drawn, "savefig") else getattr(drawn, "figure", None) or plt.gcf()
    figure.savefig(output, bbox_inches="tight")
    plt.close(figure)
    click.echo(f"Wrote {Path(output)}")
