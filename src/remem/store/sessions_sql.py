"""Sessions in both SQL backends, written once over their ``SQLDialect`` (issue 42): a
session's origin platform and parent, and its effective platform (its root's origin)."""

from __future__ import annotations

import time
from typing import Any

from remem.store.sql_base import SQLConnection
from remem.store.sql_dialect import SQLDialect
from remem.types import SessionInfo


def upsert_session(
    c: Any, d: SQLDialect, session: str, origin: str | None, parent: str | None
) -> None:
    """Record a session's origin and/or parent (None keeps a value) and recompute the
    effective platform of it and every session below it (inside the caller's write)."""
    if parent == session:
        parent = None  # a session is not its own parent
    c.execute(
        d.sql(
            "INSERT INTO sessions (id, origin_platform, parent, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET "
            "origin_platform = COALESCE(excluded.origin_platform, sessions.origin_platform), "
            "parent = COALESCE(excluded.parent, sessions.parent), "
            "updated_at = excluded.updated_at"
        ),
        (session, origin, parent, time.time()),
    )
    below = c.execute(
        f"WITH RECURSIVE below(id) AS (SELECT {d.typed_mark} UNION SELECT s.id FROM sessions s "
        "JOIN below b ON s.parent = b.id) SELECT id FROM below",
        (session,),
    ).fetchall()
    for (sid,) in below:
        c.execute(
            d.sql("UPDATE sessions SET platform = ? WHERE id = ?"),
            (_root_platform(c, d, sid), sid),
        )


def _root_platform(c: Any, d: SQLDialect, session: str) -> str | None:
    """The origin platform of the session's root (the nearest one up the chain that has one,
    when the root has none); a parent cycle stops where it repeats."""
    chain: list[str | None] = []
    seen: set[str] = set()
    current: str | None = session
    while current is not None and current not in seen and len(seen) < 64:
        seen.add(current)
        row = c.execute(
            d.sql("SELECT origin_platform, parent FROM sessions WHERE id = ?"), (current,)
        ).fetchone()
        if row is None:
            break
        chain.append(row[0])
        current = row[1]
    return next((p for p in reversed(chain) if p), None)


class SQLSessions(SQLConnection):
    """The session methods of the ``Store`` protocol."""

    def set_session(
        self, session: str, origin_platform: str | None = None, parent: str | None = None
    ) -> None:
        """Record a session's origin platform and/or parent (None leaves a value as it is)."""
        with self.write() as c:
            upsert_session(c, self._sql, session, origin_platform, parent)

    def session_info(self, session: str) -> SessionInfo | None:
        row = self.query_one(
            self._sql.sql(
                "SELECT id, origin_platform, parent, platform FROM sessions WHERE id = ?"
            ),
            (session,),
        )
        if row is None:
            return None
        return {"session": row[0], "origin_platform": row[1], "parent": row[2], "platform": row[3]}

    def sessions_on_platform(self, platform: str) -> list[str]:
        """Sessions whose effective (root's origin) platform is ``platform``."""
        return self._column("SELECT id FROM sessions WHERE platform = ?", (platform,))

    def sessions_with_speaker(self, speaker_id: str) -> list[str]:
        """Sessions holding a message spoken by ``speaker_id``."""
        return self._column(
            "SELECT DISTINCT session FROM records WHERE kind = 'message' AND speaker_id = ? "
            "AND session IS NOT NULL ORDER BY session",
            (speaker_id,),
        )
