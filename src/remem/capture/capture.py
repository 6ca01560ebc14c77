"""Auto-capture after each LLM response: the turn's messages -> at most
``capture.max_per_turn`` new memories, each deduplicated, scoped and linked to its sources.

Candidates come from the user's messages (and the assistant's when ``capture.include_assistant``
is on), after host metadata and injected memory blocks are stripped. Rules decide admission
(``remem.capture.candidates``); with ``capture.llm`` on and ``llm.*`` configured, an LLM
proposes the memories instead, and a failing LLM falls back to the rules with a warning.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from remem.access import resolve
from remem.capture.candidates import MemoryCandidate, Rejected, candidates_from
from remem.capture.llm import SYSTEM_PROMPT, parse_memories, transcript
from remem.config import Config
from remem.errors import ValidationError
from remem.memories import CuratedMemories
from remem.memories.subjects import user_scope
from remem.net import ChatClient, LLMError
from remem.schemas import check_encodable
from remem.store.base import Store
from remem.text.assertion import not_a_statement
from remem.text.clean import strip_wrappers
from remem.text.secrets import contains_secret
from remem.text.triggers import is_memory_instruction
from remem.types import Record, Turn

log = logging.getLogger("remem.capture")


@dataclass(frozen=True)
class CaptureParts:
    """What capture works with (built once by ``Memory``): the configuration, the store (the
    archived messages a turn names) and the owner of curated memories, which stores them."""

    config: Config
    store: Store
    memories: CuratedMemories


@dataclass
class CaptureResult:
    stored: list[Record] = field(default_factory=list)
    duplicates: list[dict] = field(default_factory=list)  # {"text", "existing_id", "how"}
    superseded: list[str] = field(default_factory=list)  # ids closed by a newer memory
    rejected: list[Rejected] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor: str = "rules"
    skipped_reason: str | None = None

    def to_dict(self) -> dict:
        return {
            "stored": [r.to_dict() for r in self.stored],
            "duplicates": self.duplicates,
            "superseded": self.superseded,
            "rejected": [{"text": r.text, "reason": r.reason} for r in self.rejected],
            "warnings": self.warnings,
            "extractor": self.extractor,
            "skipped_reason": self.skipped_reason,
        }


def _messages(parts: CaptureParts, turn: Turn) -> list[dict]:
    out = []
    for m in turn.inputs:
        if isinstance(m, str):
            rec = parts.store.get(check_encodable("id", m))
            if rec is None:
                raise ValidationError(
                    "messages", m, "give ids of archived messages, or dicts with text and role"
                )
            out.append(
                {
                    "id": rec.id,
                    "role": rec.role or "user",
                    "text": rec.shown_text,
                    "speaker_id": rec.speaker_id,
                }
            )
        elif isinstance(m, dict) and isinstance(m.get("text"), str):
            out.append(m)
        else:
            raise ValidationError("messages", m, "each message is an id or a dict with 'text'")
    return out


def _llm_candidates(
    parts: CaptureParts, messages: list[dict], result: CaptureResult
) -> list[MemoryCandidate] | None:
    cfg = parts.config
    cleaned = [
        {**m, "text": strip_wrappers(m["text"])}
        for m in messages
        if (m.get("role") or "user") in ("user", "assistant")
        and (m.get("role") != "assistant" or cfg.capture.include_assistant)
    ]
    try:
        client = ChatClient(cfg.llm)
        try:
            proposals = parse_memories(
                client.complete(SYSTEM_PROMPT, transcript(cleaned), json_mode=True)
            )
        finally:
            client.close()
    except LLMError as exc:
        message = f"LLM extraction failed ({exc}); used the rule-based extractor"
        result.warnings.append(message)
        log.warning(message)
        return None
    result.extractor = "llm"
    by_role = {m.get("role") or "user": m for m in cleaned}
    out = []
    for p in proposals:
        if contains_secret(p["text"]) or is_memory_instruction(p["text"]):
            result.rejected.append(Rejected(p["text"], "secret or memory instruction (LLM)"))
            continue
        why = not_a_statement(p["text"])
        if why is not None:  # a proposed question must not replace the fact it asks about
            result.rejected.append(Rejected(p["text"], f"{why} (LLM)"))
            continue
        if p["role"] == "assistant" and not cfg.capture.include_assistant:
            result.rejected.append(Rejected(p["text"], "said by the assistant"))
            continue
        src = by_role.get(p["role"], {})
        out.append(
            MemoryCandidate(
                text=p["text"],
                category=p["category"],
                importance=p["importance"],
                role=p["role"],
                source_id=src.get("id"),
                speaker_id=src.get("speaker_id"),
                subject=p["subject"],
            )
        )
    return out


def capture_after_turn(parts: CaptureParts, turn: Turn) -> CaptureResult:
    cfg = parts.config.capture
    access = resolve(parts.config, turn.agent, session=turn.session, user=turn.user_id)
    result = CaptureResult()
    if not cfg.enabled:
        result.skipped_reason = "capture.enabled is off"
        return result
    if cfg.max_per_turn == 0:
        result.skipped_reason = "capture.max_per_turn is 0"
        return result
    now = time.time() if turn.now is None else turn.now
    messages = _messages(parts, turn)
    candidates = None
    if cfg.llm and parts.config.llm.base_url:
        candidates = _llm_candidates(parts, messages, result)
    if candidates is None:
        candidates, rejected = candidates_from(messages, cfg)
        result.rejected.extend(rejected)
    # the most important first; ties keep the order they were said in
    candidates.sort(key=lambda c: -c.importance)
    for cand in candidates:
        if len(result.stored) >= cfg.max_per_turn:
            result.rejected.append(
                Rejected(cand.text, f"over capture.max_per_turn ({cfg.max_per_turn})")
            )
            continue
        speaker = cand.speaker_id or (turn.user_id if cand.role == "user" else turn.agent)
        outcome = parts.memories.remember(
            access,
            cand.text,
            scope=user_scope(access, cand.text, cand.role, speaker),
            category=cand.category,
            importance=cand.importance,
            role=cand.role,
            speaker_id=speaker,
            source_ids=[cand.source_id] if cand.source_id else [],
            subject=cand.subject,
            metadata={
                "captured_by": result.extractor,
                "session": turn.session,
                "agent": turn.agent,
                **({"explicit": True} if cand.explicit else {}),
            },
            now=now,
        )
        result.warnings.extend(outcome.warnings)
        if outcome.record is None:
            assert outcome.duplicate_of is not None
            result.duplicates.append(
                {
                    "text": cand.text,
                    "existing_id": outcome.duplicate_of.id,
                    "how": outcome.duplicate_how,
                }
            )
            continue
        result.stored.append(outcome.record)
        result.superseded.extend(r.id for r in outcome.superseded)
    return result
