"""One summary memory of a session when it is reset (``capture.session_summary``, off by
default): extractive without an LLM (the sentences that carry decisions, facts and preferences
first, then the longest, in the order they were said), abstractive with one. Secrets never enter
a summary."""

from __future__ import annotations

import time
from datetime import datetime

from remem.access import resolve
from remem.capture.candidates import sentences
from remem.capture.capture import CaptureParts
from remem.capture.llm import SUMMARY_PROMPT, transcript
from remem.memories import StoreOutcome
from remem.net import ChatClient, LLMError
from remem.store.queries import RecordPage
from remem.text.assertion import not_a_statement
from remem.text.clean import strip_wrappers
from remem.text.noise import is_noise
from remem.text.secrets import contains_secret
from remem.text.triggers import admit, is_memory_instruction
from remem.types import Filters

MAX_SENTENCES = 5


def extractive(messages: list[dict]) -> str:
    scored = []
    for order, m in enumerate(messages):
        for s in sentences(strip_wrappers(m["text"])):
            if contains_secret(s) or is_noise(s) or is_memory_instruction(s) or len(s) < 6:
                continue
            # a question or a hedge may give a summary its context, never a fact's weight
            admission = admit(s) if not_a_statement(s) is None else None
            weight = (admission.importance + 1) if admission else 0.0
            scored.append((weight, min(len(s), 200) / 200, order, s))
    best = sorted(scored, key=lambda t: (-t[0], -t[1], t[2]))[:MAX_SENTENCES]
    best.sort(key=lambda t: t[2])
    return " / ".join(t[3] for t in best)


def summarize_session(
    parts: CaptureParts,
    session: str,
    *,
    agent: str,
    user: str | None = None,
    now: float | None = None,
) -> StoreOutcome | None:
    """Store a summary memory of the session's last messages; None when there is nothing to
    summarise or summaries are off."""
    cfg = parts.config.capture
    access = resolve(parts.config, agent, session=session, user=user)
    if not cfg.session_summary:
        return None
    now = time.time() if now is None else now
    records = parts.store.list_records(
        RecordPage(
            Filters(kinds=["message"], sessions=[session], roles=["user", "assistant"]),
            limit=cfg.summary_messages,
        ),
    )
    records.reverse()  # oldest first
    messages = [{"id": r.id, "role": r.role, "text": r.shown_text} for r in records]
    if not messages:
        return None
    text, how = "", "extractive"
    if parts.config.llm.base_url and parts.config.llm.model:
        try:
            client = ChatClient(parts.config.llm)
            try:
                text = client.complete(SUMMARY_PROMPT, transcript(messages)).strip()
            finally:
                client.close()
            how = "llm"
            if contains_secret(text):
                text, how = "", "extractive"
        except LLMError:
            text = ""
    if not text:
        text = extractive(messages)
    if not text:
        return None
    last = datetime.fromtimestamp(records[-1].created_at, parts.config.calendar.zone())
    day = last.strftime("%Y-%m-%d")
    prefix = f"Summary of session {session} ({day}): "
    return parts.memories.remember(
        access,
        prefix + text,
        scope=access.write_scope,
        category="other",
        importance=0.6,
        role=None,
        speaker_id=None,
        source_ids=[r.id for r in records],
        metadata={"kind": "session-summary", "session": session, "summarised_by": how},
        now=now,
        # a summary quotes the session's facts, so it reads close to a fact captured from it:
        # only an equal summary is its duplicate, never the fact (which vector dedup found once
        # the fact was embedded, and the reset then stored nothing)
        similar=False,
    )
