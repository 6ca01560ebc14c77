"""Auto-recall before each LLM request: the memories relevant to the user's message, as one
``<relevant-memories>`` block of untrusted data.

A gate keeps recall off trivial turns: queries shorter than ``autorecall.min_chars_cjk`` (text
with Chinese, Japanese or Korean) or ``autorecall.min_chars`` characters unless they carry a
memory cue ("remember", "last time", "之前", "上次", "记得"); greetings, slash commands, bare
confirmations, emoji-only messages and heartbeats. The query is cleaned like a captured message.
Only current (not superseded) memories the agent may read are candidates. A memory qualifies
with a keyword match, or with a cosine to the query at least ``autorecall.min_margin`` above
the query's best cosine to a few neutral sentences: embedding models give unrelated text
cosines that vary a lot from query to query (0.71-0.84 with e5-small), so a fixed cosine
threshold either floods or starves; the neutral baseline is measured for each query. Cross-turn dedup
skips memories injected into the same session within ``dedup_turns`` turns or
``dedup_seconds`` seconds. Automatic recalls never count as accesses.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from remem import arguments
from remem.access import ScopeError, ScopeGuard
from remem.config import Config
from remem.embed import calibrations
from remem.embed.base import Embedder
from remem.embed.reads import interactive
from remem.errors import RememError, ValidationError
from remem.recall.injections import InjectionLog
from remem.recall.render import render_memories
from remem.recall.subjects import for_asker
from remem.schemas import check_encodable
from remem.search.access_counts import AccessRecorder
from remem.search.checked import CheckedSearch, SearchRequest
from remem.text.bilingual import ties
from remem.text.clean import strip_wrappers
from remem.text.noise import is_noise
from remem.text.tokenize import Tokenizer
from remem.text.triggers import has_memory_cue
from remem.text.word_forms import other_forms
from remem.types import Filters, Hit

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass
class AutoRecall:
    query: str = ""
    memories: list[Hit] = field(default_factory=list)
    block: str = ""
    skipped_reason: str | None = None
    suppressed: list[str] = field(default_factory=list)  # ids skipped by cross-turn dedup

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "block": self.block,
            "skipped_reason": self.skipped_reason,
            "memories": [h.to_dict() for h in self.memories],
            "suppressed": self.suppressed,
        }


def gate(query: str, cfg) -> str | None:
    """Why this message does not recall, or None when it does."""
    if not query:
        return "empty after removing metadata"
    if query.startswith("/"):
        return "a slash command"
    if is_noise(query):
        return "greeting, confirmation, emoji or heartbeat"
    limit = cfg.min_chars_cjk if _CJK.search(query) else cfg.min_chars
    if len(query) < limit and not has_memory_cue(query):
        return f"shorter than {limit} characters without a memory cue"
    return None


# The neutral sentences live with the relevance calibration that shares them.
NEUTRAL = calibrations.NEUTRAL


class NeutralVectors:
    """Vectors of the neutral sentences for each model (auto-recall's relevance baseline),
    embedded once per model."""

    def __init__(self) -> None:
        self._by_model: dict[str, np.ndarray] = {}

    def __call__(self, embedder: Embedder) -> np.ndarray:
        cached = self._by_model.get(embedder.model_id)
        if cached is None:
            with interactive():  # a recall waits for these: the query deadline applies
                cached = self._by_model[embedder.model_id] = embedder.embed_passages(list(NEUTRAL))
        return cached


@dataclass(frozen=True)
class MemoryRecallParts:
    """What auto-recall and the recall tool read with (built once by ``Memory``)."""

    config: Config
    tokenizer: Tokenizer
    search: CheckedSearch
    embedder: Callable[[], Embedder | None]  # the configured model, loaded on first use
    neutral_vectors: NeutralVectors
    access_counts: AccessRecorder
    injections: InjectionLog  # cross-turn dedup, per session


class Relevance:
    """Decides whether a memory hit is about the query (see the module docstring)."""

    def __init__(
        self, parts: MemoryRecallParts, query: str, margin: float, keyword_match: bool = True
    ) -> None:
        self.margin = margin
        self.keyword_match = keyword_match
        self.baseline: float | None = None
        self.query_vector = None
        self._parts, self._query = parts, query
        self.translated: list[str] = []  # the search's translations (SearchResult)
        self._strong: set[str] | None = None  # the words a keyword match must hold one of
        try:
            embedder = parts.embedder()
        except RememError:
            embedder = None
        if embedder is None:
            return
        try:
            anchors = parts.neutral_vectors(embedder)
            self.query_vector = parts.search.searcher.embed_query(embedder, query)
        except RememError:
            return  # lexical matches only; the search reports the degradation
        self.baseline = float(np.max(anchors @ self.query_vector))

    def __call__(self, hit: Hit) -> bool:
        e = hit.explain
        keyword = e.lexical_rank is not None and (self.keyword_match or self.baseline is None)
        if keyword and self._says_a_word(hit):
            return True
        if e.vector_score is None or self.baseline is None:
            return False
        return e.vector_score - self.baseline >= self.margin

    def _says_a_word(self, hit: Hit) -> bool:
        """Whether a keyword match is more than one Chinese character a translation added
        ("What year did the Berlin Wall fall?" -> 年, which "我明年三月要考雅思" holds): a word of
        the question, or a translation of two or more characters."""
        if all(ties(t) for t in self.translated):
            return True
        if self._strong is None:  # once per recall
            tokenizer = self._parts.tokenizer
            own = tokenizer.query_tokens(self._query)
            # "went" says the question's "go"
            forms = other_forms(tokenizer, own, on=self._parts.config.text.word_forms)
            self._strong = set(own) | set(forms) | {t for t in self.translated if ties(t)}
        return not self._strong.isdisjoint(self._parts.tokenizer.index_tokens(hit.record.text))


def relevant_memories(
    parts: MemoryRecallParts,
    query: str,
    scopes: list[str],
    k: int,
    *,
    now: float | None = None,
    explicit: bool = False,
    timezone: str | None = None,
    include_superseded: bool = False,
    asker: str | None = None,
) -> list[Hit]:
    """Current memories in ``scopes`` that pass the relevance gate, best first. ``explicit``
    (the recall tool) counts an access for each memory returned, and only for those;
    ``timezone`` reads the query's time words on that zone's calendar;
    ``include_superseded`` lets memories a later one replaced through (asked for). A memory
    about someone goes only to them (``asker``, the user) or to a question naming them
    (``recall.subjects``)."""
    cfg = parts.config.autorecall
    relevant = Relevance(parts, query, cfg.min_margin, cfg.keyword_match)
    result = parts.search.search(
        SearchRequest(
            query=query,
            k=k,
            now=now,
            timezone=timezone,
            query_vector=relevant.query_vector,
            filters=Filters(kinds=["memory"], scopes=scopes, include_superseded=include_superseded),
            disable=("relevance",),  # auto-recall has its own gate (Relevance, tuned on its eval)
        )
    )
    relevant.translated = result.translated_tokens
    hits = [h for h in for_asker(result.hits, query, asker) if relevant(h)]
    if explicit and hits:
        parts.access_counts.touch([h.record for h in hits], time.time() if now is None else now)
    return hits


def recall_memories(
    parts: MemoryRecallParts,
    query: str,
    guard: ScopeGuard,
    *,
    now: float | None = None,
    preview: bool = False,
    timezone: str | None = None,
) -> AutoRecall:
    """The memories ``guard`` (one agent's, in its session and for its user) may read that
    are relevant to ``query``. ``preview``: what would be injected, without counting as an injection (no cross-turn
    dedup either way), for a UI or a dry run. ``timezone`` (IANA): the asker's, for the
    query's time words and the memories' dates, instead of ``calendar.timezone``."""
    if not isinstance(query, str):
        raise ValidationError("query", query, "give the user's message as text")
    check_encodable("query", query)
    arguments.unix_time("now", now, optional=True)
    arguments.flag("preview", preview)
    zone = arguments.zone("timezone", timezone) or parts.config.calendar.zone()
    cfg = parts.config.autorecall
    if guard.access is None:
        raise ScopeError("auto-recall needs an agent: give the agent whose memories to recall")
    access = guard.access
    session, user = access.session, access.user
    cleaned = strip_wrappers(query or "")
    out = AutoRecall(query=cleaned)
    if not cfg.enabled:
        out.skipped_reason = "autorecall.enabled is off"
        return out
    why = gate(cleaned, cfg)
    if why:
        out.skipped_reason = why
        return out
    now = time.time() if now is None else now
    hits = relevant_memories(
        parts,
        cleaned,
        guard.read_scopes() or [],
        min(parts.config.search.max_k, cfg.max_items * 4),
        now=now,
        timezone=timezone,
        asker=user,
    )
    key = (access.agent, session or "")
    dedup = not preview and (cfg.dedup_turns > 0 or cfg.dedup_seconds > 0)
    turn = parts.injections.next_turn(key) if dedup else 0
    chosen: list[Hit] = []
    for hit in hits:
        if len(chosen) >= cfg.max_items:
            break
        if dedup and parts.injections.recent(
            key, hit.record.id, turn, now, cfg.dedup_turns, cfg.dedup_seconds
        ):
            out.suppressed.append(hit.record.id)
            continue
        chosen.append(hit)
    if dedup:
        parts.injections.mark(key, [h.record.id for h in chosen], turn, now)
    out.memories = chosen
    out.block = render_memories(chosen, cfg.language, zone)
    if not chosen:
        out.skipped_reason = "nothing relevant" if not out.suppressed else "injected recently"
    return out
