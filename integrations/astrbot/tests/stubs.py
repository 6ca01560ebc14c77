"""A stub chat platform and a stub LLM provider, registered through AstrBot's own registries
(``register_platform_adapter``, ``register_provider_adapter``) so AstrBot's platform and
provider managers load them from its configuration like any real adapter.

The platform turns ``say(...)`` into AstrBot events on the real event queue and keeps what the
bot sent back; the provider keeps every request the pipeline makes and answers from a script.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from astrbot.core.message.components import At, Plain
from astrbot.core.message.message_event_result import MessageChain
from astrbot.core.platform import (
    AstrBotMessage,
    AstrMessageEvent,
    Group,
    MessageMember,
    MessageType,
    Platform,
    PlatformMetadata,
)
from astrbot.core.platform.register import register_platform_adapter
from astrbot.core.provider.entities import LLMResponse
from astrbot.core.provider.provider import Provider
from astrbot.core.provider.register import register_provider_adapter

BOT_ID = "10000"
_ids = itertools.count(1)


class StubEvent(AstrMessageEvent):
    def __init__(self, *args: Any, outbox: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outbox = outbox

    async def send(self, message: MessageChain) -> None:
        self.outbox.append(message.get_plain_text())
        await super().send(message)


@register_platform_adapter("remem_stub_platform", "a platform driven by the tests")
class StubPlatform(Platform):
    def __init__(self, platform_config: dict, platform_settings: dict, event_queue: Any) -> None:
        super().__init__(platform_config, event_queue)
        self.metadata = PlatformMetadata(
            name="remem_stub_platform", description="tests", id=platform_config["id"]
        )
        self.outbox: list[str] = []

    def meta(self) -> PlatformMetadata:
        return self.metadata

    async def run(self) -> None:
        await asyncio.Event().wait()  # events come from say(); nothing to poll

    async def send_by_session(self, session: Any, message_chain: MessageChain) -> None:
        self.outbox.append(message_chain.get_plain_text())

    def say(self, text: str, *, group: str | None, user: str | None, name: str = "") -> None:
        """One message as the adapter would hand it in: in a group it @-mentions the bot (the
        wake-up AstrBot's WakingCheck stage wants); ``user`` None is a sender without an id."""
        msg = AstrBotMessage()
        msg.type = MessageType.GROUP_MESSAGE if group else MessageType.FRIEND_MESSAGE
        msg.self_id = BOT_ID
        msg.session_id = group or user or ""
        msg.message_id = f"m{next(_ids)}"
        msg.sender = MessageMember(user_id=user or "", nickname=name or None)
        if group:
            msg.group = Group(group_id=group)
        msg.message = [At(qq=BOT_ID), Plain(text)] if group else [Plain(text)]
        msg.message_str = text
        msg.raw_message = None
        msg.timestamp = 0
        event = StubEvent(text, msg, self.meta(), msg.session_id, outbox=self.outbox)
        self.commit_event(event)


@dataclass
class Script:
    """The stub model's answers, in order, and every request it was sent."""

    replies: list[str | dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)


SCRIPT = Script()


@register_provider_adapter("remem_stub_llm", "an LLM that answers from a script")
class StubProvider(Provider):
    def __init__(self, provider_config: dict, provider_settings: dict) -> None:
        super().__init__(provider_config, provider_settings)
        self.set_model("stub-model")

    def get_current_key(self) -> str:
        return "stub"

    def set_key(self, key: str) -> None:
        return None

    async def get_models(self) -> list[str]:
        return ["stub-model"]

    async def text_chat(self, prompt: str | None = None, **kwargs: Any) -> LLMResponse:
        tools = kwargs.get("func_tool")
        SCRIPT.requests.append(
            {
                "prompt": prompt,
                # copies: AstrBot keeps appending to the lists it passed
                "contexts": [_plain(m) for m in kwargs.get("contexts") or []],
                "system_prompt": kwargs.get("system_prompt"),
                "tools": [t.name for t in tools.tools] if tools else [],
                "tool_results": copy.deepcopy(kwargs.get("tool_calls_result")),
            }
        )
        reply = SCRIPT.replies.pop(0) if SCRIPT.replies else "OK."
        if isinstance(reply, dict):  # {"tool": name, "args": {...}}: the model calls a tool
            return LLMResponse(
                role="tool",
                tools_call_name=[reply["tool"]],
                tools_call_args=[reply["args"]],
                tools_call_ids=[f"call{next(_ids)}"],
            )
        return LLMResponse(role="assistant", completion_text=reply)


def _plain(message: Any) -> dict[str, Any]:
    """A request message as a plain dict with its text joined (Message objects or dicts)."""
    data = message.model_dump() if hasattr(message, "model_dump") else dict(message)
    content = data.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return {"role": data.get("role"), "content": content or ""}
