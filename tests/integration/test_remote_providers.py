"""Native Ollama, Gemini, Voyage and Jina embedders against real HTTP servers on 127.0.0.1
that speak each provider's own protocol (paths, bodies, auth headers, error objects)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from helpers import LocalJSONServer
from remem import Config, Memory
from remem.embed.factory import make_embedder, model_id_for
from remem.embed.gemini import GeminiEmbedder
from remem.embed.ollama import OllamaEmbedder
from remem.embed.openai_http import JinaEmbedder, VoyageEmbedder
from remem.errors import EmbeddingError, ModelNotFoundError


def _vector(text: str, dim: int) -> list[float]:
    seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(seed).normal(size=dim).tolist()


def _root(server: LocalJSONServer) -> str:
    return server.url.removesuffix("/v1")


class FakeOllama(LocalJSONServer):
    """``POST /api/embed``; knows the models in ``models``; 404 like Ollama for others."""

    def __init__(self, dim: int = 768) -> None:
        self.dim = dim
        self.models = {"nomic-embed-text"}
        super().__init__()

    def respond(self, path, body, headers):
        if path != "/api/embed":
            return 404, b"404 page not found", {}
        if body["model"] not in self.models:
            error = {"error": f'model "{body["model"]}" not found, try pulling it first'}
            return 404, json.dumps(error).encode(), {}
        dim = body.get("dimensions", self.dim)
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        payload = {
            "model": body["model"],
            "embeddings": [_vector(t, dim) for t in inputs],
            "total_duration": 1000,
            "load_duration": 10,
            "prompt_eval_count": 3,
        }
        return 200, json.dumps(payload).encode(), {}


class FakeGemini(LocalJSONServer):
    """``models/{m}:embedContent`` and ``:batchEmbedContents`` under /v1beta; the key in
    ``x-goog-api-key`` (or ``?key=``), Google-style error objects."""

    KEY = "AIza-test-key"

    def __init__(self) -> None:
        self.keys_seen: list[str | None] = []
        super().__init__()

    def _error(self, code: int, status: str, message: str):
        body = {"error": {"code": code, "message": message, "status": status}}
        return code, json.dumps(body).encode(), {}

    def _embedding(self, request: dict) -> dict:
        text = request["content"]["parts"][0]["text"]
        dim = request.get("outputDimensionality", 768)
        return {"values": _vector(f"{request.get('taskType')}|{text}", dim)}

    def respond(self, path, body, headers):
        key = headers.get("x-goog-api-key")
        self.keys_seen.append(key)
        if key != self.KEY:
            return self._error(
                400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
            )
        resource, _, method = path.removeprefix("/v1beta/").partition(":")
        if resource != "models/text-embedding-004":
            return self._error(
                404,
                "NOT_FOUND",
                f"{resource} is not found for API version "
                "v1beta, or is not supported for embedContent.",
            )
        if method == "embedContent":
            return 200, json.dumps({"embedding": self._embedding(body)}).encode(), {}
        if method == "batchEmbedContents":
            assert all(r["model"] == resource for r in body["requests"])
            data = {"embeddings": [self._embedding(r) for r in body["requests"]]}
            return 200, json.dumps(data).encode(), {}
        return self._error(404, "NOT_FOUND", f"method {method} not found")


class FakeOpenAIShape(LocalJSONServer):
    """Voyage / Jina: ``POST /v1/embeddings`` answered in the OpenAI shape; the request's
    own fields (input_type, task, output_dimension) are recorded for the assertions."""

    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        super().__init__()

    def respond(self, path, body, headers):
        dim = body.get("output_dimension") or body.get("dimensions") or self.dim
        data = [
            {"object": "embedding", "index": i, "embedding": _vector(t, dim)}
            for i, t in enumerate(body["input"])
        ]
        return (
            200,
            json.dumps({"object": "list", "data": data, "model": body["model"]}).encode(),
            {},
        )


@pytest.fixture
def ollama():
    s = FakeOllama()
    yield s
    s.close()


@pytest.fixture
def gemini():
    s = FakeGemini()
    yield s
    s.close()


@pytest.fixture
def openai_shape():
    s = FakeOpenAIShape()
    yield s
    s.close()


# ---------------------------------------------------------------------- Ollama
def test_ollama_native_embed(ollama):
    emb = OllamaEmbedder("nomic-embed-text", base_url=_root(ollama))
    vecs = emb.embed_passages(["a", "b"])
    assert vecs.shape == (2, 768) and emb.dim == 768  # known size: no probe needed
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    expected = np.asarray(_vector("b", 768), np.float32)
    assert np.allclose(vecs[1], expected / np.linalg.norm(expected), atol=1e-6)
    req = ollama.requests[-1]
    assert req["path"] == "/api/embed"
    assert req["body"] == {"model": "nomic-embed-text", "input": ["a", "b"]}
    assert emb.model_id == "ollama:nomic-embed-text"


def test_ollama_unknown_model_is_a_config_error(ollama):
    emb = OllamaEmbedder("bogus-model", base_url=_root(ollama))
    with pytest.raises(ModelNotFoundError, match=r"embed\.model='bogus-model'.*not found"):
        emb.embed_queries(["q"])
    assert len(ollama.requests) == 1  # not retried


def test_ollama_dimensions_are_requested_and_labelled(ollama):
    emb = OllamaEmbedder("nomic-embed-text", base_url=_root(ollama), dimensions=256)
    assert emb.embed_queries(["q"]).shape == (1, 256)
    assert ollama.requests[-1]["body"]["dimensions"] == 256
    assert emb.model_id == "ollama:nomic-embed-text@256"


# ---------------------------------------------------------------------- Gemini
def test_gemini_single_and_batch_with_task_types(gemini):
    emb = GeminiEmbedder(
        "text-embedding-004",
        base_url=gemini.url.replace("/v1", "/v1beta"),
        api_keys=[FakeGemini.KEY],
    )
    q = emb.embed_queries(["where do I live?"])
    p = emb.embed_passages(["I live in Berlin", "I like tea"])
    assert q.shape == (1, 768) and p.shape == (2, 768)
    single, batch = gemini.requests
    assert single["path"] == "/v1beta/models/text-embedding-004:embedContent"
    assert single["body"]["taskType"] == "RETRIEVAL_QUERY"
    assert batch["path"] == "/v1beta/models/text-embedding-004:batchEmbedContents"
    assert [r["taskType"] for r in batch["body"]["requests"]] == ["RETRIEVAL_DOCUMENT"] * 2
    assert gemini.keys_seen == [FakeGemini.KEY] * 2
    assert single["auth"] is None  # the key is not sent as a bearer token
    assert emb.model_id == "gemini:text-embedding-004"


def test_gemini_output_dimensionality(gemini):
    emb = GeminiEmbedder(
        "models/text-embedding-004",
        dimensions=256,
        base_url=gemini.url.replace("/v1", "/v1beta"),
        api_keys=[FakeGemini.KEY],
    )
    assert emb.embed_passages(["a", "b"]).shape == (2, 256)
    assert gemini.requests[-1]["body"]["requests"][0]["outputDimensionality"] == 256


def test_gemini_unknown_model_and_bad_key(gemini):
    base = gemini.url.replace("/v1", "/v1beta")
    with pytest.raises(ModelNotFoundError, match="gemini-nope"):
        GeminiEmbedder("gemini-nope", base_url=base, api_keys=[FakeGemini.KEY]).embed_queries(["q"])
    with pytest.raises(EmbeddingError, match=r"API key not valid.*check embed\.api_key"):
        GeminiEmbedder("text-embedding-004", base_url=base, api_keys=["wrong"]).embed_queries(["q"])
    # a rejected key is skipped for the next one, as with 401
    emb = GeminiEmbedder("text-embedding-004", base_url=base, api_keys=["revoked", FakeGemini.KEY])
    assert emb.embed_queries(["q"]).shape == (1, 768)
    assert gemini.keys_seen[-2:] == ["revoked", FakeGemini.KEY]


# ---------------------------------------------------------------------- Voyage / Jina
def test_voyage_sends_input_type_and_output_dimension(openai_shape):
    emb = VoyageEmbedder("voyage-3", base_url=openai_shape.url, api_keys=["vk"])
    emb.embed_queries(["q"])
    emb.embed_passages(["p"])
    q, p = (r["body"] for r in openai_shape.requests)
    assert (q["input_type"], p["input_type"]) == ("query", "document")
    assert "encoding_format" not in q and "dimensions" not in q
    assert openai_shape.requests[0]["auth"] == "Bearer vk"
    assert emb.model_id == "voyage:voyage-3"
    emb = VoyageEmbedder("voyage-3", base_url=openai_shape.url, dimensions=512)
    assert emb.embed_passages(["p"]).shape == (1, 512)
    assert openai_shape.requests[-1]["body"]["output_dimension"] == 512


def test_jina_sends_its_tasks_by_default(openai_shape):
    emb = JinaEmbedder("jina-embeddings-v3", base_url=openai_shape.url)
    emb.embed_queries(["q"])
    emb.embed_passages(["p"])
    q, p = (r["body"] for r in openai_shape.requests)
    assert (q["task"], p["task"]) == ("retrieval.query", "retrieval.passage")
    assert q["embedding_type"] == "float"
    emb = JinaEmbedder("jina-embeddings-v3", base_url=openai_shape.url, query_task="")
    emb.embed_queries(["q"])
    assert "task" not in openai_shape.requests[-1]["body"]  # "" turns the default off


# ---------------------------------------------------------------------- config and labels
@pytest.mark.parametrize(
    ("provider", "model", "dims", "label"),
    [
        ("openai", "text-embedding-3-small", None, "openai:text-embedding-3-small"),
        ("openai", "text-embedding-3-small", 256, "openai:text-embedding-3-small@256"),
        ("ollama", "nomic-embed-text", None, "ollama:nomic-embed-text"),
        ("gemini", "text-embedding-004", 768, "gemini:text-embedding-004@768"),
        ("voyage", "voyage-3", None, "voyage:voyage-3"),
        ("jina", "jina-embeddings-v3", None, "jina:jina-embeddings-v3"),
    ],
)
def test_model_id_labels_match_the_built_embedder(provider, model, dims, label):
    cfg = Config.load(
        env={},
        overrides={"embed.provider": provider, "embed.model": model, "embed.dimensions": dims},
    ).embed
    assert model_id_for(cfg) == label
    embedder = make_embedder(cfg)
    assert embedder is not None and embedder.model_id == label
    assert embedder.provider == provider


def test_memory_with_native_ollama(ollama, tmp_path):
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "embed.provider": "ollama",
            "embed.model": "nomic-embed-text",
            "embed.base_url": _root(ollama),
        },
    )
    with Memory(tmp_path / "x.db", config) as mem:
        mem.ingest({"id": "a", "text": "I moved to Berlin last week"})
        assert mem.store.vector_stats() == [("ollama:nomic-embed-text", 768, 1)]
        result = mem.search("I moved to Berlin last week")
        assert not result.degraded and result.hits[0].explain.vector_rank == 1


def test_memory_search_with_unknown_remote_model_is_an_error(ollama, tmp_path):
    from remem.errors import ConfigError

    config = Config.load(
        env={},
        overrides={
            "embed.provider": "ollama",
            "embed.model": "bogus-model",
            "embed.base_url": _root(ollama),
        },
    )
    with Memory(tmp_path / "x.db", config) as mem:
        mem.ingest({"text": "hello there"}, embed=False)
        with pytest.raises(ConfigError, match="bogus-model"):
            mem.search("where is the hut?")
