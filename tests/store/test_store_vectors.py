"""Store conformance: vectors by model, legacy (model-less) vectors, and what an in-memory
index reads to catch up (``load_vectors``, ``index_delta``)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conformance import fields, insert

from remem.store.queries import Backlog, VectorWrite
from remem.types import Filters


def vec(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def test_vectors_record_their_model(store):
    (rowid,) = insert(store, fields(1))
    assert store.put_vectors(VectorWrite("a:m1", "a", "m1", [(rowid, vec(1, 2, 3))])) == 1
    store.put_vectors(VectorWrite("b:m2", "b", "m2", [(rowid, np.ones(5))]))  # any float array
    stored = store.vectors_of([rowid, 999_999])
    assert list(stored) == [rowid]
    assert [(m, p, name) for m, p, name, _ in stored[rowid]] == [
        ("a:m1", "a", "m1"),
        ("b:m2", "b", "m2"),
    ]
    assert np.frombuffer(stored[rowid][0][3], np.float32).tolist() == [1, 2, 3]
    assert sorted(store.vector_stats()) == [("a:m1", 3, 1), ("b:m2", 5, 1)]
    assert store.get("r1").index_status == "indexed"


def test_put_vectors_replaces_and_skips_deleted_records(store):
    a, b = insert(store, fields(1), fields(2))
    store.mark_index_status([a], "failed", "model down")
    store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(1, 0)), (b, vec(0, 1))]))
    assert store.get("r1").index_error is None
    store.delete(["r2"])
    assert store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(2, 2)), (b, vec(3, 3))])) == 1
    (only,) = store.vectors_of([a])[a]
    assert np.frombuffer(only[3], np.float32).tolist() == [2, 2]
    assert store.vector_count("m") == 1
    assert store.put_vectors(VectorWrite("m", "p", "m", [])) == 0


def test_put_vectors_without_marking_indexed(store):
    (rowid,) = insert(store, fields(1))
    _, _, rev, _ = store.index_delta("m", 2, 0, 0)
    store.put_vectors(VectorWrite("m", "p", "m", [(rowid, vec(1, 0))], mark_indexed=False))
    assert store.get("r1").index_status == "pending"
    _, meta, new_rev, _ = store.index_delta("m", 2, 0, rev)
    assert new_rev > rev and [row[0] for row in meta] == [rowid]  # indexes still see it


def test_vector_stats_put_the_biggest_model_first(store):
    rowids = insert(store, *(fields(i) for i in range(3)))
    store.put_vectors(VectorWrite("small", "p", "s", [(rowids[0], vec(1, 0))]))
    store.put_vectors(VectorWrite("big", "p", "b", [(r, vec(1, 0, 0)) for r in rowids]))
    assert store.vector_stats() == [("big", 3, 3), ("small", 2, 1)]
    assert (store.vector_count("big"), store.vector_count("none")) == (3, 0)


def test_clear_vectors_by_filter_and_model(store):
    a, b, c = insert(store, fields(1, scope="x"), fields(2, scope="x"), fields(3, scope="y"))
    for model in ("m1", "m2"):
        store.put_vectors(VectorWrite(model, "p", model, [(r, vec(1, 0)) for r in (a, b, c)]))
    deletes = store.index_delta("m1", 2, 0, 0)[3]
    assert store.clear_vectors(Filters(scopes=["x"]), model_id="m1") == 2
    assert (store.vector_count("m1"), store.vector_count("m2")) == (1, 3)
    assert store.get("r1").index_status == "pending"
    assert store.get("r3").index_status == "indexed"
    assert store.index_delta("m1", 2, 0, 0)[3] == deletes + 1  # indexes reload
    store.mark_indexed_with("m2")  # r1 and r2 still hold an m2 vector
    assert {r.index_status for r in store.list_records()} == {"indexed"}
    assert store.clear_vectors() == 4  # every model, every record
    assert store.vector_stats() == []
    assert store.clear_vectors() == 0


def test_clear_vectors_leaves_the_text_date_so_other_models_vectors_stay_fresh(store, monkeypatch):
    # updated_at dates the text; a vector made before it is stale (``stale_vectors``).
    # Dropping one model's vector a minute later changes no text: the other model's stays fresh.
    (rowid,) = insert(store, fields(1))
    for model in ("m1", "m2"):
        store.put_vectors(VectorWrite(model, "p", model, [(rowid, vec(1, 0))]))
    later = time.time() + 60
    monkeypatch.setattr(time, "time", lambda: later)
    assert store.clear_vectors(model_id="m1") == 1
    assert store.stale_vectors("m2") == []


def test_stand_in_vectors_of_indexed_records_are_dropped_and_statuses_kept(store):
    a, b = insert(store, fields(1), fields(2))
    store.put_vectors(
        VectorWrite("fast", "p", "f", [(a, vec(1, 0)), (b, vec(0, 1))], mark_indexed=False)
    )
    store.put_vectors(
        VectorWrite("main", "p", "m", [(a, vec(1, 0, 0))])
    )  # a is indexed now, b waits
    deletes = store.index_delta("fast", 2, 0, 0)[3]
    assert store.drop_vectors_of_indexed("fast") == 1
    assert (store.vector_count("fast"), store.vector_count("main")) == (1, 1)
    assert store.get("r1").index_status == "indexed" and store.get("r2").index_status == "pending"
    assert store.index_delta("fast", 2, 0, 0)[3] == deletes + 1  # indexes reload
    assert store.drop_vectors_of_indexed("fast") == 0  # b still waits: its stand-in stays
    assert store.index_delta("fast", 2, 0, 0)[3] == deletes + 1  # nothing deleted, no bump


def test_records_missing_vectors(store):
    a, _, c, d = insert(store, fields(1), fields(2, index_status="skipped"), fields(3), fields(4))
    store.put_vectors(VectorWrite("m", "p", "m", [(c, vec(1, 0))]))
    assert [r.id for r in store.records_missing_vectors(Backlog("m"))] == [
        "r1",
        "r4",
    ]  # not skipped
    assert [r.id for r in store.records_missing_vectors(Backlog("m", limit=1))] == ["r1"]
    assert [r.rowid for r in store.records_missing_vectors(Backlog("m", after_rowid=a))] == [d]
    assert store.count_missing_vectors("m") == 2
    assert store.count_missing_vectors("other") == 3


def test_records_missing_vectors_newest_first(store):
    """Below ``before_rowid``, highest rowid first: `remem embed` walks a long import's
    backlog from its newest end, page by page."""
    a, b, c, d = insert(store, fields(1), fields(2), fields(3), fields(4))
    store.put_vectors(VectorWrite("m", "p", "m", [(c, vec(1, 0))]))
    newest = store.records_missing_vectors(Backlog("m", limit=2, before_rowid=d + 1))
    assert [r.rowid for r in newest] == [d, b]  # c has its vector
    assert [r.rowid for r in store.records_missing_vectors(Backlog("m", before_rowid=b))] == [a]
    assert store.records_missing_vectors(Backlog("m", before_rowid=a)) == []


def test_legacy_vectors_are_adopted_by_a_model(store):
    a, b, c = insert(store, fields(1), fields(2), fields(3))
    store.put_vectors(VectorWrite("", "", "", [(a, vec(1, 0)), (b, vec(0, 1))], mark_indexed=False))
    store.put_vectors(VectorWrite("", "", "", [(c, vec(1, 1, 1))], mark_indexed=False))
    store.put_vectors(
        VectorWrite("m", "p", "m", [(b, vec(5, 5))])
    )  # b already has its own m vector
    assert store.has_legacy_vectors() and store.legacy_vector_dims() == {2, 3}
    before = store.load_vectors("m", 2)
    assert store.adopt_legacy_vectors("m", "p", "m", dim=2) == 1  # only a's moves
    assert store.legacy_vector_dims() == {3}
    adopted = store.load_vectors("m", 2, after_seq=before.max_seq)  # re-inserted: new seq
    assert adopted.rowids.tolist() == [a] and adopted.matrix.tolist() == [[1, 0]]
    own = np.frombuffer(store.vectors_of([b])[b][0][3], np.float32)
    assert own.tolist() == [5, 5]  # the record's own vector won
    assert store.get("r1").index_status == "indexed"
    assert store.adopt_legacy_vectors("m", "p", "m") == 1  # every remaining dim
    assert not store.has_legacy_vectors()
    assert store.vector_stats() == [("m", 2, 2), ("m", 3, 1)]


def test_load_vectors_reads_one_model_and_dim_after_a_seq(store):
    a, b = insert(store, fields(1), fields(2))
    empty = store.load_vectors("m", 2)
    assert (empty.rowids.shape, empty.matrix.shape, empty.max_seq) == ((0,), (0, 2), 0)
    store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(1, 0))]))
    store.put_vectors(VectorWrite("m", "p", "m", [(b, vec(0, 1))]))
    store.put_vectors(VectorWrite("other", "p", "o", [(a, vec(9, 9))]))
    store.put_vectors(VectorWrite("m3", "p", "m", [(a, vec(1, 1, 1))]))
    first = store.load_vectors("m", 2)
    assert first.rowids.tolist() == [a, b] and first.matrix.tolist() == [[1, 0], [0, 1]]
    assert first.rowids.dtype == np.int64 and first.matrix.dtype == np.float32
    assert store.load_vectors("m", 3).rowids.tolist() == []  # another dim
    store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(2, 0))]))  # replaced: comes again, later
    later = store.load_vectors("m", 2, after_seq=first.max_seq)
    assert later.rowids.tolist() == [a] and later.max_seq > first.max_seq
    nothing = store.load_vectors("m", 2, after_seq=later.max_seq)
    assert nothing.rowids.tolist() == [] and nothing.max_seq == later.max_seq


def test_index_delta_reports_changed_records_and_the_counters(store):
    a, b = insert(
        store,
        fields(1, scope="x", session="s", role="user", platform="qq"),
        fields(2, kind="memory", category="fact", valid_to=5.0),
    )
    store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(1, 0))]))
    vectors, meta, rev, deletes = store.index_delta("m", 2, 0, 0)
    assert vectors.rowids.tolist() == [a]
    by_rowid = {row[0]: tuple(row) for row in meta}
    assert by_rowid[a] == (
        a,
        "message",
        "x",
        "s",
        "user",
        fields(1)["created_at"],
        "qq",
        None,
        None,
    )
    assert by_rowid[b][1:] == (
        "memory",
        "global",
        None,
        None,
        fields(2)["created_at"],
        None,
        "fact",
        5.0,
    )
    again = store.index_delta("m", 2, vectors.max_seq, rev)
    assert (again[0].rowids.tolist(), again[1], again[2:]) == ([], [], (rev, deletes))
    store.set_validity(b, 7.0, {})
    _, meta, rev2, _ = store.index_delta("m", 2, vectors.max_seq, rev)
    assert rev2 > rev and [(row[0], row[8]) for row in meta] == [(b, 7.0)]
    store.record_access([(a, 1, 1.0)])  # not a filter column: indexes need not look
    assert store.index_delta("m", 2, vectors.max_seq, rev2)[1] == []


@pytest.mark.parametrize("change", ["delete", "delete_vectors", "clear_vectors"])
def test_index_delta_deletes_counter(store, change):
    (a,) = insert(store, fields(1))
    store.put_vectors(VectorWrite("m", "p", "m", [(a, vec(1, 0))]))
    deletes = store.index_delta("m", 2, 0, 0)[3]
    seqs = store.load_vectors("m", 2).max_seq
    {
        "delete": lambda: store.delete(["r1"]),
        "delete_vectors": lambda: store.delete_vectors([seqs]),
        "clear_vectors": lambda: store.clear_vectors(),
    }[change]()
    assert store.index_delta("m", 2, 0, 0)[3] == deletes + 1
    assert store.vector_count("m") == 0
