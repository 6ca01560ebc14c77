"""Precision and recall of remem's fact extractor (``remem.facts.extract``) against hand-written
gold statements: the capture set (``data/capture_set/facts.jsonl``, every utterance) and the
lines of the changed-facts corpus that carry an answer (``data/changed_facts/facts.jsonl``).

A gold statement is ``{"subject", "attribute", "value", "polarity"}``; ``subject`` is
"speaker" (the one who said it), "speaker's <relation>" (an unnamed relative: "my brother") or
a person's name. A predicted statement is right when subject, attribute, polarity and value
key match (``remem.facts.model.value_key`` after folding Traditional to Simplified; a plan's
date suffix " (YYYY-MM-DD)" is not compared, the plan's date is checked by the unit tests).
A negation with no value matches a gold negation with value null. Precision and recall are
micro-averaged per language, per attribute family and language, and "non-statement
statements" counts what the extractor read in a line of a non-statement family (the target
is 0).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remem.facts.extract import ExtractionContext, statements_of, statements_of_conversation
from remem.facts.model import THING_FAMILIES, Statement, name_subject, thing_key, value_key
from remem.facts.subjects import people_of
from remem.text.normalize import to_simplified
from remem.types import Record

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURE_GOLD = DATA / "capture_set" / "facts.jsonl"
CHANGED_GOLD = DATA / "changed_facts" / "facts.jsonl"
CHANGED_CORPUS = DATA / "changed_facts" / "corpus.jsonl"
NON_STATEMENTS = {
    "question_mark",
    "question_no_mark",
    "uncertainty",
    "hypothetical",
    "quote",
    "sarcasm",
    "example",
    "meta",
    "noise",
}
# when a capture-set utterance is said: a fixed day, so plans' dates are stable
SAID_AT = 1795651200.0  # 2026-11-25 00:00 UTC
_DATE = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)$")

Key = tuple[str, str, str, str]  # subject, attribute, value key, polarity


def _key(subject: str, attribute: str, value: str | None, polarity: str) -> Key:
    folded = to_simplified(_DATE.sub("", value or ""))
    if attribute in THING_FAMILIES:  # a thing by its key: "the staging server" is "staging"
        subject = thing_key(to_simplified(subject))
    return (
        to_simplified(subject).casefold(),
        attribute,
        value_key(folded) if folded else "",
        polarity,
    )


def gold_key(fact: dict[str, Any]) -> Key:
    return _key(fact["subject"], fact["attribute"], fact["value"], fact["polarity"])


def predicted_key(s: Statement, speaker_subject: str) -> Key:
    if s.subject == speaker_subject:
        subject = "speaker"
    elif s.subject.startswith(speaker_subject + "/family."):
        subject = "speaker's " + s.subject.rsplit(".", 1)[1]
    else:
        subject = s.subject_name
    return _key(subject, s.attribute, s.value, s.polarity)


@dataclass
class Tally:
    right: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, right: int, predicted: int, gold: int) -> None:
        self.right += right
        self.predicted += predicted
        self.gold += gold

    def as_dict(self) -> dict[str, Any]:
        p = self.right / self.predicted if self.predicted else 1.0
        r = self.right / self.gold if self.gold else 1.0
        return {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "right": self.right,
            "predicted": self.predicted,
            "gold": self.gold,
        }


def _family(attribute: str) -> str:
    return attribute.split(".", 1)[0]


class Scorer:
    """Tallies per language and per (family, language), and the lines that went wrong."""

    def __init__(self) -> None:
        self.by_lang: dict[str, Tally] = defaultdict(Tally)
        self.by_family: dict[tuple[str, str], Tally] = defaultdict(Tally)
        self.errors: list[dict[str, Any]] = []

    def score(self, lang: str, text: str, gold: list[Key], predicted: list[Key]) -> None:
        g, p = Counter(gold), Counter(predicted)
        both = g & p
        self.by_lang[lang].add(sum(both.values()), sum(p.values()), sum(g.values()))
        for family in {_family(k[1]) for k in [*gold, *predicted]}:
            fg = Counter({k: n for k, n in g.items() if _family(k[1]) == family})
            fp = Counter({k: n for k, n in p.items() if _family(k[1]) == family})
            self.by_family[family, lang].add(
                sum((fg & fp).values()), sum(fp.values()), sum(fg.values())
            )
        if g != p:
            self.errors.append(
                {
                    "lang": lang,
                    "text": text,
                    "missed": [list(k) for k in g - p],
                    "wrong": [list(k) for k in p - g],
                }
            )

    def report(self) -> dict[str, Any]:
        return {
            "by_language": {lang: t.as_dict() for lang, t in sorted(self.by_lang.items())},
            "by_family": {
                f"{fam}/{lang}": t.as_dict() for (fam, lang), t in sorted(self.by_family.items())
            },
            "errors": self.errors,
        }


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def capture_set() -> dict[str, Any]:
    """The capture set: every utterance alone, said by its speaker on ``SAID_AT``."""
    scorer = Scorer()
    from_non_statements = 0
    for i, row in enumerate(_rows(CAPTURE_GOLD)):
        record = Record(
            id=f"cs{i}",
            kind="message",
            text=row["text"],
            role="user",
            speaker_label=row["speaker"],
            created_at=SAID_AT,
        )
        found = statements_of(record)
        predicted = [predicted_key(s, name_subject(row["speaker"])) for s in found]
        if row["family"] in NON_STATEMENTS:
            from_non_statements += len(found)
        scorer.score(row["lang"], row["text"], [gold_key(f) for f in row["facts"]], predicted)
    out = scorer.report()
    out["non_statement_statements"] = from_non_statements
    out["utterances"] = i + 1
    return out


def changed_facts() -> dict[str, Any]:
    """The annotated lines of the changed-facts corpus, each read in its conversation (so
    "he" / "她" and names resolve as they would in a store)."""
    gold = {row["id"]: row for row in _rows(CHANGED_GOLD)}
    corpus = _rows(CHANGED_CORPUS)
    conversations: dict[str, list[Record]] = defaultdict(list)
    for row in corpus:
        conversations[row["conversation"]].append(
            Record(
                id=row["id"],
                kind="message",
                text=row["text"],
                role=row.get("role", "user"),
                speaker_label=row["speaker"],
                created_at=float(row["timestamp"]),
            )
        )
    scorer = Scorer()
    for records in conversations.values():
        context = ExtractionContext(people=people_of(records))
        found: dict[str, list[Statement]] = defaultdict(list)
        for s in statements_of_conversation(records, context):
            found[s.record_id].append(s)
        for record in records:
            if record.id not in gold:
                continue
            row = gold[record.id]
            lang = "zh" if re.search(r"[\u4e00-\u9fff]", record.text) else "en"
            speaker = name_subject(record.speaker_label or "")
            predicted = [predicted_key(s, speaker) for s in found[record.id]]
            scorer.score(lang, record.text, [gold_key(f) for f in row["facts"]], predicted)
    out = scorer.report()
    out["lines"] = len(gold)
    return out
