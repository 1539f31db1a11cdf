"""The ``pybnc`` command group: its options and how it reports errors (the commands
add themselves to it from their own modules)."""

from __future__ import annotations

import os
import sys
import warnings

import click

from .._version import __version__


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class _Group(click.Group):
    """A click group whose errors are one line on stderr, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        code = 0
        show, shown = warnings.showwarning, set()

        def show_once(message, category, *args, **kwargs):
            # Cross-validation refits per fold and model: one encoding warning, not one per fit.
            line = f"warning: {_one_line(message)}"
            if line not in shown:
                shown.add(line)
                click.echo(line, err=True)

        warnings.showwarning = show_once
        try:
            super().main(args, prog_name or "pybnc", complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            code = 1
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # click >= 8.2: bare `pybnc`
                click.echo(exc.ctx.get_help())
            else:
                ctx = getattr(exc, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if isinstance(exc, click.UsageError) and ctx else ""
                click.echo(f"Error: {_one_line(exc.format_message())}{hint}", err=True)
                code = 2
        except (ValueError, TypeError, KeyError, OSError, ImportError, NotImplementedError) as exc:
            if os.environ.get("PYBNC_DEBUG"):
                raise
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            click.echo(f"Error: {_one_line(message)}", err=True)
            code = 2
        except Exception as exc:  # a bug: still one line, with the way to see more
            if os.environ.get("PYBNC_DEBUG"):
                raise
            click.echo(f"Error: internal error ({type(exc).__name__}: {_one_line(exc)}); "
                       "rerun with PYBNC_DEBUG=1 for the traceback and report it.", err=True)
            code = 1
        finally:
            warnings.showwarning = show
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(name="pybnc", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pybnc")
def cli():
    """pybnc: discrete Bayesian network classifiers from the command line.

    Compare classifiers by cross-validation, fit and save one, predict with it,
    inspect or plot it. Data come from a bundled UCI dataset (--dataset car) or a
    table file with a class column (--file data.csv --target class): CSV and other
    delimited text, ARFF or Parquet.

    \b
    Start with:
      pybnc compare --dataset chess
    """
