"""No import circle between pybnc's modules, not even through an import inside a function,
no stage importing from a stage to its right, and the modules that start the circles a
careless import would close load first in a fresh interpreter."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "pybnc"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set) -> set:
    """The pybnc modules a module imports, when it is loaded or inside a function (a
    module's own packages, which Python loads before it, are no import of its)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules  # `from . import stats`
            found |= submodules
            if len(submodules) < len(node.names):  # names defined in the module itself
                found.add(base)
    own = {".".join(name.split(".")[:i]) for i in range(2, name.count(".") + 1)}
    return {m for m in found if m in modules and m != name and m not in own}


def import_graph() -> dict:
    paths = [p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts]
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def find_circle(graph: dict):
    """One circle of the graph as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                circle = visit(nxt)
                if circle:
                    return circle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            circle = visit(node)
            if circle:
                return circle
    return None


def test_the_finder_finds_a_circle():
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None


def test_no_module_imports_itself_through_others():
    graph = import_graph()
    assert len(graph) > 90 and "pybnc.registry" in graph["pybnc.cli._common"]
    assert "pybnc.plotting" in graph["pybnc.estimators.augmented"]  # imported inside a method: seen too
    assert find_circle(graph) is None, " -> ".join(find_circle(graph))


@pytest.mark.slow  # a fresh interpreter per module (the import graph test above stays in the edit loop)
@pytest.mark.parametrize("module", ["pybnc.estimators.capabilities", "pybnc.registry",
                                    "pybnc.search.skdb", "pybnc.averaging.eskdb", "pybnc.streaming",
                                    "pybnc.evaluation.cv", "pybnc.io.model_file", "pybnc.web.analysis"])
def test_a_module_imports_alone_in_a_fresh_interpreter(module):
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, capture_output=True)


#: The stages in the order data flows through them (README, "What is in it"). The pictures
#: draw any fitted model from its attributes, so the estimators draw themselves with them;
#: the search and averaging stages hold classifiers built on the estimator base classes, so
#: they come after ``estimators``; the model registry, files, bundled data (read from
#: files), large data, the web page and the command line (which serves the web page) come
#: after every classifier.
STAGES = ["_version", "_utils", "encode", "counts", "scores", "structure", "parameters", "inference", "plotting",
          "estimators", "search", "averaging", "evaluation", "selection", "registry", "io", "datasets",
          "streaming", "web", "cli"]


def _stage(module: str) -> str:
    return module.split(".")[1] if "." in module else "pybnc"


def test_no_stage_imports_a_stage_to_its_right():
    graph = import_graph()
    unknown = {_stage(m) for m in graph} - set(STAGES) - {"pybnc", "__main__"}
    assert not unknown, f"modules outside every stage: {sorted(unknown)}; name their stage in STAGES"
    backwards = sorted((m, n) for m, imported in graph.items() for n in imported
                       if _stage(m) in STAGES and _stage(n) in STAGES
                       and STAGES.index(_stage(n)) > STAGES.index(_stage(m)))
    assert not backwards, f"imports from a stage to its right: {backwards}"


def test_at_most_five_modules_loose_at_the_root():
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(loose) <= 5, loose
