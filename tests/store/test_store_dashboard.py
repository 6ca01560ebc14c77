"""Store conformance: the dashboard reads the web UI shows (``DashboardStore``): counts by
column, per quarter-hour and per model, sessions, distinct values, newest ids, the store's size."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import T, fields, insert

from remem.store.dashboard import DashboardStore
from remem.store.queries import NewestIds, VectorWrite
from remem.types import Filters

QUARTER0 = int(T // 900)  # T is 800 s into its quarter of an hour
MEMORY = {"kind": "memory", "role": None}


def _fill(store) -> dict[str, int]:
    """Two scopes, three platforms (one missing), two sessions and a memory without one,
    spread over two days; two records with a vector, one of them in scope b."""
    rowids = insert(
        store,
        fields(1, scope="a", session="s1", platform="qq", group_id="g1", group_name="Readers"),
        fields(2, scope="a", session="s1", platform="qq", group_id="g1"),
        fields(3, scope="b", session="s2", platform="tg", created_at=T + 86_400),
        fields(4, scope="a", session="s3", created_at=T + 86_400 + 5),
        fields(5, scope="a", category="fact", **MEMORY),
        fields(6, scope="b", category="decision", **MEMORY),
    )
    ids = {f"r{i + 1}": rowid for i, rowid in enumerate(rowids)}
    vector = np.ones(3, np.float32)
    store.put_vectors(VectorWrite("p:m", "p", "m", [(ids["r1"], vector), (ids["r3"], vector)]))
    store.mark_index_status([ids["r2"]], "failed", "model down")
    return ids


def test_every_backend_answers_the_dashboard(store):
    assert isinstance(store, DashboardStore)


def test_breakdown_counts_only_what_passes_the_filters(store):
    _fill(store)
    everything = store.breakdown()
    assert everything.total == 6 and everything.sessions == 3
    assert everything.by_column["kind"] == {"message": 4, "memory": 2}
    assert everything.by_column["platform"] == {"qq": 2, "tg": 1, None: 3}
    assert everything.vectors_by_model == {"p:m": 2}
    a = store.breakdown(Filters(scopes=["a"]))
    assert a.total == 4 and a.sessions == 2
    assert a.by_column["scope"] == {"a": 4}
    assert a.by_column["index_status"] == {"indexed": 1, "failed": 1, "pending": 2}
    assert a.vectors_by_model == {"p:m": 1}  # r3's vector is scope b's
    assert a.per_quarter == {
        (QUARTER0, "message"): 2,
        (QUARTER0 + 96, "message"): 1,
        (QUARTER0, "memory"): 1,
    }
    nothing = store.breakdown(Filters(scopes=["nobody"]))
    assert nothing.total == 0 and nothing.sessions == 0 and nothing.vectors_by_model == {}


def test_quarters_of_an_hour_are_cut_at_900_seconds(store):
    """The messages are 801, 802, 800 and 805 s into their quarters (T is 800 s into one):
    one more at T + 99 s is in the next."""
    _fill(store)
    insert(store, fields(99, created_at=T + 100))
    quarters = store.breakdown(Filters(kinds=["message"])).per_quarter
    assert quarters == {
        (QUARTER0, "message"): 2,
        (QUARTER0 + 1, "message"): 1,
        (QUARTER0 + 96, "message"): 2,
    }


def test_sessions_most_recent_first_with_their_platform_and_group(store):
    _fill(store)
    insert(store, fields(7, scope="a", session="s0", created_at=T + 86_400 + 5))  # ties s3
    summaries = store.session_summaries(Filters(kinds=["message"]))
    assert [s.session for s in summaries] == ["s0", "s3", "s2", "s1"]  # a tie goes by name
    s1 = summaries[-1]
    assert (s1.platform, s1.group_id, s1.group_name) == ("qq", "g1", "Readers")  # max of each
    assert (s1.records, s1.first, s1.last) == (2, T + 1, T + 2)
    assert summaries[1].platform is None and summaries[1].group_name is None
    assert [s.session for s in store.session_summaries(Filters(scopes=["b"]))] == ["s2"]
    assert [s.session for s in store.session_summaries(limit=2)] == ["s0", "s3"]


def test_distinct_values_sort_by_code_point(store):
    insert(
        store,
        *(
            fields(i, scope=scope, category=category, **MEMORY)
            for i, (scope, category) in enumerate(
                [("b", "fact"), ("B", None), ("a", "entity"), ("中", "fact"), ("a", "Zeta")]
            )
        ),
    )
    assert store.distinct_values("scope") == ["B", "a", "b", "中"]
    assert store.distinct_values("category") == ["Zeta", "entity", "fact"]
    assert store.distinct_values("category", Filters(scopes=["a"])) == ["Zeta", "entity"]
    with pytest.raises(ValueError, match="column 'text'"):
        store.distinct_values("text")  # type: ignore[arg-type]


def test_distinct_speaker_labels(store):
    insert(store, fields(1, speaker_label="赵磊"), fields(2, speaker_label="Ann"), fields(3))
    assert store.distinct_values("speaker_label") == ["Ann", "赵磊"]


def test_newest_ids_pages_and_ended_validity(store):
    insert(
        store,
        fields(1, **MEMORY),
        fields(2, **MEMORY, valid_to=T + 50),
        fields(3, **MEMORY, valid_to=T + 500),
        fields(4, **MEMORY, created_at=T + 3),  # the same time as r3: the later rowid first
        fields(5),
    )
    memories = Filters(kinds=["memory"])
    assert store.newest_ids(NewestIds(memories)) == ["r4", "r3", "r2", "r1"]
    assert store.newest_ids(NewestIds(memories, limit=2, offset=1)) == ["r3", "r2"]
    assert store.newest_ids(NewestIds(memories, offset=3)) == ["r1"]
    assert store.newest_ids(NewestIds(memories, ended_by=T + 100)) == ["r2"]
    assert store.newest_ids(NewestIds(memories, ended_by=T + 500)) == ["r3", "r2"]
    current = Filters(kinds=["memory"], include_superseded=False)
    assert store.newest_ids(NewestIds(current, limit=10)) == ["r4", "r1"]  # both ended before now


def test_storage_size_says_what_it_measured(store):
    before = store.storage_size()
    assert before.measure in ("file", "schema", "memory")
    if before.measure == "memory":
        assert (before.bytes, before.location) == (0, ":memory:")
        return
    if before.measure == "file":
        assert before.location == str(store.path)
    else:
        assert "schema " in before.location and "password" not in before.location
    insert(store, *(fields(i, text="words " * 2000) for i in range(50)))
    assert store.storage_size().bytes > before.bytes > 0


def test_sqlite_dashboard_reads_never_wait_for_the_request_connection(tmp_path):
    """A write holding the store's shared connection (and the write lock) does not delay
    a dashboard scan: it reads the last commit on a read-only connection of its own."""
    import threading

    from remem.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "s.db")
    insert(store, fields(1))
    inside, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with store.write() as c:
            c.execute("UPDATE records SET text = 'changing' WHERE id = 'r1'")
            inside.set()
            release.wait(10)

    answers: list = []
    writer = threading.Thread(target=long_write)
    reader = threading.Thread(target=lambda: answers.append(store.newest_ids()))
    writer.start()
    try:
        assert inside.wait(10)
        reader.start()
        reader.join(5)
        assert answers == [["r1"]]  # answered while the write is still open
    finally:
        release.set()
        writer.join()
        store.close()


def test_speaker_lines_matching_a_pattern_case_sensitively_newest_first(store):
    insert(
        store,
        fields(1, speaker_label="周婷婷", text="欢迎小明！我是 Tina", scope="a"),
        fields(2, speaker_label="Kelvin", text="Welcome! I'm Kelvin", scope="b"),
        fields(3, speaker_label="Ann", text="I'm tired", scope="a"),
        fields(4, text="我是 Nobody: no speaker", scope="a"),
        fields(5, speaker_label="Bo", text="100%_off* I'm Bo?", scope="a"),
        fields(6, speaker_label="Cy", text="100 percent off I'M Cy", scope="a"),
        fields(7, speaker_label="Di", text="I'm Di\nsecond line", scope="a"),
        fields(8, speaker_label="Ed", text="a.b^c$d|e{f}g]h\\i", scope="a"),
    )
    patterns = ("%我是%[A-Z]%", "%I'm [A-Z]%")
    assert store.speaker_lines_matching(patterns) == [
        ("Di", "I'm Di\nsecond line"),
        ("Bo", "100%_off* I'm Bo?"),
        ("Kelvin", "Welcome! I'm Kelvin"),
        ("周婷婷", "欢迎小明！我是 Tina"),
    ]
    assert store.speaker_lines_matching(patterns, Filters(scopes=["b"])) == [
        ("Kelvin", "Welcome! I'm Kelvin")
    ]
    assert store.speaker_lines_matching(patterns, limit=1) == [("Di", "I'm Di\nsecond line")]
    # the backends' own wildcards and regex characters in a pattern are matched as themselves
    assert store.speaker_lines_matching(["100%_off*%"]) == [("Bo", "100%_off* I'm Bo?")]
    assert store.speaker_lines_matching(["%[?]%", "%(%", "%Bo[?]"]) == []
    assert store.speaker_lines_matching(["%Bo?"]) == [("Bo", "100%_off* I'm Bo?")]
    assert store.speaker_lines_matching(["a.b^c$d|e{f}g]h\\i"]) == [("Ed", "a.b^c$d|e{f}g]h\\i")]
    assert store.speaker_lines_matching(["a?b%", "a.b^c$d|e{f}g]h\\", "%b.c%"]) == []
    assert store.speaker_lines_matching([]) == []
