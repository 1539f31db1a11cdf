"""The Benchmarks pages of the documentation are what benchmarks/make_pages.py writes from
the benchmarks' CSVs: a page cannot drift from its data."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _make_pages():
    spec = importlib.util.spec_from_file_location("make_pages", ROOT / "benchmarks" / "make_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_page_is_its_csvs_table():
    make_pages = _make_pages()
    for path, build in make_pages.PAGES.items():
        assert path.read_text(encoding="utf-8") == build(), f"run python benchmarks/make_pages.py ({path.name})"


def test_pages_say_command_machine_and_date_and_are_short():
    make_pages = _make_pages()
    for path in make_pages.PAGES:
        text = path.read_text(encoding="utf-8")
        for needed in ("**Command:**", "**Machine:**", "**Date:**"):
            assert needed in text, (path.name, needed)
        assert text.count("\n") <= 400, path.name
