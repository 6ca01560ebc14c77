"""`remem proxy --upstream URL`: an OpenAI-compatible endpoint that gives any chat app memory.

``POST /v1/chat/completions`` (streaming and not) and ``GET /v1/models`` are forwarded to the
upstream API. Before the call, auto-recall adds the relevant curated memories as one system
message placed just before the last user message; after a successful call, the user's message
and the reply are archived (session ``X-Remem-Session``) and auto-capture runs, in the
background, so the answer is never delayed by memory work. Upstream answers, including errors
and every streamed chunk, pass through unchanged.

Who is talking: ``X-Remem-User`` header, else the request's standard ``user`` field. Which
conversation: ``X-Remem-Session`` header, else ``proxy:<user>`` (or ``proxy:anonymous``). Which
agent: the bearer token's agent when ``server.tokens`` is set, else ``scopes.agent``.
Upstream key: ``server.upstream_api_key``, else (no tokens) the client's own Authorization.
"""

from __future__ import annotations

import json
import logging
import uuid
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.background import BackgroundTask

from remem.errors import RememError
from remem.server.identity import AuthError, agent_for
from remem.types import Turn

log = logging.getLogger("remem.proxy")

_HOP = {"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(p.get("text", "") for p in content
                         if isinstance(p, dict) and p.get("type") == "text")  # fmt: skip
    return ""


def _passthrough_headers(headers: httpx.Headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _HOP}


def create_proxy(
    mem, upstream: str, *, transport: httpx.AsyncBaseTransport | None = None
) -> FastAPI:
    config = mem.config
    base = upstream.rstrip("/")
    client = httpx.AsyncClient(timeout=config.server.upstream_timeout_s, transport=transport)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        await client.aclose()

    app = FastAPI(title="remem proxy", description=__doc__, lifespan=lifespan)

    def upstream_headers(request: Request) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if config.server.upstream_api_key:
            headers["authorization"] = f"Bearer {config.server.upstream_api_key}"
        elif not config.server.tokens and request.headers.get("authorization"):
            headers["authorization"] = request.headers["authorization"]
        return headers

    def who(request: Request, body: dict[str, Any]) -> tuple[str, str | None, str]:
        agent = agent_for(config, request.headers.get("authorization"))
        if not agent:
            raise AuthError("the proxy has no agent identity: set scopes.agent or server.tokens")
        user = request.headers.get("x-remem-user") or (
            body.get("user") if isinstance(body.get("user"), str) else None)  # fmt: skip
        session = request.headers.get("x-remem-session") or f"proxy:{user or 'anonymous'}"
        return agent, user, session

    def remember(agent: str, user: str | None, session: str, question: str, answer: str) -> None:
        """Archive the exchange and capture memories (runs after the response is sent)."""
        try:
            ids = [f"proxy-{uuid.uuid4().hex}", f"proxy-{uuid.uuid4().hex}"]
            scope = mem.scope_access(agent, session=session, user=user).write_scope
            mem.ingest_many([
                {"id": ids[0], "session": session, "role": "user", "speaker_id": user,
                 "text": question, "platform": "openai-proxy", "scope": scope},
                {"id": ids[1], "session": session, "role": "assistant", "text": answer,
                 "platform": "openai-proxy", "scope": scope},
            ])  # fmt: skip
            mem.capture_after_turn(Turn(agent=agent, inputs=ids, session=session,
                                               user_id=user))  # fmt: skip
        except Exception:  # memory work must never break the chat
            log.exception("archiving or capturing the proxied turn failed")

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        r = await client.get(f"{base}/models", headers=upstream_headers(request))
        return Response(
            r.content, status_code=r.status_code, headers=_passthrough_headers(r.headers)
        )

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": {"message": "the body is not JSON",
                                           "type": "invalid_request_error"}}, status_code=400)  # fmt: skip
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list) or not messages:
            return JSONResponse({"error": {"message": "messages must be a non-empty list",
                                           "type": "invalid_request_error"}}, status_code=400)  # fmt: skip
        try:
            agent, user, session = who(request, body)
        except AuthError as exc:
            return JSONResponse({"error": {"message": str(exc), "type": "authentication_error"}},
                                status_code=401)  # fmt: skip
        last = max((i for i, m in enumerate(messages)
                    if isinstance(m, dict) and m.get("role") == "user"), default=None)  # fmt: skip
        question = _text(messages[last].get("content")) if last is not None else ""
        if question:
            try:
                recall = await anyio.to_thread.run_sync(lambda: mem.recall_memories(
                    question, agent=agent, session=session, user=user))  # fmt: skip
            except RememError as exc:
                log.warning("auto-recall failed (%s); forwarding without memories", exc)
                recall = None
            if recall is not None and recall.block:
                assert last is not None
                messages = [*messages[:last], {"role": "system", "content": recall.block},
                            *messages[last:]]  # fmt: skip
        forwarded = {**body, "messages": messages}
        headers = upstream_headers(request)

        if not body.get("stream"):
            r = await client.post(f"{base}/chat/completions", json=forwarded, headers=headers)
            task = None
            if r.status_code == 200 and question:
                try:
                    answer = _text(r.json()["choices"][0]["message"].get("content"))
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    answer = ""
                if answer:
                    task = BackgroundTask(anyio.to_thread.run_sync, lambda: remember(
                        agent, user, session, question, answer))  # fmt: skip
            return Response(r.content, status_code=r.status_code, background=task,
                            headers=_passthrough_headers(r.headers))  # fmt: skip

        upstream_request = client.build_request("POST", f"{base}/chat/completions",
                                                json=forwarded, headers=headers)  # fmt: skip
        r = await client.send(upstream_request, stream=True)
        if r.status_code != 200:  # errors pass through whole and unchanged
            content = await r.aread()
            await r.aclose()
            return Response(content, status_code=r.status_code,
                            headers=_passthrough_headers(r.headers))  # fmt: skip
        parts: list[str] = []

        async def relay():
            buffer = ""
            try:
                async for chunk in r.aiter_raw():
                    yield chunk
                    buffer += chunk.decode("utf-8", "replace")
                    *lines, buffer = buffer.split("\n")
                    for line in lines:
                        _collect(line, parts)
            finally:
                await r.aclose()

        def after_stream() -> None:  # runs once the last chunk has been sent
            if question and parts:
                remember(agent, user, session, question, "".join(parts))

        return StreamingResponse(relay(), status_code=200,
                                 headers=_passthrough_headers(r.headers),
                                 background=BackgroundTask(anyio.to_thread.run_sync,
                                                           after_stream))  # fmt: skip

    return app


def _collect(line: str, parts: list[str]) -> None:
    line = line.strip()
    if not line.startswith("data:"):
        return
    data = line[5:].strip()
    if not data or data == "[DONE]":
        return
    try:
        delta = json.loads(data)["choices"][0].get("delta") or {}
    except (ValueError, KeyError, IndexError, TypeError):
        return
    if isinstance(delta.get("content"), str):
        parts.append(delta["content"])
