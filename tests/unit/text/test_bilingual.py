"""The CC-CEDICT dictionary: senses cleaned into short translations, Chinese runs cut into
dictionary words, English words (stemmed as the keyword index stems) back to Chinese words."""

from __future__ import annotations

import pytest

from remem.text import bilingual
from remem.text.bilingual import Bilingual, clean_sense, dictionary, english_keys, toneless
from remem.text.tokenize import Tokenizer

TOKENIZER = Tokenizer()


@pytest.mark.parametrize(
    ("sense", "clean"),
    [
        ("to book ahead", "book ahead"),
        ("(computing) interface", "interface"),
        ("to leave one's job; to resign", "leave job"),
        ("hut", "hut"),
        ("surname Qian", None),
        ("variant of 瞭|了[liao3]", None),
        ("CL:筆|笔[bi3],個|个[ge4]", None),
        ("section of a room or lateral space between two pairs of pillars", None),
        ("", None),
    ],
)
def test_clean_sense(sense, clean):
    assert clean_sense(sense) == clean


def _tiny() -> Bilingual:
    return Bilingual(
        {
            "小屋": "cabin/lodge/hut/CL:間|间[jian1]",
            "晚": "evening/night/late",
            "多少": "number/amount/how much?",
            "钱": "surname Qian/coin/money",
            "预订": "to place an order/to book ahead",
            "订": "to agree/to order",
            "书本": "book/CL:本[ben3]",
            "的": "of; ~'s (possessive particle)",
            "婚宴": "wedding banquet",
        },
        TOKENIZER.word_tokens,
    )


def test_glosses_skip_notes_and_carry_keyword_tokens():
    bilingual = _tiny()
    assert [(g.text, g.tokens) for g in bilingual.glosses("钱")] == [
        ("coin", ("coin",)),
        ("money", ("money",)),
    ]
    assert [g.text for g in bilingual.glosses("小屋")] == ["cabin", "lodge", "hut"]
    assert bilingual.glosses("不在词典") == []


def test_cut_takes_the_longest_dictionary_word_and_drops_stop_words():
    # 一 and 的 are stop words or unknown single characters: nothing to translate
    assert _tiny().cut("小屋一晚多少钱？的") == ["小屋", "晚", "多少", "钱"]
    assert _tiny().cut("no Chinese here") == []


def test_english_words_find_chinese_words_by_stem_and_by_phrase():
    bilingual = _tiny()
    assert bilingual.chinese_for("hut") == ["小屋"]
    # a sense matches whole: 'book' is not 'book ahead'
    assert bilingual.chinese_for("book") == ["书本"]
    assert bilingual.chinese_for("book ahead") == ["预订"]
    assert bilingual.chinese_for(" ".join(TOKENIZER.query_tokens("wedding banquet"))) == ["婚宴"]
    # one character stands for a word by its first meaning only (not a surname or a note)
    assert bilingual.chinese_for("agre") == ["订"]  # 'agree' as the index stems it
    assert bilingual.chinese_for("order") == []
    assert bilingual.chinese_for("coin") == ["钱"]
    assert bilingual.chinese_for("money") == []
    assert bilingual.chinese_for("evening") == ["晚"]


@pytest.mark.parametrize(
    ("reading", "written"),
    [("Pan1 yu2", "panyu"), ("nian2 gao1", "niangao"), ("lu:4 shi1", "lvshi"), ("Xi1 an1", "xian")],
)
def test_toneless_writes_a_reading_as_one_latin_word(reading, written):
    assert toneless(reading) == written


def test_words_are_found_by_their_reading_without_tones():
    bilingual = dictionary(TOKENIZER.word_tokens, key="test")
    assert "年糕" in bilingual.written_as("niangao")
    assert "番禺" in bilingual.written_as("panyu")
    assert all(len(w) >= 2 for w in bilingual.written_as("ma"))  # never one character
    assert _tiny().written_as("xiaowu") == []  # no readings given


def test_english_keys_are_words_then_adjacent_pairs():
    assert english_keys(["wed", "banquet", "hall"]) == [
        "wed",
        "banquet",
        "hall",
        "wed banquet",
        "banquet hall",
    ]


def test_the_shipped_dictionary_loads_and_translates_both_ways():
    bilingual = dictionary(TOKENIZER.word_tokens, key="test")
    assert len(bilingual.definitions) > 100_000
    assert "hut" in [g.text for g in bilingual.glosses("小屋")]
    assert "日出" in bilingual.chinese_for("sunris")  # 'sunrise' as the index stems it
    assert dictionary(TOKENIZER.word_tokens, key="test") is bilingual  # loaded once


def test_the_english_side_is_kept_in_a_cache_file_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(bilingual, "_loaded", {})
    first = dictionary(TOKENIZER.word_tokens, key="cache-test")
    assert first.cache is not None and not first.cache.exists()  # written once built
    assert "小屋" in first.chinese_for("hut")
    assert first.cache.is_file() and first.cache.is_relative_to(tmp_path)

    # a new process reads both sides from the file, without parsing CC-CEDICT
    monkeypatch.setattr(bilingual, "_loaded", {})
    monkeypatch.setattr(bilingual, "read_cedict", _refuse)
    second = dictionary(TOKENIZER.word_tokens, key="cache-test")
    assert second.chinese_for("hut") == first.chinese_for("hut")
    assert second.glosses("小屋") == first.glosses("小屋")

    # other tokenizer settings name another file
    assert bilingual.cache_path("other") != first.cache


def test_an_unreadable_cache_file_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(bilingual, "_loaded", {})
    path = bilingual.cache_path("broken")
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "definitions": {"小屋"', "utf-8")  # cut off mid-write
    rebuilt = dictionary(TOKENIZER.word_tokens, key="broken")
    assert "hut" in [g.text for g in rebuilt.glosses("小屋")]
    assert bilingual.read_cache(path) is None
    rebuilt.reverse()
    assert bilingual.read_cache(path) is not None


def _refuse():
    raise AssertionError("CC-CEDICT was parsed again")


def test_writing_the_cache_removes_the_files_of_earlier_formats(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(bilingual, "_loaded", {})
    folder = bilingual.cache_path("x").parent
    folder.mkdir(parents=True)
    stale = [folder / "cedict-86f81add8f2b.json", folder / "cedict-v1-86f81add8f2b.json"]
    kept = folder / f"cedict-v{bilingual.CACHE_FORMAT}-000000000000.json"  # other settings
    for path in [*stale, kept]:
        path.write_text("{}", "utf-8")
    dictionary(TOKENIZER.word_tokens, key="stale-test").reverse()
    assert not any(path.exists() for path in stale)
    assert kept.exists() and bilingual.cache_path("stale-test").is_file()
