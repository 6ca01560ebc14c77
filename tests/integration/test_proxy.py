"""The OpenAI-compatible memory proxy, driven by the official `openai` client, in front of a
fake upstream on 127.0.0.1 that speaks the chat-completions protocol (JSON, SSE streams,
errors)."""

from __future__ import annotations

import json
import time

import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

UPSTREAM_KEY = "sk-upstream-key-1234567890"


def fake_upstream(seen: list[dict]) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    async def models(request: Request):
        seen.append({"path": "models", "auth": request.headers.get("authorization")})
        return {
            "object": "list",
            "data": [{"id": "tiny-chat", "object": "model", "created": 0, "owned_by": "test"}],
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        seen.append({"path": "chat", "body": body, "auth": request.headers.get("authorization")})
        if body["model"] == "overloaded":
            return JSONResponse(
                {
                    "error": {
                        "message": "Rate limit reached",
                        "type": "requests",
                        "code": "rate_limit_exceeded",
                    }
                },
                status_code=429,
                headers={"retry-after": "0"},
            )
        reply = "Sure. Noted that."
        if not body.get("stream"):
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply},
                    }
                ],
            }

        async def events():
            for i, word in enumerate(["Sure.", " Noted", " that."]):
                delta = {"role": "assistant", "content": word} if i == 0 else {"content": word}
                chunk = {
                    "id": "chatcmpl-2",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": body["model"],
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
                yield f"data: {json.dumps(chunk)}\n\n"
            end = {
                "id": "chatcmpl-2",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
            yield f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return app


@pytest.fixture
def proxied(tmp_path):
    from remem.server.proxy import create_proxy

    seen: list[dict] = []
    upstream = Served(fake_upstream(seen))
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "scopes.agent": "proxy-bot",
            "autorecall.min_margin": 0.05,
            "server.upstream_api_key": UPSTREAM_KEY,
        },
    )
    mem = Memory(tmp_path / "proxy.db", config, embedder=HashEmbedder())
    proxy = Served(create_proxy(mem, upstream.url + "/v1"))
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="client-key", max_retries=0)
    yield client, mem, seen
    proxy.close()
    upstream.close()
    mem.close()


def wait_for(predicate, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_models_pass_through(proxied):
    client, _mem, seen = proxied
    assert [m.id for m in client.models.list()] == ["tiny-chat"]
    assert seen[-1]["auth"] == f"Bearer {UPSTREAM_KEY}"  # the configured upstream key


def test_non_streaming_recall_inject_archive_capture(proxied):
    client, mem, seen = proxied
    first = client.chat.completions.create(
        model="tiny-chat",
        user="ann",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "I live in Lisbon. I prefer window seats."},
        ],
    )
    assert first.choices[0].message.content == "Sure. Noted that."
    assert first.usage.total_tokens == 8  # the upstream answer, unchanged
    assert wait_for(lambda: mem.stats()["by_kind"].get("memory", 0) == 2)
    archived = mem.list({"kind": "message", "session": "proxy:ann"})
    assert sorted(r.role for r in archived) == ["assistant", "user"]
    assert {r.scope for r in archived} == {"agent:proxy-bot"}  # the agent's, not global

    client.chat.completions.create(
        model="tiny-chat",
        extra_headers={"X-Remem-User": "ann"},
        messages=[{"role": "user", "content": "Which seats do I prefer, remember?"}],
    )
    sent = seen[-1]["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert (
        sent[0]["content"].startswith("<relevant-memories") and "window seats" in sent[0]["content"]
    )


def test_streaming_passes_chunks_and_captures_after(proxied):
    client, mem, _seen = proxied
    stream = client.chat.completions.create(
        model="tiny-chat",
        stream=True,
        extra_headers={"X-Remem-Session": "web-42"},
        messages=[{"role": "user", "content": "Remember that my locker number is 42."}],
    )
    pieces = [
        c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content
    ]
    assert pieces == ["Sure.", " Noted", " that."]
    assert wait_for(lambda: any("locker" in r.text for r in mem.list({"kind": "memory"})))
    assert {r.session for r in mem.list({"kind": "message"})} == {"web-42"}
    answer = next(r for r in mem.list({"kind": "message"}) if r.role == "assistant")
    assert answer.text == "Sure. Noted that."


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_errors_pass_through_unchanged(proxied, stream):
    client, mem, _seen = proxied
    with pytest.raises(openai.RateLimitError) as info:
        result = client.chat.completions.create(
            model="overloaded",
            stream=stream,
            messages=[{"role": "user", "content": "I live in Oslo, remember that."}],
        )
        if stream:
            list(result)
    assert info.value.status_code == 429
    assert info.value.body["code"] == "rate_limit_exceeded"
    time.sleep(0.3)
    assert mem.stats()["records"] == 0  # nothing archived for a failed call


def test_bad_requests_are_openai_style_errors(proxied):
    client, _mem, _seen = proxied
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="tiny-chat", messages=[])
    assert "messages" in info.value.body["message"]


def test_tokens_name_the_agent_and_never_reach_the_upstream(tmp_path):
    from remem.server.proxy import create_proxy

    seen: list[dict] = []
    upstream = Served(fake_upstream(seen))
    token = "proxy-token-" + "x" * 20
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "server.tokens": {token: "team-bot"},
            "server.upstream_api_key": UPSTREAM_KEY,
        },
    )
    mem = Memory(tmp_path / "t.db", config, embedder=HashEmbedder())
    proxy = Served(create_proxy(mem, upstream.url + "/v1"))
    try:
        good = openai.OpenAI(base_url=proxy.url + "/v1", api_key=token, max_retries=0)
        good.chat.completions.create(
            model="tiny-chat", user="bo", messages=[{"role": "user", "content": "I live in Riga."}]
        )
        assert seen[-1]["auth"] == f"Bearer {UPSTREAM_KEY}"  # the client's token stays here
        assert wait_for(
            lambda: [r.scope for r in mem.list({"kind": "memory"})] == ["agent:team-bot"]
        )
        bad = openai.OpenAI(base_url=proxy.url + "/v1", api_key="wrong-" + "y" * 20, max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            bad.chat.completions.create(
                model="tiny-chat", messages=[{"role": "user", "content": "hello there"}]
            )
    finally:
        proxy.close()
        upstream.close()
        mem.close()


def test_a_question_through_the_proxy_never_replaces_the_fact(tmp_path, e5):
    """The README's example, turn by turn, with the bundled model: the question in turn 2 is
    not captured and does not close "I moved to Lisbon", so turn 3 still gets Lisbon."""
    from remem.server.proxy import create_proxy

    seen: list[dict] = []
    upstream = Served(fake_upstream(seen))
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "scopes.agent": "my-chat",
            "server.upstream_api_key": UPSTREAM_KEY,
            # inject every turn (not only when not injected in the last turns) to see turn 3's
            "autorecall.dedup_turns": 0,
            "autorecall.dedup_seconds": 0,
        },
    )
    mem = Memory(tmp_path / "lisbon.db", config, embedder=e5)
    proxy = Served(create_proxy(mem, upstream.url + "/v1"))
    try:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-client", max_retries=0)

        def archived() -> int:
            return len(mem.list({"kind": "message", "session": "proxy:ann"}))

        client.chat.completions.create(
            model="tiny-chat",
            user="ann",
            messages=[{"role": "user", "content": "I moved to Lisbon last month."}],
        )
        assert wait_for(lambda: len(mem.list({"kind": "memory"})) == 1)
        (lisbon,) = mem.list({"kind": "memory"})
        assert lisbon.text == "I moved to Lisbon last month." and lisbon.category == "fact"

        list(
            client.chat.completions.create(
                model="tiny-chat",
                user="ann",
                stream=True,
                messages=[{"role": "user", "content": "Any tips for where I live now?"}],
            )
        )
        # capture runs right after archiving, in the same background task
        assert wait_for(lambda: archived() == 4)
        time.sleep(0.5)
        assert [r.id for r in mem.list({"kind": "memory"})] == [lisbon.id]  # nothing new
        assert mem.get(lisbon.id).valid_to is None  # still current

        client.chat.completions.create(
            model="tiny-chat",
            user="ann",
            messages=[
                # shares words with both the fact and the question (which, stored, was injected)
                {"role": "user", "content": "Any café tips for Lisbon, where I live now?"}
            ],
        )
        injected = seen[-1]["body"]["messages"][0]["content"]
        assert injected.startswith("<relevant-memories")
        assert "Lisbon" in injected and "Any tips" not in injected
    finally:
        proxy.close()
        upstream.close()
        mem.close()


# ------------------------------------------------------------ upstream missing or too slow
def _failing_proxy(tmp_path, upstream: str, **overrides):
    from remem.server.proxy import create_proxy

    config = Config.load(
        env={},
        overrides={"indexing.mode": "sync", "scopes.agent": "proxy-bot", **overrides},
    )
    mem = Memory(tmp_path / "p.db", config, embedder=HashEmbedder())
    return mem, Served(create_proxy(mem, upstream))


def _remem_lines(caplog) -> list:
    return [r for r in caplog.records if r.name.startswith(("remem", "uvicorn"))]


def test_an_unreachable_upstream_answers_502_naming_it(tmp_path, caplog):
    """Every route used to answer a bare text 500 and log a 90-line traceback."""
    import httpx

    from serving import free_port

    upstream = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    mem, proxy = _failing_proxy(tmp_path, upstream)
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    try:
        with httpx.Client(base_url=proxy.url, timeout=30) as http:
            for send in (
                lambda: http.get("/v1/models"),
                lambda: http.post("/v1/chat/completions", json=chat),
                lambda: http.post("/v1/chat/completions", json={**chat, "stream": True}),
            ):
                caplog.clear()
                answer = send()
                assert answer.status_code == 502, answer.text
                error = answer.json()["error"]
                assert error["message"].startswith(f"upstream {upstream} unreachable: ")
                assert "refused" in error["message"].lower(), error["message"]
                assert error["type"] == "upstream_error"
                lines = _remem_lines(caplog)
                assert len(lines) == 1 and lines[0].exc_info is None, lines
    finally:
        proxy.close()
        mem.close()


def test_a_slow_upstream_answers_504(tmp_path, caplog):
    import anyio
    import httpx

    release = anyio.Event()
    slow = FastAPI()

    @slow.post("/v1/chat/completions")
    async def never(request: Request):
        with anyio.move_on_after(30):
            await release.wait()  # never set: the proxy's timeout must end the wait
        return {}

    upstream = Served(slow)
    mem, proxy = _failing_proxy(
        tmp_path, upstream.url + "/v1", **{"server.upstream_timeout_s": 0.5}
    )
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    try:
        for stream in (False, True):
            caplog.clear()
            answer = httpx.post(
                f"{proxy.url}/v1/chat/completions", json={**chat, "stream": stream}, timeout=30
            )
            assert answer.status_code == 504, answer.text
            message = answer.json()["error"]["message"]
            assert upstream.url in message and "0.5 s" in message
            assert len(_remem_lines(caplog)) == 1
    finally:
        proxy.close()
        upstream.close()
        mem.close()


def test_the_proxy_answers_foreign_hosts_and_failures_like_its_errors(tmp_path, caplog):
    import httpx

    seen: list[dict] = []
    upstream = Served(fake_upstream(seen))
    mem, proxy = _failing_proxy(tmp_path, upstream.url + "/v1")

    def broken(*_args, **_kwargs):
        raise RuntimeError("injected recall failure")

    mem.recall_memories = broken
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    try:
        with httpx.Client(base_url=proxy.url, timeout=30) as http:
            foreign = http.get("/v1/models", headers={"Host": f"evil.example:{proxy.port}"})
            assert foreign.status_code == 421
            assert "evil.example" in foreign.json()["error"]["message"]
            cross = http.post(
                "/v1/chat/completions", json=chat, headers={"Origin": "http://evil.example"}
            )
            assert cross.status_code == 403 and seen == []
            failed = http.post("/v1/chat/completions", json=chat)
            docs = http.get("/docs")
            assert docs.status_code == 200 and "https://" not in docs.text  # no CDN
        assert failed.status_code == 500 and failed.headers["content-type"] == "application/json"
        request_id = failed.json()["error"]["request_id"]
        assert [r for r in caplog.records if request_id in r.getMessage()]
    finally:
        proxy.close()
        upstream.close()
        mem.close()
