"""A session's BM25 counts cost what the session holds, not what the store holds.

A chat's own-session recall counts its words over its session's records
(``Store.phrase_counts``, ``search/scoped_terms.py``). SQLite plans without statistics and
took the (kind, created_at) index for ``kind = 'message' AND session = ?``: every message of
the store walked to count one session (91 ms at 100k against 0.6 ms through the session
index). Counted here as SQLite virtual-machine steps, which do not depend on the machine's
load."""

from __future__ import annotations

from conformance import fields

from remem.store.queries import LexicalQuery, SessionWindow, VectorRead, VectorWrite
from remem.store.sqlite import SQLiteStore
from remem.types import Filters


def vm_steps(store: SQLiteStore, run) -> int:
    """SQLite virtual-machine instructions ``run()`` executes on the store's connection."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    store._conn.set_progress_handler(tick, 100)
    try:
        run()
    finally:
        store._conn.set_progress_handler(None, 0)
    return steps * 100


def test_counting_one_session_walks_that_session_not_every_message(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    try:
        store.insert_records(
            [(fields(i, session=f"s{i // 50}"), "apple pear") for i in range(5_000)]
        )
        session = Filters(kinds=["message"], sessions=["s7"], exclude_ids=["r350"])
        assert store.phrase_counts(LexicalQuery(["kiwi"], session)) == (49, {})
        assert store.count(session) == 49
        one_session = vm_steps(store, lambda: store.phrase_counts(LexicalQuery(["kiwi"], session)))
        one_session += vm_steps(store, lambda: store.count(session))
        whole = Filters(kinds=["message"])
        every_message = vm_steps(store, lambda: store.phrase_counts(LexicalQuery(["kiwi"], whole)))
        # the session holds 1% of the messages; the slack is the fixed cost of a statement
        assert one_session * 10 < every_message
    finally:
        store.close()


def test_reading_hits_by_rowid_with_a_kind_filter_reads_those_rows_not_every_message(tmp_path):
    # a whole-store recall's filters (kinds=["message"], minus the turn) checked on rows the
    # search already found: SQLite took the (kind, created_at) index for
    # "rowid IN (...) AND kind = ?" and walked every message (66 ms for 60 rows at 100k)
    store = SQLiteStore(tmp_path / "s.db")
    try:
        rowids = store.insert_records(
            [(fields(i, session=f"s{i // 50}"), "apple pear") for i in range(5_000)]
        )
        hits = [r for r in rowids[::1000] if r is not None]
        recall = Filters(kinds=["message"], exclude_ids=["r1"])
        assert sorted(store.get_by_rowids(hits, recall)) == sorted(hits)
        checked = vm_steps(store, lambda: store.get_by_rowids(hits, recall))
        unfiltered = vm_steps(store, lambda: store.get_by_rowids(hits))
        # 5 rows either way; the slack is the fixed cost of a statement
        assert checked < unfiltered * 3 + 500
    finally:
        store.close()


def test_a_hits_session_window_walks_its_session_not_every_message_around_it(tmp_path):
    # the neighbour lift and the answerability evidence read a few records around each hit;
    # with a kind filter SQLite walked the (kind, created_at) index away from the hit through
    # every message of the store until it found the window's records of the hit's session
    # (0.7 s at 100k for a quiet session's turn)
    store = SQLiteStore(tmp_path / "s.db")
    try:
        # a quiet session of three turns, one at each end and one amid a busy session's 5,000
        quiet = {0, 2_500, 5_000}
        rows = [
            (fields(i, session="quiet" if i in quiet else "busy"), "apple pear")
            for i in range(5_001)
        ]
        rowids = store.insert_records(rows)
        middle = store.get_by_rowids([rowids[2_500]])  # type: ignore[list-item]
        window = SessionWindow(2, 2, Filters(kinds=["message"], exclude_ids=["r1"]))
        found = store.neighbours(list(middle.values()), window)
        assert [[r.id for r in v] for v in found.values()] == [["r0", "r5000"]]
        checked = vm_steps(store, lambda: store.neighbours(list(middle.values()), window))
        bare = SessionWindow(2, 2)
        unfiltered = vm_steps(store, lambda: store.neighbours(list(middle.values()), bare))
        # two rows either way; the slack is the fixed cost of a statement
        assert checked < unfiltered * 3 + 500
    finally:
        store.close()


def test_a_snapshot_builds_read_streams_the_vectors_without_sorting_them(tmp_path):
    # `remem import` ends with a snapshot build reading every vector in rowid order; sorted
    # through a temporary B-tree, SQLite held them all in its sorter first (the import's peak
    # memory jumped at the build)
    import numpy as np

    from remem.store.sqlite.vector_reads import read_vectors

    store = SQLiteStore(tmp_path / "v.db")
    try:
        rowids = store.insert_records([(fields(i), "w") for i in range(30)])
        vectors = np.eye(30, 8, dtype=np.float32)[:, :8] + 0.5
        # two models, written out of rowid order: seq order is not rowid order
        store.put_vectors(VectorWrite("other", "p", "o", [(r, vectors[0]) for r in rowids]))
        store.put_vectors(
            VectorWrite(
                "m", "p", "m", [(r, vectors[i]) for i, r in reversed(list(enumerate(rowids)))]
            )
        )
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        try:
            # the store reads on a side connection: the same function on its main one
            read = read_vectors(store._conn, VectorRead("m", 8, by_rowid=True))
        finally:
            store._conn.set_trace_callback(None)
        assert read.rowids.tolist() == sorted(rowids)
        assert np.array_equal(read.matrix, vectors)
        (select,) = [s for s in statements if "SELECT record_rowid, vec" in s]
        plan = store._conn.execute("EXPLAIN QUERY PLAN " + select).fetchall()
        assert not any("TEMP B-TREE" in str(row) for row in plan), plan
    finally:
        store.close()
