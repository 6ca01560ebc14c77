"""The chat messages in one line of a coding agent's session log (JSONL).

Three shapes are read, and a plain ``{"role", "content"}`` line:

- Claude Code (``~/.claude/projects/<project>/<session>.jsonl``): ``{"type": "user" |
  "assistant", "sessionId", "timestamp", "cwd", "message": {"role", "content"}}`` where
  ``content`` is a string or a list of blocks (``text``, ``tool_use``, ``tool_result``,
  ``thinking``); ``summary``, ``system`` and snapshot lines carry no conversation.
- OpenClaw (``~/.openclaw/agents/<agent>/sessions/<session>.jsonl``): a ``{"type":
  "session", "id"}`` header, then ``{"type": "message", "timestamp", "message": {"role",
  "content"}}`` entries whose role may be ``toolResult``.
- Codex CLI (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): ``{"type": "response_item",
  "payload": {"type": "message", "role", "content": [{"type": "input_text" | "output_text"}]}}``
  (its ``event_msg`` lines repeat the same messages and are skipped).

Only what people and the model said is kept: tool calls, tool results, thinking and the
host's meta lines are noise for memory (a file listing is not a fact about the user).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ROLES = {"user": "user", "assistant": "assistant", "human": "user", "ai": "assistant"}
# Lines of these types never hold a message (Claude Code and OpenClaw bookkeeping).
NOT_MESSAGES = {
    "summary",
    "system",
    "session",
    "file-history-snapshot",
    "model_change",
    "session_state",
    "thinking_level_change",
    "custom",
    "compaction",
    "session_meta",
    "turn_context",
    "event_msg",
}
TEXT_BLOCKS = {"text", "input_text", "output_text"}
# Text a host puts in the user's turn (environment, slash-command echoes), not the user's words.
HOST_TEXT = ("<environment_context>", "<user_instructions>", "<command-", "<local-command-")


@dataclass
class LogMessage:
    role: str
    text: str
    session: str | None
    timestamp: str | float | None
    cwd: str | None


class BadLine(ValueError):
    """A line that is JSON but not a log entry this reader knows (the message says why)."""


def text_of(content: Any) -> str:
    """The text blocks of a message's content, joined; tool and thinking blocks are left out."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadLine("message.content is neither text nor a list of content blocks")
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif (
            isinstance(block, dict)
            and block.get("type") in TEXT_BLOCKS
            and isinstance(block.get("text"), str)
        ):
            parts.append(block["text"])
    return "\n".join(p for p in parts if p.strip())


def message_of(entry: Any) -> LogMessage | None:
    """The chat message in one parsed log line, or None for a line that is not conversation
    (tool traffic, bookkeeping, an empty text). Raises BadLine for a line of no known shape."""
    if not isinstance(entry, dict):
        raise BadLine("a log line must be a JSON object")
    kind = entry.get("type")
    if kind in NOT_MESSAGES or entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    inner = entry.get("message")
    if kind == "response_item":  # Codex: the message is the payload
        inner = entry.get("payload")
        if not isinstance(inner, dict) or inner.get("type") != "message":
            return None  # reasoning, function calls and their output
    if isinstance(inner, dict):
        role = inner.get("role", kind)
        content = inner.get("content")
    elif "role" in entry and ("content" in entry or "text" in entry):
        role = entry["role"]
        content = entry.get("content", entry.get("text"))
    elif isinstance(kind, str):
        return None  # an entry type this reader has no use for (a newer host's bookkeeping)
    else:
        raise BadLine("no 'message' object, no 'role' and no 'type': not a session log entry")
    if not isinstance(role, str):
        raise BadLine(f"role {role!r} is not text")
    if role not in ROLES:
        return None  # tool results, system prompts
    text = text_of(content).strip()
    if not text or text.startswith(HOST_TEXT):
        return None
    stamp = entry.get("timestamp")
    if stamp is None and isinstance(inner, dict):
        stamp = inner.get("timestamp")
    if isinstance(stamp, int | float) and stamp > 1e11:  # OpenClaw's milliseconds
        stamp = stamp / 1000
    session = entry.get("sessionId") or entry.get("session_id")
    cwd = entry.get("cwd")
    return LogMessage(
        role=ROLES[role],
        text=text,
        session=session if isinstance(session, str) else None,
        timestamp=stamp if isinstance(stamp, str | int | float) else None,
        cwd=cwd if isinstance(cwd, str) else None,
    )
