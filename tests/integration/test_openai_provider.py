"""The OpenAI-compatible embedding provider against a real HTTP server on 127.0.0.1 that
speaks the OpenAI embeddings protocol (bodies, error objects, 429 with Retry-After ...)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from helpers import LocalJSONServer
from remem import Config, Memory
from remem.embed.openai_http import OpenAIEmbedder
from remem.errors import EmbeddingError


def _vector(text: str, dim: int) -> list[float]:
    seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    v = np.random.default_rng(seed).normal(size=dim)
    return (v / np.linalg.norm(v)).tolist()


class FakeOpenAI(LocalJSONServer):
    """Scripted server: each request pops the next behaviour (default: answer normally)."""

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim
        self.script: list[dict] = []
        super().__init__()

    def respond(self, path, body, headers):
        step = self.script.pop(0) if self.script else {}
        status = step.get("status", 200)
        if path != "/v1/embeddings":
            status, step = 404, {"error": f"Invalid URL (POST {path})"}
        if status == 200 and "raw" not in step:
            dim = step.get("dim", body.get("dimensions", self.dim))
            payload = {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": _vector(t, dim)}
                    for i, t in enumerate(body["input"])
                ][::-1],  # out of order on purpose: clients must sort by index
                "model": body["model"],
                "usage": {"prompt_tokens": 3, "total_tokens": 3},
            }
            if step.get("drop_one"):
                payload["data"].pop()
            data = json.dumps(payload).encode()
        elif "raw" in step:
            data = step["raw"].encode()
        else:
            error = {
                "message": step.get("error", "boom"),
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
            data = json.dumps({"error": error}).encode()
        extra = {"Retry-After": str(step["retry_after"])} if "retry_after" in step else {}
        return status, data, extra


@pytest.fixture
def server():
    s = FakeOpenAI()
    yield s
    s.close()


def make(server, model: str = "fake-embed", **kw) -> OpenAIEmbedder:
    """A model the size table does not know, so the fake server's 8 dims are learnable."""
    kw.setdefault("backoff_s", 0.01)
    return OpenAIEmbedder(model, base_url=server.url, **kw)


def test_embeds_in_order_with_auth_and_dimensions(server):
    emb = make(server, "text-embedding-3-small", api_keys=["k1"], dimensions=8)
    vecs = emb.embed_passages(["a", "b", "c"])
    assert vecs.shape == (3, 8)
    assert np.allclose(vecs[0], _vector("a", 8), atol=1e-6)  # sorted back by index
    req = server.requests[-1]
    assert req["auth"] == "Bearer k1"
    assert req["body"]["dimensions"] == 8
    assert req["body"]["model"] == "text-embedding-3-small"
    assert emb.model_id == "openai:text-embedding-3-small@8"


def test_dimension_is_learned_when_not_configured(server):
    emb = make(server)
    assert emb.dim == 8
    assert emb.model_id == "openai:fake-embed"
    assert len(server.requests) == 2  # the first answer's size is confirmed by a second


def test_known_model_size_refuses_a_wrong_first_answer(server):
    emb = make(server, "text-embedding-3-small")  # known: 1536 dims; the fake answers 8
    with pytest.raises(EmbeddingError, match="8-dimensional vectors but 1536 were expected"):
        emb.embed_passages(["x"])


def test_query_and_passage_prefixes_and_tasks(server):
    emb = make(
        server,
        dimensions=8,
        query_prefix="query: ",
        passage_prefix="passage: ",
        query_task="retrieval.query",
        passage_task="retrieval.passage",
    )
    emb.embed_queries(["q"])
    assert server.requests[-1]["body"]["input"] == ["query: q"]
    assert server.requests[-1]["body"]["task"] == "retrieval.query"
    emb.embed_passages(["p"])
    assert server.requests[-1]["body"]["input"] == ["passage: p"]
    assert server.requests[-1]["body"]["task"] == "retrieval.passage"


def test_retries_5xx_then_succeeds(server):
    server.script = [{"status": 500}, {"status": 503, "error": "overloaded"}]
    assert make(server, dimensions=8).embed_passages(["x"]).shape == (1, 8)
    assert len(server.requests) == 3


def test_429_rotates_keys_without_waiting(server):
    server.script = [{"status": 429, "error": "Rate limit reached", "retry_after": 30}]
    emb = make(server, api_keys=["k1", "k2"], dimensions=8)
    emb.embed_passages(["x"])
    assert [r["auth"] for r in server.requests] == ["Bearer k1", "Bearer k2"]


def test_429_with_one_key_backs_off_and_gives_up_after_max_attempts(server):
    server.script = [{"status": 429, "error": "Rate limit reached"}] * 10
    emb = make(server, api_keys=["only"], max_attempts=3)
    with pytest.raises(EmbeddingError, match=r"failed 3 times.*HTTP 429: Rate limit reached"):
        emb.embed_passages(["x"])
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("status", "hint"),
    [(400, "check embed.model"), (401, "api_key"), (404, "base_url")],
)
def test_client_errors_are_not_retried_and_carry_the_message(server, status, hint):
    server.script = [{"status": status, "error": "You did something wrong"}]
    with pytest.raises(EmbeddingError, match=f"HTTP {status}: You did something wrong.*{hint}"):
        make(server).embed_passages(["x"])
    assert len(server.requests) == 1


def test_wrong_dimension_is_a_clear_error(server):
    server.script = [{"dim": 5}]
    with pytest.raises(EmbeddingError, match="5-dimensional vectors but 8 were expected"):
        make(server, dimensions=8).embed_passages(["x"])


def test_missing_vectors_and_garbage_bodies(server):
    server.script = [{"drop_one": True}]
    with pytest.raises(EmbeddingError, match="returned 1 vectors for 2 inputs"):
        make(server).embed_passages(["a", "b"])
    server.script = [{"raw": "<html>hello</html>"}]
    with pytest.raises(EmbeddingError, match="answered 200 with a body that is not JSON"):
        make(server).embed_passages(["a"])
    server.script = [{"raw": '{"embeddings": [[0.1, 0.2]]}'}]
    with pytest.raises(EmbeddingError, match="not with an OpenAI embeddings body"):
        make(server).embed_passages(["a"])


def test_connection_refused_and_bad_url():
    emb = OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1", max_attempts=2, backoff_s=0.01)
    with pytest.raises(EmbeddingError, match="connection failed"):
        emb.embed_passages(["x"])
    with pytest.raises(EmbeddingError, match="must start with http"):
        OpenAIEmbedder("m", base_url="ftp://x")


def openai_config(server, **settings) -> Config:
    return Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "embed.provider": "openai",
            "embed.base_url": server.url,
            "embed.backoff_s": 0.01,
            **{f"embed.{k}": v for k, v in settings.items()},
        },
    )


def test_wrong_dimension_writes_nothing(server, tmp_path):
    config = openai_config(server, model="text-embedding-3-small", dimensions=8)
    with Memory(tmp_path / "x.db", config) as mem:
        mem.ingest({"id": "ok", "text": "first message"})
        server.script = [{"dim": 4}]
        rec = mem.ingest({"id": "bad", "text": "second message"})
        assert rec.index_status == "pending"
        assert "4-dimensional" in rec.index_error
        assert mem.store.vector_count("openai:text-embedding-3-small@8") == 1
        # search still works: vectors for the good record, lexical for both
        hits = mem.search("second message")
        assert {h.record.id for h in hits} == {"ok", "bad"}
        assert {h.record.id: h.explain.vector_rank for h in hits}["bad"] is None
        # the provider recovers: backfill fills the gap
        assert mem.embed_pending()["remaining"] == 0
        assert mem.store.vector_count("openai:text-embedding-3-small@8") == 2


def test_memory_with_openai_provider_end_to_end(server, tmp_path):
    config = openai_config(server, model="m", api_keys=["a", "b"], batch_size=2)
    with Memory(tmp_path / "x.db", config) as mem:
        mem.ingest_many([{"text": f"note {i}"} for i in range(5)])
        batches = [len(r["body"]["input"]) for r in server.requests]
        assert max(batches) <= 2
        server.script = [{"status": 500}] * 10
        result = mem.search("note 3")
        assert result.degraded and "query embedding failed" in result.warnings[0]
        assert result.hits[0].record.text == "note 3"
