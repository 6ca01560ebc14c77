"""Fuzz the ``remem`` command in process (click's CliRunner around the console script's own
entry point): commands with random arguments and option values, and JSONL on stdin. Nothing
prints a traceback and the exit code is 0, 1 or 2."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from cli_inproc import ConsoleScript
from fuzz.inputs import FUZZ, hostile_text, json_values
from remem import Config, Memory


def argv_safe(text: str) -> str:
    """A string a real command line can carry: argv is bytes decoded with surrogateescape,
    so only the surrogates U+DC80-U+DCFF can appear, never NUL."""
    out = []
    for ch in text:
        if ch == "\x00":
            continue
        if "\ud800" <= ch <= "\udfff" and not "\udc80" <= ch <= "\udcff":
            ch = "\udcff"
        out.append(ch)
    return "".join(out)


# mostly plausible values, so that commands get past parsing and into the library
arg = st.one_of(
    st.sampled_from(["r1", "m1", "s1", "global", "agent:bot", "5", "0.5", "tea", "2026-05-01"]),
    st.sampled_from(["message", "memory", "fact", "user", "vector", "1", "Berlin", "开会"]),
    hostile_text,
)
# command -> options it takes (flags have value None); positional arguments come from `arg`
COMMANDS: dict[str, tuple[int, dict[str, Any]]] = {
    "add": (1, {"--scope": arg, "--category": arg, "--importance": arg, "--id": arg}),
    "ingest -": (0, {"--kind": arg, "--skip-existing": None, "--no-embed": None}),
    "import -": (0, {"--scope": arg, "--dry-run": None}),
    "search": (
        1,
        {
            "-k": arg,
            "--kind": arg,
            "--scope": arg,
            "--session": arg,
            "--role": arg,
            "--since": arg,
            "--until": arg,
            "--now": arg,
            "--explain": None,
        },
    ),
    "list": (
        0,
        {
            "--kind": arg,
            "--scope": arg,
            "--session": arg,
            "--role": arg,
            "--category": arg,
            "--limit": arg,
            "--offset": arg,
        },
    ),
    "get": (1, {}),
    "delete": (1, {}),
    "delete-bulk": (
        0,
        {
            "--scope": arg,
            "--before": arg,
            "--category": arg,
            "--kind": arg,
            "--session": arg,
            "--dry-run": None,
        },
    ),
    "clear": (0, {"--target": arg, "--scope": arg, "--yes": None}),
    "stats": (0, {}),
    "embed": (0, {"--batch-size": arg, "--dry-run": None}),
    "export": (0, {"--scope": arg, "--kind": arg}),
    "doctor": (0, {"--fix": None}),
    "config show": (0, {}),
    "config check": (0, {}),
    "memory recall": (1, {"--scope": arg, "--limit": arg}),
    "memory store": (1, {"--scope": arg, "--category": arg, "--importance": arg}),
    "memory forget": (1, {"--query": arg, "--scope": arg}),
    "memory list": (0, {"--scope": arg, "--category": arg, "--limit": arg, "--offset": arg}),
    "memory stats": (0, {"--scope": arg}),
    "memory inject": (1, {}),
    "memory capture": (2, {"--role": arg}),
    "memory history": (1, {}),
    "memory undo": (1, {}),
}
IDENTITY = {"--agent": arg, "--session": arg, "--user": arg}
JSONL_LINES = st.one_of(
    st.builds(json.dumps, st.fixed_dictionaries({"text": hostile_text}, optional={"id": arg})),
    st.builds(json.dumps, json_values),
    st.sampled_from(
        [
            "",
            "{",
            '{"text": "\\ud800"}',
            '{"text": "a\u2028b"}',
            "[" * 100_000 + "]" * 100_000,
            '{"text": "x", "id": "abc\\n"}',
        ]
    ),
)


@st.composite
def command_lines(draw) -> tuple[list[str], bytes | None]:
    """(argv, stdin): a command, its positional arguments and some of its options in any
    order, now and then a global option after the command or an unknown option."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    positional, options = COMMANDS[name]
    if name.startswith("memory"):
        options = {**options, **IDENTITY}
    argv = name.split(" ")
    argv += [draw(arg) for _ in range(positional)]
    chosen = (
        draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)) if options else []
    )
    for option in chosen:
        argv += [option] if options[option] is None else [option, draw(options[option])]
    extra = draw(st.sampled_from([None, None, "--json", "--verbose", "--bogus", "--", "-"]))
    if extra is not None:
        argv.append(extra)
    stdin = None
    if argv[-1] == "-" or "-" in argv[:2]:
        lines = draw(st.lists(JSONL_LINES, min_size=1, max_size=4))
        stdin = "\n".join(lines).encode("utf-8", "surrogatepass")
    return [argv_safe(a) for a in argv], stdin


@pytest.fixture(scope="module")
def cli_env(fast_dir):
    """The environment the commands run in: a seeded store, lexical only (no model load).

    ``remem.cli.main`` calls the Typer app, which builds its click command anew on every call
    (0.1-0.7 s: fine once per process, too slow thousands of times); here the app is that
    same command, built once."""
    import typer

    import remem.cli

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(remem.cli, "app", typer.main.get_command(remem.cli._app()))
        yield _seeded_env(fast_dir)


def _seeded_env(fast_dir) -> dict[str, str]:
    db = fast_dir / "cli.db"
    config = Config.load(
        env={}, overrides={"store.path": str(db), "embed.provider": "none", "scopes.agent": "bot"}
    )
    with Memory(config=config) as mem:
        mem.ingest_many(
            [
                {"id": "r1", "text": "Bob moved to Berlin", "session": "s1"},
                {"id": "r2", "text": "我们下周三开会", "session": "s1"},
            ]
        )
        mem.add("I like green tea", id="m1", scope="agent:bot")
    return {"REMEM_DB": str(db), "REMEM_EMBED__PROVIDER": "none", "REMEM_SCOPES__AGENT": "bot"}


@FUZZ
@given(command_lines())
def test_cli_never_prints_a_traceback(cli_env, generated):
    argv, stdin = generated
    result = CliRunner().invoke(ConsoleScript(), argv, input=stdin, env=cli_env)
    output = result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        argv,
        repr(result.exception),
    )
    assert "Traceback" not in output, (argv, output[-2000:])
    assert result.exit_code in (0, 1, 2), (argv, result.exit_code, output[-2000:])
