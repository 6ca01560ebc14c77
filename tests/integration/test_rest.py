"""The REST API over real HTTP on 127.0.0.1: every endpoint, bearer auth mapped through the
scope resolver, validation errors, body and k limits."""

from __future__ import annotations

import json

import httpx
import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ConfigError
from remem.server.identity import check_bind
from serving import Served

T = 1_800_000_000.0
TOKEN_A, TOKEN_B = "a" * 32, "b" * 32


@pytest.fixture
def serve(tmp_path):
    from remem.server.rest import create_app

    opened = []

    def start(**overrides):
        config = Config.load(
            env={}, overrides={"indexing.mode": "sync", "autorecall.min_margin": 0.05, **overrides}
        )
        mem = Memory(tmp_path / f"rest{len(opened)}.db", config, embedder=HashEmbedder())
        served = Served(create_app(mem))
        opened.append((served, mem))
        return served.url, mem

    yield start
    for served, mem in opened:
        served.close()
        mem.close()


def test_operator_endpoints_without_tokens(serve):
    url, mem = serve(**{"scopes.agent": "local-bot"})
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/healthz").json()["ok"]
        assert "/v1/search" in http.get("/openapi.json").json()["paths"]
        msgs = [
            {
                "id": f"m{i}",
                "session": "s1",
                "role": "user",
                "speaker": "Ann",
                "text": t,
                "timestamp": T + i,
            }
            for i, t in enumerate(
                [
                    "I adopted a greyhound called Pixel",
                    "Pixel loves the beach",
                    "what should Pixel eat?",
                ]
            )
        ]
        r = http.post("/v1/ingest", json=msgs)
        assert r.status_code == 201 and len(r.json()["ingested"]) == 3
        assert http.post("/v1/ingest", json=msgs[0]).status_code == 201  # a retry: no-op
        r = http.post("/v1/ingest", json={**msgs[0], "text": "something else"})
        assert r.status_code == 409  # the id holds another record
        r = http.post("/v1/memories", json={"text": "Ann's dog is Pixel", "category": "entity"})
        assert r.status_code == 201 and r.json()["kind"] == "memory"

        hits = http.post("/v1/search", json={"query": "greyhound", "k": 3, "explain": True}).json()
        assert hits["hits"][0]["record"]["id"] == "m0" and "explain" in hits["hits"][0]
        assert "dropped" in hits
        plain = http.post("/v1/search", json={"query": "greyhound", "filters": {"kind": "memory"}})
        assert all(h["record"]["kind"] == "memory" for h in plain.json()["hits"])

        assert http.get("/v1/records/m1").json()["text"] == "Pixel loves the beach"
        assert (
            len(http.get("/v1/records", params={"kind": "message", "limit": 2}).json()["records"])
            == 2
        )
        assert http.get("/v1/stats").json()["records"] == 4

        turn = http.post(
            "/v1/recall-for-turn", json={"session": "s1", "inputs": ["m2"], "now": T + 10}
        ).json()
        assert turn["block"].startswith("<remem-memory") and "greyhound" in turn["block"]

        cap = http.post(
            "/v1/capture-after-turn",
            json={"messages": [{"role": "user", "text": "I live in Lisbon."}], "user": "ann"},
        ).json()
        assert [r["text"] for r in cap["stored"]] == ["I live in Lisbon."]
        assert cap["stored"][0]["scope"] == "agent:local-bot"
        asked = {"query": "Where do I live, remember?"}
        rec = http.post("/v1/recall-memories", json={**asked, "user": "ann"}).json()
        assert "Lisbon" in rec["block"]
        # Ann's "I" is hers: nobody else, and no user-less call, is told it (issue 48)
        assert "Lisbon" not in http.post("/v1/recall-memories", json=asked).json()["block"]

        assert http.get("/v1/tools").json()[0]["name"] == "memory_recall"
        stored = http.post("/v1/tools/memory_store", json={"arguments": {"text": "Ann likes jazz"}})
        assert stored.json()["stored"]
        assert http.post("/v1/tools/memory_fly", json={}).status_code == 404

        export = http.get("/v1/export")
        lines = [json.loads(x) for x in export.text.splitlines()]
        assert export.headers["content-type"].startswith("application/x-ndjson")
        assert len(lines) == mem.stats()["records"]

        assert http.delete("/v1/records/m1").json() == {"deleted": 1}
        assert http.get("/v1/records/m1").status_code == 404


def test_validation_errors_and_limits(serve):
    url, _mem = serve(**{"server.max_body_bytes": 2000, "server.max_k": 20})
    with httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/v1/search", json={"query": ""})
        assert r.status_code == 422 and r.json()["error"].startswith("invalid query")
        r = http.post("/v1/search", json={"query": "x", "k": 21})
        assert r.status_code == 400 and "server.max_k" in r.json()["error"]
        r = http.post("/v1/search", json={"query": "x", "surprise": 1})
        assert r.status_code == 422 and "surprise" in r.json()["error"]
        r = http.post("/v1/search", json={"query": "x", "filters": {"kind": "thing"}})
        assert r.status_code == 400 and "kind" in r.json()["error"]
        r = http.post("/v1/ingest", json={"text": "x" * 5000})
        assert r.status_code == 413
        r = http.post(
            "/v1/ingest",
            content=b'{"text": "' + b"y" * 5000 + b'"}',
            headers={"content-type": "application/json", "transfer-encoding": "chunked"},
        )
        assert r.status_code == 413
        r = http.post("/v1/tools/memory_recall", json={"arguments": {"query": "x"}})
        assert r.status_code == 403 and "no agent identity" in r.json()["error"]
        r = http.post("/v1/ingest", json={"text": "fine", "role": "wizard"})
        assert r.status_code == 400 and "role" in r.json()["error"]


def test_streamed_bodies_are_limited_and_small_ones_still_work(serve):
    url, mem = serve(**{"server.max_body_bytes": 100_000})

    def chunks(body: bytes, size: int = 65_536):  # an iterator: httpx sends it chunked
        for start in range(0, len(body), size):
            yield body[start : start + size]

    with httpx.Client(base_url=url, timeout=60) as http:
        big = b'{"text": "' + b"y" * 3_000_000 + b'"}'
        r = http.post(
            "/v1/ingest", content=chunks(big), headers={"content-type": "application/json"}
        )
        assert r.status_code == 413 and "over 100000 bytes" in r.json()["error"]
        small = b'{"id": "c1", "text": "streamed but small"}'
        r = http.post(
            "/v1/ingest", content=chunks(small, 8), headers={"content-type": "application/json"}
        )
        assert r.status_code == 201 and r.json()["ingested"][0]["id"] == "c1"
    assert mem.get("c1") is not None and mem.stats()["records"] == 1


def test_tokens_map_to_agents_and_scopes(serve):
    url, mem = serve(**{"server.tokens": {TOKEN_A: "agent-a", TOKEN_B: "agent-b"}})
    mem.add("the vault code word is pineapple", scope="agent:agent-b")
    mem.add("the office opens at nine", scope="global")
    a = httpx.Client(base_url=url, timeout=30, headers={"Authorization": f"Bearer {TOKEN_A}"})
    with a:
        assert httpx.get(f"{url}/v1/stats").status_code == 401
        bad = httpx.get(f"{url}/v1/stats", headers={"Authorization": "Bearer " + "c" * 32})
        assert bad.status_code == 401 and bad.headers["www-authenticate"] == "Bearer"
        texts = [
            h["record"]["text"]
            for h in a.post("/v1/search", json={"query": "vault code word office"}).json()["hits"]
        ]
        assert texts == ["the office opens at nine"]
        r = a.post("/v1/search", json={"query": "vault", "filters": {"scope": "agent:agent-b"}})
        assert r.status_code == 403
        r = a.post("/v1/memories", json={"text": "sneaky", "scope": "agent:agent-b"})
        assert r.status_code == 403
        secret_id = mem.list({"scope": "agent:agent-b"})[0].id
        assert a.get(f"/v1/records/{secret_id}").status_code == 404
        assert a.delete(f"/v1/records/{secret_id}").status_code == 404
        export = [json.loads(x)["scope"] for x in a.get("/v1/export").text.splitlines()]
        assert export == ["global"]
        ingested = a.post("/v1/ingest", json={"text": "A's private chat line", "session": "x"})
        assert ingested.json()["ingested"][0]["scope"] == "agent:agent-a"  # not global
        stored = a.post("/v1/tools/memory_store", json={"arguments": {"text": "A likes tea"}})
        assert stored.json()["memory"]["scope"] == "agent:agent-a"
        assert a.get("/v1/stats").json()["memories"]["total"] == 2  # global + its own
        assert mem.get(secret_id) is not None


def test_refuses_to_listen_beyond_loopback_without_tokens():
    config = Config.load(env={})
    check_bind(config, "127.0.0.1")
    check_bind(config, "::1")
    with pytest.raises(ConfigError, match=r"server\.tokens"):
        check_bind(config, "0.0.0.0")
    check_bind(Config.load(env={}, overrides={"server.tokens": {TOKEN_A: "a"}}), "0.0.0.0")
    with pytest.raises(Exception, match="16 characters"):
        Config.load(env={}, overrides={"server.tokens": {"short": "a"}})
