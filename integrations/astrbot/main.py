"""remem for AstrBot: long-term memory recalled before each LLM request and kept after it.

Per event (see README.md):
- ``on_llm_request``: archive the user's message, recall for it (the archived chat and the
  curated memories), and add what was found to the request as a system part of its own, in
  remem's ``<remem-memory type="untrusted-data">`` / ``<relevant-memories>`` wrappers, after
  the persona's prompt; the user's own words are left as they were.
- ``on_llm_response``: archive the bot's reply and capture the turn's durable facts.
- ``after_message_sent`` of a conversation reset (AstrBot's ``/new``, ``/reset``, ``/del``):
  remem stores the session's summary memory (``session_summary``).
- the memory tools (``memory_recall``, ``memory_store``, ``memory_forget``,
  ``conversation_recall``...) through AstrBot's tool API, bound to the event's user and session.
- ``/mem`` commands: ``list``, ``search <words>``, ``forget <id>``, ``stats``.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

from astrbot.api import AstrBotConfig, logger
from astrbot.api.event import AstrMessageEvent, filter
from astrbot.api.provider import LLMResponse, ProviderRequest
from astrbot.api.star import Context, Star
from astrbot.core.agent.tool import FunctionTool
from astrbot.core.utils.astrbot_path import get_astrbot_data_path
from pydantic.dataclasses import dataclass

from .backend import Backend, EmbeddedBackend, RemoteBackend, summarize_on_reset
from .identity import Identity, identity_of

PLUGIN = "astrbot_plugin_remem"
_INPUT_KEY = "remem_input"  # the event's archived message, for capture (event extras)
_RECENT = 200  # archived (id, text) pairs kept per session to spot what the prompt holds
# What AstrBot's own /new, /reset and /del set on their event: the conversation was reset (its
# built-in long-term memory clears the session on it, after the answer is sent).
_RESET_FLAG = "_clean_ltm_session"


def _setting(config: Any, key: str, default: Any) -> Any:
    value = config.get(key, default) if config is not None else default
    return default if value in (None, "") else value


def open_backend(config: Any) -> Backend:
    """The backend the plugin's settings name (``mode``: ``embedded`` or ``remote``)."""
    mode = _setting(config, "mode", "embedded")
    agent = _setting(config, "agent_id", "astrbot")
    if mode == "remote":
        url = _setting(config, "remote_url", "")
        if not url:
            raise ValueError("remote_url is empty: set it to remem serve's address (mode remote)")
        return RemoteBackend(url, _setting(config, "remote_token", None))
    if mode != "embedded":
        raise ValueError(f"mode {mode!r} is not known: use 'embedded' or 'remote'")
    default_db = Path(get_astrbot_data_path()) / "plugin_data" / PLUGIN / "remem.db"
    db_path = Path(_setting(config, "db_path", str(default_db)))
    summary = bool(_setting(config, "session_summary", True))
    return EmbeddedBackend(db_path, agent, _setting(config, "config_file", None), summary)


class RememPlugin(Star):
    """Registered by subclassing Star; its name and version come from metadata.yaml."""

    def __init__(self, context: Context, config: AstrBotConfig | None = None) -> None:
        super().__init__(context)
        self.config = config
        self.agent: str = _setting(config, "agent_id", "astrbot")
        self.bot_name: str = _setting(config, "bot_name", "AstrBot")
        self.backend = open_backend(config)
        self.recent: dict[str, deque[tuple[str, str]]] = {}
        if _setting(config, "tools", True):
            tools = self._tools()
            context.add_llm_tools(*tools)
            for tool in tools:  # the key AstrBot's plugin filters look the owner up by
                tool.handler_module_path = __name__

    # ------------------------------------------------------------------ events
    @filter.on_llm_request()
    async def recall_before_request(self, event: AstrMessageEvent, req: ProviderRequest) -> None:
        who = identity_of(event)
        text = event.message_str or req.prompt or ""
        if not text.strip():
            return
        input_id = await self._archive(who, "user", text)
        said = {"id": input_id, "role": "user", "text": text, "speaker_id": who.user}
        event.set_extra(_INPUT_KEY, {k: v for k, v in said.items() if v is not None})
        if not _setting(self.config, "recall", True):
            return
        current = self._in_prompt(who.session, req.contexts, exclude=input_id)
        found = await self.backend.recall(who, self.agent, input_id, text, current)
        if found.text:
            # A system part of its own, after the persona's prompt and kept apart from it.
            # Not req.extra_user_content_parts: AstrBot saves those into the conversation's
            # history with the user's message, so each block would come back in every later
            # request (and as extra system messages in req.contexts, which it saves too).
            req.system_prompt = "\n\n".join(p for p in (req.system_prompt, found.text) if p)

    @filter.on_llm_response()
    async def keep_after_response(self, event: AstrMessageEvent, resp: LLMResponse) -> None:
        who = identity_of(event)
        said = event.get_extra(_INPUT_KEY)
        reply = (resp.completion_text or "").strip()
        turn = [said] if said else []
        if reply:
            reply_id = await self._archive(who, "assistant", reply)
            turn.append({"id": reply_id, "role": "assistant", "text": reply})
        if turn and _setting(self.config, "capture", True):
            outcome = await self.backend.capture(who, self.agent, turn)
            stored = outcome.get("stored", [])
            if stored:
                logger.debug(f"remem: captured {len(stored)} memories in {who.session}")

    @filter.after_message_sent()
    async def summarize_after_reset(self, event: AstrMessageEvent) -> None:
        if not event.get_extra(_RESET_FLAG, False):
            return
        if not _setting(self.config, "session_summary", True):
            return
        who = identity_of(event)
        summary = await summarize_on_reset(self.backend, who, self.agent, logger.warning)
        if summary:
            logger.info(f"remem: {who.session} reset; its summary is saved to memory")

    # ------------------------------------------------------------------ /mem commands
    @filter.command_group("mem")
    def mem(self) -> None:
        """remem's memory: /mem list | search <words> | forget <id> | stats"""

    @mem.command("list")
    async def mem_list(self, event: AstrMessageEvent):
        yield event.plain_result(await self._command(event, "memory_list", {"limit": 10}))

    @mem.command("stats")
    async def mem_stats(self, event: AstrMessageEvent):
        yield event.plain_result(await self._command(event, "memory_stats", {}))

    @mem.command("search")
    async def mem_search(self, event: AstrMessageEvent):
        words = _rest_after(event.message_str, "search")
        if not words:
            yield event.plain_result("usage: /mem search <words>")
            return
        yield event.plain_result(await self._command(event, "memory_recall", {"query": words}))

    @mem.command("forget")
    async def mem_forget(self, event: AstrMessageEvent):
        memory_id = _rest_after(event.message_str, "forget")
        if not memory_id:
            yield event.plain_result("usage: /mem forget <memory id> (ids: /mem list)")
            return
        args = {"memory_id": memory_id}
        yield event.plain_result(await self._command(event, "memory_forget", args))

    async def _command(self, event: AstrMessageEvent, name: str, args: dict[str, Any]) -> str:
        try:
            out = await self.backend.call_tool(identity_of(event), self.agent, name, args)
        except Exception as exc:  # a refusal (bad id, scope) is an answer for the user
            return f"remem: {exc}"
        return json.dumps(out, ensure_ascii=False, indent=1, default=str)

    # ------------------------------------------------------------------ tools
    def _tools(self) -> list[FunctionTool]:
        return [
            RememTool(
                name=spec["name"],
                description=spec["description"],
                parameters=spec["input_schema"],
                plugin=self,
            )
            for spec in self.backend.tool_specs()
        ]

    # ------------------------------------------------------------------ helpers
    async def _archive(self, who: Identity, role: str, text: str) -> str:
        record: dict[str, Any] = {
            "session": who.session,
            "role": role,
            "text": text,
            "scope": who.scope,
            # no "source": remem stores a message with one as an internal injection, unindexed
            "metadata": {"host": "astrbot"},
        }
        if who.platform:
            record["platform"] = who.platform
        if who.group_id:
            record["group_id"] = who.group_id
        if role == "user":
            if who.user:
                record["speaker_id"] = who.user
            if who.speaker_label:
                record["speaker"] = who.speaker_label
        else:
            record["speaker"] = self.bot_name
        record_id = await self.backend.archive(record)
        self.recent.setdefault(who.session, deque(maxlen=_RECENT)).append((record_id, text))
        return record_id

    def _in_prompt(self, session: str, contexts: list[Any], exclude: str) -> list[str]:
        """Ids of archived messages the request already carries as history: recall must not
        repeat them. AstrBot keeps history as OpenAI-style dicts, without remem's ids, so they
        are matched by text."""
        said = {_content_text(c) for c in contexts or [] if isinstance(c, dict)}
        return [
            rid for rid, text in self.recent.get(session, ()) if rid != exclude and text in said
        ]

    async def terminate(self) -> None:
        await self.backend.close()


@dataclass
class RememTool(FunctionTool):
    """One remem tool in AstrBot's tool API: AstrBot runs ``call`` with the context of the
    event that asked, whose user and session bind the tool (remem's scopes)."""

    plugin: Any = None

    async def call(self, context: Any, **arguments: Any) -> str:
        event = context.context.event
        return await self.plugin._command(event, self.name, arguments)


def _content_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # multimodal parts: the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, dict)).strip()
    return str(content or "").strip()


def _rest_after(message: str, word: str) -> str:
    """What follows ``word`` in a command message ("mem search hiking trips" -> "hiking trips")."""
    _, found, tail = (message or "").partition(word)
    return tail.strip() if found else ""
