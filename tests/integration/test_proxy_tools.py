"""The proxy's tool handling (server.proxy_tools), driven by the official `openai` client in
front of a fake upstream on 127.0.0.1 whose model calls tools the way OpenAI models do: a
tool call first (streamed as deltas), the answer once the tool results are in."""

from __future__ import annotations

import json

import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

T = 1_800_000_000.0


def chunk(delta: dict, finish: str | None = None) -> str:
    body = {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "tool-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n"


def tool_model(seen: list[dict]) -> FastAPI:
    """Calls ``tool_name`` (from the user's text "call <tool_name>") until a tool result is in
    the conversation, then answers with what the result said."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        seen.append(body)
        last = body["messages"][-1]
        if last["role"] == "tool":
            result = json.loads(last["content"])
            found = [m["text"] for m in result.get("matches", [])] or [result.get("error", "?")]
            answer, calls = f"From the archive: {found[0]}", None
        else:
            name = last["content"].split("call ", 1)[1].split()[0]
            args = json.dumps({"query": "ferry to the island"})
            answer, calls = (
                None,
                [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": args},
                    }
                ],
            )
        if not body.get("stream"):
            message = {"role": "assistant", "content": answer}
            if calls:
                message["tool_calls"] = calls
            finish = "tool_calls" if calls else "stop"
            return {
                "id": "chatcmpl-t",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }

        async def events():
            if calls:  # OpenAI streams a call as deltas: id and name first, arguments in pieces
                fn = calls[0]["function"]
                head = {"index": 0, "id": "call_1", "type": "function"}
                yield chunk(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{**head, "function": {"name": fn["name"], "arguments": ""}}],
                    }
                )
                half = len(fn["arguments"]) // 2
                for piece in (fn["arguments"][:half], fn["arguments"][half:]):
                    yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
                yield chunk({}, "tool_calls")
            else:
                yield chunk({"role": "assistant", "content": answer[:10]})
                yield chunk({"content": answer[10:]})
                yield chunk({}, "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return app


@pytest.fixture
def proxied(tmp_path):
    from remem.server.proxy import create_proxy

    opened = []

    def start(**overrides):
        seen: list[dict] = []
        upstream = Served(tool_model(seen))
        config = Config.load(
            env={},
            overrides={
                "indexing.mode": "sync",
                "scopes.agent": "proxy-bot",
                "server.proxy_tools": True,
                "conversation.cross_session": "user",
                "capture.enabled": False,
                **overrides,
            },
        )
        mem = Memory(tmp_path / f"p{len(opened)}.db", config, embedder=HashEmbedder())
        mem.ingest_many(
            [  # an earlier chat of ann's, archived as the proxy archives
                {
                    "session": "proxy:ann",
                    "role": "user",
                    "speaker_id": "ann",
                    "scope": "agent:proxy-bot",
                    "platform": "openai-proxy",
                    "text": "the ferry to the island leaves at 7:15",
                    "timestamp": T,
                },
                {
                    "session": "proxy:bob",
                    "role": "user",
                    "speaker_id": "bob",
                    "scope": "agent:other",
                    "platform": "openai-proxy",
                    "text": "the ferry to the island is for bob only",
                    "timestamp": T + 1,
                },
            ]
        )
        proxy = Served(create_proxy(mem, upstream.url + "/v1"))
        opened.append((proxy, upstream, mem))
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="k", max_retries=0)
        return client, seen

    yield start
    for proxy, upstream, mem in opened:
        proxy.close()
        upstream.close()
        mem.close()


ASK = [{"role": "user", "content": "when was the ferry? call conversation_recall"}]


def test_the_model_recalls_the_chat_through_the_proxy(proxied):
    client, seen = proxied()
    answer = client.chat.completions.create(model="m", user="ann", messages=ASK)
    assert answer.choices[0].message.content == (
        "From the archive: the ferry to the island leaves at 7:15"
    )
    offered = {t["function"]["name"] for t in seen[0]["tools"]}
    assert {"conversation_recall", "memory_recall", "memory_forget"} <= offered
    second = seen[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "conversation_recall"
    result = json.loads(second[-1]["content"])
    assert result["block"].startswith('<remem-memory type="untrusted-data">')
    assert "bob only" not in second[-1]["content"]  # another agent's scope stays hidden


def test_streams_hold_back_the_tool_call_and_follow_with_the_answer(proxied):
    client, seen = proxied()
    stream = client.chat.completions.create(model="m", user="ann", messages=ASK, stream=True)
    pieces, calls = [], []
    for part in stream:
        delta = part.choices[0].delta
        pieces.append(delta.content or "")
        calls += delta.tool_calls or []
    assert "".join(pieces) == "From the archive: the ferry to the island leaves at 7:15"
    assert calls == []  # the client never sees remem's own tool calls
    assert json.loads(seen[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]) == {
        "query": "ferry to the island"
    }


@pytest.mark.parametrize("stream", [False, True])
def test_the_clients_own_tools_go_back_to_the_client(proxied, stream):
    client, seen = proxied()
    mine = {"type": "function", "function": {"name": "book_taxi", "parameters": {"type": "object"}}}
    ask = [{"role": "user", "content": "call book_taxi now"}]
    out = client.chat.completions.create(model="m", messages=ask, tools=[mine], stream=stream)
    if stream:
        deltas = [c for p in out for c in (p.choices[0].delta.tool_calls or [])]
        names = [c.function.name for c in deltas if c.function.name]  # later deltas: arguments
        assert "".join(c.function.arguments for c in deltas) == '{"query": "ferry to the island"}'
    else:
        names = [c.function.name for c in out.choices[0].message.tool_calls]
    assert names == ["book_taxi"] and len(seen) == 1
    assert seen[0]["tools"][0] == mine


def test_hidden_management_tools_are_not_offered_and_errors_reach_the_model(proxied):
    client, seen = proxied(**{"scopes.management_tools": False})
    client.chat.completions.create(model="m", messages=ASK)
    offered = {t["function"]["name"] for t in seen[0]["tools"]}
    assert "conversation_recall" in offered and "memory_list" not in offered
    answer = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "call memory_list"}]
    )
    assert len(seen) == 3  # memory_list is not ours to run here: back to the client as it came
    assert answer.choices[0].message.tool_calls[0].function.name == "memory_list"


def test_proxy_tools_off_leaves_the_request_alone(proxied):
    client, seen = proxied(**{"server.proxy_tools": False})
    out = client.chat.completions.create(model="m", messages=ASK)
    assert "tools" not in seen[0] and out.choices[0].message.tool_calls[0].id == "call_1"
