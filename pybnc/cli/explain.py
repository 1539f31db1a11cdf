"""``pybnc explain``: every row's Shapley values from a saved model."""

from __future__ import annotations

import click

from .._utils.optional import require
from ._group import cli
from ._common import DataChoice, file_options, load_model, read_file, write_table
from .model import _features


def _class_label(model, text):
    """The class label of ``model`` written as ``text`` on the command line."""
    if text is None:
        return None
    for label in model.classes_:
        if str(label) == text:
            return label
    raise click.BadParameter(f"{text!r} is not a class of the model; classes: "
                             f"{', '.join(map(str, model.classes_))}.", param_hint="'--class'")


@cli.command()
@click.argument("model_file", type=click.Path(exists=True, dir_okay=False))
@file_options("Rows to explain")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Output file (CSV, or Parquet or Excel by extension); default: CSV on stdout.")
@click.option("--class", "class_label", metavar="LABEL",
              help="Explain this class for every row (default: each row's predicted class).")
@click.option("--scale", type=click.Choice(["log-odds", "probability"]), default="log-odds", show_default=True,
              help="Values add up to the logit of the class's probability, or to the probability.")
@click.option("--max-evals", type=click.IntRange(min=4), default=4096, show_default=True,
              help="Model evaluations per row: up to log2 of it features are explained exactly, beyond "
                   "that paired permutations are sampled.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the sampled permutations.")
@click.option("--errors", is_flag=True, help="Add a column se(<feature>) per feature: the standard error of "
                                             "sampled values (0 where exact).")
@click.option("--plot", "picture", type=click.Path(dir_okay=False),
              help="Also draw the explanation (a waterfall for one row, the mean |value| per feature for "
                   "several) to this image file (png, svg, pdf).")
def explain(model_file, file, header, sep, encoding, decimal, output, class_label, scale, max_evals, seed, errors,
            picture):
    """Explain each row's prediction by its features' Shapley values.

    The value of a set of features is the model's answer with the other features
    missing, summed out exactly by the model itself (no background sample). The
    output has one row per input row: the explained class in column `class`,
    then one column per feature, then `base_value`; a row's base_value plus its
    values is the logit (or probability) of that class given the whole row. A
    missing value gets 0. The mean |value| of each feature is said on stderr.

    \b
    Examples:
      pybnc explain car-tan.pbnc --file new-cars.csv -o explained.csv
      pybnc explain car-tan.pbnc --file one-car.csv --class acc --plot why.png
    """
    if not file:
        raise click.UsageError("give the rows to explain with --file FILE (or --csv/--parquet).")
    model = load_model(model_file)
    target = _class_label(model, class_label)
    frame, decided = read_file(DataChoice(file=file, header=header, sep=sep, encoding=encoding, decimal=decimal))
    X = _features(model, frame, file)
    click.echo(decided, err=True)
    explanation = model.explain(X, target=target, output=scale.replace("-", "_"), max_evals=max_evals,
                                random_state=seed)
    table = explanation.reset_index(drop=True)
    table.insert(0, "class", explanation.target.to_numpy())
    if errors:
        for name in explanation.columns[:-1]:
            table[f"se({name})"] = explanation.standard_error[name].to_numpy()
    if output:
        write_table(table, output)
        click.echo(f"Wrote the {explanation.method} explanations of {len(table)} rows to {output}", err=True)
    else:
        click.echo(table.to_csv(index=False), nl=False)
    top = explanation.importance().head(5)
    click.echo("mean |value|: " + ", ".join(f"{name} {value:.3g}" for name, value in top.items()), err=True)
    if picture:
        require("matplotlib", "pybnc explain --plot").use("Agg")  # files only: never open a window
        import matplotlib.pyplot as plt

        ax = explanation.plot(path=picture)
        plt.close(ax.figure)
        click.echo(f"Wrote {picture}", err=True)
