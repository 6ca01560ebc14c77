"""The capture set (``data/capture_set``): single utterances and what capture must do with
each. See its README for the families and the fact notation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "data" / "capture_set"
# capture stores these: they state something
STATEMENTS = frozenset({"statement", "third_person", "negation"})
# and must store nothing, close nothing, for these
NON_STATEMENTS = frozenset(
    {
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
)
_FACT = re.compile(r"^(?:(?P<subject>[^.=!]+)\.)?(?P<attribute>[a-z_]+)(?P<op>!?=)(?P<value>.+)$")


@dataclass(frozen=True)
class Fact:
    subject: str  # "speaker" for the one who said it, else the person named
    attribute: str
    value: str
    closes: bool  # "attr!=value": the value ends, no new one is asserted


@dataclass(frozen=True)
class Utterance:
    lang: str  # "en" or "zh" (the file it came from)
    family: str
    speaker: str
    text: str
    facts: tuple[Fact, ...] = field(default=())

    @property
    def is_statement(self) -> bool:
        return self.family in STATEMENTS


def parse_facts(spec: str, where: str) -> tuple[Fact, ...]:
    if spec == "-":
        return ()
    facts = []
    for part in (p.strip() for p in spec.split(";")):
        m = _FACT.match(part)
        if not m:
            raise ValueError(f"{where}: cannot read the fact {part!r}; write attr=value")
        facts.append(
            Fact(
                subject=(m["subject"] or "speaker").strip(),
                attribute=m["attribute"],
                value=m["value"].strip(),
                closes=m["op"] == "!=",
            )
        )
    return tuple(facts)


def load(source: Path = SOURCE) -> list[Utterance]:
    """Every utterance of ``en.txt`` and ``zh.txt``; a malformed line raises ValueError naming
    its file and line."""
    out: list[Utterance] = []
    for lang in ("en", "zh"):
        path = source / f"{lang}.txt"
        for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path.name}:{lineno}"
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 4:
                raise ValueError(f"{where}: want 'family | speaker | text | facts'")
            family, speaker, text, spec = parts
            if family not in STATEMENTS | NON_STATEMENTS:
                raise ValueError(f"{where}: unknown family {family!r}")
            facts = parse_facts(spec, where)
            if facts and family in NON_STATEMENTS:
                raise ValueError(f"{where}: a {family} line asserts nothing; write '-'")
            out.append(Utterance(lang, family, speaker, text, facts))
    return out
