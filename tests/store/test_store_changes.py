"""Store conformance: a session's timeline (neighbours, earlier turns) and changes to records
(text, validity, access, index status, deletes)."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import T, fields, insert

from remem.store.queries import LexicalQuery, SessionWindow, TextUpdate, VectorWrite
from remem.types import Filters

SKIPPED = {"index_status": "skipped", "index_error": "not indexed: stored only"}


@pytest.fixture
def chat(store):
    """One session: chat, stored-only media, chat (the anchor), a control message, chat x2,
    plus a message of another session in between."""
    insert(
        store,
        fields(1, session="s"),
        fields(2, session="s", message_kind="media", **SKIPPED),
        fields(3, session="s"),
        fields(4, session="s", message_kind="control", **SKIPPED),
        fields(5, session="s", created_at=T + 5),
        fields(6, session="s", created_at=T + 5),  # same time as r5: rowid decides
        fields(7, session="other", created_at=T + 3.5),
    )
    return store


def _ids(found):
    return {anchor: [r.id for r in records] for anchor, records in found.items()}


def test_neighbours_count_hits_only_by_default(chat):
    store = chat
    anchor = store.get("r3")
    got = store.neighbours([anchor], SessionWindow(1, 1))
    assert _ids(got) == {anchor.rowid: ["r1", "r5"]}  # stored-only r2 and r4 are skipped
    got = store.neighbours([anchor], SessionWindow(3, 3))
    assert _ids(got) == {anchor.rowid: ["r1", "r5", "r6"]}  # nearest first on each side
    got = store.neighbours([anchor], SessionWindow(0, 2, Filters(exclude_ids=["r5"])))
    assert _ids(got) == {anchor.rowid: ["r6"]}


def test_neighbours_in_context_mode_keep_stored_only_but_not_control(chat):
    store = chat
    anchor = store.get("r3")
    got = store.neighbours([anchor], SessionWindow(1, 1, context=True))
    assert _ids(got) == {anchor.rowid: ["r2", "r5"]}  # media kept; control r4 skipped


def test_neighbours_of_anchors_without_a_session_or_rowid(chat):
    store = chat
    memory = store.get("r5")
    memory.session = None
    unsaved = store.get("r3")
    unsaved.rowid = None
    assert store.neighbours([memory, unsaved], SessionWindow(2, 2)) == {}
    same_time = store.get("r5")
    assert _ids(store.neighbours([same_time], SessionWindow(1, 1))) == {
        same_time.rowid: ["r3", "r6"]
    }


def test_find_message_and_previous_texts(chat):
    store = chat
    assert store.find_message("s", T + 5).id == "r6"  # the newest of two at that time
    assert store.find_message("s", T + 4.5) is None
    assert store.find_message("nope", T + 5) is None
    assert [r.id for r in store.previous_texts("s", T + 5, 10)] == ["r1", "r3"]
    assert [r.id for r in store.previous_texts("s", T + 5, 1)] == ["r3"]
    assert store.previous_texts("s", T + 1, 5) == []


def test_update_text_replaces_text_and_own_tokens_but_keeps_context(store):
    (rowid,) = store.insert_records([(fields(1, visible_text="old shown"), "apple", "orchard")])
    store.update_text(TextUpdate(rowid, "new text", "h-new", "banana"))
    record = store.get("r1")
    assert (record.text, record.content_hash, record.visible_text) == ("new text", "h-new", None)
    assert store.lexical_search(LexicalQuery(["apple"], None), 5) == []
    assert [r for r, _ in store.lexical_search(LexicalQuery(["banana"], None), 5)] == [rowid]
    assert [r for r, _ in store.lexical_search(LexicalQuery(["orchard"], None, None, 0.5), 5)] == [
        rowid
    ]
    store.update_text(TextUpdate(rowid, "env", "h3", "banana", visible_text="seen"))
    assert store.get("r1").visible_text == "seen"


def test_set_validity_hides_a_superseded_memory(store):
    (rowid,) = insert(store, fields(1, kind="memory", metadata={"a": "1"}))
    store.set_validity(rowid, T + 10, {"superseded_by": "r2"})
    record = store.get("r1")
    assert (record.valid_to, record.metadata) == (T + 10, {"superseded_by": "r2"})
    current = Filters(include_superseded=False)
    assert store.get_by_rowids([rowid], current, now=T + 11) == {}
    assert store.count(current) == 0
    store.set_validity(rowid, None, {})  # reopened
    assert store.count(current) == 1


def test_record_access_adds_counts_and_keeps_the_latest_time(store):
    a, b = insert(store, fields(1), fields(2))
    store.record_access([(a, 2, T + 10), (b, 1, T + 5)])
    store.record_access([(a, 1, T + 7), (999_999, 1, T)])  # older time; a missing rowid
    assert (store.get("r1").access_count, store.get("r1").last_access) == (3, T + 10)
    assert (store.get("r2").access_count, store.get("r2").last_access) == (1, T + 5)


def test_mark_index_status(store):
    a, b = insert(store, fields(1), fields(2))
    store.mark_index_status([a, b], "failed", "model down")
    assert {(r.index_status, r.index_error) for r in store.list_records()} == {
        ("failed", "model down")
    }
    store.mark_index_status([a], "pending")
    assert (store.get("r1").index_status, store.get("r1").index_error) == ("pending", None)
    token = store.change_token()
    store.mark_index_status([], "indexed")
    assert store.change_token() == token  # nothing to write


def test_delete_removes_lexical_rows_and_vectors(store):
    a, b = store.insert_records([(fields(1), "apple"), (fields(2), "banana")])
    store.put_vectors(VectorWrite("m:x", "m", "x", [(a, np.ones(4, np.float32) / 2)]))
    _, _, _, deletes = store.index_delta("m:x", 4, 0, 0)
    assert [r for r, _ in store.lexical_search(LexicalQuery(["apple"], None), 10)] == [a]
    assert store.delete(["r1", "missing", "r1"]) == 1
    assert store.get("r1") is None and store.get_by_rowids([a]) == {}
    assert store.lexical_search(LexicalQuery(["apple"], None), 10) == []
    assert store.vector_count("m:x") == 0 and store.vectors_of([a]) == {}
    assert store.lexical_row_problems() == ([], [])  # no orphan lexical rows left
    assert [r for r, _ in store.lexical_search(LexicalQuery(["banana"], None), 10)] == [b]
    assert store.index_delta("m:x", 4, 0, 0)[3] == deletes + 1  # indexes reload
    assert store.delete(["missing"]) == 0
    assert store.index_delta("m:x", 4, 0, 0)[3] == deletes + 1
    assert store.delete([]) == 0


def test_delete_session_after(chat):
    store = chat
    gone = store.delete_session_after("s", T + 3)
    assert sorted(gone) == ["r4", "r5", "r6"]
    assert sorted(store.ids_where(None)) == ["r1", "r2", "r3", "r7"]
    assert store.find_message("s", T + 5) is None
    assert store.delete_session_after("s", T + 3) == []
