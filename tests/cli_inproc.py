"""The ``remem`` command run inside the test process, answered as a finished subprocess.

A ``remem`` subprocess pays Python's start, the library's imports (the facts rules compile
~2.5 s of regular expressions) and a model load before it does anything: 3-8 s a command on
the shared 2 cores, most of the suite's time once dozens of tests ran several commands each.
In the test process those costs are paid once per xdist worker, and the command runs through
the console script's own entry point (``remem.cli.main``: the global options hoisted, a
library error turned into one ``error:`` line and its exit code), with its arguments, its
environment and its stdin, so what a test reads is what a user's shell would show.

What only a real process shows stays in subprocess tests: the installed entry point
(``tests/integration/test_cli_entry.py``), signals, crashes, concurrent processes and servers.
"""

from __future__ import annotations

import subprocess
import sys
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

import click
from click.testing import CliRunner


class ConsoleScript(click.Command):
    """``remem.cli.main`` (the console script: library errors become one line and an exit
    code) as a command CliRunner can invoke."""

    def __init__(self) -> None:
        super().__init__("remem")

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:
        from remem.cli import main

        sys.argv = ["remem", *(args or ())]
        main()
        return sys.exit(0)


def _fresh_consoles() -> None:
    """The command's stdout and stderr consoles made anew, as in a new process: rich reads
    COLUMNS and the terminal when a console is made, and the CLI makes its two once."""
    from remem.cli import common

    for console in (common.out, common.err):
        console._console = None


def remem(
    args: Sequence[str],
    *,
    env: Mapping[str, str | None] | None = None,
    stdin: str | bytes | None = None,
) -> subprocess.CompletedProcess[str]:
    """``remem ARGS`` in this process with ``env`` added to the environment (a None value
    removes a variable) and ``stdin`` as its input; its exit code, stdout and stderr. An
    exception the entry point lets through is what the interpreter would print: its traceback
    on stderr and exit code 1."""
    argv = [str(a) for a in args]
    _fresh_consoles()
    result = CliRunner().invoke(ConsoleScript(), argv, input=stdin, env=dict(env or {}))
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
        code = 1
    return subprocess.CompletedProcess(["remem", *argv], code, result.stdout, stderr)
