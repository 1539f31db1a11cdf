"""The ``pybnc`` command line.

Every subcommand has a complete ``--help``. Errors are one line on stderr with exit
code 2 (``PYBNC_DEBUG=1`` shows the traceback instead); progress bars follow
:mod:`pybnc._utils.progress` and ``--quiet`` silences them.

Examples
--------
>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(cli, ["compare", "--dataset", "car", "--folds", "3", "--quiet"])
>>> result.exit_code, "TAN arcs" in result.output
(0, True)
"""

from __future__ import annotations

from ._group import cli
from . import evaluate, explain, model, serve  # the commands register themselves on `cli`


def main(argv=None):
    """Entry point of the ``pybnc`` console script."""
    cli.main(args=argv, prog_name="pybnc")


__all__ = ["cli", "main"]
