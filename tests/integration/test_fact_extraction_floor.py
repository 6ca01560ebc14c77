"""The fact extractor on the capture set (``benchmarks/data/capture_set/facts.jsonl``, read by
path, scored as ``remem_bench.fact_extraction`` scores it): precision >= 0.95 and recall >=
0.80 per language, and nothing read from any non-statement (issue 48)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from remem.facts.extract import statements_of
from remem.facts.model import name_subject, value_key
from remem.text.normalize import to_simplified
from remem.types import Record

GOLD = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "capture_set" / "facts.jsonl"
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
SAID_AT = 1795651200.0  # 2026-11-25, as the benchmark says them
_DATE = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)$")


def _key(subject: str, attribute: str, value: str | None, polarity: str) -> tuple[str, ...]:
    folded = to_simplified(_DATE.sub("", value or ""))
    return (
        to_simplified(subject).casefold(),
        attribute,
        value_key(folded) if folded else "",
        polarity,
    )


def _rows() -> list[dict]:
    return [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]


def _read(row: dict, i: int) -> list[tuple[str, ...]]:
    record = Record(
        id=f"cs{i}",
        kind="message",
        text=row["text"],
        role="user",
        speaker_label=row["speaker"],
        created_at=SAID_AT,
    )
    speaker = name_subject(row["speaker"])
    out = []
    for s in statements_of(record):
        if s.subject == speaker:
            subject = "speaker"
        elif s.subject.startswith(speaker + "/family."):
            subject = "speaker's " + s.subject.rsplit(".", 1)[1]
        else:
            subject = s.subject_name
        out.append(_key(subject, s.attribute, s.value, s.polarity))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_precision_and_recall_floor(lang):
    right = predicted = gold = 0
    for i, row in enumerate(_rows()):
        if row["lang"] != lang:
            continue
        g = Counter(
            _key(f["subject"], f["attribute"], f["value"], f["polarity"]) for f in row["facts"]
        )
        p = Counter(_read(row, i))
        right += sum((g & p).values())
        predicted += sum(p.values())
        gold += sum(g.values())
    assert gold >= 70, "the gold file lost its statements"
    assert right / predicted >= 0.95, f"{lang} precision {right / predicted:.3f}"
    assert right / gold >= 0.80, f"{lang} recall {right / gold:.3f}"


def test_nothing_is_read_from_a_non_statement():
    read = {
        row["text"]: _read(row, i)
        for i, row in enumerate(_rows())
        if row["family"] in NON_STATEMENTS
    }
    assert len(read) >= 150
    assert {text: found for text, found in read.items() if found} == {}
