"""A message's context without reading the turn before it (ingest/last_turns.py): the
PostgreSQL store writes it only if the turn the writer assumed, unchanged, is still the
session's latest before it (``insert_assuming``), and the writer falls back to reading the
turn when another process wrote into the session, or the turn was rewritten or deleted."""

from __future__ import annotations

from typing import Any

import pytest
from conformance import fields

from pg_server import fresh_schema, pg_url
from remem.store.base import ContextMoved, PreviousTurn
from remem.store.queries import TextUpdate

psycopg = pytest.importorskip("psycopg")
from remem import Config, Memory  # noqa: E402
from remem.store.postgres import PostgresStore  # noqa: E402


def _writes(store: PostgresStore) -> tuple[int, int]:
    """(records, the write counter's sum)."""
    with store._pool.connection() as conn:
        row = conn.execute("SELECT sum(writes) FROM write_counts").fetchone()
    return store.count(), int(row[0]) if row else 0


def _context(store: PostgresStore, record_id: str) -> list[str]:
    with store._pool.connection() as conn:
        row = conn.execute(
            "SELECT l.ctx FROM lexical l JOIN records r ON r.rowid = l.rowid WHERE r.id = %s",
            (record_id,),
        ).fetchone()
    assert row is not None, record_id
    return list(row[0] or [])


@pytest.fixture
def store():
    s = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    yield s
    s.close()


def test_a_message_is_written_when_the_assumed_turn_is_still_the_one_before_it(store):
    (first,) = store.insert_records([(fields(1, session="s"), "warm up", "")])
    assert first is not None
    rowid = store.insert_assuming(
        (fields(2, session="s"), "ferry", "warm up"), PreviousTurn(first, "h1")
    )
    assert rowid is not None and store.get("r2") is not None
    assert _context(store, "r2") == ["warm", "up"]
    assert store.integrity_problems() == []
    # a taken id is skipped, as insert_records(on_conflict="skip") skips it
    assert (
        store.insert_assuming((fields(2, session="s"), "x", ""), PreviousTurn(first, "h1")) is None
    )


@pytest.mark.parametrize("change", ["another turn", "rewritten", "deleted", "other session"])
def test_nothing_is_written_when_the_turn_before_it_changed(store, change):
    (first,) = store.insert_records([(fields(1, session="s"), "warm up", "")])
    assert first is not None
    if change == "another turn":  # another process wrote into the session
        store.insert_records(
            [(fields(5, session="s", created_at=fields(1)["created_at"] + 0.5), "", "")]
        )
    elif change == "rewritten":
        store.update_text(TextUpdate(first, "edited", "h1-edited", "edited", None))
    elif change == "deleted":
        store.delete(["r1"])
    before = _writes(store)
    new = fields(2, session="s" if change != "other session" else "t")
    with pytest.raises(ContextMoved):
        store.insert_assuming((new, "ferry", "warm up"), PreviousTurn(first, "h1"))
    assert _writes(store) == before  # no record, and no write counted
    assert store.get("r2") is None and store.integrity_problems() == []


def _config(schema: str, **extra: Any) -> Config:
    overrides: dict[str, Any] = {
        "store.url": pg_url(),
        "store.pg_schema": schema,
        "embed.provider": "none",
        "indexing.mode": "sync",
        **extra,
    }
    return Config.load(env={}, overrides=overrides)


def _say(mem: Memory, n: int, speaker: str, text: str, session: str = "club") -> None:
    mem.ingest(
        {
            "id": f"m{n}",
            "session": session,
            "speaker": speaker,
            "text": text,
            "timestamp": 1.8e9 + n,
        }
    )


def test_two_writers_in_one_session_index_each_message_with_the_turn_before_it():
    """The context is the turn before each message whichever process wrote it: the same as
    the writer that reads it before every write gives (text.context_turns = 1)."""
    schema = fresh_schema()
    with Memory(None, _config(schema)) as mine, Memory(None, _config(schema)) as other:
        read: list[str] = []
        real = mine.store.previous_texts

        def counted(session: str, before: float, limit: int):  # type: ignore[no-untyped-def]
            read.append(session)
            return real(session, before, limit)

        mine.store.previous_texts = counted  # type: ignore[method-assign]
        _say(mine, 1, "Marta", "Which book is the club reading for May?")
        _say(mine, 2, "Marta", "I hope it is short this time")  # the turn it wrote: no read
        _say(other, 3, "Grace", "Circe, I think.")  # another process, the same session
        _say(mine, 4, "Marta", "Circe it is then")  # its last turn is no longer the one before
        _say(mine, 5, "Marta", "See you at the café")
        assert read == ["club", "club"]  # the first message, and after the other's turn
        contexts = {f"m{n}": _context(mine.store, f"m{n}") for n in range(1, 6)}
    tokens = mine.tokenizer.index_string
    assert contexts == {
        "m1": [],
        "m2": tokens("Marta Which book is the club reading for May?").split(),
        "m3": tokens("Marta I hope it is short this time").split(),
        "m4": tokens("Grace Circe, I think.").split(),
        "m5": tokens("Marta Circe it is then").split(),
    }


def test_a_taken_id_is_refused_or_skipped_as_without_the_last_turn():
    """ingest_many(on_conflict="error") refuses a taken id and writes nothing; "skip" keeps
    what is stored; a message written after either still takes the right turn before it."""
    from remem.errors import ConflictError

    with Memory(None, _config(fresh_schema())) as mem:
        _say(mem, 1, "Marta", "Which book is the club reading for May?")
        _say(mem, 2, "Grace", "Circe, I think.")
        taken = {"id": "m2", "session": "club", "speaker": "Ines", "text": "Not that one"}
        with pytest.raises(ConflictError, match="exists"):
            mem.ingest_many([{**taken, "timestamp": 1.8e9 + 3}], on_conflict="error")
        assert mem.ingest_many([{**taken, "timestamp": 1.8e9 + 3}], on_conflict="skip") == []
        assert mem.store.get("m2").text == "Circe, I think."  # type: ignore[union-attr]
        _say(mem, 4, "Marta", "Circe it is then")
        assert mem.store.count() == 3
        tokens = mem.tokenizer.index_string
        assert _context(mem.store, "m4") == tokens("Grace Circe, I think.").split()
