"""Translation picks the sense the question means, with the real bundled model (issue 46): in
a small English/Chinese group chat, "Where does Tom live now?" must not add 热闹 ("lively") and
rank a line about a lively dinner above Tom's own line about moving, and "汤姆现在在哪家公司？"
must not rank first a line that shares only 现在 with it."""

from __future__ import annotations

import pytest

from remem import Memory

NOW = 1_790_000_000.0
CHAT = [  # Tom's label is 汤姆: he introduces himself as Tom
    ("汤姆", "大家好，我是Tom，刚来这个群"),
    ("李娜", "昨天的聚餐很开心，人多热闹。"),
    ("汤姆", "我们下个月搬到上海，房子已经租好了"),
    ("王芳", "现在几点了？我现在有点累"),
    ("Anna", "Anyone up for hotpot on Friday?"),
    ("汤姆", "I joined a new company last week, a small robotics startup"),
    ("王芳", "周末的音乐会是现场演出，很热闹"),
    ("李娜", "我还在找房子，预算三千"),
]


@pytest.fixture
def chat(memory: Memory) -> Memory:
    memory.ingest_many(
        [
            {"id": f"m{i}", "session": "s", "speaker": who, "text": text, "timestamp": NOW + i}
            for i, (who, text) in enumerate(CHAT)
        ],
        wait=True,
    )
    return memory


def _rank(ids: list[str], record_id: str) -> int:
    return ids.index(record_id) if record_id in ids else len(ids)


def test_where_does_tom_live_finds_his_move_not_a_lively_dinner(chat: Memory):
    result = chat.search("Where does Tom live now?", k=8, now=NOW + 100)
    ids = [h.record.id for h in result.hits]
    assert "热闹" not in result.translated_tokens, result.notes
    moving = _rank(ids, "m2")
    assert moving < _rank(ids, "m1"), [h.record.text for h in result.hits]
    assert moving < _rank(ids, "m6"), [h.record.text for h in result.hits]


def test_which_company_is_not_answered_by_a_line_sharing_only_now(chat: Memory):
    result = chat.search("汤姆现在在哪家公司？", k=8, now=NOW + 100)
    assert result.hits, result.notes
    assert result.hits[0].record.id != "m3", [h.record.text for h in result.hits]
    assert result.hits[0].record.id == "m5", [h.record.text for h in result.hits]
