"""Store conformance: the facts backlog (``FactStore.records_awaiting_facts``,
``facts_extracted``, ``count_awaiting_facts`` and ``insert_records(awaiting_facts=True)``).
A record written with the mark waits for its facts until unmarked, survives reopening the
store, leaves with its record, and the mark is part of the insert's transaction."""

from __future__ import annotations

import pytest
from conformance import fields

from remem.store.base import Store
from remem.store.queries import FactBacklog
from remem.store.sqlite import SQLiteStore


def _write(store: Store, *rows: dict, awaiting: bool = True, skip: bool = False) -> list[int]:
    rowids = store.insert_records(
        [(f, "tok") for f in rows], on_conflict="skip" if skip else "error", awaiting_facts=awaiting
    )
    return [r for r in rowids if r is not None]


def _waiting(store: Store, **kw) -> list[int]:
    return [r.rowid for r in store.records_awaiting_facts(FactBacklog(**kw))]  # type: ignore[misc]


def test_records_written_awaiting_facts_wait_until_unmarked(store):
    a, b, c = _write(store, fields(1), fields(2), fields(3))
    (plain,) = _write(store, fields(4), awaiting=False)
    assert store.count_awaiting_facts() == 3
    got = store.records_awaiting_facts(FactBacklog())
    assert [r.id for r in got] == ["r1", "r2", "r3"]  # whole records, in rowid order
    assert got[0].text == "text 1"
    assert plain not in _waiting(store)
    assert store.facts_extracted([b, plain, 999_999]) == 1  # only what was marked counts
    assert _waiting(store) == [a, c]
    assert store.facts_extracted([b]) == 0
    assert store.facts_extracted([]) == 0
    assert store.count_awaiting_facts() == 2


def test_the_backlog_pages_by_rowid(store):
    rowids = _write(store, *(fields(n) for n in range(1, 8)))
    assert _waiting(store, limit=3) == rowids[:3]
    assert _waiting(store, limit=3, after_rowid=rowids[2]) == rowids[3:6]
    assert _waiting(store, after_rowid=rowids[1], upto_rowid=rowids[4]) == rowids[2:5]
    assert _waiting(store, limit=2, newest_first=True) == rowids[::-1][:2]
    assert _waiting(store, upto_rowid=rowids[4], newest_first=True)[0] == rowids[4]
    # only the rowids named (a writer's own, interleaved with other writers'), still marked
    store.facts_extracted([rowids[3]])
    picked = (rowids[1], rowids[3], rowids[5], 999_999)
    assert _waiting(store, rowids=picked) == [rowids[1], rowids[5]]
    assert _waiting(store, rowids=picked, limit=1) == [rowids[1]]
    assert _waiting(store, rowids=picked, after_rowid=rowids[1]) == [rowids[5]]
    with pytest.raises(ValueError, match="limit"):
        FactBacklog(limit=0)


def test_skipped_records_and_skipped_ids_are_not_marked(store):
    (first,) = _write(store, fields(1))
    _write(store, fields(2, index_status="skipped"))
    # the id r1 is taken: skipped, and its mark is the first write's
    (third,) = _write(store, fields(1), fields(3), skip=True)
    assert _waiting(store) == [first, third]


def test_deleting_a_record_takes_its_mark(store):
    _first, b = _write(store, fields(1, session="s"), fields(2, session="s"))
    store.delete(["r1"])
    assert _waiting(store) == [b]
    store.delete_session_after("s", 0)
    assert store.count_awaiting_facts() == 0


def test_the_mark_is_part_of_the_insert_transaction(store):
    with pytest.raises(RuntimeError), store.transaction():
        _write(store, fields(1))
        raise RuntimeError("halfway")
    assert store.count_awaiting_facts() == 0
    assert store.get("r1") is None
    with store.transaction():
        (a,) = _write(store, fields(2))
        store.facts_extracted([a])
    assert store.count_awaiting_facts() == 0


def test_the_backlog_survives_reopening(tmp_path):
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    (a,) = _write(store, fields(1))
    store.close()
    again = SQLiteStore(path)
    try:
        assert _waiting(again) == [a]
    finally:
        again.close()
