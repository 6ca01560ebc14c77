"""A store whose records all have vectors of another model: every search says so in its
result, and the log says it once per process, not once per search."""

from __future__ import annotations

import logging

from helpers import HashEmbedder
from remem import Config, Memory


class OtherModel(HashEmbedder):
    model = "other64"
    model_id = "test:other64"


def test_no_vectors_for_the_configured_model_is_logged_once(db_path, caplog):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": "I live in Lisbon"}, {"text": "I like green tea"}])
    with Memory(db_path, config, embedder=OtherModel()) as mem:
        caplog.set_level(logging.WARNING, logger="remem")
        results = [mem.search("where do I live", k=3) for _ in range(3)]
    for result in results:  # each answer still says why it is lexical only
        assert result.degraded
        assert any("test:other64" in w and "test:hash64 (2)" in w for w in result.warnings)
        assert [h.record.text for h in result.hits] == ["I live in Lisbon"]
    logged = [r for r in caplog.records if "test:other64" in r.getMessage()]
    assert len(logged) == 1, [r.getMessage() for r in logged]
