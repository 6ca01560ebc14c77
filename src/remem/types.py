"""The plain data types every layer shares: records, hits, explain traces."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypedDict

Kind = Literal["message", "memory"]
Role = Literal["user", "assistant", "notice", "tool", "system"]
IndexStatus = Literal["pending", "indexed", "failed"]

KINDS: tuple[str, ...] = ("message", "memory")
ROLES: tuple[str, ...] = ("user", "assistant", "notice", "tool", "system")
INDEX_STATUSES: tuple[str, ...] = ("pending", "indexed", "failed", "skipped")
# chat: somebody talking; media: media the bot sent; control: compaction separators, command
# replies; directive: instructions to the bot. Only chat messages become hits.
MESSAGE_KINDS: tuple[str, ...] = ("chat", "media", "control", "directive")


class SessionInfo(TypedDict):
    """Where a session belongs: its own origin platform and parent, and its effective
    platform (its root's origin platform)."""

    session: str
    origin_platform: str | None
    parent: str | None
    platform: str | None


@dataclass
class RecordShape:
    """The fields a record has both as a caller hands it in (``schemas.RecordIn``, which
    validates them) and as the store returns it (``Record``), in that order: written once here.
    Each of the two narrows what differs (an id is given or generated; a stored record has a
    creation time) and adds its own fields after these. The rest of a caller's fields
    (``source_ids``, ``metadata`` ... ``message_kind``) are declared by each of the two: a
    stored record keeps them between fields the store manages, in the order its JSON has."""

    __slots__ = ()  # Record's instances keep their slots (no __dict__)

    id: str | None
    kind: str
    text: str
    role: str | None = None
    scope: str = "global"
    session: str | None = None
    platform: str | None = None
    group_id: str | None = None
    group_name: str | None = None
    speaker_id: str | None = None
    speaker_label: str | None = None
    mentions: list[str] = field(default_factory=list)
    category: str | None = None
    importance: float = 0.5
    created_at: float | None = None
    event_time: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None


@dataclass(slots=True)
class Record(RecordShape):
    """One stored message or memory, as the store returns it."""

    id: str
    created_at: float = 0.0
    access_count: int = 0
    last_access: float | None = None
    source_ids: list[str] = field(default_factory=list)
    content_hash: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    index_status: str = "pending"
    index_error: str | None = None
    model_id: str | None = None
    visible_text: str | None = None  # what a person saw, when `text` is a structured envelope
    session_type: str | None = None  # "group", "private", "thread" ...
    session_label: str | None = None  # the session type's display label ("私聊", "DM" ...)
    message_kind: str = "chat"
    rowid: int | None = None

    @property
    def shown_text(self) -> str:
        """The text to embed, search and show: the visible content when there is one."""
        return self.visible_text or self.text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("rowid", None)
        return data

    def embed_text(self, with_speaker: bool) -> str:
        """The text handed to the embedding model.

        Messages carry their speaker's label ("Alice: I moved ..."): who said a line is part
        of what it means, and it lets "what did Alice say about ..." match.
        """
        if with_speaker and self.kind == "message" and self.speaker_label:
            # archived text that already starts with "Alice: " keeps one prefix, not two
            text = strip_speaker_prefix(self.shown_text, self.speaker_label)
            return f"{self.speaker_label}: {text}"
        return self.shown_text


def strip_speaker_prefix(text: str, speaker: str | None) -> str:
    """Drop a leading "Speaker: " (or "Speaker：") that repeats the recorded label; text that
    starts with a bracketed "[..]:" is someone's own formatting and is kept as is."""
    if not speaker or text.startswith("["):
        return text
    for sep in (": ", "：", ":"):
        prefix = f"{speaker}{sep}"
        if text.startswith(prefix) and text[len(prefix) :].strip():
            return text[len(prefix) :].lstrip()
    return text


@dataclass(slots=True)
class StoredMemory(Record):
    """What ``Memory.add`` returns: the curated memory as it now stands in the store.

    ``duplicate`` is None when the memory was written by this call; otherwise an equal memory
    was already current in the same scope, this is that one, nothing was written, and
    ``duplicate`` says how they matched (``"exact"`` or ``"normalised"``)."""

    duplicate: str | None = None

    @classmethod
    def of(cls, record: Record, duplicate: str | None = None) -> StoredMemory:
        values = {f.name: getattr(record, f.name) for f in fields(Record)}
        return cls(**values, duplicate=duplicate)


FACT_ORIGINS: tuple[str, ...] = ("rules", "llm", "manual")


@dataclass(slots=True)
class Fact:
    """One thing known about a subject, derived from what was said: "Tom lives in Shanghai,
    since 2026-12-01". Facts are derived data (``remem.facts`` reads them out of records and
    can rebuild them), kept by the store beside the records they cite.

    ``subject`` is a key: ``speaker:<speaker_id>`` for someone the store knows by id (a
    first-person statement's speaker, a user a memory was captured for), else
    ``name:<casefolded name>``; ``subject_name`` is how it is shown. ``attribute`` is a family
    from ``remem.facts.attributes`` ("lives_in", "works_at" ...). A fact holds from
    ``valid_from`` until ``valid_to`` (None: still true); ``closed_by`` is the record that
    ended it (a later value, a negation), ``source_ids`` the records that state it (the first
    asserted it). ``origin`` says who derived it: "rules" (remem's extractor), "llm" (the
    optional LLM extractor) or "manual" (a hand correction, which wins)."""

    id: str
    scope: str
    subject: str
    subject_name: str
    attribute: str
    value: str
    said_at: float
    valid_from: float
    valid_to: float | None = None
    source_ids: tuple[str, ...] = ()
    closed_by: str | None = None
    confidence: float = 1.0
    origin: str = "rules"

    def holds_at(self, when: float) -> bool:
        """True while the fact was true at ``when``: from valid_from, until valid_to."""
        return self.valid_from <= when and (self.valid_to is None or when < self.valid_to)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["source_ids"] = list(self.source_ids)
        return data


# BM25 of a record whose only matching words are in most records: FTS5 clamps their IDF to
# 1e-6, so the score rounds to 0.00, which reads as "no match" next to a rank.
NEAR_ZERO_BM25 = 0.005
COMMON_WORDS_ONLY = "~0: only words most records share"


def keyword_score(score: float | None) -> str:
    """A keyword rank's BM25 as explain lines show it: two decimals, or what a score that
    rounds to 0.00 means (never "0.00" beside a rank)."""
    if score is None or score < NEAR_ZERO_BM25:
        return COMMON_WORDS_ONLY
    return f"{score:.2f}"


@dataclass(slots=True)
class Explain:
    """Why a hit was returned: the score after every stage that touched it."""

    vector_rank: int | None = None
    vector_score: float | None = None
    lexical_rank: int | None = None
    lexical_score: float | None = None
    fused_score: float = 0.0
    fusion: str = "rrf"
    # Ordered (stage name, score after that stage); later stages append to it.
    stages: list[tuple[str, float]] = field(default_factory=list)
    # True when the vector channel could not run (embedding failed or no vectors yet).
    degraded: bool = False
    notes: list[str] = field(default_factory=list)
    # The probability that the hit answers the question (Hit.score; search/answerability.py)
    # and each input's share of its logit; the last stage's score is the pipeline's own.
    answerability: float | None = None
    evidence: dict[str, float] = field(default_factory=dict)
    # (since when, the value since; None when only closed) for a hit carrying a value that is
    # no longer true: "earlier; since 2026-12-01: Shanghai" (search/currency.py)
    earlier: tuple[float, str | None] | None = None

    def one_line(self) -> str:
        parts = []
        if self.vector_rank is not None:
            parts.append(f"vec #{self.vector_rank} ({self.vector_score:.3f})")
        else:
            parts.append("vec -")
        if self.lexical_rank is not None:
            parts.append(f"bm25 #{self.lexical_rank} ({keyword_score(self.lexical_score)})")
        else:
            parts.append("bm25: no keyword match")
        parts.append(f"{self.fusion} {self.fused_score:.4f}")
        changed = [(name, v) for name, v in self.stages[1:]]
        if changed:
            parts.append(" -> ".join(f"{name.split(' ')[0]} {v:.3f}" for name, v in changed))
        if self.answerability is not None:
            parts.append(f"answers {self.answerability:.3f}")
        if self.degraded:
            parts.append("DEGRADED: lexical only")
        return " | ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["stages"] = [{"stage": s, "score": v} for s, v in self.stages]
        return data


@dataclass(slots=True)
class Hit:
    record: Record
    score: float
    explain: Explain

    def to_dict(self, explain: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {"score": self.score, "record": self.record.to_dict()}
        if explain:
            data["explain"] = self.explain.to_dict()
        return data


@dataclass(slots=True)
class SearchResult:
    """The hits of one search plus anything the caller should know about how it ran."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    degraded: bool = False
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Candidates a gate removed: {"id", "stage", "reason", "score"}.
    dropped: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # keyword tokens the search added for the question's words in the other script
    # (search/translate.py): a hit matched through them alone shares no word of the question
    translated_tokens: list[str] = field(default_factory=list)

    def __iter__(self):
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: int) -> Hit:
        return self.hits[index]

    def to_dict(self, explain: bool = True) -> dict[str, Any]:
        return {
            "query": self.query,
            "degraded": self.degraded,
            "warnings": list(self.warnings),
            "timings_ms": dict(self.timings_ms),
            "notes": list(self.notes),
            "hits": [h.to_dict(explain=explain) for h in self.hits],
            **({"dropped": list(self.dropped)} if explain else {}),
        }


@dataclass(slots=True)
class Filters:
    """Which records a search or listing may return. ``None`` means "any"."""

    kinds: list[str] | None = None
    scopes: list[str] | None = None
    sessions: list[str] | None = None
    roles: list[str] | None = None
    # Roles to leave out; records without a role are kept (old records count as the other
    # party).
    exclude_roles: list[str] | None = None
    exclude_ids: list[str] | None = None
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at <= until
    platform: str | None = None
    # With ``platform``: a record also counts when its session's origin platform (a
    # sub-session: its root's) is that platform, whatever entry point wrote it.
    platform_by_session: bool = False
    category: str | None = None
    # Superseded memories (valid_to in the past): None, the reader's default (search and
    # recall leave them out; listing, history, export and doctor see them), True / False to
    # say so.
    include_superseded: bool | None = None
    ids: list[str] | None = None

    def listed_columns(self) -> list[tuple[str, list[str]]]:
        """(record column, the values it must be among) for each list filter that is set:
        kind, scope, session, role. Every backend and index reads the filters' lists here."""
        lists = (
            ("kind", self.kinds),
            ("scope", self.scopes),
            ("session", self.sessions),
            ("role", self.roles),
        )
        return [(column, values) for column, values in lists if values is not None]

    def is_empty(self) -> bool:
        return (
            not self.kinds
            and not self.scopes
            and not self.sessions
            and not self.roles
            and not self.exclude_roles
            and not self.exclude_ids
            and self.since is None
            and self.until is None
            and self.platform is None
            and self.category is None
            and self.include_superseded is not False
            and self.ids is None
        )


@dataclass
class Turn:
    """One turn of a conversation: what every before-the-call (recall) and after-the-call
    (capture) entry point takes.

    ``inputs`` are this turn's messages in order: ids of archived messages (recall needs those)
    or, for capture, dicts with ``text`` and ``role`` (and optionally ``id``, ``speaker_id``).
    """

    session: str | None = None
    inputs: list[str | dict[str, Any]] = field(default_factory=list)
    agent: str | None = None  # the agent's identity: scopes (memories, capture)
    user_id: str | None = None  # who is talking (same-user boost, {user} scopes)
    platform: str | None = None
    current_ids: list[str] = field(default_factory=list)  # already in the prompt
    now: float | None = None
    group_id: str | None = None
    platform_type: str | None = None
    # runtime per-session settings from the host (same keys as conversation.modes); they may
    # hold anything: a broken value means the narrowest mode
    settings: dict[str, str] = field(default_factory=dict)
    requested_mode: str | None = None  # e.g. the recall tool's scope: can only narrow
    scopes: list[str] | None = None  # the caller may only see these (servers: its access)
    # the IANA time zone of this turn's people ("Asia/Shanghai"), for a bot whose chats live
    # in several: their days and clock instead of calendar.timezone's
    timezone: str | None = None
