"""docs/user-guide.md (and the Python of the task pages) cannot rot: every `$ pybnc` command of its ```console blocks runs
here, in order, in one temporary folder, and every output line the guide shows must be
printed (timings excepted); its ```python blocks run too."""

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from pybnc.cli import cli

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "user-guide.md"
pytestmark = pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")


def _blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


def _commands():
    """``(command, shown output lines)`` of every ``$ pybnc`` line, in guide order."""
    steps = []
    for block in _blocks("console"):
        current = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = None
                if line.startswith("$ pybnc"):
                    current = (line[2:], [])
                    steps.append(current)
            elif current is not None and line.strip():
                current[1].append(line.rstrip())
    return steps


def _comparable(line):
    # Score rows end in a timing, which differs from run to run.
    return line.rsplit(None, 1)[0] if "±" in line else line


def test_the_guide_has_commands():
    commands = [c for c, _ in _commands()]
    assert len(commands) >= 10
    for needed in ("compare --dataset chess", "plot", "fit", "predict", "info", "experiment"):
        assert any(needed in c for c in commands), needed


def test_every_guide_command_runs_and_prints_what_the_guide_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command, shown in _commands():
        result = CliRunner().invoke(cli, shlex.split(command)[1:])
        assert result.exit_code == 0, f"{command}\n{result.output}"
        printed = {_comparable(line.rstrip()) for line in result.output.splitlines()}
        for line in shown:
            assert _comparable(line) in printed, f"{command}: the guide shows {line!r}"


@pytest.mark.parametrize("page", ["../README.md", "getting-started.md", "choose.md", "reading.md"])
def test_the_task_pages_python_runs(page, tmp_path, monkeypatch):
    """The Python of the README, the getting-started and the task pages runs as written, block after block."""
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    text = (GUIDE.parent / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, page
    namespace = {}
    for block in blocks:
        exec(compile(block, page, "exec"), namespace)


def test_the_guide_python_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for block in _blocks("python"):
        exec(compile(block, str(GUIDE), "exec"), {})
    assert "tan" in capsys.readouterr().out
