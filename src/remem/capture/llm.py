"""Optional extraction by an LLM through any OpenAI-compatible chat endpoint (``llm.*``).

Off by default and never required: without an endpoint, or when the call fails, capture uses
the rule-based extractor and says so. The model proposes memories; remem still refuses secrets
and instructions about memory, clamps importance, and checks categories itself.
"""

from __future__ import annotations

from remem.net import LLMError, json_answer
from remem.text.triggers import CATEGORIES

SYSTEM_PROMPT = """You extract long-term memories from a chat turn.
Return JSON: {"memories": [{"text": str, "category": "preference"|"fact"|"decision"|"entity"|"other",
"importance": number 0-1, "subject": str or null, "speaker": "user"|"assistant"}]}.
Rules: only durable facts, preferences, decisions and named entities worth knowing in a later
conversation; one short self-contained sentence each, in the language it was said; never
secrets (passwords, keys, tokens); never instructions about memory itself; nothing the
assistant said may be attributed to the user; "subject" names what a later statement would
replace (e.g. "location", "employer", "favourite:food"), else null. At most 3 memories.
Return {"memories": []} when nothing qualifies."""

SUMMARY_PROMPT = """Summarise this conversation in at most 5 short sentences for long-term
memory: decisions, facts and open items; same language as the conversation; no secrets.
Return only the summary text."""


def parse_memories(content: str) -> list[dict]:
    """The model's proposals, validated; raises LLMError when the answer is not the format."""
    data = json_answer(content, "memories")
    items = data["memories"] if isinstance(data, dict) and "memories" in data else data
    if not isinstance(items, list):
        raise LLMError(f"the model did not answer with memories JSON: {content[:120]!r}")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        category = item.get("category") if item.get("category") in CATEGORIES else "other"
        try:
            importance = min(1.0, max(0.0, float(item.get("importance", 0.6))))
        except (TypeError, ValueError):
            importance = 0.6
        subject = item.get("subject") if isinstance(item.get("subject"), str) else None
        speaker = "assistant" if item.get("speaker") == "assistant" else "user"
        out.append(
            {
                "text": item["text"].strip(),
                "category": category,
                "importance": importance,
                "subject": subject or None,
                "role": speaker,
            }
        )
    return [o for o in out if o["text"]]


def transcript(messages: list[dict]) -> str:
    return "\n".join(f"{m.get('role') or 'user'}: {m.get('text', '')}" for m in messages)
