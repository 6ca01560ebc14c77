"""What every `remem` command shares: the global options and a Memory opened from them,
printing (JSON or rich tables), one-line errors, input files and progress bars."""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from remem.cli.exits import NOT_FOUND

if TYPE_CHECKING:  # the library and rich are imported when a command runs, not for `--help`
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table
    from rich.text import Text

    from remem import Config, Memory


class LazyConsole:
    """A rich Console made on first use: importing rich costs ~30 ms that `remem --help`
    and `remem --version` need not pay. Methods go to the console; ``real`` is the console
    itself, for rich objects that take one (progress bars)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    @property
    def real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


out = LazyConsole(soft_wrap=True)
err = LazyConsole(stderr=True, soft_wrap=True)


def new_table(*args: Any, **kwargs: Any) -> Table:
    """A rich Table (rich is imported when a command prints, not at start-up)."""
    from rich.table import Table

    return Table(*args, **kwargs)


def new_text(text: str) -> Text:
    """Plain text for a table cell: rich markup in it is shown, not interpreted."""
    from rich.text import Text

    return Text(text)


@dataclass
class GlobalOptions:
    """The options given before the command (`remem --db x.db search ...`)."""

    db: str | None = None  # a file path or a postgresql:// URL
    config_file: Path | None = None
    zone: tzinfo = UTC  # calendar.timezone of the configuration the command loaded


state = GlobalOptions()

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="database file or postgresql:// URL (default: $REMEM_DB, store.url or the data dir)",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
AgentOption = Annotated[
    str | None,
    typer.Option("--agent", help="the agent identity (default: scopes.agent in the configuration)"),
]
SessionOption = Annotated[str | None, typer.Option("--session", help="the current session")]
UserOption = Annotated[str | None, typer.Option("--user", help="the current user")]
NoEmbedOption = Annotated[
    bool, typer.Option("--no-embed", help="store now, embed later with `remem embed`")
]
ScopeOption = Annotated[str | None, typer.Option("--scope", help="narrow to one scope")]
# The record filters of search, list, export and stats, and other options several commands share
KindFilter = Annotated[str | None, typer.Option(help="message or memory")]
ScopeFilter = Annotated[str | None, typer.Option(help="only this scope")]
SessionFilter = Annotated[str | None, typer.Option(help="only this session")]
RoleFilter = Annotated[str | None, typer.Option(help="only this role")]
RecordIdArgument = Annotated[str, typer.Argument(help="record id (or a unique prefix, 8+ chars)")]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="only count")]
BatchSizeOption = Annotated[int | None, typer.Option(help="texts per embedding call")]


@dataclass(frozen=True)
class Identity:
    """Who a command acts as: the --agent, --session and --user an agent's own call carries
    (all None: the local operator)."""

    agent: str | None = None
    session: str | None = None
    user: str | None = None


# What a ``caller: Identity`` parameter declares as its default: ``with_caller`` puts the three
# options in its place, so the command always receives the Identity they make.
FROM_OPTIONS = Identity()


def with_caller(command: Callable[..., None]) -> Callable[..., None]:
    """A command that takes ``caller: Identity`` shows --agent, --session and --user in that
    parameter's place (same names, help and order as ``AgentOption`` ...) and receives them as
    one ``Identity``: the commands that act as an agent declare the three once."""
    signature = inspect.signature(command, eval_str=True)
    options = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=option)
        for name, option in (
            ("agent", AgentOption),
            ("session", SessionOption),
            ("user", UserOption),
        )
    ]
    params: list[inspect.Parameter] = []
    for param in signature.parameters.values():
        params += options if param.name == "caller" else [param.replace(kind=options[0].kind)]

    @functools.wraps(command, assigned=("__module__", "__name__", "__qualname__", "__doc__"))
    def run(agent: str | None, session: str | None, user: str | None, **kwargs: Any) -> None:
        command(caller=Identity(agent, session, user), **kwargs)

    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return run


def load_config(*, long_lived: bool = False, **overrides: Any) -> Config:
    """The configuration: file, environment, then the global --db and these overrides. A
    one-shot command (not ``long_lived``) leaves rebuilding the vector index files to
    `remem index` unless search.index_build is set: a build it started in the background
    would die with the process, and slow the command meanwhile."""
    from remem import Config
    from remem.config import is_postgres_url

    if is_postgres_url(state.db):
        overrides["store.url"] = state.db
    elif state.db is not None:
        overrides["store.path"] = str(state.db)
        overrides["store.url"] = None  # the file given wins over a configured server
    config = Config.load(state.config_file, overrides=overrides)
    state.zone = config.calendar.zone()  # the times a command prints are on its clock
    if not long_lived and config.source_of("search.index_build") == "default":
        config.search.index_build = "manual"
    return config


def open_memory(*, long_lived: bool = False, **overrides: Any) -> Memory:
    from remem import Memory

    return Memory(config=load_config(long_lived=long_lived, **overrides))


def open_existing_memory(**overrides: Any) -> Memory:
    """For commands that only read: a database that does not exist is reported (exit 1),
    never created (nor its folder)."""
    from remem import Memory

    config = load_config(**overrides)
    path = config.store.resolved_path()
    if config.store.url is None and not path.exists():
        fail(
            f"no remem database at {str(path)!r}; check --db / REMEM_DB (nothing was created)",
            NOT_FOUND,
        )
    return Memory(config=config)


def emit_json(data: Any) -> None:
    out.print_json(json.dumps(data, ensure_ascii=False, default=str), ensure_ascii=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and exit with a code of ``cli/exits.py``'s table: 2 (the default)
    for bad input, 1 for "not found" or "not done", 3 for a store error."""
    err.print(f"error: {message}", markup=False, highlight=False)
    raise typer.Exit(code)


def add_time_column(table: Table, name: str) -> None:
    """A column of ``fmt_time`` values, never cut: a narrow terminal folds the text instead."""
    table.add_column(name, no_wrap=True, min_width=len(fmt_time(0.0)))


def fmt_time(ts: float | None) -> str:
    """A time on the clock of the loaded configuration's ``calendar.timezone``, with its UTC
    offset where that is not UTC."""
    from remem.recall.render import local_time  # the library, once a command runs

    return "-" if ts is None else local_time(ts, state.zone, "%Y-%m-%d %H:%M")


def short(text: str, width: int = 90) -> str:
    """The text on one line, cut to ``width`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def read_lines(path: str, what: str = "a JSONL file (one JSON object per line)") -> list[str]:
    """The lines of a UTF-8 file, or of stdin for '-'; ``what`` says what to give instead."""
    from remem.transfer import jsonl_lines

    if path == "-":
        return jsonl_lines(sys.stdin.read())
    file = Path(path)
    if not file.exists():
        fail(f"{path!r} does not exist; give {what}")
    if not file.is_file():
        fail(f"{path!r} is a directory; give {what}")
    try:
        return jsonl_lines(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        fail(f"{path!r} is not UTF-8 text; give {what}")


def progress_bar(label: str, *, quiet: bool, eta: bool = True, rate: bool = True) -> Progress:
    """A progress bar on stderr with count, rate and time left, shown only on a terminal and
    never with --json (``quiet``). ``label`` may name the task as ``{task.description}``.
    (``eta`` and ``rate`` are kept for callers that pass them: every bar shows both.)"""
    from remem.cli import progress

    return progress.progress_bar(label, console=err.real, quiet=quiet)


@contextmanager
def counting(
    label: str, total: int | None, *, quiet: bool, eta: bool = True, rate: bool = True
) -> Iterator[Callable[[int], None]]:
    """A progress bar for ``total`` items (None: not known, a count without a bar); yields
    the ``progress(n)`` callback the library's batch operations take."""
    from remem.cli import progress

    with progress.counting(label, total, console=err.real, quiet=quiet) as advance:
        yield advance


@contextmanager
def building_index(*, quiet: bool) -> Iterator[None]:
    """A spinner on stderr while the vector index builds (minutes at 1M vectors; the build
    reports no progress of its own). Nothing when ``quiet`` or not on a terminal."""
    if quiet or not err.real.is_terminal:
        yield
        return
    with err.real.status("building the vector index (from 20k vectors: an HNSW graph)"):
        yield
