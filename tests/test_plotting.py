"""Pictures: network drawings, DOT text, learning curves and comparisons, headless."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import pybnc  # noqa: E402
from pybnc.datasets import load_dataset  # noqa: E402
from pybnc.plotting import network_layout, plot_comparison, plot_learning_curve, plot_network, to_dot  # noqa: E402


@pytest.fixture(scope="module")
def votes_tan():
    X, y = load_dataset("votes")
    return pybnc.TAN().fit(X, y)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_plot_network_writes_file(votes_tan, tmp_path, suffix):
    path = tmp_path / f"net.{suffix}"
    ax = plot_network(votes_tan, path=path)
    assert path.stat().st_size > 1000
    assert ax.get_title() == "TAN: 16 features, 15 augmenting arcs"
    # One arrow patch per augmenting arc, one light line per class arc.
    assert len(ax.patches) == len(votes_tan.arcs_)
    assert len(ax.lines) == votes_tan.n_features_in_


def test_plot_network_on_given_axis_and_naive_bayes():
    X, y = load_dataset("car")
    fig, ax = plt.subplots()
    assert plot_network(pybnc.NaiveBayes().fit(X, y), ax=ax, title="NB") is ax
    assert ax.get_title() == "NB" and len(ax.patches) == 0


def test_layout_puts_children_below_parents_and_class_on_top(votes_tan):
    parents = [list(p) for p in votes_tan.structure_.parents]
    pos = network_layout(parents)
    assert all(y < 0 for _, y in pos.values())
    for i, ps in enumerate(parents):
        for p in ps:
            assert pos[p][1] > pos[i][1]
    assert all(0 <= x <= 1 for x, _ in pos.values())
    # Distinct nodes of a layer never share a position.
    assert len(set(pos.values())) == len(pos)


def test_layout_of_several_parents():
    pos = network_layout([[], [0], [0, 1], [1, 2]])
    assert pos[0][1] > pos[1][1] > pos[2][1] > pos[3][1]


def test_to_dot_lists_every_arc(votes_tan):
    dot = to_dot(votes_tan)
    assert dot.startswith("digraph TAN {") and dot.rstrip().endswith("}")
    for u, v in votes_tan.arcs_:
        assert f'"{u}" -> "{v}"' in dot
    for name in votes_tan.feature_names_:
        assert f'"class" -> "{name}"' in dot
    assert dot.count("->") == len(votes_tan.arcs_) + votes_tan.n_features_in_


def test_to_dot_quotes_names_and_avoids_class_clash():
    X = pd.DataFrame({"class": ["a", "b"] * 5, 'say "hi"': ["u", "v", "v", "u", "u"] * 2})
    dot = to_dot(pybnc.TAN().fit(X, ["p", "q"] * 5))
    assert '"class_" -> "class"' in dot and '"say \\"hi\\""' in dot


def test_averaging_models_have_no_network():
    X, y = load_dataset("car")
    with pytest.raises(TypeError, match="no single network"):
        plot_network(pybnc.TBMATAN().fit(X.iloc[::8], y.iloc[::8]))


def test_a_fitted_autobnc_draws_its_choice_as_the_cli_and_the_web_page_show_it():
    """It refused with 'AutoBNC has no single network to draw' whatever it had chosen."""
    X, y = load_dataset("car")
    tan = pybnc.TAN().fit(X, y)
    auto = pybnc.AutoBNC(candidates={"tan": pybnc.TAN()}, n_jobs=1, verbose=0).fit(X, y)
    assert auto.best_candidate_ == "tan"
    assert plot_network(auto).get_title() == "AutoBNC's choice (TAN): 6 features, 5 augmenting arcs"
    assert to_dot(auto).splitlines()[1:] == to_dot(tan).splitlines()[1:]
    assert to_dot(auto).startswith('digraph "AutoBNC\'s choice (TAN)" {')
    averaged = pybnc.AutoBNC(candidates={"aode": pybnc.AODE()}, n_jobs=1, verbose=0).fit(X, y)
    with pytest.raises(TypeError, match=r"AutoBNC's choice \(AODE\) has no single network"):
        to_dot(averaged)
    assert pybnc.plotting.network_svg(averaged) is None


def _results():
    rng = np.random.default_rng(0)
    rows = [{"dataset": d, "model": m, "fold": f, "train_fraction": t,
             "accuracy": 0.7 + 0.2 * t + 0.05 * (m == "TAN") + rng.normal(0, 0.01),
             "log_loss": 0.5, "log_score": 0.5, "brier": 0.2, "fit_time": 0.01}
            for d in ["car", "votes"] for m in ["NB", "TAN", "FAN"] for f in range(3) for t in [0.1, 0.5, 1.0]]
    return pd.DataFrame(rows)


def test_learning_curve(tmp_path):
    res = _results()
    axes = plot_learning_curve(res, path=tmp_path / "lc.png")
    assert len(axes) == 2 and (tmp_path / "lc.png").exists()
    assert [a.get_title() for a in axes] == ["car", "votes"]
    assert len(axes[0].lines) == 3
    one = plot_learning_curve(res[res.dataset == "car"], metric="log_loss")
    assert one.get_ylabel() == "log_loss"


def test_comparison(tmp_path):
    res = _results()
    ax = plot_comparison(res, path=tmp_path / "cmp.svg")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["car", "votes"]
    ax = plot_comparison(res, baseline="NB", path=tmp_path / "scatter.png")
    assert ax.get_xlabel() == "NB accuracy" and (tmp_path / "scatter.png").exists()
    with pytest.raises(ValueError, match="baseline='kDB' is not a model"):
        plot_comparison(res, baseline="kDB")
    with pytest.raises(ValueError, match="no column .'dataset'.*cross_validate"):
        plot_comparison(res.drop(columns="dataset"))


def test_estimator_methods_delegate(votes_tan, tmp_path):
    assert votes_tan.to_dot() == to_dot(votes_tan)
    ax = votes_tan.plot(path=tmp_path / "net.png", title="votes")
    assert ax.get_title() == "votes" and (tmp_path / "net.png").exists()


def test_explanation_plot_row_draws_that_rows_waterfall():
    X, y = load_dataset("car")
    why = pybnc.TAN().fit(X, y).explain(X.iloc[[5, 700, 1200]], verbose=0)
    for row in range(3):
        ax = why.plot(row=row)
        assert ax.get_title().startswith(f"row {row} ({why.index[row]}): base value")
        widths = sorted(round(p.get_width(), 9) for p in ax.patches)
        assert widths == sorted(round(v, 9) for v in why.feature_values.iloc[row])
        # the bars run from base_value to the row's own output
        assert ax.get_title().endswith(f"{why.iloc[row].sum():.3g}")
        plt.close(ax.figure)
    assert why.plot().get_xlabel().startswith("mean |Shapley value|")  # several rows: the bars
    with pytest.raises(ValueError, match="kind='waterfall'"):
        why.plot(kind="bar", row=1)


def test_waterfall_values_sit_inside_the_axes_beside_their_bars():
    X, y = load_dataset("car")
    # row 1318 once printed its value over its label (a blue bar ending at the left edge)
    why = pybnc.TAN().fit(X, y).explain(pd.concat([X.loc[[1318]], X.sample(11, random_state=0)]), verbose=0)
    for row in range(len(why)):
        ax = why.plot(row=row)
        ax.figure.canvas.draw()
        renderer = ax.figure.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:  # no value runs over the tick labels or out of the frame
            box = text.get_window_extent(renderer)
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1, (row, text.get_text())
        plt.close(ax.figure)


@pytest.mark.parametrize("draw", ["waterfall", "beeswarm", "learning_curve"])
def test_labels_are_inside_the_saved_figure(draw, tmp_path):
    X, y = load_dataset("car")
    if draw == "learning_curve":
        results = pd.DataFrame({"dataset": "data", "model": ["NB", "NB"], "fold": 0, "train_fraction": [0.5, 1.0],
                                "accuracy": [0.8, 0.85]})
        ax = plot_learning_curve(results)
        assert ax.get_title() == ""  # cross_validate's name for an unnamed table is not a title
    else:
        why = pybnc.TAN().fit(X, y).explain(X.head(30), verbose=0)
        ax = why.plot(row=0) if draw == "waterfall" else why.plot(kind="beeswarm")
    figure = ax.figure
    figure.canvas.draw()  # saved as sphinx-gallery saves: no bbox_inches="tight"
    renderer = figure.canvas.get_renderer()
    whole = figure.bbox
    for label in [*ax.get_yticklabels(), ax.xaxis.label, ax.yaxis.label, ax.title]:
        if label.get_text():
            box = label.get_window_extent(renderer)
            assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1 and whole.y0 - 1 <= box.y0, label.get_text()
