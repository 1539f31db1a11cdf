"""The Examples sections of pybnc's docstrings run as doctests, so they stay true.

Every module of the package is imported (an import error fails here too) and every
docstring example found by :class:`doctest.DocTestFinder` runs, one test per module,
with ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``. A test also checks that every public
estimator and function of ``pybnc.__all__`` has an Examples section.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import pybnc

MODULES = sorted(info.name for info in pkgutil.walk_packages(pybnc.__path__, "pybnc."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["pybnc", *MODULES])
def test_docstring_examples(name, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # examples that save files write here
    monkeypatch.setenv("PYBNC_PROGRESS", "0")
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    with np.printoptions(legacy=False):
        for test in tests:
            runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def test_examples_exist():
    """Enough examples are found for the test above to mean something."""
    total = 0
    for name in MODULES:
        module = importlib.import_module(name)
        total += sum(len(t.examples) for t in doctest.DocTestFinder().find(module, name))
    assert total > 300


@pytest.mark.parametrize("name", [n for n in pybnc.__all__ if callable(getattr(pybnc, n))])
def test_public_api_has_examples(name):
    assert "Examples\n" in (getattr(pybnc, name).__doc__ or ""), f"pybnc.{name} has no Examples section"
