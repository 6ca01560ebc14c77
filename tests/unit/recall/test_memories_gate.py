"""Auto-recall's keyword gate across scripts: a word the translation added counts, one Chinese
character it added does not (年 for "year" is in 明年, 今年 and most dates)."""

from __future__ import annotations

from remem import Config, Memory

MEMORIES = ["我明年三月要考雅思。", "我们团队用飞书沟通。"]


def _memory(tmp_path) -> Memory:
    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    mem = Memory(tmp_path / "m.db", config)
    for text in MEMORIES:
        mem.add(text, scope="agent:eval")
    return mem


def test_one_translated_character_is_no_keyword_match(tmp_path):
    with _memory(tmp_path) as mem:
        result = mem.search("What year did the Berlin Wall fall?", k=4)
        assert "年" in result.translated_tokens  # the keyword search still looks for it
        out = mem.recall_memories("What year did the Berlin Wall fall?", agent="eval")
        assert out.memories == []


def test_a_translated_word_is_one(tmp_path):
    with _memory(tmp_path) as mem:
        out = mem.recall_memories("Which tool does our team use?", agent="eval")
        assert [h.record.text for h in out.memories] == ["我们团队用飞书沟通。"]
