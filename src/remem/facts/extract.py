"""Statements out of records, without an LLM: who says what about whose attribute.

``statements_of(record, context)`` is the one entry point: the indexing path, ``remem facts
rebuild`` and capture call it; ``statements_of_conversation(records, context)`` walks a
conversation in order and resolves "he" / "她" on the way. The rules by language live beside
this module (``rules_en``, ``rules_zh``), the subjects in ``subjects``, the time in ``when``.

How a record is read:

- It is cut into sentences (. ! ? ; and 。！？；). A sentence counts only when it asserts
  something (``remem.text.assertion.not_a_statement``: no question, uncertainty,
  hypothetical, quote, sarcasm or example), judged clause by clause when only a hedge or a
  condition stops it (``asserted_part``: "If you need me, my mobile is ..." states the
  number, "我可能晚点到，我已经搬到上海了" the move); a record that is sarcasm or an example as a whole
  ("... /s", "比如 ...") states nothing at all. An assistant's words state nothing about anyone.
- Each rule of the sentence's language finds (subject, family, value). "I" / "我" is the
  speaker (``subject_of_speaker``; a memory captured for a user has that user as speaker);
  "my sister Kate" is Kate, "my brother" the speaker's brother, a name goes through
  ``ExtractionContext.people``; "he" / "she" / "他" / "她" is ``ExtractionContext.antecedent``,
  which ``statements_of_conversation`` sets to the one person the latest record naming anyone
  named, and clears when that record named two or more (ambiguous: the pronoun gives nothing).
- Time (``when``): a told-of time ("last month", "上周") starts the fact; a plan ("moving to
  Shanghai on December 1st", "下个月搬去上海") starts its value on its date and adds a
  ``plan`` statement; a plan with no date adds only the plan. "I used to live in Berlin" /
  "我以前在北京住" is a fact of the past (``valid_to`` = when said).
- Negation ("I don't live in Berlin any more", "我不在那家公司上班了") closes without a new
  value; a negation of a one-value family is dropped when the same record gives the new value
  ("I'm leaving Shenzhen ... moving to Shanghai on December 1st"), which closes the old one at
  the right time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from remem.facts import rules_en, rules_zh, subjects, values_en
from remem.facts.answers import MOVED, after_moves, answer_statements
from remem.facts.findings import Found, distinct, holder, holders_of_roles, joined_places, thing_of
from remem.facts.model import (
    THING_FAMILIES,
    Statement,
    name_subject,
    speaker_subject,
    spec_of,
    value_key,
)
from remem.facts.rule import Rule, RuleSet
from remem.facts.rule_sets import EN_ALL, EN_AND_THINGS, THINGS_EN, ZH_ALL
from remem.facts.subjects import RELATIONS_EN, RELATIONS_ZH, relative_subject, resolve_name
from remem.facts.when import moment_of
from remem.text.assertion import asserted_part, not_a_statement
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.types import Record


@dataclass(frozen=True, slots=True)
class ExtractionContext:
    """What the extractor knows beyond the record: the people of the store, by every name
    they go by (casefolded name or alias -> subject key, see ``subjects.people_of``), to
    resolve "Tom" or "汤姆" to the speaker who is Tom; ``antecedent``, the (subject key,
    name) "he" / "她" refers to, or None when nobody or more than one person was just named;
    ``elided_is_speaker`` False: a left-out subject is nobody's (``service._not_of_another``)."""

    people: Mapping[str, str] = field(default_factory=dict)
    antecedent: tuple[str, str] | None = None
    elided_is_speaker: bool = True


_SENTENCE = lazy_compile(r"(?<=[.!?;])\s+|(?<=[。！？；!?…])|\n+")
_HAN = lazy_compile(r"[\u4e00-\u9fff]")
_PLACE_SUFFIX = lazy_compile(r"(?:那边|這邊|这边|附近|一带|那兒|那儿|這裡|这里|那裡|那里)$")
_ENGLISH = lazy_compile(r"\b(?:I|I'm|my|we|We|My)\s+[a-z]{2,}")
_WHOLE_ONLY = ("sarcasm", "an example")
_PRONOUNS = {"he", "she", "他", "她"}
_ORGANISATIONS = ("works_at", "studies_at")
_NOBODY = "\x00nobody"  # the speaker of a record that names none (its "I" is nobody's)
_SPEAKER_WORDS = {"", "i", "we", "my", "our", "me", "我", "我们", "我的"}
_DATE_SUFFIX = lazy_compile(r"\s*\(\d{4}-\d{2}-\d{2}\)$")
_DEMONSTRATIVE = lazy_compile(
    r"^(?:那家公司|那家|那里|那儿|这家公司|那个公司|there|that place)$", re.I
)


def subject_of_speaker(record: Record) -> tuple[str, str] | None:
    """(subject key, name) of whoever says "I" in this record, or None when unknown."""
    name = record.speaker_label or record.speaker_id
    if record.speaker_id:
        return speaker_subject(record.speaker_id), name or record.speaker_id
    if record.speaker_label:
        return name_subject(record.speaker_label), record.speaker_label
    return None


def _said_by_assistant(record: Record) -> bool:
    return record.role == "assistant" or (record.metadata or {}).get("said_by") == "assistant"


# Facts are said in short sentences; a longer run is pasted text or code. Bounds keep the
# indexing path's cost per record bounded (~3 ms a sentence on 2 cores): a sentence over
# MAX_SENTENCE characters is read clause by clause (cut at commas), a clause that is still
# longer is skipped, and only the first MAX_SENTENCES sentences of a record are read.
MAX_SENTENCE = 300
MAX_SENTENCES = 64
_CLAUSE = lazy_compile(r"(?<=[,，、])\s*")


def sentences(text: str) -> list[str]:
    """The sentences of a text, each judged on its own (see MAX_SENTENCE)."""
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        sentence = (sentence or "").strip()
        if len(sentence) > MAX_SENTENCE:
            out += [
                c.strip() for c in _CLAUSE.split(sentence) if 0 < len(c.strip()) <= MAX_SENTENCE
            ]
        elif sentence:
            out.append(sentence)
        if len(out) >= MAX_SENTENCES:
            return out[:MAX_SENTENCES]
    return out


def _resolve(
    match: re.Match[str],
    speaker: tuple[str, str],
    context: ExtractionContext,
    original: str,
    lead: tuple[str, str, float] | None = None,
) -> tuple[str, str, float] | None:
    """(subject key, shown name, confidence change) of a match's subject; None if unknown.
    ``original``: the sentence as written, when the match is on a folded copy of the same
    length (a name keeps its script: 林曉, not 林晓)."""
    groups = match.groupdict()
    if "thing" in groups:  # a thing, a group or a role is the subject (``rules_things``)
        return thing_of(match, original)
    raw = (groups.get("subj") or "").strip()
    if raw and len(original) == len(match.string):
        raw = original[match.start("subj") : match.end("subj")].strip()
    if groups.get("implicit") is not None and not raw:
        if lead is not None or not context.elided_is_speaker:
            return lead
        return speaker[0], speaker[1], -0.1
    text = re.sub(r"'s$", "", raw).strip()
    folded = rules_zh.fold(to_simplified(text)).casefold()
    if folded in _SPEAKER_WORDS:
        return speaker[0], speaker[1], 0.0
    if folded in _PRONOUNS:
        if context.antecedent is None or context.antecedent[0] == speaker[0]:
            return None  # nobody, or the speaker, was just named: "he" is someone else
        return context.antecedent[0], context.antecedent[1], -0.1
    relative = _relative(text)
    if relative is not None:
        relation, name = relative
        if name:
            return resolve_name(name, context.people), name, -0.05
        return relative_subject(speaker[0], relation), f"{speaker[1]}'s {relation}", -0.05
    return resolve_name(text, context.people), text, -0.05


def _relative(text: str) -> tuple[str, str | None] | None:
    """(relation, name or None) for "my sister Kate", "my brother", "Gran", "我妈", "奶奶"."""
    words = text.split()
    if words and words[0].casefold() in ("my", "our"):
        words = words[1:]
    if words and words[0].casefold() in RELATIONS_EN:
        return RELATIONS_EN[words[0].casefold()], (words[1] if len(words) > 1 else None)
    han = re.sub(r"^我(?:的)?", "", rules_zh.fold(to_simplified(text)))
    if han in RELATIONS_ZH:
        return RELATIONS_ZH[han], None
    return None


def _value(
    rule: Rule, match: re.Match[str], original: str, folded: str, english: bool
) -> str | None:
    if "value" not in match.groupdict() or match.group("value") is None:
        return None
    start, end = match.span("value")
    text = original[start:end] if len(original) == len(folded) else folded[start:end]
    text = text.strip(" ,，、")
    if rule.shape is not None:
        text = rule.shape(text)
    elif rule.attribute in THING_FAMILIES:
        text = text.strip(" .,;:!?")  # an address, a time, a token: as written
    elif english:
        text = values_en.clip(text)
    if rule.polarity == "negate" and _DEMONSTRATIVE.match(text):
        return ""  # "那家公司": the one they work at, whichever it is
    return text.strip() or None


def _when(sentence: str, said_at: float, plan: bool) -> float | None:
    return moment_of(sentence, said_at, plan=plan)


_CLAUSE_END = lazy_compile(r"[,，;；:：]")


_MOVE_THEN = lazy_compile(r"^[^,，;；]{0,12}?(?:搬过去|搬過去|搬过来|move there|moving there)")


def _clause(sentence: str, at: int, plan: bool = False) -> str:
    """The clause of ``sentence`` around position ``at``: a time said in another clause ("I
    live in Leeds, my sister visited last week") is not this fact's time; but a plan's next
    clause that says when the move happens is ("调我去成都，7 月 15 号搬过去")."""
    start = 0
    for m in _CLAUSE_END.finditer(sentence):
        if m.start() >= at:
            after = _CLAUSE_END.split(sentence[m.end() :], maxsplit=1)[0].strip()
            then = f" {after}" if plan and _MOVE_THEN.search(after) else ""
            return sentence[start : m.start()] + then
        start = m.end()
    return sentence[start:]


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


def _found_in(sentence: str, speaker: tuple[str, str], context: ExtractionContext) -> list[Found]:
    """Every (subject, attribute, value) the rules read in one asserting sentence."""
    zh = bool(_HAN.search(sentence))
    folded = to_simplified(rules_zh.fold(sentence)) if zh else sentence
    opening = rules_zh.LEAD.match(folded) if zh else None
    lead = _resolve(opening, speaker, context, sentence) if opening else None
    if lead is not None and lead[0] == speaker[0]:
        lead = None
    if not zh:
        passes = [(EN_ALL, sentence, True)]
    elif _ENGLISH.search(sentence):  # "I moved to 上海 last month": English around a value
        passes = [(ZH_ALL, folded, False), (EN_AND_THINGS, sentence, True)]
    else:
        passes = [(ZH_ALL, folded, False), (THINGS_EN, sentence, True)]
    out: list[Found] = []
    for rules, text, english in passes:
        out += _matches(rules, text, sentence, speaker, context, lead, english=english)
    found = joined_places(distinct(out)) if zh else distinct(out)
    return found + holders_of_roles(found)


# a role only one person holds at a time: saying who has it says who holds it ("held_by")
def _matches(
    rules: RuleSet,
    text: str,
    sentence: str,
    speaker: tuple[str, str],
    context: ExtractionContext,
    lead: tuple[str, str, float] | None,
    *,
    english: bool,
) -> list[Found]:
    """What one language's rules read in ``text`` (``sentence`` or its folded copy)."""
    out: list[Found] = []
    for rule in rules.to_try(text):  # most need words the sentence lacks: those are not run
        for match in rule.pattern.finditer(text):
            attribute = rule.attribute_of(match)
            who = _resolve(match, speaker, context, sentence, lead)
            if attribute is None or who is None:
                continue
            value = _value(rule, match, sentence, text, english)
            if value and attribute == "held_by":
                value = holder(value, speaker)
            if value and not english and attribute not in THING_FAMILIES:
                value = rules_zh.clean(attribute or "", to_simplified(value)) and value
                value = _PLACE_SUFFIX.sub("", value) if value else None
                if value is None:
                    continue
            if value is None and rule.polarity == "assert":
                continue
            if value is not None and len(value) > 60:
                continue  # a run-on clause, not a value
            if (
                value
                and attribute in _ORGANISATIONS
                and subjects.names_a_person(value, context.people)
            ):
                continue  # "I got hired by Sarah", "I joined Tom": a person, not an employer
            out.append(
                Found(
                    who[0],
                    who[1],
                    attribute,
                    value or None,
                    rule,
                    rule.confidence + who[2],
                    at=match.start(),
                )
            )
    return out


def _statements(found: Found, sentence: str, record: Record, base: Statement) -> list[Statement]:
    """The statements one finding makes: the fact itself, and a plan beside a dated plan."""
    said = record.created_at
    plan = found.rule.tense == "plan"
    clause = _clause(sentence, found.at, plan)
    if found.attribute in ("date", "time") and found.value:
        clause = clause.replace(found.value, " ")  # the value is a time, not when it holds
    when = _when(clause, said, plan)
    if record.event_time is not None and record.event_time != said:
        when = record.event_time  # the writer said when it happened: that wins over a reading
    common = replace(
        base,
        subject=found.subject,
        subject_name=found.name,
        confidence=round(min(found.confidence, 0.95), 2),
        polarity=found.rule.polarity,
    )
    if found.attribute == "plan":
        value = f"{found.value} ({_day(when)})" if when is not None else found.value
        return [replace(common, attribute="plan", value=value, valid_from=base.valid_from)]
    if found.rule.tense == "past":
        start = when if when is not None else base.valid_from
        return [
            replace(
                common,
                attribute=found.attribute,
                value=found.value,
                valid_from=start,
                valid_to=said,
            )
        ]
    statement = replace(common, attribute=found.attribute, value=found.value)
    if not plan:
        return [replace(statement, valid_from=when if when is not None else base.valid_from)]
    verb = found.rule.plan_verb
    plan_value = None
    target = found.plan_object or found.value
    if verb is not None and target:
        joiner = "" if _HAN.search(target + verb) else " "
        plan_value = f"{verb}{joiner}{target}"
    plans = []
    if plan_value is not None:
        dated = f"{plan_value} ({_day(when)})" if when is not None else plan_value
        # a dated plan is a plan until its day, when the value it names takes over
        ends = when if when is not None and when > base.valid_from else None
        plans.append(
            replace(
                common,
                attribute="plan",
                value=dated,
                polarity="assert",
                valid_from=base.valid_from,
                valid_to=ends,
            )
        )
    if when is None:
        return plans  # a plan with no date says nothing yet about the value itself
    return [replace(statement, valid_from=when), *plans]


def _superseded_negations(statements: list[Statement]) -> list[Statement]:
    """Drop a negation of a one-value family when the record also gives the new value from
    another time (a dated plan): the new value closes the old one then, not now."""
    new_values = {
        (s.subject, s.attribute, s.valid_from)
        for s in statements
        if s.polarity == "assert" and s.valid_to is None and spec_of(s.attribute).single
    }
    return [
        s
        for s in statements
        if not (
            s.polarity == "negate"
            and any(
                (s.subject, s.attribute) == (subject, attribute) and start != s.valid_from
                for subject, attribute, start in new_values
            )
        )
    ]


def statements_of(record: Record, context: ExtractionContext | None = None) -> list[Statement]:
    """What this record states, as statements (none when it asserts nothing)."""
    context = context or ExtractionContext()
    text = record.shown_text
    if not text.strip() or _said_by_assistant(record):
        return []
    # no speaker (a curated memory added without one): third-person statements still count
    # ("Bob lives in Oslo."), first-person ones and "my sister" have nobody to belong to
    speaker = subject_of_speaker(record) or (_NOBODY, "")
    base = Statement(
        record_id=record.id,
        scope=record.scope,
        subject=speaker[0],
        subject_name=speaker[1],
        attribute="lives_in",
        value=None,
        said_at=record.created_at,
        valid_from=record.event_time or record.created_at,
    )
    out: list[Statement] = []
    # The rules first, whether the sentence asserts anything only when one matched: most
    # chat states no fact, and the assertion checks cost a writer's CPU as much as the
    # rules (issue 47). A clause reads nothing its whole sentence does not, so a sentence
    # the rules find nothing in is passed over before its clauses are judged.
    for said in rules_en.named_next(sentences(text)):
        found = _found_in(said, speaker, context)
        if not found:
            continue
        sentence = asserted_part(said)  # "If you need me, my mobile is ...": the number
        if sentence is None:
            continue
        if sentence != said.strip():
            found = _found_in(sentence, speaker, context)
        for finding in found:
            out += _statements(finding, sentence, record, base)
    out = [s for s in out if not s.subject.startswith(_NOBODY)]
    if out and len(text) <= 4 * MAX_SENTENCE and not_a_statement(text) in _WHOLE_ONLY:
        return []  # "... /s", "比如 ...": the whole message (a long one is judged by sentence)
    return _superseded_negations(_unique(out))


def _unique(statements: Iterable[Statement]) -> list[Statement]:
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for s in statements:
        key = (s.subject, s.attribute, _DATE_SUFFIX.sub("", value_key(s.value or "")), s.polarity)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def mentioned(text: str, people: Mapping[str, str]) -> dict[str, str]:
    """Subject key -> the name it is called by, for every person of ``people`` the text names."""
    found: dict[str, str] = {}
    folded = to_simplified(text).casefold()
    for name, subject in people.items():
        if _HAN.search(name):
            hit = name in folded
        else:
            hit = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", folded) is not None
        if hit:
            found.setdefault(subject, name)
    return found


Antecedent = tuple[str, str] | None  # (subject key, name) "he" / "她" refers to


def _next_antecedent(
    record: Record, found: list[Statement], context: ExtractionContext, current: Antecedent
) -> Antecedent:
    """Who "he" / "她" means after this record: the one other person it named, nobody when
    it named several, and the one before when it named nobody."""
    speaker = subject_of_speaker(record)
    named = {s.subject: s.subject_name for s in found if speaker is None or s.subject != speaker[0]}
    named.update(
        {
            k: v
            for k, v in mentioned(record.shown_text, context.people).items()
            if speaker is None or k != speaker[0]
        }
    )
    if len(named) == 1:
        return next(iter(named.items()))
    return None if named else current


def has_pronoun(text: str) -> bool:
    """Whether the text says "he" / "she" / 他 / 她 (so its antecedent matters)."""
    folded = to_simplified(text)
    return "他" in folded or "她" in folded or re.search(r"\b(?:he|she)\b", text, re.I) is not None


def antecedent_after(records: Iterable[Record], context: ExtractionContext) -> Antecedent:
    """Who "he" / "她" means right after these records (a conversation's last few lines)."""
    antecedent: Antecedent = None
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        found = statements_of(record, replace(context, antecedent=antecedent))
        antecedent = _next_antecedent(record, found, context, antecedent)
    return antecedent


def statements_of_conversation(
    records: Iterable[Record], context: ExtractionContext | None = None
) -> list[Statement]:
    """Statements of a conversation's records, read in the order they were said, with "he" /
    "她" resolved to the one person the latest record naming anyone named (see the module
    docstring)."""
    context = context or ExtractionContext()
    antecedent: Antecedent = None
    out: list[Statement] = []
    before: Record | None = None
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        found = statements_of(record, replace(context, antecedent=antecedent))
        if before is not None:  # "Jing'an, near the metro" after "Where in Shanghai?"
            answers = answer_statements(before, record, subject_of_speaker(record), found)
            found += after_moves(answers, [s for s in out if s.attribute in MOVED])
        out += found
        antecedent = _next_antecedent(record, found, context, antecedent)
        before = record
    return out
