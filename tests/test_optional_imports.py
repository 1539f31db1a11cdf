"""Every optional dependency, when missing, fails with the extra that installs it, in Python
and on the command line (the module is hidden from the import system, not uninstalled)."""

import sys

import pandas as pd
import pytest
from click.testing import CliRunner

import pybnc
from pybnc import TAN, NaiveBayes
from pybnc.cli import cli
from pybnc.datasets import load_dataset
from pybnc.io import read_table


def _hide(monkeypatch, *names):
    """Make ``import name`` (and its submodules, even those already imported) fail."""
    for name in names:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            monkeypatch.setitem(sys.modules, key, None)
        monkeypatch.setitem(sys.modules, name, None)


@pytest.fixture(scope="module")
def car_tan():
    X, y = load_dataset("car")
    return X, TAN().fit(X, y)


def _says_the_extra(exc_info, extra, module):
    message = str(exc_info.value)
    assert f'pip install "pybnc[{extra}]"' in message, message
    assert module in message, message


def test_pictures_without_matplotlib_name_the_plot_extra(monkeypatch, car_tan, tmp_path):
    X, model = car_tan
    why = model.explain(X.head(3), verbose=0)
    results = pd.DataFrame({"dataset": "car", "model": ["NB", "TAN"], "fold": 0, "train_fraction": 1.0,
                            "accuracy": [0.85, 0.93]})
    _hide(monkeypatch, "matplotlib")
    for draw in (lambda: model.plot(path=tmp_path / "a.png"), lambda: why.plot(row=1), lambda: why.plot(),
                 lambda: pybnc.plotting.plot_learning_curve(results),
                 lambda: pybnc.plotting.plot_comparison(results)):
        with pytest.raises(ImportError) as caught:
            draw()
        _says_the_extra(caught, "plot", "matplotlib")
    # a notebook still shows the table, without its picture
    assert model._repr_html_() is None or "<svg" not in (model._repr_html_() or "")
    assert "<svg" not in why._repr_html_()


def test_networkx_graph_extra(monkeypatch, car_tan):
    _hide(monkeypatch, "networkx")
    with pytest.raises(ImportError) as caught:
        car_tan[1].to_networkx()
    _says_the_extra(caught, "graph", "networkx")


def test_parquet_and_excel_readers_name_their_extras(monkeypatch, tmp_path):
    frame = pd.DataFrame({"a": ["x", "y"], "y": ["p", "q"]})
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_excel(tmp_path / "t.xlsx", index=False)
    _hide(monkeypatch, "pyarrow", "openpyxl")
    for name, extra, module in (("t.parquet", "parquet", "pyarrow"), ("t.xlsx", "excel", "openpyxl")):
        with pytest.raises(ImportError) as caught:
            read_table(tmp_path / name)
        _says_the_extra(caught, extra, module)


def test_web_and_dask_name_their_extras(monkeypatch):
    import pandas as pd

    from pybnc.streaming import fit_dask

    _hide(monkeypatch, "dask")
    with pytest.raises(ImportError) as caught:
        fit_dask(NaiveBayes(), pd.DataFrame({"a": [1], "y": [0]}), "y")
    _says_the_extra(caught, "dask", "dask")
    _hide(monkeypatch, "flask")
    for key in [k for k in sys.modules if k == "pybnc.web" or k.startswith("pybnc.web.")]:
        monkeypatch.delitem(sys.modules, key)
    with pytest.raises(ImportError) as caught:
        import pybnc.web  # noqa: F401
    _says_the_extra(caught, "web", "flask")


@pytest.mark.parametrize("command, hidden, extra", [
    (["plot", "--dataset", "car", "--model", "nb", "-o", "car.png"], "matplotlib", "plot"),
    (["serve", "--port", "8765"], "flask", "web"),
])
def test_the_command_line_names_the_extra_in_one_line(monkeypatch, tmp_path, command, hidden, extra):
    monkeypatch.chdir(tmp_path)
    _hide(monkeypatch, hidden)
    for key in [k for k in sys.modules if k.startswith("pybnc.web")]:
        monkeypatch.delitem(sys.modules, key)
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and f'pip install "pybnc[{extra}]"' in lines[0] and hidden in lines[0], result.output
    assert "Traceback" not in result.output


def test_explain_plot_on_the_command_line_names_the_plot_extra(monkeypatch, tmp_path, car_tan):
    X, model = car_tan
    monkeypatch.chdir(tmp_path)
    pybnc.save(model, "car.pbnc")
    X.head(3).to_csv("rows.csv", index=False)
    _hide(monkeypatch, "matplotlib")
    result = CliRunner().invoke(cli, ["explain", "car.pbnc", "--file", "rows.csv", "--plot", "why.png"])
    assert result.exit_code == 2, result.output
    assert 'pybnc explain --plot needs matplotlib, which is not installed: pip install "pybnc[plot]"' \
        in result.output
