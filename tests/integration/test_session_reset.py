"""A session reset over HTTP: `POST /v1/sessions/{id}/reset` on the REST API and a `/new`
message through the proxy (a summary memory, a confirmation, no upstream call), with real
servers on 127.0.0.1."""

from __future__ import annotations

import httpx
import openai
import pytest
from fastapi import FastAPI

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

TOKEN_A, TOKEN_B = "a" * 32, "b" * 32
CHAT = [
    ("user", "We decided to ship the mobile app on Thursdays."),
    ("assistant", "Thursdays it is."),
    ("user", "I prefer reviewing pull requests in the morning."),
]


def open_memory(tmp_path, **overrides) -> Memory:
    config = Config.load(
        env={},
        overrides={"indexing.mode": "sync", "capture.session_summary": True, **overrides},
    )
    return Memory(tmp_path / "reset.db", config, embedder=HashEmbedder())


def archive(mem: Memory, session: str, scope: str = "global") -> None:
    mem.ingest_many(
        [{"role": role, "text": text, "session": session, "scope": scope} for role, text in CHAT]
    )


def summaries(mem: Memory) -> list[str]:
    return [r.text for r in mem.list({"kind": "memory"}) if r.text.startswith("Summary of")]


def test_rest_session_reset_stores_the_summary(tmp_path):
    from remem.server.rest import create_app

    with open_memory(tmp_path, **{"scopes.agent": "coder"}) as mem:
        archive(mem, "s-1")
        served = Served(create_app(mem))
        try:
            r = httpx.post(f"{served.url}/v1/sessions/s-1/reset", json={})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["skipped_reason"] is None
            assert body["summary"]["text"].startswith("Summary of session s-1")
            assert "Thursdays" in body["summary"]["text"]
            assert summaries(mem) == [body["summary"]["text"]]

            again = httpx.post(f"{served.url}/v1/sessions/s-1/reset").json()  # no body
            assert again["summary"] is None
            assert again["duplicate_of"] == body["summary"]["id"]
            empty = httpx.post(f"{served.url}/v1/sessions/nobody/reset").json()
            assert empty["skipped_reason"] == "nothing to summarise in the session"
            bad = httpx.post(f"{served.url}/v1/sessions/s-1/reset", json={"now": "soon"})
            assert bad.status_code == 422
        finally:
            served.close()


def test_rest_session_reset_is_off_by_default_and_guarded_by_tokens(tmp_path):
    from remem.server.rest import create_app

    tokens = {TOKEN_A: "agent-a", TOKEN_B: "agent-b"}
    overrides = {"capture.session_summary": False, "server.tokens": tokens}
    with open_memory(tmp_path, **overrides) as mem:
        archive(mem, "shared", scope="agent:agent-a")
        served = Served(create_app(mem))
        try:
            url = f"{served.url}/v1/sessions/shared/reset"
            assert httpx.post(url).status_code == 401
            foreign = httpx.post(url, headers={"Authorization": f"Bearer {TOKEN_B}"})
            assert foreign.status_code == 403  # its messages are agent-a's
            assert "may not read" in foreign.json()["error"]
            own = httpx.post(url, headers={"Authorization": f"Bearer {TOKEN_A}"})
            assert own.status_code == 200
            assert own.json()["skipped_reason"] == "capture.session_summary is off"
            assert summaries(mem) == []
        finally:
            served.close()


def test_rest_session_reset_reads_as_the_session_and_user_it_names(tmp_path):
    """A token's agent whose scopes are ``session:{session}`` and ``user:{user}`` (a chat bot's,
    e.g. the AstrBot plugin's) may reset its own session: its messages are read in the scopes
    of that session and user, not only in the agent's fixed ones."""
    from remem.server.rest import create_app

    agents = {"bot": ["user:{user}", "session:{session}", "global"]}
    overrides = {"server.tokens": {TOKEN_A: "bot"}, "scopes.agents": agents}
    with open_memory(tmp_path, **overrides) as mem:
        archive(mem, "room-1", scope="session:room-1")
        mem.ingest(
            {"role": "user", "text": "Call me Ann.", "session": "room-1", "scope": "user:ann"}
        )
        served = Served(create_app(mem))
        try:
            auth = {"Authorization": f"Bearer {TOKEN_A}"}
            url = f"{served.url}/v1/sessions/room-1/reset"
            r = httpx.post(url, headers=auth, json={"user": "ann"})
            assert r.status_code == 200, r.text
            assert r.json()["summary"]["text"].startswith("Summary of session room-1")
            # without the user, Ann's message is one this agent may not read there
            other = httpx.post(f"{served.url}/v1/sessions/room-1/reset", headers=auth)
            assert other.status_code == 403 and "may not read" in other.json()["error"]
        finally:
            served.close()


@pytest.fixture
def proxied(tmp_path):
    from remem.server.proxy import create_proxy

    hits: list[dict] = []
    upstream_app = FastAPI()

    @upstream_app.post("/v1/chat/completions")
    async def chat(body: dict):
        hits.append(body)
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Sure."},
                    "finish_reason": "stop",
                }
            ],
        }

    upstream = Served(upstream_app)
    mem = open_memory(tmp_path, **{"scopes.agent": "proxy-bot"})
    proxy = Served(create_proxy(mem, upstream.url + "/v1"))
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="k", max_retries=0)
    yield client, mem, hits
    proxy.close()
    upstream.close()
    mem.close()


@pytest.mark.parametrize("stream", [False, True])
def test_a_new_message_through_the_proxy_summarises_without_the_upstream(proxied, stream):
    client, mem, hits = proxied
    archive(mem, "proxy:ann", scope="agent:proxy-bot")
    messages = [{"role": "user", "content": " /new "}]
    if stream:
        chunks = client.chat.completions.create(
            model="tiny-chat", user="ann", messages=messages, stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        answer = client.chat.completions.create(model="tiny-chat", user="ann", messages=messages)
        assert answer.model == "tiny-chat"
        text = answer.choices[0].message.content
    assert text == "Session proxy:ann reset; its summary is saved to memory."
    assert hits == []  # the upstream was never called
    assert len(summaries(mem)) == 1
    assert mem.count({"kind": "message", "session": "proxy:ann"}) == len(CHAT)  # `/new` is no turn

    client.chat.completions.create(
        model="tiny-chat", user="ann", messages=[{"role": "user", "content": "/new is a command"}]
    )
    assert len(hits) == 1  # only a message that is the command alone is one
