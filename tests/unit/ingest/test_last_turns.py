"""The turn a writer wrote last in each session (ingest/last_turns.py): which message may take
its context from it, and which turn is kept per session."""

from __future__ import annotations

from typing import Any

from remem.ingest import last_turns
from remem.ingest.last_turns import LastTurns
from remem.store.base import ContextCheckingStore


def msg(n: int, session: str | None = "s", **extra: Any) -> dict[str, Any]:
    return {
        "id": f"m{n}",
        "kind": "message",
        "session": session,
        "created_at": 100.0 + n,
        "content_hash": f"h{n}",
        "index_status": "pending",
        **extra,
    }


def test_a_message_takes_the_newest_turn_written_before_it_in_its_session():
    turns = LastTurns()
    turns.written([(msg(1), ""), (msg(2), ""), (msg(3, "t"), "")], [11, 12, 13], ["a", "b", "c"])
    last = turns.before(msg(5))
    assert last is not None and (last.turn.rowid, last.turn.content_hash) == (12, "h2")
    assert last.lexical_text == "b"
    assert turns.before(msg(5, "u")) is None  # no turn of this writer's there
    assert turns.before(msg(2)) is None  # not later than the turn: the store's order decides
    assert turns.before(msg(5, None)) is None
    assert turns.before(msg(5, kind="memory")) is None
    assert turns.before(msg(5, index_status="skipped")) is None


def test_an_older_turn_written_late_is_not_the_latest():
    turns = LastTurns()
    turns.written([(msg(5), "")], [15], ["new"])
    turns.written([(msg(1), "")], [16], ["imported"])  # an import of an earlier turn
    last = turns.before(msg(6))
    assert last is not None and last.turn.rowid == 15
    turns.written([(msg(7, index_status="skipped"), "")], [17], ["stored for context only"])
    turns.written([(msg(8), "")], [None], ["a taken id: not written"])
    assert turns.before(msg(9)).turn.rowid == 15  # type: ignore[union-attr]
    turns.forget("s")
    assert turns.before(msg(9)) is None


def test_the_oldest_written_session_goes_first(monkeypatch):
    monkeypatch.setattr(last_turns, "SESSIONS", 2)
    turns = LastTurns()
    for n, session in enumerate(["a", "b", "a", "c"]):
        turns.written([(msg(n, session), "")], [n + 1], [session])
    assert turns.before(msg(9, "b")) is None  # written least recently
    assert turns.before(msg(9, "a")) is not None and turns.before(msg(9, "c")) is not None


def test_only_a_store_that_checks_the_turn_skips_the_read(tmp_path):
    from remem.store import InMemoryStore, SQLiteStore

    sqlite = SQLiteStore(tmp_path / "m.db")
    try:
        assert not isinstance(sqlite, ContextCheckingStore)  # its reads are no round trips
    finally:
        sqlite.close()
    assert not isinstance(InMemoryStore(), ContextCheckingStore)
