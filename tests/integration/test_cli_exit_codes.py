"""Issue 44 item 15: one exit-code table for the whole command line (``remem.cli.exits``,
shown in the README's "Command line" section), checked against every command through the
console script's entry point (in the test process, tests/cli_inproc.py; test_cli_entry.py
checks a real process exits with the same codes) for the four failures a script must tell apart: a usage error, bad input, a
thing not found, a store error. A command added without a row here fails the test."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import typer.main
from test_cli import run

from remem.cli.app import app
from remem.cli.exits import BAD_INPUT, NOT_FOUND, STORE_ERROR, TABLE
from remem.store import SQLiteStore

REPO = Path(__file__).resolve().parents[2]

# Per command: (bad input, not found, store error) arguments after the command's name; None
# where the failure cannot happen (the reason beside it). Paths: {db} an empty store, {junk} a
# file that is not a database, {missing} a path that does not exist, {bad} a JSONL file with
# an invalid line, {good} a valid one, {dir} a directory.
A = "--agent", "bot"
CASES: dict[str, tuple[list[str] | None, list[str] | None, list[str] | None]] = {
    "add": (["  "], None, ["x"]),  # a write creates its database: nothing to be missing
    "ingest": (["{bad}"], None, ["{good}"]),
    "search": (["x", "-k", "0"], ["x", "--db", "{missing}"], ["x"]),
    "list": (["--limit", "-1"], ["--db", "{missing}"], []),
    "get": (["x", "--db", "{dir}"], ["missing-id"], ["missing-id"]),
    "delete": (["x", "--db", "{dir}"], ["missing-id-123"], ["missing-id-123"]),
    "delete-bulk": ([], None, ["--session", "s1"]),  # no filter: refused
    "clear": (["-t", "nope"], None, ["-t", "vector", "--yes"]),
    "stats": (["--db", "{dir}"], ["--db", "{missing}"], []),
    "embed": (["--batch-size", "0"], None, []),
    "index": (["--db", "{dir}"], ["--db", "{missing}"], []),
    "doctor": (["--db", "{dir}"], ["--db", "{missing}"], []),
    "reembed": (["--model", "nope"], None, None),  # lexical here: refused before the store
    "bench": (["{missing}"], None, None),  # scores a dataset in a store of its own
    "migrate": (["sideways"], None, None),  # reads its source before the store
    "distill": (["{missing}", "--no-capture"], None, ["{good}", "--no-capture"]),  # a missing log
    "export": (["--kind", "thing"], ["--db", "{missing}"], []),
    "import": (["{bad}"], None, ["{good}"]),
    "copy": (["{db}", "{db}"], ["{missing}", "{out}"], ["{junk}", "{out}"]),
    "mcp": (["--http", "nowhere"], None, None),  # serves until stopped: no one-shot failure
    "serve": (["--port", "99999"], None, None),
    "proxy": (["--upstream", "nope", *A], None, None),
    "demo": (["--db", "{dir}"], None, ["--db", "{junk}"]),
    "memory recall": (["x"], None, ["x", *A]),  # no agent: bad input
    "memory store": (["x"], None, ["x", *A]),
    "memory forget": ([*A], ["missing", *A], ["m", *A]),  # neither id nor description
    "memory list": ([], None, [*A]),
    "memory stats": ([], None, [*A]),
    "memory inject": (["x"], None, ["x", *A]),
    "memory capture": (["x", "--role", "boss", *A], None, ["I live in Paris.", *A]),
    "memory history": (["m"], ["missing", *A], ["missing", *A]),
    "memory undo": (["m"], ["missing", *A], ["missing", *A]),
    "memory handoff": ([], None, [*A]),  # no agent: bad input; nothing yet prints nothing
    "facts show": (["--at", "someday"], ["--db", "{missing}"], []),
    "facts rebuild": (["--db", "{dir}"], ["--db", "{missing}"], []),
    "facts correct": (["Tom", "lives_at", "Paris"], None, ["Tom", "lives_in", "Paris"]),
    "config show": (["--config", "{badcfg}"], None, None),  # reads no store
    "config validate": (["{missing}"], None, None),  # a missing input file is bad input
    "postgres start": (["{good}"], None, None),  # a file, not a directory
    "postgres stop": (None, ["{dir}"], None),  # any path: "no server is running there"
}


def leaf_commands() -> list[str]:
    group = typer.main.get_command(app)
    ctx = click.Context(group)
    found: list[str] = []

    def walk(cmd, prefix: list[str]) -> None:
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*prefix, name])
        else:
            found.append(" ".join(prefix))

    walk(group, [])
    return found


def test_every_command_has_a_row():
    assert sorted(leaf_commands()) == sorted(CASES)


def test_the_operating_guide_shows_the_table():
    page = (REPO / "docs" / "guides" / "operating.md").read_text()
    section = page[
        page.index("## The command line") : page.index(
            "\n## ", page.index("## The command line") + 5
        )
    ]
    for code in TABLE:
        assert re.search(rf"^\| {code} \|", section, re.M), code


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    db = tmp_path / "empty.db"
    SQLiteStore(db).close()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 200)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hi", "role": "boss"}\n')
    good = tmp_path / "good.jsonl"
    good.write_text('{"text": "I live in Paris", "session": "s1"}\n')
    badcfg = tmp_path / "bad.toml"
    badcfg.write_text("[embed]\nbatch_size = 'lots'\n")
    (tmp_path / "dir").mkdir()
    return {
        "db": str(db),
        "junk": str(junk),
        "bad": str(bad),
        "good": str(good),
        "badcfg": str(badcfg),
        "dir": str(tmp_path / "dir"),
        "missing": str(tmp_path / "missing.db"),
        "out": str(tmp_path / "out.db"),
    }


def check(command: str, args: list[str], files: dict[str, str], db: str, code: int) -> None:
    filled = [a.format(**files) for a in args]
    proc = run([*command.split(), *filled], db, lexical=True)
    assert proc.returncode == code, (command, filled, proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.strip(), (command, filled)  # says why on stderr


@pytest.mark.parametrize("command", sorted(CASES))
def test_the_command_follows_the_table(command, files):
    bad, missing, store = CASES[command]
    check(command, ["--no-such-option"], files, files["db"], BAD_INPUT)  # usage error
    if bad is not None:
        check(command, bad, files, files["db"], BAD_INPUT)
    if missing is not None:
        check(command, missing, files, files["db"], NOT_FOUND)
    if store is not None:
        check(command, store, files, files["junk"], STORE_ERROR)
