"""Store conformance: the protocol itself, sessions, meta, the change token, statistics and
what `remem doctor` asks."""

from __future__ import annotations

import time
import typing

import numpy as np
from conformance import T, fields, insert

from remem.store.base import (
    LexicalStore,
    MaintainedStore,
    MetaStore,
    RecordStore,
    SessionStore,
    Store,
    VectorStore,
)
from remem.store.migrations import LATEST_VERSION
from remem.store.queries import (
    Backlog,
    LexicalQuery,
    RecordPage,
    SessionWindow,
    TextUpdate,
    VectorWrite,
)
from remem.store.stats import StoreStats, VectorCount

PROTOCOLS = [
    Store,
    RecordStore,
    SessionStore,
    LexicalStore,
    VectorStore,
    MetaStore,
    MaintainedStore,
]


def test_every_backend_is_a_store(store):
    for protocol in PROTOCOLS:
        assert isinstance(store, protocol), protocol.__name__
    assert store.schema_version() == LATEST_VERSION


def test_a_backend_says_where_its_local_index_lives(store):
    """``index_root``: beside a database file, else None (a server's own index, or a scan)."""
    if store.path is None:
        assert store.index_root is None
    else:
        assert store.index_root == store.path.with_name(store.path.name + ".remem-index")


def test_sessions_take_their_root_platform(store):
    store.set_session("root", origin_platform="qq")
    store.set_session("child", parent="root")
    store.set_session("grandchild", parent="child", origin_platform="web")
    assert store.session_info("child") == {
        "session": "child",
        "origin_platform": None,
        "parent": "root",
        "platform": "qq",
    }
    assert store.session_info("grandchild")["platform"] == "qq"  # the root's, not its own
    assert sorted(store.sessions_on_platform("qq")) == ["child", "grandchild", "root"]
    store.set_session("root", origin_platform="tg")  # recomputed for every descendant
    assert sorted(store.sessions_on_platform("tg")) == ["child", "grandchild", "root"]
    assert store.sessions_on_platform("qq") == []
    store.set_session("child")  # None leaves values as they are
    assert store.session_info("child")["parent"] == "root"
    store.set_session("lone", parent="lone")  # not its own parent
    assert store.session_info("lone")["parent"] is None
    assert store.session_info("unknown") is None


def test_a_root_without_platform_gives_the_nearest_one_below_it(store):
    store.set_session("root")
    store.set_session("mid", parent="root", origin_platform="discord")
    store.set_session("leaf", parent="mid")
    assert store.session_info("leaf")["platform"] == "discord"


def test_a_parent_cycle_ends(store):
    store.set_session("a", origin_platform="x")
    store.set_session("b", parent="a")
    store.set_session("a", parent="b")
    assert store.session_info("a")["platform"] == "x"
    assert store.session_info("b")["platform"] == "x"


def test_inserted_records_set_their_session(store):
    insert(
        store,
        fields(1, session="s1", origin_platform="qq"),
        fields(2, session="s2", parent_session="s1"),
        fields(3, session="s3"),  # nothing to record
    )
    assert store.session_info("s2") == {
        "session": "s2",
        "origin_platform": None,
        "parent": "s1",
        "platform": "qq",
    }
    assert store.session_info("s3") is None


def test_sessions_a_speaker_took_part_in(store):
    insert(
        store,
        fields(1, session="dm:u1", speaker_id="u1"),
        fields(2, session="group:1", speaker_id="u1"),
        fields(3, session="group:1", speaker_id="u2"),
        fields(4, session="dm:u2", speaker_id="u2"),
        fields(5, session="dm:u2", role="assistant"),
        fields(6, kind="memory", session="notes", speaker_id="u1"),  # not a conversation
    )
    assert store.sessions_with_speaker("u1") == ["dm:u1", "group:1"]
    assert store.sessions_with_speaker("u2") == ["dm:u2", "group:1"]
    assert store.sessions_with_speaker("u3") == []


def test_meta_get_set_add(store):
    assert store.meta_get("ns", "k") is None
    store.meta_set("ns", "k", "v1")
    store.meta_set("ns", "k", "v2")
    store.meta_set("other", "k", "x")
    assert (store.meta_get("ns", "k"), store.meta_get("other", "k")) == ("v2", "x")
    store.meta_set("ns", "k", None)
    assert store.meta_get("ns", "k") is None
    assert store.meta_add("indexing", "dropped", 3) == 3
    assert store.meta_add("indexing", "dropped", 4) == 7
    assert store.meta_get("indexing", "dropped") == "7"


def _writes(store):
    """Every kind of write, each as a callable, on a store holding one record."""
    (rowid,) = insert(store, fields(1), tokens="one")
    vec = np.ones(3, np.float32)
    return [
        lambda: store.insert_records([(fields(2), "two")]),
        lambda: store.update_text(TextUpdate(rowid, "t", "h", "tokens")),
        lambda: store.set_validity(rowid, T, {}),
        lambda: store.record_access([(rowid, 1, T)]),
        lambda: store.mark_index_status([rowid], "failed", "x"),
        lambda: store.set_session("s", origin_platform="qq"),
        lambda: store.meta_set("ns", "k", "v"),
        lambda: store.meta_add("ns", "n", 1),
        lambda: store.put_vectors(VectorWrite("m", "p", "m", [(rowid, vec)])),
        lambda: store.mark_indexed_with("m"),
        lambda: store.clear_vectors(model_id="m"),
        lambda: store.put_vectors(VectorWrite("", "", "", [(rowid, vec)])),
        lambda: store.adopt_legacy_vectors("m", "p", "m"),
        lambda: store.delete_vectors([]),
        lambda: store.repair_lexical_rows([], {}),
        lambda: store.delete(["r2"]),
    ]


def _read_everything(store) -> None:
    records = store.list_records(RecordPage(limit=None))
    store.get("r1")
    store.count()
    store.neighbours(records, SessionWindow(2, 2))
    store.lexical_search(LexicalQuery(["one"], None), 5)
    store.term_stats(["one"])
    store.index_delta("m", 3, 0, 0)
    store.records_missing_vectors(Backlog("m"))
    store.meta_get("ns", "k")
    store.session_info("s")
    store.stats()
    store.integrity_problems()


def test_the_change_token_changes_on_every_write_and_only_then(store):
    for write in _writes(store):
        before = store.change_token()
        _read_everything(store)
        assert store.change_token() == before  # reads change nothing
        write()
        assert store.change_token() != before, write


def test_stats(store):
    a, b, _ = insert(
        store,
        fields(1, session="s1", role="user"),
        fields(2, kind="memory", category="fact"),
        fields(3, session="s1", index_status="skipped", index_error="stored only"),
    )
    store.put_vectors(VectorWrite("m", "p", "m", [(a, np.ones(3, np.float32))]))
    store.mark_index_status([b], "failed", "model down")
    store.meta_add("indexing", "dropped", 2)
    stats = store.stats()
    assert set(stats) == {
        "records",
        "by_kind",
        "by_scope",
        "by_role",
        "by_category",
        "index_status",
        "vectors",
        "index_errors",
        "queue_dropped_total",
        "sessions",
        "facts",
        "schema_version",
        "file_bytes",
        "path",
    }
    assert stats["records"] == 3
    assert stats["by_kind"] == {"message": 2, "memory": 1}
    assert stats["by_role"] == {"(none)": 2, "user": 1}
    assert stats["by_category"] == {"(none)": 2, "fact": 1}
    assert stats["index_status"] == {"indexed": 1, "failed": 1, "skipped": 1}
    assert stats["vectors"] == [{"model_id": "m", "dim": 3, "count": 1}]
    assert stats["index_errors"] == 1  # a skipped record's note is no error
    assert (stats["queue_dropped_total"], stats["sessions"]) == (2, 1)
    assert stats["schema_version"] == LATEST_VERSION
    # the typed shape the protocol declares is what every backend returns, value types too
    hints = typing.get_type_hints(StoreStats)
    assert set(stats) == set(hints) == StoreStats.__required_keys__
    for key, hint in hints.items():
        assert isinstance(stats[key], typing.get_origin(hint) or hint), key
    assert set(stats["vectors"][0]) == set(typing.get_type_hints(VectorCount))


def test_a_sound_store_has_no_problems(store):
    rowids = insert(store, fields(1), fields(2), tokens="x")
    store.put_vectors(VectorWrite("m", "p", "m", [(r, np.ones(4, np.float32)) for r in rowids]))
    assert store.integrity_problems() == []
    assert store.lexical_row_problems() == ([], [])
    assert store.malformed_vectors() == []
    assert store.stale_vectors("m") == []


def test_vectors_older_than_their_text_are_stale(store, monkeypatch):
    a, b = insert(store, fields(1), fields(2))
    store.put_vectors(
        VectorWrite("m", "p", "m", [(a, np.ones(4, np.float32)), (b, np.ones(4, np.float32))])
    )
    later = time.time() + 60
    monkeypatch.setattr(time, "time", lambda: later)
    store.update_text(TextUpdate(a, "changed", "h", "changed"))
    assert store.stale_vectors("m") == [a]
    assert store.stale_vectors("other") == []


def test_every_protocol_method_is_exercised():
    """Each method of the protocols in ``store/base.py`` is called somewhere in this suite, so
    every backend is held to it (a method nobody tests can drift apart between backends)."""
    import inspect
    import re
    from pathlib import Path

    from remem.store import base

    methods = {
        name
        for protocol in vars(base).values()
        if inspect.isclass(protocol) and getattr(protocol, "_is_protocol", False)
        for name, member in vars(protocol).items()
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    }
    suite = "\n".join(p.read_text() for p in Path(__file__).parent.glob("*.py"))
    missing = sorted(m for m in methods if not re.search(rf"\b{m}\b", suite))
    assert len(methods) > 50
    assert missing == [], f"no conformance test calls {missing}"
