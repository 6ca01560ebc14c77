"""The words a rule's every match needs, derived from its pattern (``remem.facts.literals``),
and the rule sets that skip a rule only when it cannot match (issue 47)."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from remem.facts import extract, literals, rule_sets, rules_zh
from remem.facts.literals import Selector, lowered, required
from remem.facts.rule import RuleSet, rule
from remem.types import Record

CAPTURE_SET = Path(__file__).parents[3] / "benchmarks" / "data" / "capture_set"
# the rule sets the extractor reads (each with a gate of its own)
RULE_SETS = rule_sets.RULE_SETS


def _sets(clauses: tuple[frozenset[str], ...]) -> list[set[str]]:
    return [set(c) for c in clauses]


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        # an alternation inside a run of literals: the run's every spelling
        (r"I (?:live|lived|living) in", 0, [{"i live in", "i lived in", "i living in"}]),
        (r"colou?r", 0, [{"color", "colour"}]),  # an optional letter
        (r"(?:my )?dog", 0, [{"dog"}]),  # "my dog" contains "dog": the shorter is enough
        (r"[Ww]e\s+ran", 0, [{"we"}, {"ran"}]),  # \s is many characters: two clauses
        (r"[a-z]+ing\b", 0, [{"ing"}]),  # a wide class: only what follows it
        (r"(?i:Moved) to", 0, [{"moved to"}]),  # a scoped flag
        (r"Hello", re.I, [{"hello"}]),
        (r"(?i)HELLO", 0, [{"hello"}]),  # a global inline flag
        (r"我(?:住在|搬到)(?P<value>.+)", 0, [{"我住在", "我搬到"}]),
        (r"(?<!not )live(?=\s)", 0, [{"live"}]),  # lookarounds add no character
        (r"(?:ha){2}", 0, [{"haha"}]),
        (r"(?:ab)+c", 0, [{"ab"}, {"c"}]),
        (r"(?:a|\w)x", 0, [{"x"}]),  # an alternative with no word: the alternation needs none
    ],
)
def test_the_words_every_match_needs(pattern, flags, expected):
    assert sorted(map(sorted, _sets(required(pattern, flags)))) == sorted(map(sorted, expected))
    for clause in required(pattern, flags):
        for match in re.finditer(pattern, "x I lived in colour my dog we ran haha abc", flags):
            assert any(s in match.group().lower() for s in clause) or not match.group()


@pytest.mark.parametrize("pattern", [r"(?P<value>\w+)\s+\d+", r".*", r"[^,]+", r"(\w)\1", r"a?"])
def test_a_pattern_with_no_provable_word_has_no_clause(pattern):
    assert required(pattern) == ()


def test_a_cased_letter_outside_ascii_is_not_relied_on_under_ignorecase():
    """ "ß" matches "SS"? no, but its case variants are not plain lowercase: not a word then."""
    clauses = required("straße", re.I)
    assert all("ß" not in s for clause in clauses for s in clause)
    assert {"stra"} in _sets(clauses)


def test_a_pattern_with_no_clause_always_runs():
    selector = Selector([(r"(?P<value>\w+)\s+\d+", 0), (r"moved to", 0)])
    assert selector.runnable("nothing here") == [0]
    assert selector.runnable("we moved to Oslo") == [0, 1]


class _ChangedParser:
    """A parser whose result is not what the walk reads (no ``.state``)."""

    @staticmethod
    def parse(source: str, flags: int) -> object:
        return object()


@pytest.mark.parametrize("parser", [None, _ChangedParser], ids=["gone", "changed"])
def test_without_the_private_regex_parser_every_rule_runs(monkeypatch, parser):
    """The gate reads patterns with ``re._parser`` (private): on a Python where it is gone
    or changed shape, nothing is proven and every rule runs instead of extraction failing."""
    from remem.facts import literals

    monkeypatch.setattr(literals, "P", parser)
    required.cache_clear()  # derived once a process: what is cached was read with the parser
    try:
        assert required(r"lives in", 0) == ()
        selector = Selector([(r"lives in", 0), (r"moved to", 0)])
        assert selector.runnable("nothing here") == [0, 1]
    finally:
        required.cache_clear()  # what was derived without the parser is not kept


def test_a_rule_is_skipped_only_when_its_words_are_missing():
    selector = Selector([(r"lives in", 0), (r"\blive", 0), (r"(?i:SHE) moved", 0)])
    # the scan finds the longest word at a position ("lives in"): "live" there counts too
    assert selector.runnable("Tom lives in Oslo") == [0, 1]
    assert selector.runnable("Tom lives near Oslo") == [1]
    assert selector.runnable("she moved") == [2]
    assert selector.runnable("SHE moved") == [2]  # the IGNORECASE part in any case
    assert selector.runnable("she left") == []


def test_a_text_with_a_letter_whose_case_folding_is_odd_runs_every_rule():
    """Under IGNORECASE "s" matches "ſ" (long s), which str.lower() leaves as it is."""
    selector = Selector([(r"(?i)yes", 0)])
    assert re.search(r"(?i)yes", "YEſ")
    assert lowered("YEſ") is None
    assert selector.runnable("YEſ") == [0]


def test_the_odd_letters_are_every_one_that_matches_ascii_under_ignorecase():
    """A scan of every code point: the ones an ASCII character matches under IGNORECASE
    besides its own case variants are ``literals._ODD``'s; no code point outside the caseless
    CJK ranges matches one inside them."""
    ascii_class = re.compile("[\x00-\x7f]", re.I)
    cjk_class = re.compile("[\u3000-\u303f\u4e00-\u9fff]", re.I)
    odd = {chr(c) for c in range(0x80, 0x110000) if ascii_class.fullmatch(chr(c))}
    assert odd == set("\u0130\u0131\u017f\u212a")
    assert all(literals._ODD.search(c) for c in odd)
    outside = [c for c in range(0x110000) if cjk_class.fullmatch(chr(c))]
    assert all(0x3000 <= c <= 0x303F or 0x4E00 <= c <= 0x9FFF for c in outside)


def _capture_texts() -> list[str]:
    texts = []
    for path in sorted(CAPTURE_SET.glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split(" | ")
            if not line.startswith("#") and len(parts) >= 3:
                texts.append(parts[2].strip())
    return texts


def _variants(text: str) -> list[str]:
    folded = extract.to_simplified(rules_zh.fold(text))
    return [text, text.upper(), text.lower(), text.swapcase(), folded]


@pytest.mark.parametrize("table", range(len(RULE_SETS)))
def test_every_rule_that_matches_a_text_is_tried_on_it(table):
    """Over the capture set's lines (as written, upper, lower, swapped case and folded): a
    rule whose pattern finds anything in a text is among the rules tried on it."""
    rules = RuleSet(RULE_SETS[table].rules)
    for text in _capture_texts():
        for variant in _variants(text):
            tried = {id(r) for r in rules.to_try(variant)}
            for r in rules.rules:
                if r.pattern.search(variant):
                    assert id(r) in tried, (r.source[:80], variant)


def test_every_rule_that_matches_a_shuffled_text_is_tried_on_it():
    """Texts made of the rules' own words in random order and case (where a skipped rule that
    could match would show): still every matching rule is tried."""
    rng = random.Random(47)
    rules = RuleSet(RULE_SETS[0].rules + RULE_SETS[1].rules)  # every rule, both languages
    words = sorted(
        {s for r in rules.rules for clause in required(r.source, r.flags) for s in clause}
    )
    fillers = ["I", "my sister Kate", "Tom", "我", "我妈", " ", ", ", "Berlin", "上海", "ſ", "."]
    for _ in range(300):
        parts = rng.choices(words + fillers, k=rng.randint(2, 9))
        text = " ".join(rng.choice([p, p.upper(), p.capitalize()]) for p in parts)
        tried = {id(r) for r in rules.to_try(text)}
        for r in rules.rules:
            if r.pattern.search(text):
                assert id(r) in tried, (r.source[:80], text)


def test_a_message_that_matches_a_rule_still_yields_it():
    said = datetime(2026, 3, 1, tzinfo=UTC).timestamp()
    text = "Hi! I live in Leeds."
    record = Record(
        id="r1", kind="message", text=text, role="user", speaker_id="u1", created_at=said
    )
    found = extract.statements_of(record)
    assert [(s.attribute, s.value) for s in found] == [("lives_in", "Leeds")]
    one = RuleSet([rule(r"(?i:i live) in (?P<value>\w+)", "lives_in")])
    assert [r.attribute for r in one.to_try("I LIVE in Leeds")] == ["lives_in"]
    assert one.to_try("I work in Leeds") == []
