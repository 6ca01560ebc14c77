"""Optional: facts read by a chat model (``facts.llm``, through the ``llm.*`` endpoint).

The rules (``extract.py``) read the phrasings they know; a chat model reads the others ("Tom
finally got the job at Globex"). It is never required and never trusted blindly:

- only a record the rules would read is sent: a message that asserts nothing (a question,
  "I forgot where I live", a hypothetical, sarcasm, an example) and an assistant's words are
  never asked about, so the model cannot turn them into facts;
- every proposal is checked: the attribute must be one of remem's families
  (``model.ATTRIBUTES``), the value must be written in the record itself (a value the text
  does not contain is the model's, not the speaker's), and a named subject must be named in
  the record; "the speaker" is the record's speaker, resolved as the rules do;
- it adds to the rules, never overrides them: a chain (subject, attribute) the rules read from
  a record is theirs; the model's statements carry ``origin = "llm"`` and a lower confidence;
- a failure (no endpoint, timeout, not JSON) costs the record its model facts only, is
  counted (``errors``) and pauses asking for ``PAUSE_S`` so an unreachable endpoint does not
  add a timeout to every record the indexer reads.

Answers are kept per record version in a bounded cache, because folding a chain again reads
its records again (``service.FactService.update``).
"""

from __future__ import annotations

import logging
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from remem.config import LLMConfig
from remem.facts.extract import ExtractionContext, subject_of_speaker
from remem.facts.model import ATTRIBUTES, Statement, spec_of
from remem.facts.subjects import resolve_name
from remem.net import ChatClient, LLMError, json_answer
from remem.text.assertion import not_a_statement
from remem.types import Record

log = logging.getLogger("remem.facts")

CONFIDENCE = 0.6  # below the rules' 0.9: what a model read is a reading, not a match
PAUSE_S = 60.0  # after a failed call, records are read by the rules alone this long
CACHE_SIZE = 4096  # record versions whose answers are kept
MAX_CHARS = 2000  # longer records are pasted text: the model reads their beginning
_SPEAKER_WORDS = {"speaker", "i", "me", "myself", "我", "the speaker"}

SYSTEM_PROMPT = (
    "You read one chat message and list the facts it states about people.\n"
    'Answer JSON: {"facts": [{"subject": "speaker" or the person\'s name as written, '
    '"attribute": one of ATTRIBUTES, "kind": a one-word kind or null, "value": the value '
    'copied exactly from the message or null, "ended": true or false, "since": "YYYY-MM-DD" '
    "or null}]}.\n"
    "ATTRIBUTES:\n{attributes}\n"
    "Rules: only what the message asserts as true now or since a date; nothing from "
    "questions, guesses, wishes, plans without a date, hypotheticals, jokes or words quoted "
    'from others. "speaker" means the person writing. "kind" is required for favourite '
    "(film, food ...), family (sister, son ...) and contact (phone, email ...), else null. "
    '"ended": true when the message says the fact stopped being true (value: the old one, or '
    'null). "since": the date it became true when the message says one. '
    'Answer {"facts": []} when it states none.'
)


def _attributes_text() -> str:
    return "\n".join(f"- {spec.name}: {spec.description}" for spec in ATTRIBUTES.values())


def _fold(text: str) -> str:
    """What "written in the record" compares: width, case and spaces do not count."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


class LLMFactReader:
    """Statements a chat model reads in a record, checked (see the module docstring)."""

    def __init__(
        self,
        config: LLMConfig,
        client_factory: Callable[[LLMConfig], ChatClient] = ChatClient,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._client_factory = client_factory
        self._client: ChatClient | None = None
        self._clock = clock
        self._paused_until = 0.0
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[object, ...], list[dict[str, Any]]] = OrderedDict()
        self._system = SYSTEM_PROMPT.replace("{attributes}", _attributes_text())
        self.errors = 0  # failed calls, for `stats`
        self.calls = 0
        self.dropped = 0  # proposals refused by the checks

    # ------------------------------------------------------------------ public
    def statements(
        self, record: Record, context: ExtractionContext, by_rules: list[Statement]
    ) -> list[Statement]:
        """The model's statements about this record that the rules did not read (none when
        the record asserts nothing, or the call fails)."""
        if not self._worth_asking(record):
            return []
        proposals = self._proposals(record)
        if proposals is None:
            return []
        taken = {(s.subject, s.attribute) for s in by_rules}
        out: list[Statement] = []
        for proposal in proposals:
            statement = checked(proposal, record, context)
            if statement is None:
                self.dropped += 1
            elif (statement.subject, statement.attribute) not in taken:
                out.append(statement)
        return out

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # ------------------------------------------------------------------ asking
    @staticmethod
    def _worth_asking(record: Record) -> bool:
        text = record.shown_text.strip()
        if not text or record.role == "assistant":
            return False
        if (record.metadata or {}).get("said_by") == "assistant":
            return False
        return not_a_statement(text[:MAX_CHARS]) is None

    def _proposals(self, record: Record) -> list[dict[str, Any]] | None:
        key = (record.id, record.content_hash, record.speaker_label, record.created_at)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            if self._clock() < self._paused_until:
                return None
            try:
                if self._client is None:
                    self._client = self._client_factory(self.config)
                self.calls += 1
                answer = self._client.complete(self._system, self._prompt(record), json_mode=True)
                proposals = _facts_of(json_answer(answer, "facts"))
            except LLMError as exc:
                self.errors += 1
                self._paused_until = self._clock() + PAUSE_S
                log.warning("facts.llm: %s; rules only for %.0f s", exc, PAUSE_S)
                return None
            self._cache[key] = proposals
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            return proposals

    @staticmethod
    def _prompt(record: Record) -> str:
        said = datetime.fromtimestamp(record.event_time or record.created_at, UTC)
        speaker = record.speaker_label or record.speaker_id or "unknown"
        return (
            f"Speaker: {speaker}\nSaid on: {said:%Y-%m-%d}\n"
            f"Message: {record.shown_text.strip()[:MAX_CHARS]}"
        )


def checked(
    proposal: dict[str, Any], record: Record, context: ExtractionContext
) -> Statement | None:
    """The statement a proposal makes, or None when a check refuses it (see the module
    docstring)."""
    attribute = _attribute(proposal)
    if attribute is None:
        return None
    text = _fold(record.shown_text)
    value = proposal.get("value")
    if value is not None and (not isinstance(value, str) or not value.strip()):
        return None
    if isinstance(value, str) and _fold(value) not in text:
        return None  # not the speaker's words: the model's
    ended = proposal.get("ended") is True
    if value is None and not (ended and spec_of(attribute).single):
        return None  # only "no longer <one-value fact>" may come without a value
    subject = _subject(proposal.get("subject"), record, context, text)
    if subject is None:
        return None
    said_at = record.created_at
    since = _date(proposal.get("since"))
    valid_from = since if since is not None and since <= said_at + 366 * 86400 else None
    return Statement(
        record_id=record.id,
        scope=record.scope,
        subject=subject[0],
        subject_name=subject[1],
        attribute=attribute,
        value=value.strip() if isinstance(value, str) else None,
        said_at=said_at,
        valid_from=valid_from or record.event_time or said_at,
        polarity="negate" if ended else "assert",
        confidence=CONFIDENCE,
        origin="llm",
    )


def _facts_of(data: Any) -> list[dict[str, Any]]:
    items = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LLMError(f"the model did not answer with facts JSON: {str(data)[:120]!r}")
    return [item for item in items if isinstance(item, dict)]


def _attribute(proposal: dict[str, Any]) -> str | None:
    family = proposal.get("attribute")
    if not isinstance(family, str) or family not in ATTRIBUTES:
        return None
    spec = ATTRIBUTES[family]
    if not spec.kinds:
        return family
    kind = proposal.get("kind")
    if not isinstance(kind, str):
        return None
    kind = kind.strip().casefold()
    if not kind.isalpha() or not kind.isascii() or len(kind) > 20:
        return None
    return f"{family}.{kind}"


def _subject(
    named: object, record: Record, context: ExtractionContext, text: str
) -> tuple[str, str] | None:
    if not isinstance(named, str) or not named.strip():
        return None
    if named.strip().casefold() in _SPEAKER_WORDS:
        return subject_of_speaker(record)
    if _fold(named) not in text:
        return None  # a person the record does not name ("he" is the rules' to resolve)
    return resolve_name(named, context.people), named.strip()


def _date(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        day = datetime.strptime(value.strip(), "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return None
    return day.timestamp()
