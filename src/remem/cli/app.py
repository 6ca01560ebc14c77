"""The ``remem`` Typer app: every command group merged into one.

Every error is one line on stderr that names the problem and the fix, with an exit code of
the table in ``exits.py`` (2 bad input, 1 not found, 3 store error); every command that prints
a table also takes ``--json``.

One module per audience (records, ops, bench, transfer, memory, serve, demo), each with its
own Typer app merged here; ``common`` holds what they share. The commands call the public
library only (``remem.Memory`` and the feature modules), never the store underneath.
"""

from __future__ import annotations

import logging
from datetime import UTC
from pathlib import Path
from typing import Annotated

import typer

from remem.cli import (
    bench,
    demo,
    distill,
    facts,
    memory,
    ops,
    postgres,
    records,
    serve,
    transfer,
)
from remem.cli.common import DbOption, state

__all__ = ["app"]

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
for commands in (records, ops, bench, transfer, distill, serve, demo):
    app.add_typer(commands.app)
app.add_typer(memory.app, name="memory")
app.add_typer(facts.app, name="facts")
app.add_typer(ops.config_app, name="config")
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
    state.zone = UTC  # until a command loads its configuration
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="remem: %(levelname)s: %(message)s",
    )
