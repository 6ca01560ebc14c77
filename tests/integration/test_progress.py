"""Progress on long commands (issue 12): on a terminal a bar with count, rate and time left;
piped or with --json, nothing on stderr but real messages.

The terminal cases run the real CLI in a pseudo-terminal, which is what makes rich draw."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
import time

from rich.console import Console
from test_cli import run

from remem.cli.progress import counting

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_bar_shows_count_rate_and_time_left():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with counting("embedding", 40, console=console, quiet=False) as advance:
        for _ in range(4):
            time.sleep(0.05)
            advance(10)
    shown = ANSI.sub("", buffer.getvalue())
    assert "embedding" in shown and "40/40" in shown
    rate = re.search(r"([\d,.]+)/s", shown)
    assert rate and 20 <= float(rate.group(1).replace(",", "")) <= 400, shown
    assert "0:00:00" in shown  # time left, at the end


def test_no_bar_off_a_terminal_or_when_quiet():
    for console, quiet in (
        (Console(file=io.StringIO(), force_terminal=False), False),
        (Console(file=io.StringIO(), force_terminal=True), True),
    ):
        with counting("embedding", 10, console=console, quiet=quiet) as advance:
            advance(10)
        assert console.file.getvalue() == ""


def in_terminal(args, env_extra, timeout=120):
    """Run `remem args` with stdout and stderr on a pseudo-terminal; what it drew."""
    main, child = pty.openpty()
    env = {**os.environ, **env_extra, "TERM": "xterm", "COLUMNS": "140"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=child,
        stderr=child,
        env=env,
    )
    os.close(child)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.wait(timeout=30) == 0, b"".join(chunks).decode(errors="replace")
    return ANSI.sub("", b"".join(chunks).decode(errors="replace"))


def write_lines(path, n):
    path.write_text(
        "".join(json.dumps({"text": f"line {i} of the walk in the park"}) + "\n" for i in range(n))
    )


def test_ingest_draws_a_bar_on_a_terminal_and_nothing_when_piped(tmp_path):
    lines = tmp_path / "in.jsonl"
    write_lines(lines, 300)
    lexical = {"REMEM_EMBED__PROVIDER": "none"}
    shown = in_terminal(
        ["ingest", str(lines), "--no-embed"], {**lexical, "REMEM_DB": str(tmp_path / "a.db")}
    )
    assert re.search(r"storing .*300/300 .*[\d.,]+/s", shown), shown
    assert "ingested 300 records" in shown

    piped = run(["ingest", str(lines), "--no-embed"], tmp_path / "b.db", lexical=True)
    assert piped.returncode == 0 and piped.stderr == ""
    as_json = run(["ingest", str(lines), "--no-embed", "--json"], tmp_path / "c.db", lexical=True)
    assert json.loads(as_json.stdout)["ingested"] == 300 and as_json.stderr == ""


def small_dataset(folder, conversations=3, turns=40):
    folder.mkdir()
    corpus, queries = [], []
    for c in range(conversations):
        for t in range(turns):
            corpus.append(
                {
                    "id": f"c{c}-t{t}",
                    "conversation": f"c{c}",
                    "session": f"c{c}-s{t // 10}",
                    "timestamp": 1_700_000_000 + t * 60,
                    "speaker": "Ann" if t % 2 else "Bob",
                    "role": "user" if t % 2 else "assistant",
                    "text": f"turn {t} of conversation {c}: topic word{t}",
                }
            )
        queries.append(
            {
                "qid": f"q{c}",
                "conversation": f"c{c}",
                "query": "topic word7",
                "timestamp": 1_700_100_000,
                "gold": [f"c{c}-t7"],
                "gold_sessions": [f"c{c}-s0"],
                "category": "single",
                "answer": "",
            }
        )
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_bench_shows_its_ingest_on_a_terminal_and_prints_only_json_when_asked(tmp_path):
    data = small_dataset(tmp_path / "ds")
    lexical = {"REMEM_EMBED__PROVIDER": "none"}
    shown = in_terminal(["bench", str(data), "--channels", "lexical"], lexical)
    assert re.search(r"ingesting .*120/120", shown), shown
    assert re.search(r"queries .*3/3", shown), shown

    piped = run(["bench", str(data), "--channels", "lexical", "--json"], lexical=True)
    assert piped.returncode == 0 and piped.stderr == ""
    assert json.loads(piped.stdout)["n_queries"] == 3
