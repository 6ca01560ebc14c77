"""`remem distill`: coding-agent session logs archived incrementally, each line once, on a
real SQLite file (a growing log, a kill mid-file, malformed lines, truncated and rotated
files, --watch stopped by Ctrl-C). The kill and Ctrl-C are sent to real subprocesses; the
other runs go through the console script's entry point in the test process
(tests/cli_inproc.py)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cli_inproc import remem
from remem import Config, Memory
from remem.transfer.distill import Cursor, distill_file, load_cursor, save_cursor

LEXICAL = {"REMEM_EMBED__PROVIDER": "none"}


def cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return remem(["distill", *args], env={**LEXICAL, "REMEM_DB": str(db)})


def claude_line(role: str, text: str, session: str = "cc-session-1", **extra) -> str:
    """One Claude Code session-log line (the shape of ~/.claude/projects/*/*.jsonl)."""
    entry = {
        "parentUuid": None,
        "isSidechain": False,
        "type": role,
        "sessionId": session,
        "cwd": "/home/dev/project",
        "timestamp": "2026-05-01T10:00:00.000Z",
        "uuid": f"u-{abs(hash(text))}",
        "message": {"role": role, "content": text},
        **extra,
    }
    return json.dumps(entry) + "\n"


def openclaw_lines() -> str:
    """An OpenClaw session (~/.openclaw/agents/<agent>/sessions/<session>.jsonl)."""
    entries = [
        {"type": "session", "version": 3, "id": "oc-7", "timestamp": "2026-05-02T09:00:00Z"},
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2026-05-02T09:00:01Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "My favourite editor is Helix."}],
                "timestamp": 1777712401000,
            },
        },
        {
            "type": "message",
            "id": "m2",
            "timestamp": "2026-05-02T09:00:02Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Noted: Helix."},
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
                ],
            },
        },
        {
            "type": "message",
            "id": "m3",
            "message": {"role": "toolResult", "content": [{"type": "text", "text": "file"}]},
        },
    ]
    return "".join(json.dumps(e) + "\n" for e in entries)


def messages(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT id, text FROM records WHERE kind = 'message'").fetchall()
    return sorted(rows)


def memory_texts(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT text FROM records WHERE kind = 'memory'").fetchall()
    return sorted(r[0] for r in rows)


def open_lexical(db: Path) -> Memory:
    return Memory(db, Config.load(env={}, overrides={"embed.provider": "none"}))


def test_a_growing_log_archives_each_line_once(tmp_path):
    db, log = tmp_path / "m.db", tmp_path / "session.jsonl"
    log.write_text(
        claude_line("user", "We decided to deploy the billing service on Fridays.")
        + claude_line("assistant", "Understood.")
        # tool traffic and bookkeeping are not conversation
        + json.dumps({"type": "summary", "summary": "Billing", "leafUuid": "x"})
        + "\n"
        + claude_line("user", "", message={"role": "user", "content": [{"type": "tool_result"}]})
        + claude_line("user", "Caveat: local command output", isMeta=True)
        + '{"type": "user", "sessionId": "cc-session-1", "message": {"role": "user", "con'
    )  # a last line still being written
    first = cli(db, str(log), "--agent", "coder", "--json")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert (summary["lines"], summary["archived"], summary["errors"]) == (5, 2, [])
    assert sorted(t for _, t in messages(db)) == [
        "Understood.",
        "We decided to deploy the billing service on Fridays.",
    ]
    assert memory_texts(db) == ["We decided to deploy the billing service on Fridays."]

    with log.open("a") as f:  # the partial line is finished, and more is said
        f.write('tent": "I prefer tabs over spaces in Go code."}}\n')
        f.write(claude_line("assistant", "Tabs it is, as gofmt does."))
    second = cli(db, str(log), "--agent", "coder", "--json")
    assert json.loads(second.stdout)["archived"] == 2, second.stderr
    third = cli(db, str(log), "--agent", "coder", "--json")
    assert json.loads(third.stdout)["archived"] == 0
    texts = [t for _, t in messages(db)]
    assert len(texts) == 4 == len(set(texts))
    assert "I prefer tabs over spaces in Go code." in texts
    assert len(memory_texts(db)) == 2


def test_a_run_killed_mid_file_is_resumed_without_archiving_a_line_twice(tmp_path):
    db, log = tmp_path / "m.db", tmp_path / "long.jsonl"
    total = 1500  # three batches of 500 lines
    with log.open("w") as f:
        for i in range(total):
            role = "user" if i % 2 == 0 else "assistant"
            f.write(claude_line(role, f"Line {i}: I prefer build tool number {i}."))
    env = {**os.environ, **LEXICAL, "REMEM_DB": str(db)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", "distill", str(log), "--agent", "coder"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 240
        while _cursor_offset(db, log) == 0:  # the first batch is archived and its cursor saved
            assert proc.poll() is None, "distill finished before it could be killed"
            assert time.time() < deadline
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(30)
    archived_before = len(messages(db))
    assert 0 < archived_before < total  # killed mid-file

    rerun = cli(db, str(log), "--agent", "coder", "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["archived"] == total - archived_before
    rows = messages(db)
    assert len(rows) == total
    assert len({t for _, t in rows}) == total
    memories = memory_texts(db)
    assert len(memories) == len(set(memories)) == total // 2


def _cursor_offset(db: Path, log: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            row = con.execute(
                "SELECT value FROM meta WHERE namespace = 'distill' AND key = ?",
                (str(log.resolve()),),
            ).fetchone()
    except sqlite3.OperationalError:  # the schema is not made yet, or a write holds it
        return 0
    return json.loads(row[0])["offset"] if row else 0


def test_a_crash_between_archiving_and_the_cursor_archives_and_captures_nothing_twice(tmp_path):
    log = tmp_path / "s.jsonl"
    log.write_text(
        claude_line("user", "I prefer dark mode in every editor.")
        + claude_line("assistant", "Dark mode noted.")
    )
    with open_lexical(tmp_path / "m.db") as mem:
        done = distill_file(mem, log, agent="coder")
        assert (done.archived, done.captured) == (2, 1)
        kept = load_cursor(mem, log)
        # the cursor save of that batch was lost: the next run reads the batch again
        save_cursor(mem, log, Cursor(inode=kept.inode, generation=kept.generation))
        again = distill_file(mem, log, agent="coder")
        assert (again.lines, again.archived, again.captured) == (2, 0, 0)
        assert mem.count({"kind": "message"}) == 2
        assert mem.count({"kind": "memory"}) == 1


def test_a_malformed_line_is_reported_with_its_file_and_line_and_skipped(tmp_path):
    db, log = tmp_path / "m.db", tmp_path / "bad.jsonl"
    log.write_text(
        claude_line("user", "The staging database is called orca.")
        + "{not json\n"
        + '["a list"]\n'
        + json.dumps({"hello": "world"})
        + "\n"
        + claude_line("user", "A time nobody can read.", timestamp="yesterday-ish")
        + claude_line("user", "The production database is called whale.")
    )
    proc = cli(db, str(log), "--no-capture")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 4
    assert warnings[0].startswith(f"warning: {log}:2: not JSON")
    assert f"{log}:3: a log line must be a JSON object" in warnings[1]
    assert f"{log}:4: " in warnings[2]
    assert "line skipped" in warnings[2]
    assert f"{log}:5: " in warnings[3] and "created_at" in warnings[3]  # the store's refusal
    assert len(messages(db)) == 2
    assert memory_texts(db) == []  # --no-capture
    again = cli(db, str(log), "--no-capture")
    assert "warning" not in again.stderr  # a skipped line is never read again


def test_truncated_and_rotated_logs_start_over(tmp_path):
    db, log = tmp_path / "m.db", tmp_path / "oc-7.jsonl"
    log.write_text(openclaw_lines())
    first = json.loads(cli(db, str(tmp_path), "--agent", "coder", "--json").stdout)
    assert first["archived"] == 2  # a folder: every *.jsonl under it
    rows = {t: i for i, t in messages(db)}
    assert set(rows) == {"My favourite editor is Helix.", "Noted: Helix."}
    with open_lexical(db) as mem:
        record = mem.get(rows["Noted: Helix."])
        assert record is not None and record.session == "oc-7"  # OpenClaw: the file's name

    log.write_text(claude_line("user", "We use pnpm, not npm."))  # truncated in place
    second = json.loads(cli(db, str(log), "--agent", "coder", "--json").stdout)
    assert (second["archived"], second["files"][0]["restarted"]) == (1, "truncated")

    rotated = tmp_path / "new.jsonl"
    rotated.write_text(claude_line("user", "We use pnpm, not npm.") + claude_line("user", "Ok."))
    os.replace(rotated, log)  # a new file (inode) under the old name
    third = json.loads(cli(db, str(log), "--agent", "coder", "--json").stdout)
    assert (third["archived"], third["files"][0]["restarted"]) == (2, "rotated")


def test_watch_archives_new_lines_until_ctrl_c(tmp_path):
    db, log = tmp_path / "m.db", tmp_path / "live.jsonl"
    log.write_text(claude_line("user", "The deploy script lives in ops/deploy.sh."))
    env = {**os.environ, **LEXICAL, "REMEM_DB": str(db)}
    watch = ["--watch", "--interval", "0.1", "--agent", "coder", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", "distill", str(log), *watch],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(lambda: len(_safe_messages(db)) == 1, proc)
        with log.open("a") as f:
            f.write(claude_line("user", "The on-call rota is in the wiki."))
        _wait_for(lambda: len(_safe_messages(db)) == 2, proc)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "stopped" in stderr
    assert "Traceback" not in stderr
    assert '"archived": 1' in stdout


def _safe_messages(db: Path) -> list[tuple[str, str]]:
    try:
        return messages(db) if db.exists() else []
    except sqlite3.OperationalError:
        return []


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "timed out"
        time.sleep(0.02)


def test_bad_arguments_stop_before_reading(tmp_path):
    db = tmp_path / "m.db"
    proc = cli(db, str(tmp_path / "nope.jsonl"), "--agent", "coder")
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr
    log = tmp_path / "s.jsonl"
    log.write_text(claude_line("user", "hello there"))
    proc = cli(db, str(log), "--agent", "bad agent!")
    assert proc.returncode == 2
    assert "agent" in proc.stderr
