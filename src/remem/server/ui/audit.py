"""The audit log of the web UI: every change made through it (edit, undo, delete, bulk delete,
backfill) is logged to the ``remem.ui.audit`` logger and appended as one JSON line to a file,
so it survives restarts and can be read with any tool. The file holds who (agent, or
``operator``), what, which ids and when; never record text.

Where the file is (``audit_path``): beside a SQLite database (``<db>.audit.jsonl``); for a
store without a file of its own (PostgreSQL) in the directory of ``store.path`` (by default
remem's data directory, e.g. ``~/.local/share/remem``), under ``ui-audit/``, named after the
store's server, database and schema. An in-memory store keeps its audit log in memory, as it
keeps everything else.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from remem.engine import Memory

log = logging.getLogger("remem.ui.audit")

OPERATOR = "operator"  # who acted when no tokens are configured and scopes.agent is unset
IN_MEMORY_ENTRIES = 1000  # what an in-memory audit log keeps


def audit_path(mem: Memory) -> Path | None:
    """The audit file of this memory's store (None: kept in memory)."""
    if mem.path is not None:
        return Path(f"{mem.path}.audit.jsonl")
    size = mem.store.storage_size()
    if size.measure == "memory":
        return None
    # the location names server, database and schema (last), never a password; a long one
    # keeps its end, and the digest keeps two stores apart whatever their names shorten to
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", size.location)[-120:].strip("-.")
    digest = hashlib.sha256(size.location.encode()).hexdigest()[:12]
    folder = mem.config.store.resolved_path().parent / "ui-audit"
    return folder / f"{name}-{digest}.audit.jsonl"


class AuditLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._kept: deque[dict[str, Any]] = deque(maxlen=IN_MEMORY_ENTRIES)  # without a file

    def record(
        self, agent: str | None, action: str, ids: list[str] | None = None, **detail: Any
    ) -> dict[str, Any]:
        entry = {
            "time": time.time(),
            "agent": agent or OPERATOR,
            "action": action,
            "ids": list(ids or []),
            **detail,
        }
        line = json.dumps(entry, ensure_ascii=False, sort_keys=True)
        log.info("%s", line)
        with self._lock:
            if self.path is None:
                self._kept.append(json.loads(line))
                return entry
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()
                os.fsync(fh.fileno())  # an audit entry that can vanish in a crash is worth little
        return entry

    def recent(self, agent: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The newest entries, newest first; only ``agent``'s when given."""
        kept: deque[dict[str, Any]] = deque(maxlen=limit)
        for entry in self._entries():
            if agent is None or entry.get("agent") == agent:
                kept.append(entry)
        return list(reversed(kept))

    def _entries(self) -> list[dict[str, Any]]:
        with self._lock:
            if self.path is None:
                return list(self._kept)
            if not self.path.exists():
                return []
            entries = []
            with self.path.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        entries.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue  # a torn last line after a crash
            return entries
