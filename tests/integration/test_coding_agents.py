"""The coding-agent set-ups shipped in integrations/coding-agents/: the hook script run as
Claude Code and Codex CLI run it, against a real store in a temp folder, and the MCP /
hook configuration files (they parse, and name commands that exist)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from remem import Config, Memory

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "integrations" / "coding-agents"
HOOK = SHIPPED / "remem_hook.py"


def hook(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HOOK), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    return {
        **environment,
        "REMEM_DB": str(tmp_path / "agents.db"),
        "REMEM_EMBED__PROVIDER": "none",
        "REMEM_BIN": f"{sys.executable} -m remem.cli",
        "CODEX_HOME": str(tmp_path / "codex"),
    }


def claude_transcript(path: Path, session: str) -> None:
    lines = [
        ("user", "We decided to keep the public API frozen until version 2."),
        ("assistant", "Agreed: no public API changes before 2.0."),
        ("user", "I prefer small pull requests with one purpose each."),
    ]
    path.write_text(
        "".join(
            json.dumps(
                {
                    "type": role,
                    "sessionId": session,
                    "cwd": "/home/dev/my project",
                    "timestamp": "2026-05-01T10:00:00Z",
                    "message": {"role": role, "content": text},
                }
            )
            + "\n"
            for role, text in lines
        )
    )


def test_session_end_saves_and_the_next_start_loads_the_handoff(tmp_path, env):
    transcript = tmp_path / "cc-1.jsonl"
    claude_transcript(transcript, "cc-1")
    empty = hook(env, "start", stdin=json.dumps({"cwd": "/home/dev/my project"}))
    assert (empty.returncode, empty.stdout) == (0, "")  # nothing yet, and no error

    given = {
        "session_id": "cc-1",
        "transcript_path": str(transcript),
        "cwd": "/home/dev/my project",
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    ended = hook(env, "end", stdin=json.dumps(given))
    assert ended.returncode == 0
    assert "archived 3 messages, captured 2 memories, 1 session summaries" in ended.stderr

    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(env["REMEM_DB"], config) as mem:
        memories = mem.list({"kind": "memory"})
    assert {m.scope for m in memories} == {"agent:code-my-project"}  # one agent per project
    assert any(m.text.startswith("Summary of session cc-1") for m in memories)

    started = hook(env, "start", stdin=json.dumps({"cwd": "/home/dev/my project"}))
    assert started.returncode == 0, started.stderr
    handoff = started.stdout
    assert handoff.startswith("<remem-handoff>")
    assert "Last session: cc-1 (2026-05-01):" in handoff
    assert "- [preference] I prefer small pull requests with one purpose each." in handoff
    other = hook(env, "start", "--cwd", "/home/dev/another")  # another project's agent
    assert other.stdout == ""

    again = hook(env, "end", stdin=json.dumps(given))  # a second end: nothing new
    assert "archived 0 messages, captured 0 memories, 0 session summaries" in again.stderr


def test_hook_failures_never_break_the_session(tmp_path, env):
    missing = hook(env, "end", "--transcript", str(tmp_path / "gone.jsonl"))
    assert missing.returncode == 0
    assert "no session log to distill" in missing.stderr
    broken = hook({**env, "REMEM_AGENT": "not an agent!"}, "start")
    assert broken.returncode == 0
    assert broken.stdout == ""
    assert "no handoff" in broken.stderr and "agent" in broken.stderr


def test_codex_notify_distills_the_rollout_logs(tmp_path, env):
    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "01"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-05-01T10-00-00-abc.jsonl"
    entries = [
        {"type": "session_meta", "payload": {"id": "abc", "cwd": "/w/svc"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>x"}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Our CI runs on Buildkite."}],
            },
        },
        {"type": "event_msg", "payload": {"type": "user_message", "message": "Our CI runs"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Buildkite, noted."}],
            },
        },
    ]
    rollout.write_text("".join(json.dumps(e) + "\n" for e in entries))
    payload = json.dumps({"type": "agent-turn-complete", "cwd": "/w/svc", "turn-id": "1"})
    done = hook(env, "codex-notify", payload)
    assert done.returncode == 0, done.stderr
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(env["REMEM_DB"], config) as mem:
        texts = sorted(r.text for r in mem.list({"kind": "message"}))
        sessions = {r.session for r in mem.list({"kind": "message"})}
    assert texts == ["Buildkite, noted.", "Our CI runs on Buildkite."]
    assert sessions == {rollout.stem}


def test_shipped_configurations_parse_and_name_real_commands():
    claude = json.loads((SHIPPED / "claude-code-settings.json").read_text())
    commands = [
        h["command"]
        for event in claude["hooks"].values()
        for group in event
        for h in group["hooks"]
    ]
    assert {c.split()[-1] for c in commands} == {"start", "end"}
    for name in ("claude-code-mcp.json", "cursor-mcp.json"):
        server = json.loads((SHIPPED / name).read_text())["mcpServers"]["remem"]
        assert server["command"] == "remem" and server["args"][0] == "mcp"
    codex = tomllib.loads((SHIPPED / "codex-config.toml").read_text())
    assert codex["notify"][-1] == "codex-notify"
    assert codex["mcp_servers"]["remem"]["args"][0] == "mcp"
    help_text = subprocess.run(
        [sys.executable, "-m", "remem.cli", "mcp", "--help"], capture_output=True, text=True
    ).stdout
    for option in ("--agent", "--session"):
        assert option in help_text
