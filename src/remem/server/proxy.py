"""`remem proxy --upstream URL`: an OpenAI-compatible endpoint that gives any chat app memory.

``POST /v1/chat/completions`` (streaming and not) and ``GET /v1/models`` are forwarded to the
upstream API. Before the call, auto-recall adds the relevant curated memories as one system
message placed just before the last user message; after a successful call, the user's message
and the reply are archived (session ``X-Remem-Session``) and auto-capture runs, in the
background, so the answer is never delayed by memory work. Upstream answers, including errors
and every streamed chunk, pass through unchanged.

Who is talking: ``X-Remem-User`` header, else the request's standard ``user`` field (a token
bound to users in ``server.tokens`` acts only for them: another user is refused). Which
conversation: ``X-Remem-Session`` header, else ``proxy:<user>`` (or ``proxy:anonymous``). Which
agent: the bearer token's agent when ``server.tokens`` is set, else ``scopes.agent``.
Upstream key: ``server.upstream_api_key``, else (no tokens) the client's own Authorization.
With ``server.proxy_tools`` the model also gets the memory tools, run here
(``remem.server.proxy_tools``). A user message that is only ``/new`` (or ``/reset``) resets the
session: its summary is stored and the proxy answers a confirmation itself
(``remem.server.session_reset``).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.background import BackgroundTask

from remem.access import AuthError, Caller, ScopeError
from remem.errors import RememError
from remem.server.http_guard import Guard, HostPolicy
from remem.server.proxy_tools import StreamedCalls, Who, definitions, ours_only, run_calls
from remem.server.rest_docs import mount_docs
from remem.server.session_reset import chat_answer, confirmation, is_reset, reset_answer
from remem.types import Turn

if TYPE_CHECKING:
    from remem.engine import Memory

log = logging.getLogger("remem.proxy")

_HOP = {"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _passthrough_headers(headers: httpx.Headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _HOP}


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def _render(status: int, message: str, request_id: str | None) -> JSONResponse:
    """A request the guard refuses, or an unexpected failure (with its request id), in
    OpenAI's error shape."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    error: dict[str, Any] = {"message": message, "type": kind}
    if request_id:
        error["request_id"] = request_id
    return JSONResponse({"error": error}, status_code=status)


def _cause(exc: BaseException) -> str:
    """The operating system's words for why a connection failed ("connection refused", "name
    or service not known"), found at the bottom of httpx's exception chain."""
    words = str(exc) or type(exc).__name__
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno:
            words = os.strerror(seen.errno) if seen.errno > 0 else (seen.strerror or words)
        seen = seen.__cause__ or seen.__context__
    return words[:1].lower() + words[1:]


@dataclass
class ChatCall:
    """One chat completion on its way upstream: the body with the memories in it (each round
    of remem's tool calls adds its messages), the headers, the user's question, who asks
    (agent, user, session) and the client's own tools (their calls go back to the client)."""

    forwarded: dict[str, Any]
    headers: dict[str, str]
    question: str
    who: Who
    client_tools: Any = None

    def add_round(self, message: dict[str, Any], results: list[dict[str, Any]]) -> None:
        """The assistant's tool-call message and the results of remem's tools, appended."""
        messages = [*self.forwarded["messages"], message, *results]
        self.forwarded = {**self.forwarded, "messages": messages}


class UpstreamError(Exception):
    """The upstream could not be reached, broke the connection, or did not answer in time:
    502 / 504."""

    def __init__(self, base: str, exc: httpx.TransportError, timeout: float) -> None:
        if isinstance(exc, httpx.TimeoutException):
            self.status = 504
            message = (
                f"upstream {base} did not answer within {timeout:g} s (server.upstream_timeout_s)"
            )
        else:
            self.status = 502
            what = "unreachable" if isinstance(exc, httpx.ConnectError) else "failed"
            message = f"upstream {base} {what}: {_cause(exc)}"
        super().__init__(message)

    def response(self) -> JSONResponse:
        log.warning("%s", self)  # one line: the cause is the whole story
        return _error(self.status, str(self), "upstream_error")

    def event(self) -> str:
        """The failure as the last events of a stream whose status has already been sent."""
        log.warning("%s (mid-stream)", self)
        error = {"message": str(self), "type": "upstream_error"}
        return f"data: {json.dumps({'error': error})}\n\ndata: [DONE]\n\n"


class Proxy:
    """One upstream, one memory: what the routes of ``create_proxy`` do."""

    def __init__(self, mem: Memory, upstream: str, client: httpx.AsyncClient) -> None:
        self.mem = mem
        self.config = mem.config
        self.base = upstream.rstrip("/")
        self.client = client

    async def send(self, request: httpx.Request, stream: bool = False) -> httpx.Response:
        """Send to the upstream; an unreachable or silent one raises ``UpstreamError``."""
        try:
            return await self.client.send(request, stream=stream)
        except httpx.TransportError as exc:
            raise UpstreamError(self.base, exc, self.config.server.upstream_timeout_s) from exc

    async def post(self, call: ChatCall, stream: bool = False) -> httpx.Response:
        """The call's body as it stands sent upstream (streamed, with ``stream``)."""
        return await self.send(
            self.client.build_request(
                "POST", f"{self.base}/chat/completions", json=call.forwarded, headers=call.headers
            ),
            stream=stream,
        )

    def upstream_headers(self, request: Request) -> dict[str, str]:
        server = self.config.server
        headers = {"content-type": "application/json"}
        if server.upstream_api_key:
            headers["authorization"] = f"Bearer {server.upstream_api_key}"
        elif not server.tokens and request.headers.get("authorization"):
            headers["authorization"] = request.headers["authorization"]
        return headers

    def who(self, request: Request, body: dict[str, Any]) -> tuple[str, str | None, str]:
        """(agent, user, session) of a request."""
        c = Caller.of_token(self.config, request.headers.get("authorization"))
        if not c.agent:
            raise AuthError("the proxy has no agent identity: set scopes.agent or server.tokens")
        named = body.get("user") if isinstance(body.get("user"), str) else None
        user = c.user(request.headers.get("x-remem-user") or named)
        session = request.headers.get("x-remem-session") or f"proxy:{user or 'anonymous'}"
        return c.agent, user, session

    def remember(
        self, agent: str, user: str | None, session: str, question: str, answer: str
    ) -> None:
        """Archive the exchange and capture memories (runs after the response is sent)."""
        mem = self.mem
        try:
            ids = [f"proxy-{uuid.uuid4().hex}", f"proxy-{uuid.uuid4().hex}"]
            scope = mem.scope_access(agent, session=session, user=user).write_scope
            common = {"session": session, "platform": "openai-proxy", "scope": scope}
            mem.ingest_many(
                [
                    {"id": ids[0], "role": "user", "speaker_id": user, "text": question, **common},
                    {"id": ids[1], "role": "assistant", "text": answer, **common},
                ]
            )
            turn = Turn(agent=agent, inputs=list(ids), session=session, user_id=user)
            mem.capture_after_turn(turn)
        except Exception:  # memory work must never break the chat
            log.exception("archiving or capturing the proxied turn failed")

    async def with_memories(
        self, messages: list[Any], question: str, last: int | None, who: tuple[str, str | None, str]
    ) -> list[Any]:
        """The messages with the relevant memories as one system message before the last
        user message (unchanged when there are none or recall fails)."""
        if not question or last is None:
            return messages
        agent, user, session = who
        try:
            recall = await anyio.to_thread.run_sync(
                lambda: self.mem.recall_memories(question, agent=agent, session=session, user=user)
            )
        except RememError as exc:
            log.warning("auto-recall failed (%s); forwarding without memories", exc)
            return messages
        if not recall.block:
            return messages
        return [*messages[:last], {"role": "system", "content": recall.block}, *messages[last:]]

    async def chat(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON")
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list) or not messages:
            return _error(400, "messages must be a non-empty list")
        try:
            who = self.who(request, body)
        except AuthError as exc:
            return _error(401, str(exc), "authentication_error")
        except ScopeError as exc:  # a token bound to users, asked to act for another
            return _error(403, str(exc), "permission_error")
        last = max(
            (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"),
            default=None,
        )
        question = _text(messages[last].get("content")) if last is not None else ""
        if is_reset(question):  # answered here: the upstream has nothing to say to `/new`
            return await self.reset(who, body)
        forwarded = {**body, "messages": await self.with_memories(messages, question, last, who)}
        if self.config.server.proxy_tools:
            forwarded["tools"] = definitions(self.config, body.get("tools"))
        # body["tools"]: the client's own, whose calls go back to the client
        call = ChatCall(forwarded, self.upstream_headers(request), question, who, body.get("tools"))
        try:
            if body.get("stream"):
                return await self.stream(call)
            return await self.complete(call)
        except UpstreamError as exc:
            return exc.response()

    async def reset(self, who: tuple[str, str | None, str], body: dict[str, Any]) -> Response:
        """A `/new` message: summarise the session, then confirm it in the client's shape."""
        agent, user, session = who
        outcome = await anyio.to_thread.run_sync(
            lambda: self.mem.session_reset(session, agent=agent, user=user)
        )
        text = confirmation(reset_answer(self.mem, session, outcome))
        return chat_answer(text, body.get("model"), stream=bool(body.get("stream")))

    async def complete(self, call: ChatCall) -> Response:
        question, who = call.question, call.who
        r = await self.post(call)
        for _ in range(
            self.config.server.proxy_tool_rounds if self.config.server.proxy_tools else 0
        ):
            message = _message(r)
            calls = (message or {}).get("tool_calls") or []
            if message is None or not ours_only(self.config, call.client_tools, calls):
                break
            results = await anyio.to_thread.run_sync(partial(run_calls, self.mem, who, calls))
            call.add_round(message, results)
            r = await self.post(call)
        task = None
        if r.status_code == 200 and question:
            try:
                answer = _text(r.json()["choices"][0]["message"].get("content"))
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                answer = ""
            if answer:
                task = BackgroundTask(
                    anyio.to_thread.run_sync, lambda: self.remember(*who, question, answer)
                )
        return Response(
            r.content,
            status_code=r.status_code,
            background=task,
            headers=_passthrough_headers(r.headers),
        )

    async def stream(self, call: ChatCall) -> Response:
        r = await self.post(call, stream=True)
        if r.status_code != 200:  # errors pass through whole and unchanged
            content = await r.aread()
            await r.aclose()
            return Response(
                content, status_code=r.status_code, headers=_passthrough_headers(r.headers)
            )
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
            except httpx.TransportError as exc:  # the upstream went away mid-answer
                timeout = self.config.server.upstream_timeout_s
                yield UpstreamError(self.base, exc, timeout).event().encode()
            finally:
                await r.aclose()

        def after_stream() -> None:  # runs once the last chunk has been sent
            if call.question and parts:
                self.remember(*call.who, call.question, "".join(parts))

        events = self.tool_rounds(r, call, parts) if self.config.server.proxy_tools else relay()
        return StreamingResponse(
            events,
            status_code=200,
            headers=_passthrough_headers(r.headers),
            background=BackgroundTask(anyio.to_thread.run_sync, after_stream),
        )

    async def tool_rounds(
        self, r: httpx.Response, call: ChatCall, parts: list[str]
    ) -> AsyncIterator[str]:
        """Relay a stream whose answer may call remem's tools: the events of remem tool calls
        are held back and run, and the next round's stream follows in the same response."""
        rounds = self.config.server.proxy_tool_rounds
        try:
            for round_no in range(rounds + 1):
                pending = StreamedCalls()
                async for event in _events(r):
                    if not pending.take(event):
                        for line in event.splitlines():
                            _collect(line, parts)
                        yield event + "\n\n"
                await r.aclose()
                message = pending.assistant_message()
                if round_no == rounds or not ours_only(
                    self.config, call.client_tools, message["tool_calls"]
                ):
                    for event in pending.held:  # the client's own calls, or the end
                        yield event + "\n\n"
                    return
                results = await anyio.to_thread.run_sync(
                    partial(run_calls, self.mem, call.who, message["tool_calls"])
                )
                call.add_round(message, results)
                r = await self.post(call, stream=True)
                if r.status_code != 200:  # too late for a status: an error event ends it
                    text = (await r.aread()).decode("utf-8", "replace")[:500]
                    error = {
                        "message": f"upstream answered {r.status_code} after a memory tool call: "
                        f"{text}",
                        "type": "upstream_error",
                    }
                    yield f"data: {json.dumps({'error': error})}\n\ndata: [DONE]\n\n"
                    return
        except UpstreamError as exc:
            yield exc.event()
        except httpx.TransportError as exc:
            yield UpstreamError(self.base, exc, self.config.server.upstream_timeout_s).event()
        finally:
            await r.aclose()


async def _events(r: httpx.Response) -> AsyncIterator[str]:
    """The server-sent events of a streamed answer, one at a time, without their blank line."""
    buffer = ""
    async for chunk in r.aiter_text():
        buffer += chunk.replace("\r\n", "\n")
        *events, buffer = buffer.split("\n\n")
        for event in events:
            if event.strip():
                yield event
    if buffer.strip():
        yield buffer


def create_proxy(
    mem: Memory,
    upstream: str,
    *,
    host: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> FastAPI:
    """The proxy app for a server listening on ``host`` (default ``server.host``: the host
    policy of ``http_guard`` depends on it)."""
    client = httpx.AsyncClient(timeout=mem.config.server.upstream_timeout_s, transport=transport)
    proxy = Proxy(mem, upstream, client)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        await client.aclose()

    app = FastAPI(
        title="remem proxy", description=__doc__, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    mount_docs(app)  # without a CDN
    policy = HostPolicy(mem.config, host or mem.config.server.host)
    app.add_middleware(Guard, policy=policy, render=_render)

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        """The upstream's model list, passed through unchanged."""
        upstream_headers = proxy.upstream_headers(request)
        try:
            r = await proxy.send(
                client.build_request("GET", f"{proxy.base}/models", headers=upstream_headers)
            )
        except UpstreamError as exc:
            return exc.response()
        return Response(
            r.content, status_code=r.status_code, headers=_passthrough_headers(r.headers)
        )

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        """OpenAI's chat completions, streamed or not, with memory: the relevant memories go
        in as one system message before the last user message, and after a successful call
        the exchange is archived and captured. Who is talking: `X-Remem-User`, else `user`;
        which conversation: `X-Remem-Session`, else `proxy:<user>`."""
        return await proxy.chat(request)

    return app


def _message(r: httpx.Response) -> dict[str, Any] | None:
    """The assistant message of a successful, non-streamed answer (None otherwise)."""
    if r.status_code != 200:
        return None
    try:
        message = r.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return message if isinstance(message, dict) else None


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
