"""The turn a writer wrote last in each session, so that the next message's context (the
lexical text of the turn before it, ``text.context_turns`` = 1) need not be read first.

Every message is indexed with the words of the turn before it in its session. Reading that
turn before each write is a round trip to a PostgreSQL server: about a fifth of what an
acknowledged write cost there (8 writers, 1,900 -> 2,300 writes/s without it). A chat's
writer nearly always wrote that turn itself a moment ago, so it keeps it, and a store that
can check it (``ContextCheckingStore``) writes the message only if that turn, unchanged, is
still the latest before it; when another process wrote into the session in between (or the
turn was deleted or rewritten), nothing is written and the writer reads the turn as before.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from remem.store.base import PreviousTurn

SESSIONS = 4096  # sessions whose last turn a writer keeps (the oldest written go first)


@dataclass(frozen=True, slots=True)
class LastTurn:
    created_at: float
    turn: PreviousTurn
    lexical_text: str  # as the context holds it: the speaker's name, then the shown text


@dataclass(eq=False)
class LastTurns:
    """Per session, the newest message this writer wrote (thread-safe: a REST server's
    threads share one writer)."""

    _turns: dict[str, LastTurn] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def before(self, fields: dict[str, Any]) -> LastTurn | None:
        """The turn to take this message's context from, if this writer wrote the last one
        it knows of in the session earlier than the message."""
        session = fields.get("session")
        if not session or fields["kind"] != "message" or fields["index_status"] == "skipped":
            return None
        with self._lock:
            last = self._turns.get(session)
        return last if last is not None and last.created_at < fields["created_at"] else None

    def forget(self, session: str) -> None:
        with self._lock:
            self._turns.pop(session, None)

    def written(
        self,
        rows: Sequence[tuple[dict[str, Any], str]],
        rowids: Sequence[int | None],
        texts: Sequence[str],
    ) -> None:
        """Note the messages just written (``texts``: each one's lexical text for a context):
        per session the newest."""
        with self._lock:
            for (fields, _), rowid, text in zip(rows, rowids, texts, strict=True):
                session = fields.get("session")
                if rowid is None or not session or fields["kind"] != "message":
                    continue
                if fields["index_status"] == "skipped":
                    continue
                known = self._turns.get(session)
                if known is not None and known.created_at > fields["created_at"]:
                    continue  # an older turn written late (an import): not the latest
                self._turns.pop(session, None)  # re-inserted: the newest written go last
                if len(self._turns) >= SESSIONS:
                    self._turns.pop(next(iter(self._turns)))
                turn = PreviousTurn(rowid, fields["content_hash"])
                self._turns[session] = LastTurn(fields["created_at"], turn, text)
