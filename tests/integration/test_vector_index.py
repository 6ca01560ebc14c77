"""The vector index over a real SQLite store: snapshot files beside the database, the delta of
later writes, deletes, filters, stale and broken files, several processes at once."""

from __future__ import annotations

import ast
import json
import logging
import multiprocessing
import re
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from remem.index.snapshot import index_dir, open_snapshot, read_info
from remem.index.vector import VectorIndex
from remem.store.queries import VectorRead, VectorWrite
from remem.store.sqlite import SQLiteStore

MODEL = "test:unit"
DIM = 32


def _fields(i: int) -> dict:
    return {
        "id": f"r{i}",
        "kind": "message",
        "text": f"text {i}",
        "scope": "global",
        "created_at": 1000.0 + i,
        "content_hash": f"h{i}",
        "importance": 0.5,
    }


def _unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _fill(store: SQLiteStore, vectors: np.ndarray, start: int = 0, model: str = MODEL) -> list:
    rowids = store.insert_records([(_fields(start + i), "t") for i in range(len(vectors))])
    store.put_vectors(VectorWrite(model, "test", "unit", list(zip(rowids, vectors, strict=True))))
    return rowids


def _exact(vectors: dict[int, np.ndarray], query: np.ndarray, k: int) -> list[int]:
    rowids = np.array(sorted(vectors))
    scores = np.stack([vectors[r] for r in rowids]) @ query
    return rowids[np.argsort(-scores, kind="stable")[:k]].tolist()


def _index(db: Path, **options) -> VectorIndex:
    options = {"background": False, "ann_min": 500, "delta_max": 200, **options}
    return VectorIndex(SQLiteStore(db), index_dir(db), MODEL, DIM, **options)


@pytest.fixture
def store(db_path):
    s = SQLiteStore(db_path)
    yield s
    s.close()


# ---------------------------------------------------------------------------- search
def test_small_store_searches_exactly_from_memory_and_writes_no_files(store, db_path):
    vectors = _unit(np.random.default_rng(2), 50)
    rowids = _fill(store, vectors)
    index = _index(db_path)
    hits = index.search(vectors[7], 5)
    assert [r for r, _ in hits] == _exact(dict(zip(rowids, vectors, strict=True)), vectors[7], 5)
    assert hits[0] == (rowids[7], pytest.approx(1.0))
    assert index.snapshot_info is None and not index.folder.exists()


def test_threshold_switch_exact_snapshot_then_graph(store, db_path):
    rng = np.random.default_rng(3)
    _fill(store, _unit(rng, 300))
    index = _index(db_path)
    index.search(_unit(rng, 1)[0], 5)  # 300 > delta_max: a snapshot, below ann_min: no graph
    index.sync()
    assert index.snapshot_info.count == 300 and not index.snapshot_info.has_graph
    _fill(store, _unit(rng, 300), start=300)  # 600 >= ann_min: the next build adds a graph
    index.search(_unit(rng, 1)[0], 5)
    index.sync()
    assert index.snapshot_info.count == 600 and index.snapshot_info.has_graph
    assert index._snapshot.graph is not None and index.size == 600


def test_filtered_search_returns_k_allowed_hits(store, db_path):
    rng = np.random.default_rng(4)
    vectors = _unit(rng, 2000)
    rowids = np.array(_fill(store, vectors))
    by_rowid = dict(zip(rowids.tolist(), vectors, strict=True))
    index = _index(db_path, subset_exact_max=100)
    index.search(vectors[0], 1)
    index.sync()
    assert index.snapshot_info.has_graph
    query = _unit(rng, 1)[0]
    for size in (3, 40, 150, 600, 1500):  # exact subset scans and widened graph searches
        allowed = np.sort(rng.choice(rowids, size, replace=False))
        hits = index.search(query, 10, allowed)
        assert len(hits) == min(10, size), size
        assert {r for r, _ in hits} <= set(allowed.tolist())
        want = _exact({r: by_rowid[r] for r in allowed.tolist()}, query, 10)
        if size <= 100:
            assert [r for r, _ in hits] == want
        else:
            assert len({r for r, _ in hits} & set(want)) >= 8, size
    # unsorted, duplicated input is accepted; an empty allowed set finds nothing
    assert len(index.search(query, 10, rowids[::-1][:30].repeat(2))) == 10
    assert index.search(query, 10, np.empty(0, np.int64)) == []


def test_new_replaced_and_deleted_vectors_are_honoured(store, db_path):
    rng = np.random.default_rng(5)
    vectors = _unit(rng, 600)
    rowids = _fill(store, vectors)
    index = _index(db_path, delta_max=10_000)  # keep what follows in the delta
    index.build()
    index.sync()
    assert index.snapshot_info.count == 600 and index.snapshot_info.has_graph

    fresh = _unit(rng, 5)
    new_rowids = _fill(store, fresh, start=600)
    assert index.search(fresh[2], 1)[0][0] == new_rowids[2]  # from the delta

    target = rowids[10]
    moved = _unit(rng, 1)[0]
    store.put_vectors(
        VectorWrite(MODEL, "test", "unit", [(target, moved)])
    )  # replaces a snapshot row
    assert index.search(moved, 1)[0] == (target, pytest.approx(1.0))
    assert target not in [r for r, _ in index.search(vectors[10], 20)]
    np.testing.assert_allclose(index.vectors_for([target])[target], moved)

    store.delete(["r20", "r601"])  # one snapshot row, one delta row
    assert rowids[20] not in [r for r, _ in index.search(vectors[20], 20)]
    assert new_rowids[1] not in [r for r, _ in index.search(fresh[1], 20)]
    assert index.vectors_for([rowids[20], new_rowids[1]]) == {}
    assert index.size == 603
    allowed = np.array(sorted([rowids[20], rowids[21], new_rowids[1], new_rowids[3]]))
    assert sorted(r for r, _ in index.search(vectors[21], 10, allowed)) == sorted(
        [rowids[21], new_rowids[3]]
    )


def test_many_dead_rows_trigger_a_rebuild(store, db_path):
    rng = np.random.default_rng(6)
    _fill(store, _unit(rng, 600))
    index = _index(db_path)
    index.build()
    index.sync()
    first = index.snapshot_info.generation
    store.delete([f"r{i}" for i in range(200)])  # a third of the snapshot
    index.search(_unit(rng, 1)[0], 5)
    index.sync()
    assert index.snapshot_info.generation != first and index.snapshot_info.count == 400


# ---------------------------------------------------------------------------- stale and broken
def test_stale_snapshot_is_caught_up_then_rebuilt(store, db_path):
    rng = np.random.default_rng(7)
    _fill(store, _unit(rng, 600))
    _index(db_path).build()
    first = read_info(index_dir(db_path) / _index(db_path).folder.name)
    later = _unit(rng, 250)
    later_rowids = _fill(store, later, start=600)
    index = _index(db_path)  # a new process: the snapshot covers 600, the store holds 850
    hits = index.search(later[3], 1)
    assert hits[0][0] == later_rowids[3]  # the delta was read from the store
    index.sync()
    assert index.snapshot_info.generation != first.generation
    assert index.snapshot_info.count == 850 and index.snapshot_info.max_seq == 850


@pytest.mark.parametrize("new_size", [300, 700])  # behind the snapshot's seq; past it
def test_snapshot_of_another_database_at_the_same_path_is_ignored(tmp_path, caplog, new_size):
    db = tmp_path / "remem.db"
    rng = np.random.default_rng(8)
    old = SQLiteStore(db)
    _fill(old, _unit(rng, 600))
    _index(db).build()
    old.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    new = SQLiteStore(db)
    vectors = _unit(rng, new_size)
    rowids = _fill(new, vectors)
    index = _index(db)
    with caplog.at_level(logging.WARNING, logger="remem.index"):
        hits = index.search(vectors[4], 1000)
    assert len(hits) == new_size and hits[0][0] == rowids[4]
    assert "made from another database" in caplog.text
    index.sync()
    assert index.snapshot_info.count == new_size  # rebuilt from this database
    new.close()


@pytest.mark.parametrize(
    "damage",
    ["truncate-vectors", "truncate-graph", "garbage-json", "missing-rowids", "wrong-model"],
)
def test_broken_snapshot_is_ignored_and_rebuilt(store, db_path, damage, caplog):
    rng = np.random.default_rng(9)
    vectors = _unit(rng, 600)
    rowids = _fill(store, vectors)
    index = _index(db_path)
    index.build()
    folder = index.folder
    info = read_info(folder)
    base = folder / info.generation
    if damage == "truncate-vectors":
        path = Path(f"{base}.vectors.npy")
        path.write_bytes(path.read_bytes()[:5000])
    elif damage == "truncate-graph":
        path = Path(f"{base}.faiss")
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "garbage-json":
        (folder / "current.json").write_text("{not json")
    elif damage == "missing-rowids":
        Path(f"{base}.rowids.npy").unlink()
    else:
        raw = json.loads((folder / "current.json").read_text())
        (folder / "current.json").write_text(json.dumps({**raw, "model_id": "other:model"}))
    assert open_snapshot(folder, MODEL, DIM) is None
    fresh = _index(db_path)
    with caplog.at_level(logging.WARNING, logger="remem.index"):
        hits = fresh.search(vectors[42], 3)
    assert hits[0] == (rowids[42], pytest.approx(1.0))  # answered from the store meanwhile
    fresh.sync()
    assert fresh.snapshot_info is not None and fresh.snapshot_info.count == 600  # rebuilt
    assert open_snapshot(folder, MODEL, DIM) is not None


# ---------------------------------------------------------------------------- processes
def _build_and_search(db: str, rounds: int, seed: int) -> list[int]:
    """Run in another process: build (waiting for the lock) and search in turns."""
    index = _index(Path(db))
    rng = np.random.default_rng(seed)
    batch = SQLiteStore(db).read_vectors(VectorRead(MODEL, DIM))
    wrong = []
    for i in range(rounds):
        if i % 2 == 0:
            index.build(wait=bool(seed % 2))
        pick = int(rng.integers(len(batch)))
        if index.search(batch.matrix[pick], 1)[0][0] != batch.rowids[pick]:
            wrong.append(pick)
    return wrong


def test_processes_building_and_searching_at_once_do_not_corrupt(store, db_path):
    rng = np.random.default_rng(10)
    vectors = _unit(rng, 800)
    rowids = _fill(store, vectors)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(3) as pool:
        results = pool.starmap(_build_and_search, [(str(db_path), 6, s) for s in range(3)])
    assert results == [[], [], []]
    folder = _index(db_path).folder
    assert open_snapshot(folder, MODEL, DIM) is not None
    leftovers = {p.name.split(".")[0] for p in folder.iterdir() if p.suffix in (".npy", ".faiss")}
    assert leftovers == {read_info(folder).generation}  # older generations were cleaned up
    index = _index(db_path)
    assert index.search(vectors[99], 1)[0][0] == rowids[99] and index.size == 800


# ---------------------------------------------------------------------------- real vectors
def _stdlib_sentences(limit: int) -> list[str]:
    """Real English prose that every machine has: sentences of the standard library's
    docstrings, in a fixed order."""
    seen: dict[str, None] = {}
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Module):
                doc = ast.get_docstring(node) or ""
                for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", doc):
                    sentence = " ".join(sentence.split())
                    if 30 <= len(sentence) <= 300:
                        seen.setdefault(sentence, None)
        if len(seen) >= limit:
            break
    return list(seen)[:limit]


@pytest.mark.slow
def test_graph_recall_against_exact_on_real_use_vectors(store, db_path):
    from remem.embed.local import USEEmbedder

    texts = _stdlib_sentences(2200)
    assert len(texts) == 2200
    # one thread: with other jobs on a 2-core machine two threads run ~10x slower
    vectors = USEEmbedder(threads=1).embed_passages(texts)
    corpus, queries = vectors[:2000], vectors[2000:]
    rowids = _fill(store, corpus)
    index = VectorIndex(store, index_dir(db_path), MODEL, 512, background=False, ann_min=1000)
    index.build()
    index.sync()
    assert index._snapshot.graph is not None
    by_rowid = dict(zip(rowids, corpus, strict=True))
    recalls = []
    for query in queries:
        got = [r for r, _ in index.search(query, 10)]
        recalls.append(len(set(got) & set(_exact(by_rowid, query, 10))) / 10)
    assert np.mean(recalls) >= 0.98, np.mean(recalls)


# ---------------------------------------------------------------------------- with filters
def _filter_store(store: SQLiteStore, n: int, rng) -> list[int]:
    vectors = _unit(rng, n)
    rows = [
        (
            {
                **_fields(i),
                "scope": f"s{i % 4}",
                "kind": "memory" if i % 3 == 0 else "message",
                "session": f"c{i % 7}",
            },
            "t",
        )
        for i in range(n)
    ]
    rowids = store.insert_records(rows)
    store.put_vectors(VectorWrite(MODEL, "test", "unit", list(zip(rowids, vectors, strict=True))))
    return rowids


@pytest.mark.parametrize("size", [150, 900])  # delta only; snapshot with a graph
def test_filtered_index_answers_like_the_exact_index(store, db_path, size):
    from remem.index.exact import ExactIndex
    from remem.index.filtered import FilteredVectorIndex
    from remem.types import Filters

    rng = np.random.default_rng(11)
    rowids = _filter_store(store, size, rng)
    exact = ExactIndex(store, MODEL, DIM)
    scaled = FilteredVectorIndex(
        store, MODEL, DIM, background=False, ann_min=500, delta_max=200, subset_exact_max=50
    )
    scaled.sync()
    assert scaled.size == size and (scaled.vectors.snapshot_info is not None) == (size > 200)
    for filters in (
        None,
        Filters(scopes=["s1"]),
        Filters(scopes=["s2"], kinds=["memory"]),
        Filters(sessions=["c3"], scopes=["s0", "s3"]),
    ):
        for q in _unit(rng, 5):
            want = exact.search(q, 10, filters)
            got = scaled.search(q, 10, filters)
            assert len(got) == len(want) == 10
            assert {r for r, _ in got} <= set(rowids)
            overlap = len({r for r, _ in got} & {r for r, _ in want})
            assert overlap == 10 if size < 200 else overlap >= 8
    # a record written later (delta) is found, with its filter columns
    (late,) = store.insert_records([({**_fields(5000), "scope": "s9"}, "t")])
    vector = _unit(rng, 1)[0]
    store.put_vectors(VectorWrite(MODEL, "test", "unit", [(late, vector)]))
    assert scaled.search(vector, 3, Filters(scopes=["s9"])) == [(late, pytest.approx(1.0))]
    assert late not in [r for r, _ in scaled.search(vector, 3, Filters(scopes=["s1"]))]


class _CountingReads(SQLiteStore):
    """The store, noting which vector reads the index asks for."""

    reads: list[tuple[int, bool]]

    def read_vectors(self, request):
        self.reads = [
            *getattr(self, "reads", []),
            (request.after_seq, request.allocate is not None),
        ]
        return super().read_vectors(request)


def test_a_due_build_reads_the_vectors_once_into_its_files_not_first_into_memory(db_path):
    # the end of `remem import`: no snapshot yet and every vector new. Catching up before
    # deciding read them all into memory, then the build read them again into its mapped
    # files: 550 MB peak at 100k for an import that streamed in ~160 MB
    rng = np.random.default_rng(3)
    store = _CountingReads(db_path)
    _fill(store, _unit(rng, 300))
    index = VectorIndex(store, index_dir(db_path), MODEL, DIM, background=False, delta_max=200)
    assert index.refresh()
    assert store.reads[0] == (0, True)  # the build's read into its files came first
    assert not any(after == 0 and not into_files for after, into_files in store.reads)
    assert read_info(index.folder).count == 300
    query = _unit(rng, 1)[0]
    assert [r for r, _ in index.search(query, 3)] == [
        r for r, _ in _index(db_path, auto_build=False).search(query, 3)
    ]
    # not due (a few new vectors): decided exactly, after catching up, as before
    _fill(store, _unit(rng, 5), start=300)
    assert not index.refresh()
    assert index.size == 305
    store.close()


def test_an_exact_scan_of_most_rows_scores_them_in_place_without_copying_them(store, db_path):
    # a whole-store recall (kinds=["message"], minus the turn) whose graph search falls back
    # to a scan allows nearly every row: gathering them first copied the mapped matrix (150 MB
    # at 100k, up to 1.3 s under load; issue 47)
    import tracemalloc

    rng = np.random.default_rng(12)
    vectors = _unit(rng, 4000, dim=DIM)
    rowids = np.array(_fill(store, vectors))
    index = _index(db_path, ann_min=10**9)  # a snapshot without a graph: every search scans
    index.sync()
    assert index.snapshot_info is not None and not index.snapshot_info.has_graph
    query = _unit(rng, 1)[0]
    allowed = np.delete(rowids, 7)  # all but one
    want = _exact({r: vectors[i] for i, r in enumerate(rowids) if i != 7}, query, 10)
    tracemalloc.start()
    try:
        hits = index.search(query, 10, allowed)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r for r, _ in hits] == want
    # the allowed rows' copy alone is the whole matrix; the scan keeps a score and a position
    # (12 bytes) a row against the 128 bytes of a row's copy
    assert peak < vectors.nbytes / 2
    # under half of the rows are still gathered and scored (the rows a small scope holds)
    few = rowids[::3]
    assert [r for r, _ in index.search(query, 10, few)] == _exact(
        {r: vectors[i] for i, r in enumerate(rowids) if i % 3 == 0}, query, 10
    )
