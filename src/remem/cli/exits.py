"""The exit codes of every ``remem`` command: one table, shown in the README's "Command line"
section and checked against every command by tests/integration/test_cli_exit_codes.py.

Scripts can tell apart what they should fix (2: the command line or the input), what simply
is not there (1) and what is wrong with the store itself (3: open it, unlock it or repair it,
then run the same command again).
"""

from __future__ import annotations

DONE = 0
NOT_FOUND = 1  # also "not done": a check that found problems, a refused confirmation
BAD_INPUT = 2  # a usage error (click's own) or bad input: a value, a file, a line
STORE_ERROR = 3
INTERRUPTED = 130

TABLE: dict[int, str] = {
    DONE: "done",
    NOT_FOUND: "not found (a record or memory id, a database a reading command was pointed "
    "at, a server that is not running) or not done (a check found problems, a copy differs, "
    "a confirmation was refused, a memory was refused as noise, records failed to embed)",
    BAD_INPUT: "usage error (an unknown command or option, a missing argument) or bad input "
    "(an invalid value or setting, an input file that is missing or has invalid lines: "
    "nothing is written, except by `import --skip-invalid`)",
    STORE_ERROR: "store error: the database cannot be opened or used (not a remem database, "
    "damaged, locked by another process past the busy timeout, a server that refuses)",
    INTERRUPTED: "interrupted (Ctrl-C)",
}


def code_for(exc: BaseException) -> int:
    """The exit code of a library error that reached the command line."""
    from remem.errors import NotFoundError, StoreError
    from remem.tools import ToolError

    if isinstance(exc, ToolError) and exc.cause is not None:
        exc = exc.cause  # a tool's answer wraps the library's error: the same code
    if isinstance(exc, NotFoundError):
        return NOT_FOUND
    if isinstance(exc, StoreError):
        return STORE_ERROR
    return BAD_INPUT
