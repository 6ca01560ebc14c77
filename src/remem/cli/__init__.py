"""The ``remem`` command.

Every error is one line on stderr that names the problem and the fix, with exit code 2 for
bad input and 1 for "not found"; every command that prints a table also takes ``--json``.

One module per audience (records, maintenance, transfer, memory, serve, demo), each with its
own Typer app merged here; ``common`` holds what they share. The commands call the public
library only (``remem.Memory`` and the feature modules), never the store underneath.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from remem.cli import demo, maintenance, memory, postgres, records, serve, transfer
from remem.cli.common import DbOption, err, state
from remem.errors import NotFoundError, RememError

__all__ = ["app", "main"]

app = typer.Typer(
    name="remem",
    help="Long-term memory for LLM agents and chat bots (local-first, SQLite).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
# Unnamed groups merge their commands into the top level, in this order (`remem --help`);
# the named groups follow them.
for commands in (records, maintenance, transfer, serve, demo):
    app.add_typer(commands.app)
app.add_typer(memory.app, name="memory")
app.add_typer(maintenance.config_app, name="config")
app.add_typer(postgres.app, name="postgres")


def _print_version(value: bool) -> None:
    if value:
        from remem import __version__

        typer.echo(f"remem {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    db: DbOption = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML config file (default: $REMEM_CONFIG)")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="log details")] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="print the version and exit", callback=_print_version, is_eager=True
        ),
    ] = False,
) -> None:
    state.db = db
    state.config_file = config
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="remem: %(levelname)s: %(message)s",
    )


# Options of the whole command that may also follow the subcommand (`remem search x --db f`).
GLOBAL_OPTIONS = {"--db": True, "--config": True, "--verbose": False, "-v": False}


def hoist_global_options(argv: list[str]) -> list[str]:
    """The arguments with global options moved before the subcommand, wherever they were
    written (up to a ``--``, after which everything is an argument)."""
    hoisted: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        name = arg.split("=", 1)[0]
        if name in GLOBAL_OPTIONS:
            takes_value = GLOBAL_OPTIONS[name] and "=" not in arg
            hoisted += argv[i : i + 2] if takes_value else [arg]
            i += 2 if takes_value else 1
            continue
        rest.append(arg)
        i += 1
    return hoisted + rest


def main() -> None:
    """The console script: a library error becomes one line and its exit code."""
    try:
        app(args=hoist_global_options(sys.argv[1:]))
    except RememError as exc:
        code = 1 if isinstance(exc, NotFoundError) else 2
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(code)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)
    except BrokenPipeError:
        os._exit(0)
