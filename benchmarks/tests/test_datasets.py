"""The hand-written benchmark data (benchmarks/data) and the validator that checks it.

The dataset tests run the validator over the committed files and assert the minimum sizes
issue 17 asks for; the validator tests feed it small broken datasets, one fault each, so a
validator that stopped checking something would fail here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
ZH = REPO / "benchmarks" / "data" / "zh_groupchat"
HELD_OUT = REPO / "benchmarks" / "data" / "zh_validation"
NO_ANSWER = REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl"


def _load(name: str, path: Path) -> ModuleType:
    # the scripts are not a package: load them by path.
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


vd = _load("validate_dataset", REPO / "benchmarks" / "scripts" / "validate_dataset.py")
build = _load("zh_groupchat_build", ZH / "build.py")
held_out_build = _load("zh_validation_build", HELD_OUT / "build.py")
CATEGORIES = build.CATEGORIES  # the closed set the build accepts


# ------------------------------------------------------------------ the committed data
@pytest.fixture(scope="module")
def zh_report():
    return vd.validate_dataset(ZH, CATEGORIES)


def test_zh_groupchat_is_valid(zh_report) -> None:
    assert zh_report.errors == []


def test_zh_groupchat_sizes(zh_report) -> None:
    assert zh_report.messages >= 1500
    assert zh_report.questions >= 300
    assert zh_report.categories["cross_lingual"] >= 40
    assert zh_report.categories["unanswerable"] >= 30
    kinds = zh_report.conversation_kinds()
    assert kinds["group"] >= 3
    assert kinds["private"] >= 2


def test_zh_groupchat_spreads_every_category_over_every_conversation(zh_report) -> None:
    for conv, cats in zh_report.categories_per_conversation.items():
        assert set(cats) == CATEGORIES, conv


def test_zh_groupchat_aggregate_questions_gather_several_sessions(zh_report) -> None:
    assert zh_report.categories["aggregate"] >= 40
    queries = [json.loads(line) for line in (ZH / "queries.jsonl").read_text().splitlines()]
    for q in (q for q in queries if q["category"] == "aggregate"):
        assert len(q["gold"]) >= 2 and len(q["gold_sessions"]) >= 2, q["qid"]


def test_zh_groupchat_cross_lingual_goes_both_ways() -> None:
    queries = [json.loads(line) for line in (ZH / "queries.jsonl").read_text().splitlines()]
    cross = [q["query"] for q in queries if q["category"] == "cross_lingual"]
    has_han = [any("\u4e00" <= ch <= "\u9fff" for ch in q) for q in cross]
    assert sum(has_han) >= 10  # Chinese questions about English lines
    assert len(has_han) - sum(has_han) >= 10  # English questions about Chinese lines


def test_zh_groupchat_jsonl_is_what_the_sources_build() -> None:
    """corpus.jsonl and queries.jsonl must not be edited by hand: the sources are the truth."""
    corpus, queries = build.build()
    assert (ZH / "corpus.jsonl").read_text(encoding="utf-8") == build.to_jsonl(corpus)
    assert (ZH / "queries.jsonl").read_text(encoding="utf-8") == build.to_jsonl(queries)


def test_the_held_out_set_is_valid_and_built_from_its_sources() -> None:
    """zh_validation: three other chats, every category in each, the JSONL its sources build."""
    report = vd.validate_dataset(HELD_OUT, CATEGORIES)
    assert report.errors == []
    assert report.messages >= 900 and report.questions >= 200
    for conv, cats in report.categories_per_conversation.items():
        assert set(cats) == CATEGORIES, conv
    corpus, queries = held_out_build.build()
    assert (HELD_OUT / "corpus.jsonl").read_text(encoding="utf-8") == held_out_build.to_jsonl(
        corpus
    )
    assert (HELD_OUT / "queries.jsonl").read_text(encoding="utf-8") == (
        held_out_build.to_jsonl(queries)
    )
    ours = {t["speaker"] for t in (json.loads(x) for x in (ZH / "corpus.jsonl").open())}
    theirs = {t["speaker"] for t in (json.loads(x) for x in (HELD_OUT / "corpus.jsonl").open())}
    assert not (ours & theirs) - {"群助手"}, "the held-out chats have people of their own"


def test_no_answer_set() -> None:
    report = vd.validate_no_answer(NO_ANSWER)
    assert report.errors == []
    assert report.questions >= 100
    # about half English, half Chinese, and a few emoji-only lines
    assert report.langs["en"] >= 45 and report.langs["zh"] >= 45
    assert report.langs["und"] >= 3


# ------------------------------------------------------------------ the validator
TURNS = [
    {
        "id": "a:1",
        "conversation": "a",
        "session": "a:s1",
        "timestamp": 100,
        "speaker": "小明",
        "role": "user",
        "text": "我搬到杭州了",
    },
    {
        "id": "a:2",
        "conversation": "a",
        "session": "a:s2",
        "timestamp": 200,
        "speaker": "佩珊",
        "role": "user",
        "text": "辦公室在前海",
    },
    {
        "id": "b:1",
        "conversation": "b",
        "session": "b:s1",
        "timestamp": 100,
        "speaker": "Leo",
        "role": "user",
        "text": "see you Friday",
    },
]


def _query(**changes: object) -> dict:
    query = {
        "qid": "q1",
        "conversation": "a",
        "query": "小明搬去哪了？",
        "timestamp": 300,
        "gold": ["a:1"],
        "gold_sessions": ["a:s1"],
        "category": "single_fact",
        "answer": "杭州",
    }
    return {**query, **changes}


def _write(folder: Path, turns: list[dict], queries: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    return folder


def test_validator_accepts_a_good_dataset(tmp_path: Path) -> None:
    report = vd.validate_dataset(_write(tmp_path, TURNS, [_query()]), CATEGORIES)
    assert report.errors == [] and report.misaligned == []
    assert report.messages == 3 and report.questions == 1


@pytest.mark.parametrize(
    ("turns", "query", "expected"),
    [
        ([*TURNS, TURNS[0]], _query(), "used twice"),
        (TURNS, _query(gold=["a:9"]), "not in the corpus"),
        (TURNS, _query(gold=["b:1"], gold_sessions=["b:s1"]), "belongs to 'b'"),
        (TURNS, _query(gold_sessions=["a:s2"]), "gold_sessions"),
        (TURNS, _query(timestamp=50), "before its newest gold turn"),
        (TURNS, _query(category="unanswerable"), "unanswerable question needs gold []"),
        (TURNS, _query(gold=[], gold_sessions=[]), "gold is empty"),
        (TURNS, _query(answer=""), "answer is empty"),
        (TURNS, _query(category="trivia"), "category 'trivia'"),
        (TURNS, _query(conversation="zz"), "has no turns"),
        ([{**TURNS[0], "role": "bot"}, *TURNS[1:]], _query(), "role 'bot'"),
        ([TURNS[1], TURNS[0], TURNS[2]], _query(), "older than the turn before"),
        ([{k: v for k, v in TURNS[0].items() if k != "text"}, *TURNS[1:]], _query(), "'text'"),
    ],
)
def test_validator_reports_each_fault(
    tmp_path: Path, turns: list[dict], query: dict, expected: str
) -> None:
    report = vd.validate_dataset(_write(tmp_path, turns, [query]), CATEGORIES)
    assert any(expected in error for error in report.errors), report.errors


def test_validator_lists_an_answer_missing_from_its_gold(tmp_path: Path) -> None:
    report = vd.validate_dataset(_write(tmp_path, TURNS, [_query(answer="深圳")]), CATEGORIES)
    assert report.errors == []
    assert report.misaligned == ["q1: 小明搬去哪了？ -> 深圳"]


def test_answer_found_across_scripts_and_case() -> None:
    assert vd.answer_found("前海", ["辦公室在前海"])
    assert vd.answer_found("台湾", ["我是台灣來的"])  # Simplified answer, Traditional message
    assert vd.answer_found("Friday", ["see you friday"])
    assert not vd.answer_found("上海", ["我搬到杭州了"])


def test_empty_answers_can_be_allowed(tmp_path: Path) -> None:
    folder = _write(tmp_path, TURNS, [_query(answer="")])
    assert vd.validate_dataset(folder, require_answers=False).errors == []


def test_no_answer_validator_reports_faults(tmp_path: Path) -> None:
    rows = [
        {"qid": "n1", "query": "hi", "lang": "en", "target": "both"},
        {"qid": "n1", "query": "你好", "lang": "zh", "target": "both"},
        {"qid": "n3", "query": "ok", "lang": "english", "target": "locomo"},
        {"qid": "n4", "query": "ok?", "lang": "en", "target": "everything"},
        {"qid": "n5", "query": "hello", "lang": "en"},
    ]
    path = tmp_path / "queries.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    errors = vd.validate_no_answer(path).errors
    for expected in ("'n1' is used twice", "lang 'english'", "target 'everything'", "'target'"):
        assert any(expected in e for e in errors), (expected, errors)


def test_build_rejects_an_unknown_label(tmp_path: Path) -> None:
    chat = tmp_path / "x.chat.txt"
    chat.write_text("@conversation x\n=== 2026-01-01 10:00\n{a} 小明: 你好\n", encoding="utf-8")
    conv = build.parse_chat(chat)
    assert conv.labels["a"]["id"] == "x:s01:1"
    assert conv.labels["a"]["timestamp"] == 1767232800  # 10:00 in Beijing is 02:00 UTC
    queries = tmp_path / "x.queries.txt"
    queries.write_text("single_fact | b | 谁说了你好？ | 小明\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown labels"):
        build.parse_queries(queries, conv)
