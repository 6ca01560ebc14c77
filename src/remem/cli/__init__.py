"""The ``remem`` command: the console script's entry point.

The Typer app (``remem.cli.app``) is built only when a command needs it: ``remem --version``
and ``remem --help`` answer before typer is imported (the help text is typer's own, kept in
``help_text``), and a command's ``--help`` loads typer and the command modules but not the
library (numpy, httpx, the store), which each command imports when it runs.
"""

from __future__ import annotations

import gc
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

__all__ = ["app", "hoist_global_options", "main", "run"]

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


def __getattr__(name: str) -> Any:
    if name == "app":  # the Typer app, imported on first use (PEP 562)
        from remem.cli.app import app

        globals()["app"] = app
        return app
    raise AttributeError(f"module 'remem.cli' has no attribute {name!r}")


def _app() -> typer.Typer:
    app = globals().get("app")  # a test may have put a built command here
    # Importing the submodule remem.cli.app (as a command module or a test may) binds the name
    # to that module, not to its Typer app: then the app is the module's.
    if app is None or isinstance(app, ModuleType):
        app = __getattr__("app")
    return app


def main() -> None:
    """The console script: a library error becomes one line and its exit code."""
    args = hoist_global_options(sys.argv[1:])
    if args == ["--version"]:  # answered before typer and the commands are imported
        from remem import __version__

        print(f"remem {__version__}")
        return
    from remem.cli import help_text

    if help_text.can_answer(args):  # typer's own text, kept: see help_text
        sys.stdout.write(help_text.kept())
        return
    from remem.cli.common import err
    from remem.cli.exits import INTERRUPTED, code_for
    from remem.errors import RememError

    try:
        _app()(args=args)
    except RememError as exc:  # one line, and the code of the table in cli/exits.py
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(code_for(exc))
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(INTERRUPTED)
    except BrokenPipeError:
        os._exit(0)


def run() -> None:
    """The console script: ``main()``, then an exit that skips the interpreter's final garbage
    collection (~0.2 s over the library's objects: a fifth of a small `remem search`).
    Finalizers, atexit handlers and flushing still run; the memory goes back to the OS anyway.
    Not for callers that stay alive afterwards: frozen objects are never collected."""
    try:
        main()
    finally:
        gc.freeze()
