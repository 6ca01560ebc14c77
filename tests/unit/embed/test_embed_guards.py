"""The circuit breaker, the dimension guard and the embed.* config validation."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from remem.config import Config
from remem.embed.breaker import BreakerEmbedder, CircuitBreaker
from remem.embed.dims import DimensionGuard, known_dimension
from remem.errors import ConfigError, EmbeddingError, ModelNotFoundError, ProviderUnavailableError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------------- breaker
def test_breaker_opens_after_threshold_and_recovers_through_one_trial():
    clock = Clock()
    b = CircuitBreaker(failure_threshold=2, cooldown_s=10, clock=clock)
    b.acquire()
    b.record_failure()
    assert b.state == "closed"
    b.acquire()
    b.record_failure()
    assert b.state == "open"
    with pytest.raises(ProviderUnavailableError, match=r"circuit open for 10s"):
        b.acquire()
    clock.now += 10
    assert b.state == "half-open"
    b.acquire()  # this caller is the trial ...
    with pytest.raises(ProviderUnavailableError):
        b.acquire()  # ... and nobody else goes while it runs
    b.record_success()
    assert b.state == "closed"
    b.acquire()


def test_a_failed_trial_opens_the_breaker_again():
    clock = Clock()
    b = CircuitBreaker(failure_threshold=3, cooldown_s=5, clock=clock)
    for _ in range(3):
        b.acquire()
        b.record_failure()
    clock.now += 5
    b.acquire()
    b.record_failure()  # one failure is enough in half-open
    assert b.state == "open" and b.retry_in() == 5


def test_success_resets_the_failure_count():
    b = CircuitBreaker(failure_threshold=2, cooldown_s=5, clock=Clock())
    b.record_failure()
    b.record_success()
    b.record_failure()
    assert b.state == "closed"


def test_breaker_is_thread_safe_with_one_trial():
    clock = Clock()
    b = CircuitBreaker(failure_threshold=1, cooldown_s=1, clock=clock)
    b.record_failure()
    clock.now += 1
    allowed: list[bool] = []

    def try_once() -> None:
        try:
            b.acquire()
            allowed.append(True)
        except ProviderUnavailableError:
            allowed.append(False)

    threads = [threading.Thread(target=try_once) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert allowed.count(True) == 1


class Flaky:
    provider, model, model_id, dim, default_chunk_chars = "test", "m", "test:m", 2, 0

    def __init__(self) -> None:
        self.error: Exception | None = None
        self.calls = 0

    def embed_queries(self, texts):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return np.ones((len(texts), 2), np.float32)

    embed_passages = embed_queries


def test_breaker_embedder_counts_outages_but_not_config_errors():
    inner = Flaky()
    emb = BreakerEmbedder(inner, CircuitBreaker(failure_threshold=2, cooldown_s=60))
    inner.error = ModelNotFoundError("no such model")
    for _ in range(3):
        with pytest.raises(ModelNotFoundError):
            emb.embed_queries(["q"])
    assert emb.breaker.state == "closed"
    inner.error = EmbeddingError("down")
    for _ in range(2):
        with pytest.raises(EmbeddingError):
            emb.embed_passages(["p"])
    calls = inner.calls
    with pytest.raises(ProviderUnavailableError):
        emb.embed_queries(["q"])
    assert inner.calls == calls  # refused without calling the provider
    assert emb.model_id == "test:m" and emb.dim == 2


# ---------------------------------------------------------------------- dimensions
@pytest.mark.parametrize(
    ("name", "dim"),
    [
        ("text-embedding-3-small", 1536),
        ("models/text-embedding-004", 768),
        ("BAAI/bge-m3", 1024),
        ("nomic-embed-text:latest", 768),
        ("my-own-model", None),
    ],
)
def test_known_dimensions(name, dim):
    assert known_dimension(name) == dim


def test_guard_with_a_known_size_refuses_others_without_asking():
    guard = DimensionGuard("x:m", 8)

    def never() -> int:
        raise AssertionError("no probe for a known size")

    guard.admit(8, never)
    with pytest.raises(EmbeddingError, match="5-dimensional vectors but 8 were expected"):
        guard.admit(5, never)


def test_guard_learns_only_a_confirmed_size():
    guard = DimensionGuard("x:m", None)
    with pytest.raises(EmbeddingError, match="answered with 5 and then 8 dimensions"):
        guard.admit(5, lambda: 8)
    assert guard.dim is None  # the stray answer taught nothing
    guard.admit(8, lambda: 8)
    assert guard.dim == 8
    with pytest.raises(EmbeddingError):
        guard.admit(5, lambda: 5)


# ---------------------------------------------------------------------- config
def test_unknown_bundled_model_is_a_config_error_naming_the_models():
    with pytest.raises(ConfigError) as err:
        Config.load(env={"REMEM_EMBED__MODEL": "bogus-model"})
    message = str(err.value)
    assert "embed.model='bogus-model'" in message
    assert "env:REMEM_EMBED__MODEL" in message
    assert "multilingual-e5-small" in message and "use-multilingual-v3" in message


def test_remote_providers_accept_any_model_name():
    cfg = Config.load(env={"REMEM_EMBED__PROVIDER": "ollama", "REMEM_EMBED__MODEL": "my-model"})
    assert cfg.embed.model == "my-model"


def test_bad_provider_names_the_allowed_values():
    with pytest.raises(ConfigError) as err:
        Config.load(env={"REMEM_EMBED__PROVIDER": "cohere"})
    message = str(err.value)
    assert "embed.provider='cohere'" in message
    for name in ("local", "openai", "ollama", "gemini", "voyage", "jina", "none"):
        assert f"'{name}'" in message


# ---------------------------------------------------------------------- model-not-found
@pytest.mark.parametrize(
    ("status", "message", "missing"),
    [
        (404, "The model `bogus` does not exist or you do not have access to it.", True),
        (404, 'model "bogus" not found, try pulling it first', True),
        (
            404,
            "models/bogus is not found for API version v1beta, or is not supported for "
            "embedContent.",
            True,
        ),
        (400, "dimensions is not supported for model bogus", False),
        (404, "Invalid URL (POST /v1/embedding)", False),
        (400, "Model other not found", False),
    ],
)
def test_model_not_found_is_told_apart_from_other_errors(status, message, missing):
    from remem.embed.transport import _names_missing_model

    assert _names_missing_model(status, message, "bogus") is missing
