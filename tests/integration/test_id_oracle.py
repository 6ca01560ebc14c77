"""Issue 12, id-existence oracle: an agent behind a token must not learn whether an id it
cannot read exists. Writes with an id it chose answer the same whether that id is taken by
another agent's record or free; over real HTTP on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

TOKEN_A, TOKEN_B = "a" * 32, "b" * 32


@pytest.fixture
def served(tmp_path):
    from remem.server.rest import create_app

    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "server.tokens": {TOKEN_A: "agent-a", TOKEN_B: "agent-b"},
        },
    )
    mem = Memory(tmp_path / "oracle.db", config, embedder=HashEmbedder())
    server = Served(create_app(mem))
    clients = {
        name: httpx.Client(
            base_url=server.url, timeout=30, headers={"Authorization": f"Bearer {token}"}
        )
        for name, token in (("a", TOKEN_A), ("b", TOKEN_B))
    }
    yield mem, clients
    for client in clients.values():
        client.close()
    server.close()
    mem.close()


def answer(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


@pytest.mark.parametrize(
    "path, taken",
    [
        ("/v1/memories", "secret-memory"),  # an id the operator gave B's record
        ("/v1/ingest", "secret-message"),
        ("/v1/memories", "agent:agent-b/note-1"),  # an id in B's own namespace
        ("/v1/ingest", "agent:agent-b/note-1"),
    ],
)
def test_a_taken_id_and_a_free_one_answer_alike(served, path, taken):
    mem, http = served
    mem.ingest({"id": "secret-message", "text": "B's line", "scope": "agent:agent-b"})
    mem.add("B's memory", id="secret-memory", scope="agent:agent-b")
    mem.add("B's note", id="agent:agent-b/note-1", scope="agent:agent-b")
    free = taken + "-free"
    assert mem.get(taken) is not None and mem.get(free) is None
    assert http["a"].get(f"/v1/records/{taken}").status_code == 404  # A cannot read it ...

    on_taken = http["a"].post(path, json={"id": taken, "text": "probe"})
    on_free = http["a"].post(path, json={"id": free, "text": "probe"})
    assert answer(on_taken) == answer(on_free)  # ... nor learn that it exists
    assert on_taken.status_code == 403 and "agent:agent-a/" in on_taken.json()["error"]
    batch = http["a"].post("/v1/ingest", json=[{"text": "fine"}, {"id": taken, "text": "probe"}])
    assert answer(batch) == answer(on_free)
    assert mem.get(free) is None and mem.get(taken).text != "probe"
    assert mem.count({"scope": "agent:agent-a"}) == 0  # nothing written


def test_ids_in_the_agents_own_namespace_work_and_are_idempotent(served):
    mem, http = served
    a = http["a"]
    message = {"id": "agent:agent-a/m1", "text": "I keep bees", "session": "s1"}
    first = a.post("/v1/ingest", json=message)
    assert first.status_code == 201 and first.json()["ingested"][0]["scope"] == "agent:agent-a"
    again = a.post("/v1/ingest", json=message)  # a retry: the same record, nothing new
    assert again.status_code == 201 and again.json()["ingested"][0]["id"] == "agent:agent-a/m1"
    assert mem.count({"scope": "agent:agent-a"}) == 1
    changed = a.post("/v1/ingest", json={**message, "text": "I keep wasps"})
    assert changed.status_code == 409 and "holds something else" in changed.json()["error"]
    assert a.get("/v1/records/agent:agent-a/m1").json()["text"] == "I keep bees"

    # a scope it may write, named explicitly: ids go under that scope
    r = a.post("/v1/memories", json={"id": "global/fact-1", "text": "x", "scope": "global"})
    assert r.status_code == 201 and r.json()["id"] == "global/fact-1"
    r = a.post("/v1/memories", json={"id": "agent:agent-a/fact-2", "text": "y", "scope": "global"})
    assert r.status_code == 403 and "'global/<name>'" in r.json()["error"]


def test_the_operator_chooses_any_id(tmp_path):
    """Without tokens the local operator is not limited: ids are as given."""
    from remem.server.rest import create_app

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "op.db", config, embedder=HashEmbedder()) as mem:
        server = Served(create_app(mem))
        try:
            with httpx.Client(base_url=server.url, timeout=30) as http:
                r = http.post("/v1/ingest", json={"id": "plain-id", "text": "hello"})
                assert r.status_code == 201 and mem.get("plain-id") is not None
        finally:
            server.close()


def test_memory_forget_answers_alike_for_hidden_and_missing_ids(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "tools.db", config, embedder=HashEmbedder()) as mem:
        hidden = mem.add("B's secret", scope="agent:agent-b").id
        tools = mem.tools("agent-a")
        from remem.tools import ToolError

        answers = []
        for memory_id in (hidden, "no-such-id"):
            with pytest.raises(ToolError) as err:
                tools.call("memory_forget", {"memory_id": memory_id})
            answers.append(str(err.value).replace(repr(memory_id), "<id>"))
        assert answers[0] == answers[1]
        assert mem.get(hidden) is not None
