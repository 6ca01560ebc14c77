"""Where the plugin keeps memory: remem embedded in AstrBot's process, or a remote `remem serve`.

Both answer the same six questions (archive a message, recall before a request, capture
after a response, summarise a session that is reset, call a memory tool, list the tools), so the handlers in ``main.py`` never
know which one runs. The embedded one calls remem's Python API in a worker thread (remem's
calls block: SQLite, the embedding model) so AstrBot's event loop keeps serving other chats;
the remote one talks to remem's REST API with httpx, which AstrBot already depends on.

The embedded one needs only remem's core install: no ``[mcp]`` or ``[server]`` extra, whose
``mcp>=2.3`` clashes with AstrBot 4.14's ``mcp`` pin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from .identity import Identity


@dataclass(frozen=True)
class Recall:
    """What recall found for one request: the blocks to inject ('' when nothing)."""

    conversation: str
    memories: str

    @property
    def text(self) -> str:
        return "\n\n".join(b for b in (self.conversation, self.memories) if b)


class Backend(Protocol):
    async def archive(self, record: dict[str, Any]) -> str: ...
    async def recall(
        self, who: Identity, agent: str, input_id: str, query: str, current_ids: list[str]
    ) -> Recall: ...
    async def capture(
        self, who: Identity, agent: str, messages: list[dict[str, Any]]
    ) -> dict[str, Any]: ...
    async def session_reset(self, who: Identity, agent: str) -> str | None: ...
    async def call_tool(
        self, who: Identity, agent: str, name: str, arguments: dict[str, Any]
    ) -> dict[str, Any]: ...
    def tool_specs(self) -> list[dict[str, Any]]: ...
    async def close(self) -> None: ...


def scope_overrides(agent: str) -> dict[str, Any]:
    """remem settings the identity mapping relies on: the agent reads its user's scope, the
    session's and global, and writes to the user's, or to the session's when the event has no
    user (the first writable scope of the list: see ``identity``'s fallback)."""
    return {
        "scopes.agents": {agent: ["user:{user}", "session:{session}", "global"]},
        "capture.scope": "user:{user}",
    }


async def summarize_on_reset(
    backend: Backend, who: Identity, agent: str, warn: Callable[[str], None]
) -> str | None:
    """AstrBot reset a conversation (``/new``, ``/reset``, ``/del``): have remem store the
    session's summary memory. Returns its text, or None. Never raises: a remem that is down or
    refuses costs one warning, and the reset the user asked for stands."""
    try:
        return await backend.session_reset(who, agent)
    except Exception as exc:
        warn(f"remem: session summary skipped for this reset of {who.session}: {exc}")
        return None


class EmbeddedBackend:
    def __init__(
        self,
        db_path: Path,
        agent: str,
        config_file: str | None = None,
        session_summary: bool = True,
    ) -> None:
        from remem import Config, Memory

        config = Config.load(config_file or None)
        overrides: dict[str, Any] = {}
        if agent not in config.scopes.agents:  # an operator's own list for the agent wins
            overrides.update(scope_overrides(agent))
        if session_summary:  # the plugin's switch is remem's capture.session_summary here
            overrides["capture.session_summary"] = True
        if overrides:
            config = Config.load(config_file or None, overrides=overrides)
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self.mem = Memory(db_path, config)

    async def archive(self, record: dict[str, Any]) -> str:
        rec = await asyncio.to_thread(self.mem.ingest, record)
        return str(rec.id)

    async def recall(
        self, who: Identity, agent: str, input_id: str, query: str, current_ids: list[str]
    ) -> Recall:
        from remem import Turn

        turn = Turn(
            session=who.session,
            inputs=[input_id],
            agent=agent,
            user_id=who.user,
            platform=who.platform,
            group_id=who.group_id,
            current_ids=current_ids,
        )
        said = await asyncio.to_thread(self.mem.recall_for_turn, turn)
        known = await asyncio.to_thread(
            self.mem.recall_memories, query, agent=agent, session=who.session, user=who.user
        )
        return Recall(said.block or "", known.block or "")

    async def capture(
        self, who: Identity, agent: str, messages: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from remem import Turn

        turn = Turn(session=who.session, inputs=list(messages), agent=agent, user_id=who.user)
        result = await asyncio.to_thread(self.mem.capture_after_turn, turn)
        return dict(result.to_dict())

    async def session_reset(self, who: Identity, agent: str) -> str | None:
        outcome = await asyncio.to_thread(
            self.mem.session_reset, who.session, agent=agent, user=who.user
        )
        return outcome.record.text if outcome is not None and outcome.record else None

    async def call_tool(
        self, who: Identity, agent: str, name: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        tools = self.mem.tools(agent, session=who.session, user=who.user)
        return dict(await asyncio.to_thread(tools.call, name, arguments))

    def tool_specs(self) -> list[dict[str, Any]]:
        from remem.tools import tool_specs

        return tool_specs(self.mem.config)

    async def close(self) -> None:
        await asyncio.to_thread(self.mem.close)


class RemoteError(RuntimeError):
    """remem serve answered with an error: the message carries its status and detail."""


class RemoteBackend:
    """A `remem serve` elsewhere. The agent identity is the token's (remem's server.tokens);
    the session and user travel in each request."""

    def __init__(self, url: str, token: str | None, timeout_s: float = 10.0) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.AsyncClient(
            base_url=url.rstrip("/"), headers=headers, timeout=timeout_s
        )
        with httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout_s) as sync:
            self._specs: list[dict[str, Any]] = self._json(sync.get("/v1/tools"))

    @staticmethod
    def _json(response: Any) -> Any:
        if response.status_code >= 400:
            raise RemoteError(
                f"remem serve: {response.request.method} {response.request.url.path} answered "
                f"{response.status_code}: {response.text[:300]}"
            )
        return response.json()

    async def _post(self, path: str, body: Any) -> Any:
        return self._json(await self.client.post(path, json=body))

    async def archive(self, record: dict[str, Any]) -> str:
        # /v1/ingest knows no user, so a token may not write a message to a user: scope there;
        # the server files it under the token's agent scope. Memories (capture, tools) still go
        # to the user's scope: those endpoints take the user.
        record = {k: v for k, v in record.items() if k != "scope"}
        out = await self._post("/v1/ingest", record)
        return str(out["ingested"][0]["id"])

    async def recall(
        self, who: Identity, agent: str, input_id: str, query: str, current_ids: list[str]
    ) -> Recall:
        turn = {
            "session": who.session,
            "inputs": [input_id],
            "user_id": who.user,
            "platform": who.platform,
            "group_id": who.group_id,
            "current_ids": current_ids,
        }
        said = await self._post("/v1/recall-for-turn", turn)
        known = await self._post(
            "/v1/recall-memories", {"query": query, "session": who.session, "user": who.user}
        )
        return Recall(said.get("block") or "", known.get("block") or "")

    async def capture(
        self, who: Identity, agent: str, messages: list[dict[str, Any]]
    ) -> dict[str, Any]:
        # the messages themselves, not their ids: the endpoint checks that a token may read
        # the ids it names without the body's session, so it refuses messages /v1/ingest just
        # filed under that session's scope
        body = {"messages": messages, "session": who.session, "user": who.user}
        return dict(await self._post("/v1/capture-after-turn", body))

    async def session_reset(self, who: Identity, agent: str) -> str | None:
        # the server's capture.session_summary decides whether a summary is stored
        path = f"/v1/sessions/{quote(who.session, safe='')}/reset"
        out = await self._post(path, {"user": who.user} if who.user else {})
        summary = out.get("summary")
        return str(summary["text"]) if summary else None

    async def call_tool(
        self, who: Identity, agent: str, name: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        body = {"arguments": arguments, "session": who.session, "user": who.user}
        return dict(await self._post(f"/v1/tools/{name}", body))

    def tool_specs(self) -> list[dict[str, Any]]:
        return self._specs

    async def close(self) -> None:
        await self.client.aclose()
