"""Store conformance: ``transaction()``, the unit of work several writes share (a new memory
version and the closing of the one it replaces). On every backend: the block's writes commit
together or not at all, reads inside see them, a write's own error inside can be caught and
the rest still commits, and a nested block is part of the outer one."""

from __future__ import annotations

import threading

import pytest
from conformance import T, fields, insert

from remem.errors import ValidationError
from remem.store.base import MemoryMatch, Store
from remem.store.queries import LexicalQuery, RecordPage
from remem.types import Filters

MEMORY = {"kind": "memory", "scope": "user:u", "valid_from": T}


class Boom(Exception):
    """The error a test raises in the middle of a transaction."""


def _state(store: Store) -> tuple:
    """What a transaction in these tests may change, as comparable values."""
    records = store.list_records(RecordPage(None, limit=None, newest_first=False))
    return (
        [(r.id, r.valid_to, r.metadata) for r in records],
        store.lexical_search(LexicalQuery(["fresh"], None), 10),
        store.meta_get("t", "k"),
        store.session_info("s-new"),
    )


@pytest.fixture
def old(store):
    """A current memory, the one the transactions replace."""
    insert(store, fields(1, **MEMORY, metadata={"subject": "home"}), tokens="old")
    return store.get("r1")


def _replace(store: Store, old, n: int = 2) -> None:
    """What supersession writes (a new version, the old one closed), and a meta value and a
    session's platform besides: every kind of write a transaction may hold."""
    insert(
        store, fields(n, **MEMORY, session="s-new", metadata={"supersedes": ["r1"]}), tokens="fresh"
    )
    store.set_validity(old.rowid, T + n, {**old.metadata, "superseded_by": f"r{n}"})
    store.meta_set("t", "k", "v")
    store.set_session("s-new", "telegram")


def test_the_writes_of_a_transaction_commit_together(store, old):
    token = store.change_token()
    with store.transaction() as tx:
        assert tx is store
        _replace(store, old)
    assert store.change_token() != token
    assert store.get("r2") is not None
    assert store.get("r1").valid_to == T + 2
    assert store.get("r1").metadata == {"subject": "home", "superseded_by": "r2"}
    assert [rowid for rowid, _ in store.lexical_search(LexicalQuery(["fresh"], None), 10)] == [
        store.get("r2").rowid
    ]
    assert store.meta_get("t", "k") == "v"
    assert store.session_info("s-new") is not None
    current = store.current_memories(MemoryMatch("user:u", T + 10))
    assert [r.id for r in current] == ["r2"]


def test_an_error_mid_transaction_leaves_nothing_written(store, old):
    before, token = _state(store), store.change_token()
    with pytest.raises(Boom), store.transaction():
        _replace(store, old)
        raise Boom("after every write, before the end")
    assert _state(store) == before
    assert store.get("r2") is None and store.get("r1").valid_to is None
    assert store.change_token() == token
    # and the store takes writes as before (no transaction left open, no lock held)
    insert(store, fields(3))
    assert store.get("r3") is not None


def test_a_keyboard_interrupt_mid_transaction_rolls_back_too(store, old):
    with pytest.raises(KeyboardInterrupt), store.transaction():
        insert(store, fields(2, **MEMORY), tokens="fresh")
        raise KeyboardInterrupt
    assert store.get("r2") is None
    assert [r.id for r in store.current_memories(MemoryMatch("user:u", T + 10))] == ["r1"]


def test_reads_inside_see_the_transactions_own_writes(store, old):
    with store.transaction():
        insert(store, fields(2, **MEMORY, metadata={"subject": "home"}), tokens="fresh")
        store.set_validity(old.rowid, T + 2, {"subject": "home", "superseded_by": "r2"})
        assert store.get("r2") is not None
        current = store.current_memories(
            MemoryMatch("user:u", T + 10, metadata_equals=("subject", "home"))
        )
        assert [r.id for r in current] == ["r2"]
        assert store.count(Filters(kinds=["memory"])) == 2
        assert store.stats()["records"] == 2


def test_a_writes_own_error_inside_undoes_that_write_alone(store, old):
    with store.transaction():
        insert(store, fields(2, **MEMORY), tokens="fresh")
        with pytest.raises(
            ValidationError, match="exists"
        ):  # r1 exists: the whole batch is refused
            store.insert_records([(fields(3), "three"), (fields(1), "dup")])
        store.set_validity(old.rowid, T + 2, {"superseded_by": "r2"})
    assert store.get("r2") is not None and store.get("r3") is None
    assert store.get("r1").valid_to == T + 2


def test_a_nested_transaction_is_part_of_the_outer_one(store, old):
    with pytest.raises(Boom), store.transaction():
        insert(store, fields(2, **MEMORY))
        with store.transaction():
            store.set_validity(old.rowid, T + 2, {"superseded_by": "r2"})
        raise Boom("the outer block fails after the inner one ended")
    assert store.get("r2") is None and store.get("r1").valid_to is None
    with store.transaction():
        insert(store, fields(2, **MEMORY))
        with pytest.raises(Boom), store.transaction():
            store.set_validity(old.rowid, T + 2, {"superseded_by": "r2"})
            raise Boom("the inner block fails; the outer one goes on")
    assert store.get("r2") is not None and store.get("r1").valid_to is None


def test_another_thread_never_sees_half_a_transaction(store, old):
    """A reader on another thread, started while the block is open, finds the old version
    current and no new one (PostgreSQL: the block is not committed yet), or the new one
    current and the old one closed (SQLite and in memory: the reader waits for the block's
    end): never both current, never neither."""
    seen: list[list[str]] = []

    def read() -> None:
        seen.append([r.id for r in store.current_memories(MemoryMatch("user:u", T + 10))])

    with store.transaction():
        insert(store, fields(2, **MEMORY), tokens="fresh")
        reader = threading.Thread(target=read)
        reader.start()
        store.set_validity(old.rowid, T + 2, {"superseded_by": "r2"})
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert seen in ([["r1"]], [["r2"]])
