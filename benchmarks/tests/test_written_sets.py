"""The sets written for issues 45, 46 and 48 (benchmarks/data): each is valid, is what its
sources build, and holds what the issues ask of it."""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from remem_bench import capture_set
from remem_bench.chat_sources import DATA, to_jsonl
from remem_bench.suite import suite_candidates

REPO = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


vd = _load("validate_dataset", REPO / "benchmarks" / "scripts" / "validate_dataset.py")


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "name, min_conversations, min_questions",
    [("changed_facts", 30, 200), ("changed_facts_heldout", 6, 50), ("mixed_script", 5, 100)],
)
def test_a_chat_set_is_valid_and_built_from_its_sources(name, min_conversations, min_questions):
    here = DATA / name
    builder = _load(f"{name}_build", here / "build.py")
    report = vd.validate_dataset(here, builder.CATEGORIES, require_answers=False)
    assert report.errors == []
    assert len(report.categories_per_conversation) >= min_conversations
    assert report.questions >= min_questions
    corpus, queries = builder.build()
    assert (here / "corpus.jsonl").read_text(encoding="utf-8") == to_jsonl(corpus)
    assert (here / "queries.jsonl").read_text(encoding="utf-8") == to_jsonl(queries)


def test_changed_facts_asks_now_before_and_near_misses_in_both_languages():
    queries = _jsonl(DATA / "changed_facts" / "queries.jsonl")
    cats = Counter(q["category"] for q in queries)
    assert cats["now"] >= 60 and cats["before"] >= 40 and cats["unanswerable"] >= 80
    for q in queries:
        assert bool(q["gold"]) == (q["category"] != "unanswerable"), q["qid"]
    chinese = sum(any("\u4e00" <= ch <= "\u9fff" for ch in q["query"]) for q in queries)
    assert 100 <= chinese <= len(queries) - 100  # English and Chinese alike


def test_the_held_out_chats_have_people_of_their_own():
    ours = {t["speaker"] for t in _jsonl(DATA / "changed_facts" / "corpus.jsonl")}
    theirs = {t["speaker"] for t in _jsonl(DATA / "changed_facts_heldout" / "corpus.jsonl")}
    assert not ours & theirs  # none shared


def test_mixed_script_asks_in_english_about_chinese_lines():
    corpus = {t["id"]: t for t in _jsonl(DATA / "mixed_script" / "corpus.jsonl")}
    for q in _jsonl(DATA / "mixed_script" / "queries.jsonl"):
        assert q["query"].isascii(), q["qid"]
        assert all(not corpus[g]["text"].isascii() for g in q["gold"]), q["qid"]


@pytest.mark.parametrize(
    ("name", "at_least", "held_out", "stores", "median_chars"),
    [
        ("dialogue_notes", 200, False, {"en", "zh"}, 0),
        ("dialogue_notes_heldout", 60, True, {"en", "zh"}, 0),
        # the maintainers' held-out Chinese chats: 2-8 turns, median ~206 characters
        ("dialogue_long", 120, False, {"zh"}, 180),
        ("dialogue_long_heldout", 50, True, {"zh"}, 180),
    ],
)
def test_dialogue_notes_is_built_from_its_sources_and_shaped_like_a_dialogue(
    name: str, at_least: int, held_out: bool, stores: set[str], median_chars: int
):
    here = DATA / name
    builder = _load(f"{name}_build", here / "build.py")
    corpus, queries = builder.build()
    assert (here / "corpus.jsonl").read_text(encoding="utf-8") == to_jsonl(corpus)
    assert (here / "queries.jsonl").read_text(encoding="utf-8") == to_jsonl(queries)
    report = vd.validate_dataset(here, {"dialogue"}, require_answers=False)
    assert report.errors == []
    assert len(queries) >= at_least
    assert {q["conversation"] for q in queries} == stores
    assert statistics.median(len(q["query"]) for q in queries) >= median_chars
    suite = {d.name: d.held_out for d in suite_candidates(REPO.parent, DATA, quick=True)}
    assert suite[name] is held_out
    ids = {t["id"] for t in corpus}
    for q in queries:
        lines = q["query"].split("\n")
        assert 2 <= len(lines) <= 8 and all(":" in x or "：" in x for x in lines), q["qid"]
        assert q["gold"] and set(q["gold"]) <= ids


def test_the_capture_set_has_300_utterances_and_says_what_each_must_do():
    utterances = capture_set.load()
    assert len(utterances) >= 300
    by_lang = Counter(u.lang for u in utterances)
    assert by_lang["en"] >= 150 and by_lang["zh"] >= 150
    families = Counter(u.family for u in utterances)
    assert set(families) == capture_set.STATEMENTS | capture_set.NON_STATEMENTS
    statements = [u for u in utterances if u.is_statement]
    assert len(statements) >= 140
    assert all(not u.facts for u in utterances if not u.is_statement)
    closing = [f for u in utterances for f in u.facts if f.closes]
    assert closing and all(
        u.family in ("negation", "third_person")
        for u in utterances
        if any(f.closes for f in u.facts)
    )


def test_the_capture_set_loader_names_a_bad_line(tmp_path: Path):
    (tmp_path / "en.txt").write_text("statement | Ann | I live in Porto. | lives_in Porto\n")
    (tmp_path / "zh.txt").write_text("")
    with pytest.raises(ValueError, match=r"en\.txt:1: cannot read the fact"):
        capture_set.load(tmp_path)
    (tmp_path / "en.txt").write_text("uncertainty | Ann | I forgot where I live | lives_in=X\n")
    with pytest.raises(ValueError, match="asserts nothing"):
        capture_set.load(tmp_path)
