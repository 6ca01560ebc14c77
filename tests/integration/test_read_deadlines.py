"""Reads stay interactive against a provider that drips its answers: a search and an
auto-recall (baseline vectors + query vector + search) each wait at most one query deadline,
however long the indexing deadline is."""

from __future__ import annotations

import time

import pytest
from test_provider_faults import FaultServer

from remem import Config, Memory

SLACK_S = 1.0


@pytest.fixture
def server():
    s = FaultServer()
    yield s
    s.close()


def memory(server: FaultServer, tmp_path, **embed) -> Memory:
    config = Config.load(
        env={},
        overrides={
            "embed.provider": "openai",
            "embed.base_url": server.url,
            "embed.model": "fake-embed",
            "scopes.agent": "bot",
            "embed.breaker_failures": 0,  # every read meets the provider
            **{f"embed.{k}": v for k, v in embed.items()},
        },
    )
    mem = Memory(tmp_path / "x.db", config)
    mem.add("Alice lives in Berlin and likes green tea", scope="agent:bot", embed=False)
    mem.search("warm up the lexical index", channels=("lexical",))
    return mem


def timed(call) -> float:
    start = time.monotonic()
    call()
    return time.monotonic() - start


def test_auto_recall_spends_one_query_deadline_in_all(server, tmp_path):
    mem = memory(server, tmp_path, query_timeout_s=1.0, timeout_s=120)
    server.mode = "drip"
    try:
        assert timed(lambda: mem.search("where does Alice live")) < 1.0 + SLACK_S
        # three embedding calls (baseline, query, the search's query), one deadline
        block = None

        def recall() -> None:
            nonlocal block
            block = mem.recall_memories("where does Alice live now?", agent="bot")

        assert timed(recall) < 1.0 + SLACK_S
        assert "Berlin" in block.block  # the lexical match is still recalled
    finally:
        server.mode = "ok"
        mem.close()


def test_the_query_deadline_never_exceeds_the_call_deadline(server, tmp_path):
    mem = memory(server, tmp_path, query_timeout_s=30, timeout_s=1.0, max_attempts=2)
    server.mode = "drip"
    try:
        result = None

        def search() -> None:
            nonlocal result
            result = mem.search("where does Alice live")

        assert timed(search) < 1.0 + SLACK_S
        assert result.degraded and "within 1s" in result.warnings[0]
    finally:
        server.mode = "ok"
        mem.close()
