"""Sessions in the in-memory store: origin platform, parent and the effective platform."""

from __future__ import annotations

import time

from remem.store.memory.state import MemoryState, SessionRow
from remem.types import SessionInfo

MAX_CHAIN = 64  # parent links followed before a chain counts as broken


class SessionsMixin(MemoryState):
    def set_session(
        self, session: str, origin_platform: str | None = None, parent: str | None = None
    ) -> None:
        """Record a session's origin platform and/or parent (None leaves a value as it is)."""
        with self._write():
            self._upsert_session(session, origin_platform, parent)

    def _upsert_session(self, session: str, origin: str | None, parent: str | None) -> None:
        if parent == session:
            parent = None  # a session is not its own parent
        now = time.time()
        row = self._sessions.get(session)
        if row is None:
            self._sessions[session] = SessionRow(origin, parent, None, now)
        else:
            row.origin_platform = origin if origin is not None else row.origin_platform
            row.parent = parent if parent is not None else row.parent
            row.updated_at = now
        # The effective platform of this session and of every session below it.
        for sid in self._below(session):
            self._sessions[sid].platform = self._root_platform(sid)

    def _below(self, session: str) -> list[str]:
        """The session and its descendants (each once, whatever cycles the links make)."""
        children: dict[str, list[str]] = {}
        for sid, row in self._sessions.items():
            if row.parent is not None:
                children.setdefault(row.parent, []).append(sid)
        found = [session]
        seen = {session}
        for current in found:  # grows while it is walked: breadth first
            for child in children.get(current, ()):
                if child not in seen:
                    seen.add(child)
                    found.append(child)
        return found

    def _root_platform(self, session: str) -> str | None:
        """The origin platform of the session's root (the nearest one up the chain that has
        one, when the root has none); a parent cycle stops where it repeats."""
        chain: list[str | None] = []
        seen: set[str] = set()
        current: str | None = session
        while current is not None and current not in seen and len(seen) < MAX_CHAIN:
            seen.add(current)
            row = self._sessions.get(current)
            if row is None:
                break
            chain.append(row.origin_platform)
            current = row.parent
        return next((p for p in reversed(chain) if p), None)

    def session_info(self, session: str) -> SessionInfo | None:
        with self._read():
            row = self._sessions.get(session)
            if row is None:
                return None
            return {
                "session": session,
                "origin_platform": row.origin_platform,
                "parent": row.parent,
                "platform": row.platform,
            }

    def sessions_on_platform(self, platform: str) -> list[str]:
        """Sessions whose effective (root's origin) platform is ``platform``."""
        with self._read():
            return sorted(self._sessions_with_platform(platform))

    def sessions_with_speaker(self, speaker_id: str) -> list[str]:
        """Sessions holding a message spoken by ``speaker_id``."""
        with self._read():
            rows = (row.values for row in self._rows.values())
            return sorted(
                {
                    v["session"]
                    for v in rows
                    if v["kind"] == "message" and v["speaker_id"] == speaker_id and v["session"]
                }
            )
