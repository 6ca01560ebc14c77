"""remem.ops on a real SQLite file: the operator operations the CLI calls instead of
reaching into the store, and the embedding-model cut-over behind `remem reembed`."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory, ops
from remem.errors import ConfigError, ValidationError


class OtherHashEmbedder(HashEmbedder):
    """A second model: the same plumbing under another model id."""

    model = "hash64-other"
    model_id = "test:hash64-other"


def _fill(mem: Memory, n: int = 5) -> None:
    mem.ingest_many(
        [
            {"id": f"rec-{i:02d}", "text": f"note {i} about the kite", "scope": "user:a"}
            for i in range(n)
        ]
        + [{"id": "other", "text": "a message elsewhere", "session": "s9"}]
    )


def test_ids_with_prefix_counts_and_delete_all(hash_memory):
    _fill(hash_memory)
    assert hash_memory.ids_with_prefix("rec-0", limit=3) == [
        "rec-00",
        "rec-01",
        "rec-02",
    ]
    assert hash_memory.ids_with_prefix("nothing") == []
    # longer than any id can be: nothing, not SQLite's "LIKE or GLOB pattern too complex"
    # (a fuzzed `remem delete yyy...` printed a traceback)
    assert hash_memory.ids_with_prefix("y" * 60_000) == []
    assert hash_memory.count() == 6
    assert hash_memory.count({"scope": "user:a"}) == 5
    assert hash_memory.count({"session": "s9", "scope": None}) == 1
    with pytest.raises(ValidationError, match="invalid scope"):
        hash_memory.count({"scope": "bad"})
    assert hash_memory.delete_all() == 6
    assert hash_memory.count() == 0


def test_records_to_embed_counts_the_backlog_or_everything(db_path, config):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        _fill(mem)
        mem.ingest({"id": "late", "text": "stored now, embedded later"}, embed=False)
        assert ops.records_to_embed(mem, "test:hash64") == 1
        assert ops.records_to_embed(mem, "test:hash64", force=True) == 7
        assert ops.records_to_embed(mem, "test:never-used") == 7


def test_missing_local_vectors_counts_without_loading_the_model(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config) as mem:
        mem.ingest({"text": "kept for later"}, embed=False)
        assert ops.missing_local_vectors(mem) == 1
        assert not mem.indexer.embedder_loaded  # counting never loads the bundled model
    lexical = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db_path, lexical) as mem:
        assert ops.missing_local_vectors(mem) is None


def test_reembed_cuts_over_when_complete_and_drops_old_vectors(db_path, config):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        _fill(mem)
    with Memory(db_path, config, embedder=OtherHashEmbedder()) as mem:
        report = ops.reembed(mem)
        assert report.to_dict() == {
            "model_id": "test:hash64-other",
            "embedded": 6,
            "failed": 0,
            "remaining": 0,
            "complete": True,
            "dropped_old_vectors": 0,
        }
        assert mem.store.meta_get("embed", "active-model") == "test:hash64-other"
        models = {v["model_id"]: v["count"] for v in mem.stats()["vectors"]}
        assert models == {"test:hash64": 6, "test:hash64-other": 6}  # old ones kept

        again = ops.reembed(mem, drop_old=True)
        assert (again.embedded, again.dropped_old_vectors, again.complete) == (0, 6, True)
        stats = mem.stats()
        assert [v["model_id"] for v in stats["vectors"]] == ["test:hash64-other"]
        assert stats["index_status"] == {"indexed": 6}  # not left pending by the drop
        # the new model's vectors are searched (the five notes tie on "kite": which ranks
        # first among them is the index's order, so only that the channel answers is asserted)
        top = mem.search("kite", k=3).hits[0].explain
        assert top.vector_rank is not None and top.vector_score > 0.3


def test_reembed_that_fails_does_not_cut_over_and_resumes(db_path, config):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        _fill(mem)
    down = OtherHashEmbedder()
    down.fail = True
    with Memory(db_path, config, embedder=down) as mem:
        report = ops.reembed(mem, drop_old=True)
        assert (report.embedded, report.failed, report.remaining) == (0, 6, 6)
        assert not report.complete and report.dropped_old_vectors == 0
        assert mem.store.meta_get("embed", "active-model") is None
        assert {v["model_id"] for v in mem.stats()["vectors"]} == {"test:hash64"}
        down.fail = False
        seen = []
        resumed = ops.reembed(mem, batch_size=4, progress=seen.append)
        assert resumed.complete and resumed.embedded == 6
        assert sum(seen) == 6


def test_reembed_without_a_model_names_the_problem(db_path):
    lexical = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db_path, lexical) as mem, pytest.raises(ConfigError, match="real model"):
        ops.reembed(mem)
