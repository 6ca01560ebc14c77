"""From a turn's messages to candidate memories: cleaned, split into sentences, admitted.

Every rejection says why (the capture result reports it), so "why wasn't this remembered?"
has an answer just like "why was this recalled?".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remem.config import CaptureConfig
from remem.text.assertion import not_a_statement
from remem.text.clean import strip_wrappers
from remem.text.lazy_re import lazy_compile
from remem.text.noise import is_noise
from remem.text.secrets import contains_secret
from remem.text.statements import is_question
from remem.text.triggers import (
    Admission,
    admit,
    has_memory_cue,
    is_frustration,
    is_memory_instruction,
)

# Sentence ends: English punctuation followed by a space, CJK punctuation, line breaks.
_SPLIT = lazy_compile(
    r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[\u3400-\u9fff])|(?<=[!?])\s*(?=[a-z\u3400-\u9fff])|"
    r"(?<=[。！？；])|\n+|"
    # a trailing "…，你呢？" / ", and you?" is a question of its own: "我最喜欢芒果，你呢？"
    r"[，,]\s*(?=(?:(?:你|您|你们)(?:觉得)?呢|(?i:and|what about|how about) you)[?？!！。.]*\s*$)"
)
# "… last month. any tips …": a period before a lower-case word ends a sentence too, unless it
# closes an abbreviation ("e.g. mangoes", "Dr. who") or sits inside a number or a name ("3.5").
_LOWER_START = lazy_compile(r"(?<=\.)\s+(?=[a-z])")
_ABBREVIATION = lazy_compile(
    r"(\b[a-z]|\be\.g|\bi\.e|\betc|\bvs|\bmr|\bmrs|\bms|\bdr|\bst|\bno|"
    r"\bapprox|\bca|\bcf|\bjr|\bsr)\.$",
    re.I,
)


@dataclass(frozen=True)
class _Opener:
    """Words a sentence may open with that a memory does not keep, in English (any case) and
    in Chinese; both are cut, the English first."""

    english: re.Pattern[str]
    chinese: re.Pattern[str]

    def cut(self, text: str) -> str:
        return self.chinese.sub("", self.english.sub("", text))


_LEAD = _Opener(
    lazy_compile(r"^(and|also|oh|btw|by the way|so|but|well|ok|okay|and also)[,\s]+", re.I),
    lazy_compile(r"^(还有|另外|对了|顺便说一下|而且|然后)[，,\s]*"),
)
# "Please remember that ..." / "记住：..." : the request is not part of the memory.
_REMEMBER = _Opener(
    lazy_compile(
        r"^((can|could|would|will) you )?(please |pls )?(remember|note|don'?t forget|"
        r"keep in mind)( that| this)?\s*[:,]?\s*",
        re.I,
    ),
    lazy_compile(r"^(请|帮我)?(记住|记一下|记下来|别忘了|不要忘了|请记得|要记得)[：:，,\s]*"),
)
# "Could you remember that I'm vegan?": the request's question mark is not the memory's
_REQUEST = lazy_compile(r"^(can|could|would|will) you ", re.I)


@dataclass
class MemoryCandidate:
    text: str
    category: str
    importance: float
    role: str  # who said it: "user" or "assistant"
    source_id: str | None
    speaker_id: str | None
    explicit: bool = False
    subject: str | None = None


@dataclass
class Rejected:
    text: str
    reason: str


def _split_lower(part: str) -> list[str]:
    pieces, start = [], 0
    for m in _LOWER_START.finditer(part):
        if not _ABBREVIATION.search(part[start : m.start()]):
            pieces.append(part[start : m.start()])
            start = m.end()
    return [*pieces, part[start:]]


def sentences(text: str) -> list[str]:
    parts = [p for p in _SPLIT.split(text) if isinstance(p, str) and p.strip()]
    out = []
    for part in parts:
        for p in _split_lower(part.strip()):
            p = _LEAD.cut(p.strip()).strip()
            if p:
                out.append(p)
    return out


def never_a_memory(text: str) -> str | None:
    """Why ``text`` can never be a curated memory, whoever writes it (None: it may be one).

    The rules every write path that creates a memory for an agent applies (auto-capture per
    sentence; the ``memory_store`` tool, ``POST /v1/memories`` and ``remem memory store`` to
    the whole text): a secret, an instruction about memory, a greeting / acknowledgement /
    refusal / heartbeat or an assistant's "I have no information", and meta-talk: a question
    about what is remembered ("Do you remember what I said..."). The operator's explicit
    ``remem add`` / ``Memory.add`` stores what it is given."""
    if contains_secret(text):
        return "looks like a secret (key, password, token)"
    if is_memory_instruction(text):
        return "an instruction about memory itself"
    if is_noise(text):
        return "greeting, acknowledgement, refusal or heartbeat"
    if is_question(text) and has_memory_cue(text):
        return "a question about memory itself, not a fact"
    return None


def judge(sentence: str, cfg: CaptureConfig) -> tuple[Admission | None, str | None]:
    """(admission, None) when the sentence may become a memory, else (None, why not)."""
    never = never_a_memory(sentence)
    if never is not None:
        return None, never
    if is_frustration(sentence):
        return None, "frustration or a complaint"
    why = not_a_statement(sentence)
    if why is not None:
        return None, why
    if len(sentence) < cfg.min_chars:
        return None, f"shorter than {cfg.min_chars} characters"
    if len(sentence) > cfg.max_chars:
        return None, f"longer than {cfg.max_chars} characters"
    admission = admit(sentence)
    if admission is None:
        return None, "no trigger (preference, fact, decision, entity, 'remember')"
    return admission, None


def candidates_from(
    messages: list[dict], cfg: CaptureConfig
) -> tuple[list[MemoryCandidate], list[Rejected]]:
    """``messages``: dicts with ``text``, ``role`` and optional ``id`` and ``speaker_id``."""
    found: list[MemoryCandidate] = []
    rejected: list[Rejected] = []
    for m in messages:
        role = m.get("role") or "user"
        if role not in ("user", "assistant"):
            continue
        if role == "assistant" and not cfg.include_assistant:
            continue
        # judged one sentence at a time: "删除记忆。我住在北京。" drops the instruction and keeps
        # the statement ("forget that I live in Paris" is one sentence and goes whole)
        for sentence in sentences(strip_wrappers(m.get("text") or "")):
            admission, why = judge(sentence, cfg)
            if admission is None:
                rejected.append(Rejected(sentence, why or "rejected"))
                continue
            text = _REMEMBER.cut(sentence).strip() or sentence
            if _REQUEST.match(sentence) and text != sentence:
                text = text.rstrip("?？ ")
            found.append(
                MemoryCandidate(
                    text=text,
                    category=admission.category,
                    importance=admission.importance,
                    role=role,
                    source_id=m.get("id"),
                    speaker_id=m.get("speaker_id"),
                    explicit=admission.explicit,
                )
            )
    return found, rejected
