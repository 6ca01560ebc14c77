"""Store conformance: what a snapshot vector index reads (``vector_state``, ``read_vectors``,
``live_rowids``, ``vectors_at``, ``filter_rows``) and the vector counts kept on write."""

from __future__ import annotations

import numpy as np
from conformance import fields, insert

from remem.store.queries import VectorRead, VectorWrite
from remem.store.rows import INDEX_META_FIELDS

DIM = 4


def _unit(seed: int, n: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _five(store) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Five records with vectors, then rowids[1]'s vector replaced (a new seq, the 6th)."""
    first = _unit(1, 5)
    rowids = insert(store, *(fields(i) for i in range(5)))
    for rowid, vector in zip(rowids, first, strict=True):  # one seq each, in this order
        store.put_vectors(VectorWrite("m", "p", "m", [(rowid, vector)]))
    replaced = _unit(2, 1)[0]
    store.put_vectors(VectorWrite("m", "p", "m", [(rowids[1], replaced)]))
    return rowids, first, replaced


def test_read_vectors_in_seq_order_by_rowid_and_after_a_seq(store):
    rowids, first, replaced = _five(store)
    state = store.vector_state("m", DIM)
    by_seq = store.read_vectors(VectorRead("m", DIM))
    assert by_seq.rowids.tolist() == [rowids[i] for i in (0, 2, 3, 4, 1)]
    assert by_seq.max_seq == state.max_seq and by_seq.matrix.flags.c_contiguous
    np.testing.assert_array_equal(by_seq.matrix[-1], replaced)
    by_rowid = store.read_vectors(VectorRead("m", DIM, by_rowid=True))
    assert by_rowid.rowids.tolist() == sorted(rowids)
    np.testing.assert_array_equal(by_rowid.matrix[0], first[0])
    later = store.read_vectors(VectorRead("m", DIM, after_seq=by_seq.max_seq - 1))
    assert later.rowids.tolist() == [rowids[1]] and later.max_seq == by_seq.max_seq
    nothing = store.read_vectors(VectorRead("m", DIM, after_seq=by_seq.max_seq))
    assert len(nothing) == 0 and nothing.max_seq == by_seq.max_seq
    assert nothing.matrix.shape == (0, DIM)
    assert len(store.read_vectors(VectorRead("other", DIM))) == 0
    assert len(store.read_vectors(VectorRead("m", DIM + 1))) == 0  # another dimension


def test_read_vectors_fills_the_arrays_it_is_given(store):
    rowids, _, _ = _five(store)
    given: list[tuple[np.ndarray, np.ndarray]] = []

    def allocate(count: int) -> tuple[np.ndarray, np.ndarray]:
        given.append((np.zeros(count, np.int64), np.zeros((count, DIM), np.float32)))
        return given[-1]

    batch = store.read_vectors(VectorRead("m", DIM, by_rowid=True, allocate=allocate))
    assert batch.rowids is given[0][0] and batch.matrix is given[0][1]
    assert batch.rowids.tolist() == sorted(rowids)
    assert np.allclose(np.linalg.norm(batch.matrix, axis=1), 1.0)


def test_vector_state_live_rowids_and_vectors_at_follow_deletes(store):
    rowids, first, replaced = _five(store)
    before = store.vector_state("m", DIM)
    assert before.max_seq > 0 and store.vector_state("other", DIM).max_seq == 0
    store.delete(["r3"])
    after = store.vector_state("m", DIM)
    assert after.deletes == before.deletes + 1 and after.max_seq == before.max_seq
    # rowids[1]'s vector moved to the newest seq: up to the one before it is gone
    upto = before.max_seq - 1
    assert store.live_rowids("m", DIM, upto).tolist() == [rowids[i] for i in (0, 2, 4)]
    assert store.live_rowids("m", DIM, before.max_seq).tolist() == [rowids[i] for i in (0, 1, 2, 4)]
    got = store.vectors_at("m", DIM, [rowids[0], rowids[1], rowids[3]], before.max_seq)
    assert sorted(got) == [rowids[0], rowids[1]]
    np.testing.assert_array_equal(got[rowids[0]], first[0])
    np.testing.assert_array_equal(got[rowids[1]], replaced)
    assert rowids[1] not in store.vectors_at("m", DIM, [rowids[1]], upto)
    assert store.vectors_at("m", DIM, [], before.max_seq) == {}


def test_filter_rows_returns_what_changed_after_a_rev(store):
    a, b = insert(store, fields(1, scope="s1"), fields(2, scope="s2"))
    rows, rev = store.filter_rows(0)
    by_rowid = {row[0]: dict(zip(INDEX_META_FIELDS, row, strict=True)) for row in rows}
    assert set(by_rowid) == {a, b} and by_rowid[b]["scope"] == "s2"
    assert store.filter_rows(rev) == ([], rev)
    store.put_vectors(VectorWrite("m", "p", "m", [(b, _unit(3, 1)[0])]))
    changed, newer = store.filter_rows(rev)
    assert newer > rev and [row[0] for row in changed] == [b]


def test_vector_counts_follow_inserts_replacements_and_deletes(store):
    rowids = insert(store, *(fields(i) for i in range(4)))
    store.put_vectors(
        VectorWrite("m", "p", "m", [(r, v) for r, v in zip(rowids, _unit(4, 4), strict=True)])
    )
    store.put_vectors(
        VectorWrite("m", "p", "m", [(rowids[0], _unit(5, 1)[0])])
    )  # replaced: still 4
    store.put_vectors(VectorWrite("x", "p", "x", [(rowids[0], np.ones(2))]))
    assert store.vector_stats() == [("m", DIM, 4), ("x", 2, 1)]
    store.delete(["r0", "r1"])  # the records' vectors go with them
    assert store.vector_stats() == [("m", DIM, 2)]
    assert store.vector_count("m") == 2 and store.vector_count("x") == 0
    assert store.stats()["vectors"] == [{"model_id": "m", "dim": DIM, "count": 2}]
    store.clear_vectors(model_id="m")
    assert store.vector_stats() == [] and store.vector_count("m") == 0
