"""Which vector index search uses, and that the snapshot index answers a search exactly as the
in-memory exact index did (a small store: both are exact below the graph threshold)."""

from __future__ import annotations

import numpy as np

from helpers import HashEmbedder
from remem import Config, Memory
from remem.index.exact import ExactIndex
from remem.index.filtered import FilteredVectorIndex
from remem.store.memory import InMemoryStore

WORDS = [
    "trip",
    "paris",
    "coffee",
    "tea",
    "dog",
    "cat",
    "garden",
    "piano",
    "budget",
    "meeting",
    "lisbon",
    "rain",
]


def _messages(n: int) -> list[dict]:
    rng = np.random.default_rng(5)
    return [
        {
            "text": " ".join(rng.choice(WORDS, size=4)),
            "role": "user" if i % 3 else "assistant",
            "session": f"s{i % 7}",
            "scope": f"user:{i % 3}",
            "created_at": 1_700_000_000 + i * 60,
        }
        for i in range(n)
    ]


def test_a_store_with_a_file_gets_the_snapshot_index_and_memory_the_exact_one(db_path, config):
    emb = HashEmbedder()
    with Memory(db_path, config, embedder=emb) as mem:
        assert isinstance(mem.searcher.index_for(emb), FilteredVectorIndex)
    with Memory(store=InMemoryStore(), config=config, embedder=emb) as mem:
        assert isinstance(mem.searcher.index_for(emb), ExactIndex)


def test_snapshot_index_gives_the_exact_index_results(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    emb = HashEmbedder()
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest_many(_messages(400))
        queries = [("paris coffee", None), ("dog garden", {"scope": "user:1"})]
        queries += [("rain budget meeting", {"session": "s3", "role": "user"})]
        for query, filters in queries:
            snapshot = mem.search(query, k=10, filters=filters)
            mem.searcher._indexes[emb.model_id] = ExactIndex(mem.store, emb.model_id, emb.dim)
            exact = mem.search(query, k=10, filters=filters)
            del mem.searcher._indexes[emb.model_id]
            assert len(snapshot.hits) == 10
            assert [(h.record.id, h.score) for h in snapshot.hits] == [
                (h.record.id, h.score) for h in exact.hits
            ]
            # (ranks among equal cosines are arbitrary: the hash embedder makes many ties)
            assert [h.explain.vector_score for h in snapshot.hits] == [
                h.explain.vector_score for h in exact.hits
            ]
