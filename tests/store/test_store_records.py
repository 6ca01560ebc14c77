"""Store conformance: inserting, reading, filtering and listing records."""

from __future__ import annotations

import pytest
from conformance import T, fields, insert

from remem.errors import ValidationError
from remem.store.base import ANY, MemoryMatch
from remem.store.queries import LexicalQuery, RecordPage
from remem.types import Filters


def test_a_record_round_trips_every_field(store):
    full = fields(
        1,
        role="user",
        scope="team",
        session="s1",
        platform="qq",
        group_id="g1",
        group_name="Group",
        speaker_id="u1",
        speaker_label="Alice",
        mentions=["bob", "张三"],
        category="fact",
        importance=0.9,
        event_time=T - 5,
        valid_from=T,
        valid_to=T + 50,
        source_ids=["a", "b"],
        metadata={"note": "héllo", "n": 2},
        source="import",
        visible_text="shown",
        session_type="group",
        session_label="群聊",
        message_kind="media",
    )
    rowid, _ = insert(store, full, fields(2))
    record = store.get("r1")
    assert record is not None and record.rowid == rowid
    for name, value in full.items():
        assert getattr(record, name) == value, name
    assert (record.index_status, record.index_error) == ("pending", None)
    assert (record.access_count, record.last_access, record.model_id) == (0, None, None)
    plain = store.get("r2")
    assert plain is not None
    assert (plain.mentions, plain.metadata, plain.message_kind) == ([], {}, "chat")
    assert store.get("missing") is None


def test_records_returned_are_copies(store):
    insert(store, fields(1, metadata={"a": "1"}, mentions=["x"]))
    record = store.get("r1")
    record.metadata["a"] = "changed"
    record.mentions.append("y")
    again = store.get("r1")
    assert again.metadata == {"a": "1"} and again.mentions == ["x"]


def test_a_duplicate_id_aborts_the_whole_batch(store):
    insert(store, fields(1), tokens="one")
    token = store.change_token()
    batch = [(fields(2, session="s9", origin_platform="tg"), "two"), (fields(1), "dup")]
    with pytest.raises(ValidationError, match="exists"):
        store.insert_records(batch)
    with pytest.raises(ValidationError, match="exists"):
        store.insert_records([(fields(3), "three"), (fields(3), "three again")])
    assert store.get("r2") is None and store.get("r3") is None
    assert store.count() == 1
    assert store.lexical_search(LexicalQuery(["two"], None), 10) == []
    assert store.session_info("s9") is None
    assert store.change_token() == token


def test_skip_leaves_existing_ids_and_writes_the_rest(store):
    insert(store, fields(1, text="original"))
    rowids = store.insert_records(
        [(fields(1, text="dup"), "dup"), (fields(2), "x"), (fields(2), "y")], on_conflict="skip"
    )
    assert rowids[0] is None and rowids[2] is None and rowids[1] is not None
    assert store.get("r1").text == "original"
    assert store.count() == 2
    assert store.count(up_to=1) == 1 and store.count(up_to=5) == 2


def test_ids_rowids_prefixes_and_hashes(store):
    a, b, _ = insert(store, fields(1, id="ab_1"), fields(2, id="ab%2"), fields(3, id="abc"))
    assert sorted(store.rowids_for_ids(["ab_1", "ab%2", "nope"])) == [a, b]
    assert store.ids_with_prefix("ab") == ["ab%2", "ab_1", "abc"]  # ordered by id
    assert store.ids_with_prefix("ab_") == ["ab_1"]  # LIKE wildcards are literal
    assert store.ids_with_prefix("ab%") == ["ab%2"]
    assert store.ids_with_prefix("AB", limit=2) == ["ab%2", "ab_1"]  # ASCII in either case
    assert store.existing_hashes(["h1", "h3", "h9"]) == {"h1", "h3"}
    assert store.existing_hashes([]) == set()


@pytest.fixture
def corpus(store):
    """Six records over scopes, sessions, roles, platforms and categories."""
    store.set_session("s1", origin_platform="qq")
    store.set_session("s2", origin_platform="tg")
    store.set_session("s3", parent="s2")  # a sub-session: counts as tg
    insert(
        store,
        fields(1, scope="a", session="s1", role="user", platform="qq"),
        fields(2, scope="a", session="s1", role="assistant", platform="qq"),
        fields(3, scope="b", session="s2", platform="tg"),
        fields(4, kind="memory", scope="a", category="fact", valid_to=T + 100),
        fields(5, kind="memory", scope="b", category="pref"),
        fields(6, scope="b", session="s3", role="user", platform="cli"),
    )
    return store


FILTER_CASES = [
    (Filters(), "r1 r2 r3 r4 r5 r6"),
    (Filters(kinds=["memory"]), "r4 r5"),
    (Filters(kinds=[]), ""),
    (Filters(scopes=["b"]), "r3 r5 r6"),
    (Filters(sessions=["s1", "s3"]), "r1 r2 r6"),
    (Filters(roles=["user"]), "r1 r6"),
    (Filters(exclude_roles=["assistant"]), "r1 r3 r4 r5 r6"),  # role-less records stay
    (Filters(exclude_ids=["r1", "r2"]), "r3 r4 r5 r6"),
    (Filters(ids=["r1", "r5", "missing"]), "r1 r5"),
    (Filters(since=T + 3), "r3 r4 r5 r6"),
    (Filters(until=T + 2), "r1 r2"),
    (Filters(since=T + 2, until=T + 3), "r2 r3"),
    (Filters(platform="tg"), "r3"),
    (Filters(platform="tg", platform_by_session=True), "r3 r6"),
    (Filters(platform="qq", platform_by_session=True), "r1 r2"),
    (Filters(category="fact"), "r4"),
    (Filters(include_superseded=False), "r1 r2 r3 r5 r6"),  # r4 ended at T+100
    (Filters(kinds=["message"], scopes=["b"], exclude_roles=["user"]), "r3"),
]


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_every_read_applies_the_filters(corpus, filters, expected):
    store, want = corpus, expected.split()
    assert sorted(store.ids_where(filters)) == want
    assert store.count(filters) == len(want)
    assert store.count(filters, up_to=2) == min(2, len(want))  # stops counting there
    assert [
        r.id for r in store.list_records(RecordPage(filters, limit=None, newest_first=False))
    ] == want
    assert [r.id for r in store.iter_records(filters, batch=2)] == want
    every = store.rowids_for_ids([f"r{i}" for i in range(1, 7)])
    assert sorted(r.id for r in store.get_by_rowids(every, filters).values()) == want


def test_supersession_is_judged_at_the_given_time(corpus):
    store = corpus
    rowids = store.rowids_for_ids(["r4", "r5"])
    current = Filters(include_superseded=False)
    assert {r.id for r in store.get_by_rowids(rowids, current, now=T + 50).values()} == {
        "r4",
        "r5",
    }
    assert {r.id for r in store.get_by_rowids(rowids, current, now=T + 100).values()} == {"r5"}
    assert len(store.get_by_rowids([*rowids, *rowids, 999_999])) == 2


def test_list_records_orders_by_time_then_rowid_and_pages(store):
    insert(store, fields(1, created_at=T), fields(2, created_at=T + 5), fields(3, created_at=T))
    assert [r.id for r in store.list_records()] == ["r2", "r3", "r1"]
    assert [r.id for r in store.list_records(RecordPage(newest_first=False))] == ["r1", "r3", "r2"]
    assert [r.id for r in store.list_records(RecordPage(limit=1, offset=1))] == ["r3"]
    assert [r.id for r in store.list_records(RecordPage(limit=None, offset=2))] == ["r1"]
    assert store.list_records(RecordPage(limit=0)) == []


def test_iter_records_resumes_after_a_rowid(store):
    rowids = insert(store, *(fields(i) for i in range(5)))
    assert [r.rowid for r in store.iter_records(batch=2, after=rowids[1])] == rowids[2:]
    assert list(store.iter_records(after=rowids[-1])) == []


def test_current_memories(store):
    memory = {"kind": "memory", "scope": "s"}
    insert(
        store,
        fields(1, **memory, content_hash="x", speaker_id="alice", metadata={"subject": "home"}),
        fields(2, **memory, content_hash="x", metadata={"subject": "home", "norm": 5}),
        fields(3, **memory, content_hash="x", valid_to=T + 10, metadata={"subject": "home"}),
        fields(4, **memory, content_hash="y", metadata={"norm": "5"}),
        fields(5, scope="s", content_hash="x"),  # a message, not a memory
        fields(6, kind="memory", scope="other", content_hash="x"),
    )

    def ids(now=T + 20, **kw):
        return [r.id for r in store.current_memories(MemoryMatch("s", now, **kw))]

    assert ids() == ["r1", "r2", "r4"]  # oldest first; r3 ended at T+10
    assert ids(now=T + 5) == ["r1", "r2", "r3", "r4"]
    assert ids(content_hash="x") == ["r1", "r2"]
    assert ids(metadata_equals=("subject", "home")) == ["r1", "r2"]
    assert ids(metadata_equals=("norm", "5")) == ["r4"]  # the number 5 is not the text "5"
    assert ids(speaker_id="alice") == ["r1"]
    assert ids(speaker_id=None) == ["r2", "r4"]  # None is a value: no speaker
    assert ids(speaker_id=ANY, limit=1) == ["r1"]


@pytest.mark.parametrize(
    ("column", "value"),
    [("kind", "note"), ("message_kind", "sticker"), ("index_status", "done")],
)
def test_a_value_outside_a_closed_set_is_refused_by_name(store, column, value):
    # Validation at the edges checks these first; the store still names the field, whatever
    # the backend (no raw constraint error), and writes nothing.
    with pytest.raises(ValidationError, match=column):
        insert(store, fields(1), fields(2, **{column: value}))
    assert store.get("r1") is None and store.get("r2") is None


def test_an_unknown_index_status_is_refused_by_name(store):
    (rowid,) = insert(store, fields(1))
    with pytest.raises(ValidationError, match="index_status"):
        store.mark_index_status([rowid], "done")
    assert store.get("r1").index_status == "pending"
