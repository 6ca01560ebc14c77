"""The near-miss sets (issue 45 item 5): built from build.py as written, enough of them in both
languages, and each one checked against its conversation's text: the attribute it asks for is
never said there, and a hand-written one's subject is."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from remem_bench.chat_sources import DATA, to_jsonl

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"
pytestmark = pytest.mark.skipif(
    not (SHARED / "locomo" / "corpus.jsonl").is_file(), reason="LoCoMo is not on this machine"
)


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "near_miss_build", DATA / "near_miss" / "build.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["near_miss_build"] = module
    spec.loader.exec_module(module)
    return module


nm = _builder()


def _rows(name: str) -> list[dict]:
    text = (DATA / name / "queries.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _conversations() -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    for host in nm.HOSTS:
        for turn in nm.read_jsonl(nm.host_dir(host, SHARED) / "corpus.jsonl"):
            out.setdefault((host, turn["conversation"]), []).append(turn)
    return out


def test_the_files_are_what_build_writes():
    dev, held = nm.build(SHARED)
    assert (DATA / "near_miss" / "queries.jsonl").read_text(encoding="utf-8") == to_jsonl(dev)
    assert (DATA / "near_miss_heldout" / "queries.jsonl").read_text("utf-8") == to_jsonl(held)


def test_enough_near_misses_in_english_and_chinese_with_a_held_out_part():
    dev, held = _rows("near_miss"), _rows("near_miss_heldout")
    assert len(dev) + len(held) >= 80 and len(held) >= 30
    langs = Counter(q["lang"] for q in dev + held)
    assert min(langs["en"], langs["zh"]) >= 0.4 * (len(dev) + len(held))
    assert not {q["conversation"] for q in dev} & {q["conversation"] for q in held}
    qids = [q["qid"] for q in dev + held]
    assert len(qids) == len(set(qids))
    for q in dev + held:
        assert q["gold"] == [] and q["gold_sessions"] == [] and q["category"] == "unanswerable"
        assert q["target"] in nm.HOSTS and q["lang"] in ("en", "zh")


def test_each_asks_what_its_conversation_never_says_about_someone_in_it():
    convs = _conversations()
    for q in _rows("near_miss") + _rows("near_miss_heldout"):
        turns = convs[(q["target"], q["conversation"])]
        lines = nm.conversation_lines(turns)
        assert nm.absent(tuple(q["absent"]), lines), q["qid"]
        if "present" in q:  # hand-written: the thing it asks about is in the chat
            assert not nm.absent(tuple(q["present"]), lines), q["qid"]
        else:  # templated: it names one of the chat's speakers
            names = {s for t in turns for s in (t["speaker"], nm.strip_role(t["speaker"]))}
            assert any(name in q["query"] for name in names), q["qid"]


def test_the_check_catches_an_attribute_the_chat_does_say():
    lines = ["Zhao: 大疆 Mini 4 Pro，249 克", "I feel great"]
    assert not nm.absent(("大疆",), lines)
    assert nm.absent(("fee",), lines)  # a word, not a prefix of "feel"
    assert not nm.absent(("fee*",), lines)
    assert not nm.absent(("re:Mini.{0,3}4",), lines)
