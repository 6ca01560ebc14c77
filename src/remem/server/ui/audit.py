"""The audit log of the web UI: every change made through it (edit, undo, delete, bulk delete,
backfill) is logged to the ``remem.ui.audit`` logger and appended as one JSON line to a file
beside the database (``<db>.audit.jsonl``), so it survives restarts and can be read with any
tool. The file holds who (agent, or ``operator``), what, which ids and when; never record text.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

log = logging.getLogger("remem.ui.audit")

OPERATOR = "operator"  # who acted when no tokens are configured and scopes.agent is unset


def audit_path(db_path: Path) -> Path:
    return Path(f"{db_path}.audit.jsonl")


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

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
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())  # an audit entry that can vanish in a crash is worth little
        return entry

    def recent(self, agent: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The newest entries, newest first; only ``agent``'s when given."""
        if not self.path.exists():
            return []
        kept: deque[dict[str, Any]] = deque(maxlen=limit)
        with self._lock, self.path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line after a crash
                if agent is None or entry.get("agent") == agent:
                    kept.append(entry)
        return list(reversed(kept))
