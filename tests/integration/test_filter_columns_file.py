"""Filter columns saved beside the snapshot: a new process starts from the file and reads only
the rows changed since; a file that is broken or ahead of its store is ignored."""

from __future__ import annotations

import numpy as np
import pytest
from test_vector_index import DIM, MODEL, _filter_store, _unit

import remem.index.filtered as filtered
from remem.index.exact import ExactIndex
from remem.index.filtered import FilteredVectorIndex
from remem.store.sqlite import SQLiteStore
from remem.types import Filters

FILTERS = (
    Filters(scopes=["s1"]),
    Filters(scopes=["s2"], kinds=["memory"]),
    Filters(sessions=["c3"], include_superseded=False),
)
NOW = 2_000_000_000.0  # superseded rows (valid_to 1.0) are in the past
CURRENT = Filters(include_superseded=False, kinds=["memory", "message"])


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch):
    monkeypatch.setattr(filtered, "SAVE_MIN", 50)
    monkeypatch.setattr(filtered, "RESAVE_ROWS", 40)


class CountingStore(SQLiteStore):
    """Records which revision each ``filter_rows`` call starts after, and how many rows."""

    def __init__(self, path) -> None:
        super().__init__(path)
        self.reads: list[tuple[int, int]] = []

    def filter_rows(self, after_rev: int):
        rows, rev = super().filter_rows(after_rev)
        self.reads.append((after_rev, len(rows)))
        return rows, rev


def open_index(db) -> tuple[CountingStore, FilteredVectorIndex]:
    store = CountingStore(db)
    index = FilteredVectorIndex(store, MODEL, DIM, background=False, ann_min=10_000, delta_max=50)
    index.sync()
    return store, index


def same_hits(store, index, rng) -> None:
    exact = ExactIndex(store, MODEL, DIM)
    for filters in FILTERS:
        for q in _unit(rng, 3):
            got, want = index.search(q, 10, filters, NOW), exact.search(q, 10, filters, NOW)
            assert [r for r, _ in got] == [r for r, _ in want]


def saved_files(db) -> list:
    return sorted(db.parent.glob("*.remem-index/*/*.columns.npz"))


def test_a_new_process_reads_only_the_rows_changed_since_the_saved_columns(db_path):
    rng = np.random.default_rng(5)
    writer = SQLiteStore(db_path)
    rowids = _filter_store(writer, 120, rng)
    writer.close()
    store, _ = open_index(db_path)  # builds the snapshot, reads every row, saves them
    assert store.reads == [(0, 120)] and len(saved_files(db_path)) == 1
    store.set_validity(rowids[7], 1.0, {})  # one row changed after the save: superseded
    later, second = open_index(db_path)
    assert later.reads[0][0] > 0 and later.reads[0][1] == 1  # only the changed row
    same_hits(later, second, rng)
    current = {r for r, _ in second.search(_unit(rng, 1)[0], 200, CURRENT, NOW)}
    assert len(current) == 119 and rowids[7] not in current
    store.close()
    later.close()


def test_columns_saved_again_after_many_changes(db_path):
    rng = np.random.default_rng(6)
    writer = SQLiteStore(db_path)
    rowids = _filter_store(writer, 120, rng)
    writer.close()
    store, index = open_index(db_path)
    saved = saved_files(db_path)[0]
    before = saved.stat().st_mtime_ns
    for rowid in rowids[:45]:  # past RESAVE_ROWS
        store.set_validity(rowid, 1.0, {})
    index.sync()
    assert saved.stat().st_mtime_ns != before
    later, again = open_index(db_path)
    assert later.reads[0][1] == 0  # the file has every change
    assert len(again.search(_unit(rng, 1)[0], 200, CURRENT, NOW)) == 120 - 45
    store.close()
    later.close()


@pytest.mark.parametrize("damage", ["truncated", "ahead of the store"])
def test_a_broken_or_foreign_columns_file_is_ignored(db_path, damage):
    rng = np.random.default_rng(7)
    writer = SQLiteStore(db_path)
    rowids = _filter_store(writer, 120, rng)
    writer.close()
    store, _ = open_index(db_path)
    store.close()
    (path,) = saved_files(db_path)
    assert rowids
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    else:
        with np.load(path) as data:
            arrays = dict(data)
        arrays["rev"] = np.array(10**9, np.int64)
        arrays["col_scope"] = np.zeros_like(arrays["col_scope"])  # wrong on purpose
        with open(path, "wb") as f:
            np.savez(f, **arrays)
    later, index = open_index(db_path)
    assert later.reads[-1] == (0, 120)  # read every row again
    same_hits(later, index, rng)
    later.close()


def test_remem_index_saves_the_columns_with_the_snapshot(db_path):
    from remem import Config, Memory, ops

    class Unit:  # reports the model of the stored vectors; never asked to embed
        provider, model, model_id, dim, default_chunk_chars = "test", "unit", MODEL, DIM, 0

    writer = SQLiteStore(db_path)
    _filter_store(writer, 120, np.random.default_rng(8))
    writer.close()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config, embedder=Unit()) as mem:
        report = ops.build_vector_index(mem, force=True)
    assert report.built and report.vectors == 120
    assert len(saved_files(db_path)) == 1  # the first cold search reads only changed rows
