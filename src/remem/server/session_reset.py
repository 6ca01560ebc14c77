"""A session reset on the HTTP surfaces: ``POST /v1/sessions/{id}/reset`` and the proxy's
``/new`` (or ``/reset``) message, the command chat hosts such as OpenClaw use to start over.

Either stores the session summary the Python API offers (``Memory.session_reset``, on with
``capture.session_summary``); the proxy then answers a short confirmation in the chat
completions shape itself, without calling the upstream: there is no question to answer, and
the command must not be archived or captured as if it were one.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse, Response, StreamingResponse

if TYPE_CHECKING:
    from remem.engine import Memory

RESET_COMMANDS = ("/new", "/reset")


def is_reset(text: str) -> bool:
    """Whether a user message is a reset command (alone on its line: `/new`, `/reset`)."""
    return text.strip().lower() in RESET_COMMANDS


def reset_answer(mem: Memory, session: str, outcome: Any) -> dict[str, Any]:
    """What a session reset did, for a client: the summary memory, or why there is none."""
    reason = None
    if outcome is None:
        reason = (
            "capture.session_summary is off"
            if not mem.config.capture.session_summary
            else "nothing to summarise in the session"
        )
    elif outcome.record is None:
        reason = "an equal summary is already stored"
    return {
        "session": session,
        "summary": outcome.record.to_dict() if outcome and outcome.record else None,
        "duplicate_of": outcome.duplicate_of.id if outcome and outcome.duplicate_of else None,
        "skipped_reason": reason,
    }


def confirmation(answer: dict[str, Any]) -> str:
    """The assistant's words for a reset in the proxy."""
    if answer["summary"] is not None:
        return f"Session {answer['session']} reset; its summary is saved to memory."
    return f"Session {answer['session']} reset; no summary saved ({answer['skipped_reason']})."


def chat_answer(text: str, model: Any, *, stream: bool) -> Response:
    """``text`` as an OpenAI chat completion (a ``chat.completion`` or its SSE stream)."""
    ident, created = f"chatcmpl-remem-{uuid.uuid4().hex[:16]}", int(time.time())
    model = model if isinstance(model, str) else "remem"
    if not stream:
        return JSONResponse(
            {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
        )
    base = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model}
    deltas = [
        ({"role": "assistant", "content": text}, None),
        ({}, "stop"),
    ]
    events = [
        "data: "
        + json.dumps({**base, "choices": [{"index": 0, "delta": d, "finish_reason": f}]})
        + "\n\n"
        for d, f in deltas
    ]
    return StreamingResponse(iter([*events, "data: [DONE]\n\n"]), media_type="text/event-stream")
