"""What only the in-memory store does: no file, its own validation of what SQL's schema
would refuse, its lock, and its doctor checks (the shared behaviour is in the conformance
tests next to this file)."""

from __future__ import annotations

import ast
import copy
import threading
from pathlib import Path

import numpy as np
import pytest
from conformance import fields

from remem.errors import StoreError, ValidationError
from remem.store import memory as memory_package
from remem.store.memory import InMemoryStore
from remem.store.queries import TextUpdate, VectorWrite


def test_it_has_no_file():
    store = InMemoryStore()
    assert store.path is None
    stats = store.stats()
    assert (stats["path"], stats["file_bytes"]) == (":memory:", 0)


def test_it_is_written_only_against_the_protocol():
    imported = set()
    for source in Path(memory_package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert imported, "no imports found: wrong directory?"
    assert not [m for m in imported if m.startswith("remem.store.sqlite")]


def test_a_closed_store_refuses_reads_and_writes():
    store = InMemoryStore()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.count()
    with pytest.raises(StoreError, match="closed"):
        store.meta_set("a", "b", "c")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "note"}, "kind"),
        ({"scope": None}, "scope"),
        ({"created_at": "yesterday"}, "created_at"),
        ({"message_kind": "shout"}, "message_kind"),
        ({"index_status": "done"}, "index_status"),
    ],
)
def test_what_the_sql_schema_refuses_is_refused_and_nothing_is_written(change, field):
    store = InMemoryStore()
    token = store.change_token()
    with pytest.raises(ValidationError, match=field) as info:
        store.insert_records([(fields(1), "ok"), (fields(2, **change), "bad")])
    assert info.value.field == field
    assert store.count() == 0 and store.change_token() == token


def test_bad_index_status_and_vectors_are_refused():
    store = InMemoryStore()
    (rowid,) = store.insert_records([(fields(1), "x")])
    with pytest.raises(ValidationError, match="index_status"):
        store.mark_index_status([rowid], "done")
    with pytest.raises(ValidationError, match="vector of record"):
        store.put_vectors(
            VectorWrite("m", "p", "m", [(rowid, np.ones(2)), (rowid, np.ones((2, 2)))])
        )
    assert store.vector_count("m") == 0 and store.get("r1").index_status == "pending"


def test_meta_add_refuses_a_value_that_is_no_integer():
    store = InMemoryStore()
    store.meta_set("ns", "k", "text")
    with pytest.raises(ValidationError, match="ns/k"):
        store.meta_add("ns", "k", 1)
    assert store.meta_get("ns", "k") == "text"


def test_rowids_are_never_reused():
    store = InMemoryStore()
    (first,) = store.insert_records([(fields(1), "")])
    store.delete(["r1"])
    (second,) = store.insert_records([(fields(1), "")])
    assert second > first  # a queued rowid never names another record


def test_concurrent_writers_lose_nothing():
    store = InMemoryStore()

    def writer(w: int) -> None:
        for i in range(100):
            store.insert_records([(fields(i, id=f"w{w}-{i}", session=f"s{w}"), "word")])
            store.meta_add("ns", "n", 1)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count() == 400 and store.meta_get("ns", "n") == "400"
    assert len({r.rowid for r in store.iter_records()}) == 400
    assert store.term_stats(["word"]) == (400, {"word": 400})
    assert store.integrity_problems() == []


def test_doctor_checks_find_tables_that_disagree():
    store = InMemoryStore()
    (rowid,) = store.insert_records([(fields(1, session="s"), "x")])
    store.put_vectors(VectorWrite("m", "p", "m", [(rowid, np.ones(3, np.float32))]))
    store._by_id["ghost"] = 999_999  # as a bug in the store would leave it
    store._vectors[next(iter(store._vectors))].dim = 4
    store._lexical.remove(rowid)
    assert any("ghost" in p for p in store.integrity_problems())
    assert store.malformed_vectors() == list(store._vectors)
    assert store.lexical_row_problems() == ([rowid], [])
    store.repair_lexical_rows([], {rowid: "x"})
    assert store.lexical_row_problems() == ([], [])


def _tables(store: InMemoryStore) -> dict:
    """Every table of the store as comparable values (the BM25 index by its own tables)."""
    out = {k: v for k, v in vars(store).items() if k != "_lock"}
    out["_lexical"] = dict(vars(store._lexical))
    return out


def test_a_rolled_back_transaction_leaves_every_table_as_it_was():
    """The transaction's saved copy covers every table and every change made in place: each
    kind of write inside a block that then fails, and the tables compare equal to before."""
    store = InMemoryStore()
    rows = [
        (fields(n, session="s1", origin_platform="tg"), f"word{n} common", "ctx") for n in (1, 2, 3)
    ]
    rowids = store.insert_records(rows)
    r1, r2, r3 = (r for r in rowids if r is not None)
    store.put_vectors(
        VectorWrite("m", "p", "model", [(r1, np.ones(4, np.float32)), (r2, np.ones(4, np.float32))])
    )
    store.put_latent_terms("lt", [(r1, "h1", b"\x01\x02")])
    store.meta_set("ns", "k", "1")
    before = copy.deepcopy(_tables(store))
    with pytest.raises(RuntimeError), store.transaction():
        store.insert_records([(fields(4, session="s2", origin_platform="web"), "word4 common", "")])
        store.update_text(TextUpdate(r1, "new text", "h-new", "fresh words"))
        store.set_validity(r2, 5.0, {"superseded_by": "r4"})
        store.record_access([(r3, 2, 9.0)])
        store.mark_index_status([r3], "failed", "boom")
        store.put_vectors(VectorWrite("m", "p", "model", [(r3, np.zeros(4, np.float32))]))
        store.put_latent_terms("lt", [(r2, "h2", b"\x03")])
        store.clear_vectors(None, "m")
        store.meta_set("ns", "k", "2")
        store.meta_add("ns", "n", 3)
        store.set_session("s1", "discord")
        store.delete_session_after("s1", 0.0)
        raise RuntimeError("after every kind of write")
    assert _tables(store) == before
