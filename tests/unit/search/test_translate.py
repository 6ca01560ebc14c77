"""Dictionary translations in a search: a question in one script finds messages in another,
only words the store holds are added, names stay untranslated, and a store in one script
never loads the dictionary."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.search import translate
from remem.search.translate import QueryTranslator
from remem.store.memory import InMemoryStore
from remem.text.tokenize import Tokenizer

NOW = 1_790_000_000.0
BOTH = {"translate.keyword": True, "translate.vector": True, "indexing.mode": "sync"}
CHAT = [
    ("Bob", "The hut costs 65 euros per night with half board"),
    ("Alice", "I booked Rifugio Firenze for the 17th"),
    ("小明", "我的登山鞋坏了，周末要去迪卡侬买一双新的"),
    ("赵磊", "大家好，费用要调整到每人 720"),
]


def _ingest(mem: Memory, chat=CHAT, start: int = 0) -> None:
    mem.ingest_many(
        [
            {"id": f"m{i}", "session": "s", "speaker": who, "text": text, "timestamp": NOW + i}
            for i, (who, text) in enumerate(chat, start)
        ]
    )


def test_a_chinese_question_finds_the_english_answer_by_keyword(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem)
        result = mem.search("小屋一晚多少钱？", k=2, now=NOW + 10, channels=("lexical",))
        assert result.hits[0].record.text.startswith("The hut costs")
        # of 小屋's senses (cabin, lodge, cottage, chalet, hut, shed) the store holds 'hut'
        assert "translate: the keyword and embedded query also says hut, night" in result.notes


def test_an_english_question_finds_the_chinese_answer_by_keyword(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem)
        hits = mem.search("What is the expense per person?", k=4, now=NOW + 10).hits
        assert hits[0].record.text.startswith("大家好，费用")
        assert hits[0].explain.lexical_rank == 1
        config.translate.keyword = False
        hits = mem.search("What is the expense per person?", k=4, now=NOW + 10).hits
        assert all(h.explain.lexical_rank is None for h in hits if h.record.speaker_label == "赵磊")


def test_the_embedded_query_says_the_translations_only_when_asked(tmp_path):
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides=BOTH)
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        _ingest(mem)
        embedder.seen.clear()
        mem.search("小屋一晚多少钱？", k=2, now=NOW + 10)
        assert embedder.seen == ["小屋一晚多少钱？ hut night"]
        config.translate.vector = False
        embedder.seen.clear()
        result = mem.search("小屋一晚多少钱？", k=2, now=NOW + 10)
        assert embedder.seen == ["小屋一晚多少钱？"]
        assert "translate: the keyword query also says hut, night" in result.notes


def test_names_are_not_translated(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem, [*CHAT, ("Eve", "a small next step")])
        result = mem.search("小明的鞋怎么了？", k=2, now=NOW + 10)
        # 小明 is a speaker: never 小 'small' + 明 'next'
        assert not any("small" in note for note in result.notes)


def test_a_store_in_one_script_never_loads_the_dictionary(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the dictionary was loaded")

    translator = QueryTranslator(InMemoryStore(), Tokenizer())
    monkeypatch.setattr(translate, "dictionary", refuse)
    # an empty (or English) store: an English question has nothing to meet in Chinese
    assert not translator.translate("Where is the hut?")


def test_a_write_in_the_other_script_turns_translation_on(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem, CHAT[:2])  # English only
        result = mem.search("What is the expense per person?", k=1, now=NOW + 10)
        assert not any(n.startswith("translate") for n in result.notes)
        _ingest(mem, [CHAT[3]], start=2)
        result = mem.search("What is the expense per person?", k=1, now=NOW + 10)
        assert result.hits[0].record.text.startswith("大家好，费用")
        # "person" is 人 (a character by its first meaning) and 每人 ("per person")
        assert "translate: the keyword and embedded query also says 费用, 人, 每人" in result.notes


@pytest.mark.parametrize("query", ["", "   ", "😀", "12345"])
def test_queries_without_words_translate_to_nothing(query):
    translator = QueryTranslator(InMemoryStore(), Tokenizer())
    assert not translator.translate(query)


ROMANISED_CHAT = [
    ("许静怡", "[图片] 给你看年糕，又胖了"),
    ("许静怡", "今天称了 10.5 斤，年糕每天玩逗猫棒"),
    ("苏晴", "他一直很沉默"),
    ("苏晴", "陈默求婚了！"),
]


def test_a_chinese_word_written_in_pinyin_is_looked_up_by_its_reading(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem, ROMANISED_CHAT)
        result = mem.search("How heavy is Niangao now?", k=4, now=NOW + 10)
        assert any("also says" in n and "年糕" in n for n in result.notes), result.notes
        assert {h.record.id for h in result.hits[:2]} == {"m0", "m1"}
        # a lower-case word is English ("niangao" is no name), and so is a capitalised one
        # CC-CEDICT translates ("Heavy" -> 沉重 is a sense, not a reading)
        assert not any("年糕" in n for n in mem.search("niangao?", k=4, now=NOW + 10).notes)


def test_words_apart_are_read_one_by_one_and_a_persons_name_as_a_name(tmp_path):
    config = Config.load(env={}, overrides={**BOTH, "embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        _ingest(mem, ROMANISED_CHAT)
        translator = QueryTranslator(mem.store, Tokenizer())
        # 沉默 "silent" is read "chen mo", and the store holds it, but "Chen Mo" is a person
        words = translator.translate("Where did Chen Mo propose?").words
        assert "沉默" not in words
        assert "陈默" in words  # a surname and a given name: the person the chat writes about
        assert translator.translate("Is Niangao fat?").words == ["年糕"]
        assert translator.translate("Is Niangao's bowl empty?").words[:1] == ["年糕"]
