"""User pages and module docstrings are written for users: short, and without the history of
how a number was reached (commit hashes, issue numbers), which lives in benchmarks/ and
docs/changelog.md."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The changelog is where the project's history belongs.
HISTORY = {"changelog.md"}
MAX_PAGE_LINES = 400
MAX_MODULE_DOCSTRING_LINES = 40
# seven or more hex digits with a letter and a digit in them (a commit), or an issue's number
HASH = re.compile(r"(?<![\w.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
ISSUE = re.compile(r"\b[Ii]ssues?\s*#?\d+|(?<![\w&])#\d+\b")


def _user_pages():
    return [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in HISTORY)


def _history_in(text: str) -> list:
    return HASH.findall(text) + ISSUE.findall(text)


def test_the_patterns_catch_what_they_are_for():
    assert _history_in("main at 712189d, see issue 20 and #13") == ["712189d", "issue 20", "#13"]
    assert _history_in("0.0351285, 1e-300, deadbeef, 2026-11-27, AODE, #P-hard, sha256") == []


@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: p.name)
def test_user_page_is_short_and_free_of_history(page):
    text = page.read_text(encoding="utf-8")
    assert text.count("\n") <= MAX_PAGE_LINES, f"{page.name}: {text.count(chr(10))} lines"
    assert _history_in(text) == [], f"{page.name}: move these to benchmarks/ or docs/changelog.md"


def test_module_docstrings_are_short_and_free_of_history():
    problems = []
    for path in sorted((ROOT / "pybnc").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree, clean=False)
        if doc is None:
            continue
        node = tree.body[0]
        lines = node.end_lineno - node.lineno + 1
        if lines > MAX_MODULE_DOCSTRING_LINES:
            problems.append(f"{path.relative_to(ROOT)}: {lines} lines")
        if _history_in(doc):
            problems.append(f"{path.relative_to(ROOT)}: {_history_in(doc)}")
    assert problems == []
