#!/usr/bin/env python3
"""Session hooks for coding agents (Claude Code, Codex CLI, any agent that writes a session
log): save a session's key decisions at its end, load a handoff at the start of the next.

It only runs `remem` commands (`remem distill`, `remem memory handoff`), so it works with any
remem store the environment names (REMEM_DB, REMEM_CONFIG) and needs nothing but Python's
standard library. A hook must never break the agent's session: every failure is one line on
stderr and exit status 0.

    remem_hook.py start [--cwd DIR]            print the handoff (SessionStart)
    remem_hook.py end [--transcript PATH]      distill the session log, store its summary
    remem_hook.py codex-notify '<json>'        Codex CLI `notify`: distill ~/.codex/sessions

Claude Code passes the hook's input as JSON on stdin (session_id, transcript_path, cwd); the
options stand in for it with other agents. Environment:

    REMEM_AGENT   the agent identity (default: "code-" + the project folder's name, so each
                  project's memories live in their own agent:<name> scope)
    REMEM_BIN     the remem command (default: "remem")
    REMEM_USER    the user the memories are about (optional)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

TIMEOUT_S = 600  # a long session's first distill embeds thousands of lines


def hook_input(stdin: bool) -> dict:
    """The JSON object the agent gave on stdin ({} when there is none or it is not JSON)."""
    if not stdin or sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def agent_for(cwd: str | None) -> str:
    """REMEM_AGENT, else one identity per project folder (remem agent names: 1-100 of
    letters, digits, '_', '-', '.', '@')."""
    if os.environ.get("REMEM_AGENT"):
        return os.environ["REMEM_AGENT"]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(cwd or os.getcwd()).name).strip("-.")
    return f"code-{name or 'project'}"[:100]


def remem(*args: str) -> subprocess.CompletedProcess:
    command = [*shlex.split(os.environ.get("REMEM_BIN", "remem")), *args]
    if os.environ.get("REMEM_USER"):
        command += ["--user", os.environ["REMEM_USER"]]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)


def start(cwd: str | None) -> int:
    done = remem("memory", "handoff", "--agent", agent_for(cwd))
    if done.returncode != 0:
        print(f"remem hook: no handoff ({done.stderr.strip()})", file=sys.stderr)
        return 0
    sys.stdout.write(done.stdout)  # SessionStart: the agent adds this to its context
    return 0


def end(transcript: str | None, cwd: str | None) -> int:
    if not transcript or not Path(transcript).is_file():
        print(f"remem hook: no session log to distill ({transcript!r})", file=sys.stderr)
        return 0
    done = remem("distill", transcript, "--agent", agent_for(cwd), "--summarize", "--json")
    if done.returncode != 0:
        print(f"remem hook: distill failed ({done.stderr.strip()})", file=sys.stderr)
        return 0
    report = json.loads(done.stdout)
    print(
        f"remem: archived {report['archived']} messages, captured {report['captured']} "
        f"memories, {len(report['summaries'])} session summaries",
        file=sys.stderr,
    )
    return 0


def codex_notify(payload: str) -> int:
    """Codex CLI runs `notify` after each turn with a JSON argument: distil its session logs
    (incremental: only the new lines are read)."""
    try:
        event = json.loads(payload)
    except ValueError:
        event = {}
    if not isinstance(event, dict) or event.get("type") != "agent-turn-complete":
        return 0
    sessions = Path(os.environ.get("CODEX_HOME", Path.home() / ".codex")) / "sessions"
    if not sessions.is_dir():
        return 0
    done = remem("distill", str(sessions), "--agent", agent_for(event.get("cwd")), "--json")
    if done.returncode != 0:
        print(f"remem hook: distill failed ({done.stderr.strip()})", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="event", required=True)
    for name in ("start", "end"):
        command = sub.add_parser(name)
        command.add_argument("--cwd", help="the project folder (default: the hook's input)")
        if name == "end":
            command.add_argument("--transcript", help="the session log (default: hook input)")
    notify = sub.add_parser("codex-notify")
    notify.add_argument("payload", nargs="?", default="{}")
    args = parser.parse_args(argv)
    try:
        if args.event == "codex-notify":
            return codex_notify(args.payload)
        given = hook_input(stdin=True)
        cwd = args.cwd or given.get("cwd")
        if args.event == "start":
            return start(cwd)
        return end(args.transcript or given.get("transcript_path"), cwd)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError) as exc:
        print(f"remem hook: {exc}", file=sys.stderr)  # never break the agent's session
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
