"""Facts end to end with the real bundled model: the Tom conversation of issue 48 (in
English and in Chinese) ingested through ``Memory.ingest`` and indexed, then asked through
the Python API, the REST route, the MCP tool and the CLI, which must all say the same."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession

from cli_inproc import remem
from remem import Config, Memory
from remem.store.memory import InMemoryStore
from serving import Served

DEC_1 = datetime(2025, 12, 1, tzinfo=UTC).timestamp()

TOM_EN = [
    ("I live in Shenzhen now", "2025-11-02T09:00:00+00:00"),
    ("I'm leaving Shenzhen… moving to Shanghai on December 1st", "2025-11-20T09:00:00+00:00"),
    ("First week in Shanghai done", "2025-12-08T09:00:00+00:00"),
]
TOM_ZH = [
    ("我现在住在深圳", "2025-11-02T09:00:00+00:00"),
    ("我要离开深圳了……12月1号搬去上海", "2025-11-20T09:00:00+00:00"),
    ("在上海的第一周过完了", "2025-12-08T09:00:00+00:00"),
]


def ingest(mem: Memory, lines, speaker: str) -> list[str]:
    ids = []
    for i, (text, when) in enumerate(lines):
        other = {"text": "nice!", "speaker": "Mia", "session": "group", "timestamp": when}
        mine = {"text": text, "speaker": speaker, "session": "group", "timestamp": when}
        ids.append(mem.ingest(mine).id)
        if i == 0:
            mem.ingest(other)
    assert mem.wait_indexed(timeout=300)
    return ids


def open_memory(backend: str, tmp_path, e5) -> Memory:
    config = Config.load(env={})  # async indexing, as a chat bot writes
    if backend == "memory":
        return Memory(store=InMemoryStore(), config=config, embedder=e5)
    return Memory(tmp_path / "tom.db", config, embedder=e5)


BACKENDS = [pytest.param("memory"), pytest.param("sqlite")]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lines", "speaker", "first"), [(TOM_EN, "Tom", "Shenzhen"), (TOM_ZH, "汤姆", "深圳")]
)
def test_the_first_city_is_read_and_held_until_the_move(
    backend, tmp_path, e5, lines, speaker, first
):
    with open_memory(backend, tmp_path, e5) as mem:
        ids = ingest(mem, lines, speaker)
        history = mem.facts(speaker, history=True, attribute="lives_in")
        said = [f for f in history if f.value == first]
        assert len(said) == 1 and said[0].source_ids[0] == ids[0]
        assert said[0].subject_name == speaker
        assert [f.value for f in mem.facts(speaker, at="2025-11-10")] == [first]
        assert mem.facts("Mia") == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lines", "speaker", "cities"),
    [(TOM_EN, "Tom", ("Shenzhen", "Shanghai")), (TOM_ZH, "汤姆", ("深圳", "上海"))],
)
def test_tom_lives_in_shanghai_since_december_1st(backend, tmp_path, e5, lines, speaker, cities):
    before, after = cities
    with open_memory(backend, tmp_path, e5) as mem:
        ids = ingest(mem, lines, speaker)
        now = mem.facts(speaker)
        assert [(f.value, f.valid_from) for f in now] == [(after, DEC_1)]
        assert ids[1] in now[0].source_ids
        history = mem.facts(speaker, history=True, attribute="lives_in")
        assert [(f.value, f.valid_to) for f in history] == [(before, DEC_1), (after, None)]
        assert history[0].closed_by == ids[1]
        # the move was a plan until its day
        plans = mem.facts(speaker, history=True, attribute="plan")
        assert [(f.valid_from, f.valid_to) for f in plans] == [(now[0].said_at, DEC_1)]


def rest_facts(url: str, **params) -> list[dict]:
    answer = httpx.get(f"{url}/v1/facts", params=params, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()["facts"]


def mcp_facts(url: str, arguments: dict) -> list[dict]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        client = httpx2.AsyncClient(timeout=60)
        streams = streamable_http_client(f"{url}/mcp", http_client=client)
        async with streams as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("memory_facts", arguments)
            assert not result.is_error, result.content
            return result.structured_content["facts"]

    return anyio.run(main)


@pytest.mark.slow
def test_rest_and_the_mcp_tool_say_what_the_api_says(tmp_path, e5):
    from remem.facts.query import fact_view
    from remem.server.mcp_server import build_server, http_app
    from remem.server.rest import create_app

    config = Config.load(env={}, overrides={"scopes.agent": "desk"})
    with Memory(store=InMemoryStore(), config=config, embedder=e5) as mem:
        ingest(mem, TOM_EN, "Tom")
        zone = mem.config.calendar.zone()
        expected = [fact_view(f, zone) for f in mem.facts("Tom", history=True)]
        assert expected and expected[0]["value"] == "Shenzhen"
        assert expected[0]["since"] == "2025-11-02T09:00+00:00"
        rest = Served(create_app(mem))
        mcp = Served(http_app(build_server(mem), "127.0.0.1", mem.config))
        try:
            assert rest_facts(rest.url, subject="Tom", history="true") == expected
            assert rest_facts(rest.url, subject="tom", at="2025-11-10") == [
                v for v in expected if v["value"] == "Shenzhen"
            ]
            assert rest_facts(rest.url, subject="Nobody") == []
            bad = httpx.get(f"{rest.url}/v1/facts", params={"attribute": "lives_at"}, timeout=60)
            assert bad.status_code == 400 and "attribute" in bad.json()["error"]
            assert mcp_facts(mcp.url, {"subject": "Tom", "history": True}) == expected
            corrected = httpx.post(
                f"{rest.url}/v1/facts/corrections",
                json={"subject": "Tom", "attribute": "lives_in", "value": "Hangzhou"},
                timeout=60,
            )
            assert corrected.status_code == 201, corrected.text
            memory_id = corrected.json()["memory"]["id"]
            now = rest_facts(rest.url, subject="Tom")
            assert [(f["value"], f["origin"]) for f in now] == [("Hangzhou", "manual")]
            assert mcp_facts(mcp.url, {"subject": "Tom"}) == now
            assert mem.history(memory_id)[0].metadata["fact_correction"]["value"] == "Hangzhou"
            spec = httpx.get(f"{rest.url}/openapi.json", timeout=60).json()
            assert {"/v1/facts", "/v1/facts/corrections"} <= set(spec["paths"])
        finally:
            rest.close()
            mcp.close()


@pytest.mark.slow
def test_the_cli_says_what_the_api_says(tmp_path):
    db = tmp_path / "cli.db"
    env = {"REMEM_DB": str(db), "REMEM_EMBED__PROVIDER": "none"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return remem(args, env=env)  # the console script, in this process

    source = tmp_path / "tom.jsonl"
    rows = [{"text": t, "speaker": "Tom", "session": "g", "timestamp": w} for t, w in TOM_EN]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert cli("ingest", str(source)).returncode == 0
    shown = cli("facts", "Tom", "--history", "--json")
    assert shown.returncode == 0, shown.stderr
    facts = json.loads(shown.stdout)["facts"]
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db, config) as mem:
        from remem.facts.query import fact_view

        zone = mem.config.calendar.zone()
        assert facts == [fact_view(f, zone) for f in mem.facts("Tom", history=True)]
    assert facts and facts[0]["value"] == "Shenzhen"
    rebuilt = cli("facts", "rebuild", "--json")
    assert rebuilt.returncode == 0 and json.loads(rebuilt.stdout)["facts"] == len(facts)
    fixed = cli("facts", "correct", "Tom", "lives_in", "Hangzhou", "--json")
    assert fixed.returncode == 0, fixed.stderr
    assert [f["value"] for f in json.loads(cli("facts", "Tom", "--json").stdout)["facts"]] == [
        "Hangzhou"
    ]


def test_facts_without_an_embedding_model(tmp_path):
    """``embed.provider = "none"``: records are never embedded, their facts are kept all
    the same (the indexing path hands them over as done)."""
    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    with Memory(store=InMemoryStore(), config=config) as mem:
        mem.ingest({"text": "I live in Shenzhen now", "speaker": "Tom", "timestamp": "2025-11-02"})
        assert [f.value for f in mem.facts("Tom")] == ["Shenzhen"]
