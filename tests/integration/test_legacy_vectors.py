"""Vectors without a model id: the legacy-model marker (namespace memory-vector)."""

from __future__ import annotations

import base64
import json
import threading

import numpy as np
import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import StoreError
from remem.index.legacy import KEY, NAMESPACE
from remem.store.queries import VectorWrite
from remem.transfer import import_records

T = 1_800_000_000.0


def cfg():
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def lines_with_unlabelled_vectors(emb: HashEmbedder, texts: list[str]) -> list[str]:
    out = []
    for i, text in enumerate(texts):
        vec = emb.embed_passages([text])[0].astype(np.float32)
        out.append(
            json.dumps(
                {
                    "id": f"r{i}",
                    "kind": "memory",
                    "text": text,
                    "created_at": T,
                    "vectors": [{"vector": base64.b64encode(vec.tobytes()).decode()}],
                }
            )
        )
    return out


def legacy_rows(mem) -> int:
    return mem.store._conn.execute("SELECT count(*) FROM vectors WHERE model_id = ''").fetchone()[0]


def test_first_search_records_the_model_and_adopts_the_vectors(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        report = import_records(
            mem,
            lines_with_unlabelled_vectors(emb, ["the cat sat on the mat", "rockets need fuel"]),
            unlabelled_vectors=True,
        )
        assert report.vectors == 2 and legacy_rows(mem) == 2
        before = emb.calls
        assert mem.store.meta_get(NAMESPACE, KEY) is None
        result = mem.search("cat mat", channels=("vector",))
        assert result.hits[0].record.id == "r0"
        assert mem.store.meta_get(NAMESPACE, KEY) == emb.model_id
        assert legacy_rows(mem) == 0 and mem.store.vector_count(emb.model_id) == 2
        assert emb.calls == before + 1  # only the query was embedded, no record re-embedded


def test_later_legacy_vectors_follow_the_recorded_model_not_the_current_one(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        mem.store.meta_set(NAMESPACE, KEY, "other:model-x")
        import_records(mem, lines_with_unlabelled_vectors(emb, ["a b c"]), unlabelled_vectors=True)
        mem.search("a b c", channels=("vector",))
        stats = dict((m, n) for m, _d, n in mem.store.vector_stats())
        assert stats == {"other:model-x": 1}  # never compared with this model's queries


def test_metadata_failure_uses_them_this_time_warns_once_and_retries(db_path, monkeypatch, caplog):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        import_records(
            mem,
            lines_with_unlabelled_vectors(emb, ["the cat sat", "fuel"]),
            unlabelled_vectors=True,
        )
        real = mem.store.meta_set

        def broken(*_a, **_k):
            raise StoreError("database is locked")

        monkeypatch.setattr(mem.store, "meta_set", broken)
        first = mem.search("cat", channels=("vector",))
        assert first.hits[0].record.id == "r0"  # used as the current model this time
        assert any("without a model id" in w for w in first.warnings)
        second = mem.search("cat", channels=("vector",))
        assert not any("without a model id" in w for w in second.warnings)  # warned once
        assert legacy_rows(mem) == 2  # nothing decided
        monkeypatch.setattr(mem.store, "meta_set", real)
        mem.search("cat", channels=("vector",))  # retried: now recorded and adopted
        assert mem.store.meta_get(NAMESPACE, KEY) == emb.model_id and legacy_rows(mem) == 0


def test_clearing_vectors_clears_the_marker_after_an_in_flight_write(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        mem.add("hello world")
        mem.store.meta_set(NAMESPACE, KEY, emb.model_id)
        legacy = mem.searcher.legacy
        legacy.lock.acquire()  # a marker write in flight
        done = threading.Event()
        thread = threading.Thread(target=lambda: (mem.clear_vectors(), done.set()))
        thread.start()
        assert not done.wait(0.3)  # clearing waits for the marker write
        legacy.lock.release()
        thread.join(5)
        assert done.is_set()
        assert mem.store.meta_get(NAMESPACE, KEY) is None
        assert mem.store.vector_count(emb.model_id) == 0


def test_without_the_import_flag_unlabelled_vectors_are_re_embedded(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        import_records(mem, lines_with_unlabelled_vectors(emb, ["x y"]))
        assert legacy_rows(mem) == 0 and mem.store.vector_count(emb.model_id) == 1


@pytest.mark.parametrize("dim", [32])
def test_legacy_vectors_of_another_size_stay_legacy(db_path, dim):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        rec = mem.add("odd one", embed=False)
        mem.store.put_vectors(
            VectorWrite("", "", "", [(rec.rowid, np.ones(dim, np.float32) / dim**0.5)])
        )
        mem.search("odd", channels=("vector",))
        assert legacy_rows(mem) == 1  # cannot be this model's: not adopted, never compared
        writes = mem.store.local_writes
        mem.search("odd", channels=("vector",))
        assert mem.store.local_writes == writes  # and no write on every search
