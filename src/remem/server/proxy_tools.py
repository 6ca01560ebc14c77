"""The proxy's tool handling (``server.proxy_tools``): the model gets remem's memory tools.

The proxy adds the tools agents are offered (``remem.tools.offered``: with
``scopes.management_tools = false`` only recall, facts, store, update and
conversation_recall) to the
forwarded request, beside the client's own tools (a client tool of the same name wins). When
the model's answer calls only remem tools, the proxy runs them as the request's agent, in its
session and for its user, appends the calls and their results to the conversation and asks the
upstream again, at most ``server.proxy_tool_rounds`` times; the client only ever sees the
final answer. An answer that calls any of the client's own tools goes back to the client as it
came. A failing call becomes a tool result that says what failed, for the model to handle.

Streams: events without tool calls are relayed as they arrive; the events of a tool call are
held back until the stream ends, then either run (and the next round's stream follows in the
same response) or relayed unchanged.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from remem.errors import RememError
from remem.tools import TOOLS, offered

if TYPE_CHECKING:
    from remem.engine import Memory

log = logging.getLogger("remem.proxy")

Who = tuple[str, str | None, str]  # agent, user, session


def client_names(client_tools: Any) -> set[str]:
    """The names of the functions the client itself defined."""
    if not isinstance(client_tools, list):
        return set()
    functions = [t.get("function") for t in client_tools if isinstance(t, dict)]
    return {f["name"] for f in functions if isinstance(f, dict) and isinstance(f.get("name"), str)}


def definitions(config: Any, client_tools: Any) -> list[dict[str, Any]]:
    """The request's tools: the client's, then remem's offered tools it does not define."""
    own = list(client_tools) if isinstance(client_tools, list) else []
    taken = client_names(client_tools)
    ours = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOLS[name][1],
                "parameters": TOOLS[name][0].model_json_schema(),
            },
        }
        for name in offered(config)
        if name not in taken
    ]
    return [*own, *ours]


def ours_only(config: Any, client_tools: Any, calls: list[dict[str, Any]]) -> bool:
    """True when there are calls and every one names a remem tool this request offered."""
    names = set(offered(config)) - client_names(client_tools)
    return bool(calls) and all((c.get("function") or {}).get("name") in names for c in calls)


def run_calls(mem: Memory, who: Who, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run remem tool calls; one ``tool`` message per call, in order."""
    agent, user, session = who
    tools = mem.tools(agent, session=session, user=user)
    results = []
    for call in calls:
        function = call.get("function") or {}
        try:
            arguments = json.loads(function.get("arguments") or "{}")
            content = json.dumps(tools.call(function.get("name"), arguments), ensure_ascii=False)
        except (ValueError, RememError) as exc:  # the model gets the sentence, not a crash
            content = json.dumps({"error": str(exc)}, ensure_ascii=False)
        except Exception:
            log.exception("proxy tool call %s failed", function.get("name"))
            content = json.dumps({"error": f"{function.get('name')} failed inside remem"})
        results.append({"role": "tool", "tool_call_id": call.get("id"), "content": content})
    return results


@dataclass
class StreamedCalls:
    """The tool calls of one streamed answer, put together from their deltas, and the events
    held back while they came."""

    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)

    def take(self, event: str) -> bool:
        """Hold ``event`` back if it belongs to a tool call (or ends the stream); False when it
        should be relayed now."""
        data = event.strip()[5:].strip() if event.strip().startswith("data:") else None
        if data == "[DONE]":
            self.held.append(event)
            return True
        try:
            choice = json.loads(data)["choices"][0] if data else None
        except (ValueError, KeyError, IndexError, TypeError):
            choice = None
        if not isinstance(choice, dict):
            return False
        delta = choice.get("delta") or {}
        if not delta.get("tool_calls") and choice.get("finish_reason") != "tool_calls":
            return False
        for part in delta.get("tool_calls") or []:
            call = self.calls.setdefault(
                part.get("index", 0), {"id": None, "type": "function", "function": {}}
            )
            call["id"] = part.get("id") or call["id"]
            function = part.get("function") or {}
            if function.get("name"):
                call["function"]["name"] = function["name"]
            call["function"]["arguments"] = call["function"].get("arguments", "") + (
                function.get("arguments") or ""
            )
        self.held.append(event)
        return True

    def assistant_message(self) -> dict[str, Any]:
        calls = [self.calls[i] for i in sorted(self.calls)]
        return {"role": "assistant", "content": None, "tool_calls": calls}
