"""Capture never stores or supersedes on a non-statement (issue 48 point 3), through the real
capture path on a SQLite file: the issue's own list, a caller-named subject, and the floor on
the capture set (``benchmarks/data/capture_set``, read by path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.access import resolve

T = 1_800_000_000.0
SET = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "capture_set"
STATEMENT_FAMILIES = {"statement", "third_person", "negation"}


def make(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    return Memory(db_path, config, embedder=HashEmbedder())


def cap(mem, text, now):
    msg = {"id": f"m{now}", "role": "user", "text": text, "speaker_id": "u1"}
    return mem.capture_after_turn(
        Turn(agent="bot", inputs=[msg], session="s1", user_id="u1", now=now)
    )


ISSUE_48 = [
    ("I moved to Lisbon last month.", "I forgot where I live"),
    ("I moved to Lisbon last month.", "I live where again"),
    ("I moved to Lisbon last month.", "guess where I live"),
    ("I moved to Lisbon last month.", "I'm not sure where I live now"),
    ("I moved to Lisbon last month.", "I live in Porto, don't I"),
    ("I moved to Lisbon last month.", "I live in Madrid or Lisbon"),
    ("My favourite food is ramen.", "my favourite food is what again"),
    ("我在一家游戏公司上班。", "不知道我在哪家公司上班"),
    ("我住在杭州。", "我住在北京吧"),
]


@pytest.mark.parametrize(("fact", "utterance"), ISSUE_48)
def test_the_issue_48_list_stores_nothing_and_closes_nothing(db_path, fact, utterance):
    with make(db_path) as mem:
        (seed,) = cap(mem, fact, T).stored
        out = cap(mem, utterance, T + 10)
        assert out.stored == [] and out.superseded == [], out.to_dict()
        assert out.rejected and out.rejected[0].reason != "rejected"
        assert mem.get(seed.id).valid_to is None  # the real fact is still current


def test_a_plain_statement_without_a_named_trigger_is_captured_and_replaces(db_path):
    with make(db_path) as mem:
        (old,) = cap(mem, "I work at Initech.", T).stored
        out = cap(mem, "I now work at Globex.", T + 10)
        assert [r.text for r in out.stored] == ["I now work at Globex."]
        assert out.superseded == [old.id]


SOMEONE_ELSES = [
    ("I moved to Lisbon last month.", "Tom lives in Shanghai now."),
    ("I moved to Lisbon last month.", "My sister lives in Paris."),
    ("我住在杭州。", "汤姆现在住在上海。"),
]


@pytest.mark.parametrize(("mine", "theirs"), SOMEONE_ELSES)
def test_someone_elses_fact_never_closes_the_speakers_own(db_path, mine, theirs):
    with make(db_path) as mem:
        (own,) = cap(mem, mine, T).stored
        out = cap(mem, theirs, T + 10)
        assert [r.text for r in out.stored] == [theirs] and out.superseded == [], out.to_dict()
        assert mem.get(own.id).valid_to is None  # the speaker's own fact is still current


def test_a_later_fact_about_the_same_person_replaces_the_earlier(db_path):
    with make(db_path) as mem:
        (old,) = cap(mem, "Tom lives in Shenzhen.", T).stored
        (own,) = cap(mem, "I moved to Lisbon last month.", T + 5).stored
        out = cap(mem, "Tom lives in Shanghai now.", T + 10)
        assert out.superseded == [old.id]
        assert mem.get(own.id).valid_to is None


def test_a_named_subject_never_closes_a_memory_on_a_non_statement(db_path):
    # an LLM extractor (or a caller) names the subject: the text still has to assert it
    with make(db_path) as mem:
        (seed,) = cap(mem, "I moved to Lisbon last month.", T).stored
        access = resolve(mem.config, "bot", session="s1", user="u1")
        out = mem.memories.remember(
            access,
            "I live in Porto, don't I",
            scope=access.write_scope,
            category="fact",
            importance=0.7,
            speaker_id="u1",
            subject="location",
            now=T + 10,
        )
        assert out.superseded == [] and mem.get(seed.id).valid_to is None


def _capture_set() -> list[tuple[str, str, str]]:
    rows = []
    for lang in ("en", "zh"):
        for line in (SET / f"{lang}.txt").read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                family, _speaker, text, _facts = (p.strip() for p in line.split(" | "))
                rows.append((lang, family, text))
    return rows


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_capture_set_floor(tmp_path, lang):
    """0 non-statements stored or superseding anything; >= 95% of statements captured."""
    rows = [r for r in _capture_set() if r[0] == lang]
    assert len(rows) == 152
    seeds = {
        "en": [
            "I moved to Lisbon last month.",
            "I work at Initech.",
            "My favourite food is ramen.",
        ],
        "zh": ["我在一家游戏公司上班。", "我住在杭州。", "我最喜欢的食物是火锅。"],
    }[lang]
    with make(tmp_path / "set.db") as mem:
        for i, seed in enumerate(seeds):
            assert cap(mem, seed, T + i).stored
        wrong = []
        for i, (_, family, text) in enumerate(r for r in rows if r[1] not in STATEMENT_FAMILIES):
            out = cap(mem, text, T + 100 + i)
            if out.stored or out.superseded:
                wrong.append((family, text))
        assert wrong == []
        statements = [r for r in rows if r[1] in STATEMENT_FAMILIES]
        missed = []
        for i, (_, _family, text) in enumerate(statements):
            out = cap(mem, text, T + 1000 + i)
            if not (out.stored or out.duplicates):
                missed.append(text)
        assert 1 - len(missed) / len(statements) >= 0.95, missed
