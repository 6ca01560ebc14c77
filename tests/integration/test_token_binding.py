"""Issue 12, who vouches for the user: a token bound to users (``server.tokens``) acts only for
them over REST, the proxy and MCP; an unbound token keeps today's rule (the caller vouches
for the user it names). Real servers on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

UNBOUND, ALICE_ONLY, TEAM = "u" * 32, "l" * 32, "t" * 32
TOKENS = {
    UNBOUND: "bot",  # the caller vouches for the user
    ALICE_ONLY: {"agent": "bot", "users": ["alice"]},
    TEAM: {"agent": "bot", "users": ["alice", "carol"]},
}
SETTINGS = {
    "indexing.mode": "sync",
    "server.tokens": TOKENS,
    "scopes.agents": {"bot": ["global", "agent:bot", "user:{user}"]},
}
BOBS_SECRET = "the safe code is 4711"


def config() -> Config:
    return Config.load(env={}, overrides=SETTINGS)


@pytest.fixture
def rest(tmp_path):
    from remem.server.rest import create_app

    mem = Memory(tmp_path / "bound.db", config(), embedder=HashEmbedder())
    mem.add(BOBS_SECRET, scope="user:bob")
    mem.add("alice likes the safe blue", scope="user:alice")
    server = Served(create_app(mem))

    def client(token: str) -> httpx.Client:
        return httpx.Client(
            base_url=server.url, timeout=30, headers={"Authorization": f"Bearer {token}"}
        )

    yield client
    server.close()
    mem.close()


def recall(http: httpx.Client, user: str | None) -> httpx.Response:
    body: dict = {"arguments": {"query": "safe code"}}
    if user is not None:
        body["user"] = user
    return http.post("/v1/tools/memory_recall", json=body)


def texts(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [m["text"] for m in response.json()["memories"]]


def test_unbound_token_trusts_the_user_it_names(rest):
    with rest(UNBOUND) as http:
        assert BOBS_SECRET in texts(recall(http, "bob"))  # the caller vouches for bob
        assert BOBS_SECRET not in texts(recall(http, None))


def test_a_token_bound_to_a_user_cannot_be_widened(rest):
    with rest(ALICE_ONLY) as http:
        for user in ("bob", "ALICE", "alice "):
            refused = recall(http, user)
            assert refused.status_code == 403
            assert "only for user 'alice'" in refused.json()["error"]
        own = texts(recall(http, None))  # no user named: its one user
        assert "alice likes the safe blue" in own and BOBS_SECRET not in own
        assert "alice likes the safe blue" in texts(recall(http, "alice"))
        for path, body in (
            ("/v1/recall-memories", {"query": "safe code", "user": "bob"}),
            ("/v1/capture-after-turn", {"messages": ["x"], "user": "bob"}),
            ("/v1/recall-for-turn", {"session": "s1", "inputs": [], "user_id": "bob"}),
        ):
            r = http.post(path, json=body)
            assert r.status_code == 403 and "'bob'" in r.json()["error"], path


def test_a_token_bound_to_a_set_acts_for_each_and_no_other(rest):
    with rest(TEAM) as http:
        assert "alice likes the safe blue" in texts(recall(http, "alice"))
        assert recall(http, "carol").status_code == 200
        assert recall(http, "bob").status_code == 403
        anonymous = texts(recall(http, None))  # several users: none is assumed
        assert BOBS_SECRET not in anonymous and "alice likes the safe blue" not in anonymous


def test_config_forms_and_errors():
    grants = config().server.tokens
    assert grants[UNBOUND].agent == "bot" and grants[UNBOUND].users is None
    assert grants[ALICE_ONLY].users == ("alice",)
    shown = dict((k, v) for k, v, _ in config().effective())["server.tokens"]
    assert "*** -> bot for alice" in shown and not any(UNBOUND in s for s in shown)
    for bad, message in (
        ({"agent": "bot", "users": []}, "binds a token to nobody"),
        ({"agent": "bot", "users": ["two words"]}, "not a user id"),
        ({"agent": " ", "users": ["a"]}, "non-empty agent id"),
        ({"agent": "bot", "user": "a"}, "user"),
    ):
        with pytest.raises(Exception, match=message):
            Config.load(env={}, overrides={"server.tokens": {UNBOUND: bad}})


def upstream() -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat():
        message = {"role": "assistant", "content": "ok"}
        return {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}  # fmt: skip

    return app


def test_proxy_header_cannot_widen_a_bound_token(tmp_path):
    from remem.server.proxy import create_proxy

    fake = Served(upstream())
    mem = Memory(tmp_path / "proxy.db", config(), embedder=HashEmbedder())
    proxy = Served(create_proxy(mem, f"{fake.url}/v1"))
    body = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
    try:
        bound = {"Authorization": f"Bearer {ALICE_ONLY}"}
        r = httpx.post(
            f"{proxy.url}/v1/chat/completions",
            json=body,
            headers={**bound, "X-Remem-User": "bob"},
            timeout=30,
        )
        assert r.status_code == 403 and "'bob'" in r.json()["error"]["message"]
        r = httpx.post(f"{proxy.url}/v1/chat/completions", json={**body, "user": "bob"},
                       headers=bound, timeout=30)  # fmt: skip
        assert r.status_code == 403
        ok = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, headers=bound, timeout=30)
        assert ok.status_code == 200
        unbound = {"Authorization": f"Bearer {UNBOUND}", "X-Remem-User": "bob"}
        r = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, headers=unbound, timeout=30)
        assert r.status_code == 200  # the caller vouches
    finally:
        proxy.close()
        fake.close()
        mem.close()


def test_every_write_path_takes_the_users_scope_by_one_rule(rest):
    """Issue 44 item 14: ``/v1/memories`` and ``/v1/ingest`` resolved the caller without its
    user, so ``user:alice`` was refused there for a token bound to alice while the tool and
    capture routes accepted it. One rule now: the user the request acts for (the token's,
    else the one it names with ``X-Remem-User``) fills ``user:{user}`` on every write path."""

    def writes(http: httpx.Client, scope: str, user: str | None = None) -> list[int]:
        n = f"{scope} {user}"  # distinct texts: no duplicate answers
        headers = {"X-Remem-User": user} if user else None  # the tool names it in its body
        codes = [
            http.post(
                "/v1/memories", json={"text": f"note {n} for {scope}", "scope": scope},
                headers=headers,
            ).status_code,
            http.post(
                "/v1/ingest",
                json={"session": "s1", "role": "user", "text": f"said {n} in {scope}",
                      "scope": scope},
                headers=headers,
            ).status_code,
            http.post(
                "/v1/tools/memory_store",
                json={"arguments": {"text": f"stored {n}", "scope": scope}, "user": user},
            ).status_code,
        ]  # fmt: skip
        return codes

    with rest(ALICE_ONLY) as http:
        assert writes(http, "user:alice") == [201, 201, 200]
        assert writes(http, "user:alice", "alice") == [201, 201, 200]
        assert writes(http, "user:bob") == [403, 403, 400]  # the tool's refusal is a 400
        assert writes(http, "user:alice", "bob") == [403, 403, 403]  # cannot act for bob
    with rest(UNBOUND) as http:
        assert writes(http, "user:bob", "bob") == [201, 201, 200]  # the caller vouches
        assert writes(http, "user:bob") == [403, 403, 400]  # no user named: none assumed
