"""``remem --help`` prints a kept copy of typer's text: it must be exactly typer's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from remem.cli import help_text


def test_the_kept_help_is_what_typer_renders_now():
    assert help_text.kept() == help_text.render(), (
        "a command or global option changed: run `make cli-help` to keep the new text"
    )


@pytest.mark.parametrize(
    ("args", "argv0", "columns", "answers"),
    [
        (["--help"], "/venv/bin/remem", "80", True),
        (["--help"], "remem", "200", True),
        (["--help"], "remem", "79", False),  # click wraps narrower: typer renders it
        (["search", "--help"], "remem", "80", False),
        (["--db", "x.db", "--help"], "remem", "80", False),
        (["--help"], "__main__.py", "80", False),  # python -m remem.cli: another prog name
    ],
)
def test_the_kept_help_answers_only_where_it_is_exact(monkeypatch, args, argv0, columns, answers):
    monkeypatch.setattr(sys, "argv", [argv0, *args])
    monkeypatch.setenv("COLUMNS", columns)
    assert help_text.can_answer(args) is answers


def test_remem_help_prints_it_without_importing_typer(tmp_path: Path):
    probe = (
        "import sys; sys.argv = ['remem', '--help']; import remem.cli; remem.cli.main(); "
        "print('typer' in sys.modules, file=sys.stderr)"
    )
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == help_text.kept()
    assert proc.stderr.strip() == "False"


def _commands(command, path=()):
    yield path, command
    if hasattr(command, "list_commands"):  # a group (typer vendors its own click classes)
        ctx = command.context_class(command)
        for name in command.list_commands(ctx):
            yield from _commands(command.get_command(ctx, name), (*path, name))


def test_no_help_text_names_a_path_of_the_developers_machine():
    """Issue 43: two one-liners of `remem --help` named "../shared/bench...", a folder beside
    the project's checkout that users do not have; help describes what a command takes."""
    import typer

    from remem.cli.app import app

    internal = [
        " ".join(path) or "remem"
        for path, command in _commands(typer.main.get_command(app))
        if "../" in (command.help or "") or "../" in (command.short_help or "")
    ]
    assert len(list(_commands(typer.main.get_command(app)))) > 30  # the walk reached them all
    assert internal == [], f"help that names a relative path of this checkout: {internal}"
    assert "../" not in help_text.kept()
