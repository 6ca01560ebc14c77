"""Chinese names spelt in pinyin ("Chen Mo"): syllables, then characters the store holds."""

from __future__ import annotations

import itertools

import pytest

from remem.text.spelt_names import spelt_names, syllables


def _store(*lines: str):
    """term counts of the two-character pairs in ``lines``, as the keyword index holds them."""
    pairs: dict[str, int] = {}
    for line in lines:
        for a, b in itertools.pairwise(line):
            pairs[a + b] = pairs.get(a + b, 0) + 1
    asked: list[list[str]] = []

    def held(tokens: list[str]) -> dict[str, int]:
        asked.append(tokens)
        return {t: pairs[t] for t in tokens if t in pairs}

    return held, asked


@pytest.mark.parametrize(
    ("word", "split"),
    [("jingyi", ["jing", "yi"]), ("mo", ["mo"]), ("zhuang", ["zhuang"]), ("said", None)],
)
def test_a_word_splits_into_pinyin_syllables_or_not_at_all(word, split):
    assert syllables(word) == split


def test_a_surname_and_a_given_name_find_the_person_the_store_writes_about():
    held, _ = _store("陈默今天跟我求婚了", "他一直很沉默", "许静怡去新加坡")
    assert spelt_names("Where did Chen Mo propose?", held) == ["陈默"]
    assert spelt_names("Where did Xu Jingyi go?", held) == ["许静怡"]


def test_a_spelling_nobody_in_the_store_wears_finds_nothing():
    held, _ = _store("他一直很沉默")  # 沉默 is read "chen mo" too, but 沉 is no surname
    assert spelt_names("Where did Chen Mo propose?", held) == []
    held, asked = _store("陈默今天跟我求婚了")
    assert spelt_names("chen mo", held) == []  # names are capitalised
    assert spelt_names("Ask Daniel Tan", held) == []  # "Daniel" is no surname
    assert asked == []  # nothing looked up for them


def test_english_pairs_and_long_given_names_are_left_alone():
    held, asked = _store("洪空", "陈默默默")
    assert spelt_names("Hong Kong", held, is_english=lambda pair: pair == "hong kong") == []
    assert spelt_names("Chen Momomo", held) == []  # three syllables: no given name
    assert asked == []


def test_names_after_a_capitalised_word_and_before_an_s_are_read():
    held, _ = _store("陈默今天跟我求婚了", "许静怡去新加坡")
    assert spelt_names("Did Chen Mo propose?", held) == ["陈默"]  # not only "Did Chen"
    assert spelt_names("Does Xu Jingyi like Chen Mo's parents?", held) == ["许静怡", "陈默"]
    assert spelt_names("Chen Mo\u2019s parents", held) == ["陈默"]


def test_the_usual_surname_of_a_reading_is_tried_whatever_its_place_in_the_code_table():
    held, _ = _store("许怡来了", "许艺也来了")  # 许 comes after 于, 余, 徐 among the "xu"s
    assert set(spelt_names("Where is Xu Yi?", held)) == {"许怡", "许艺"}
    held, _ = _store("沈默来了")
    assert spelt_names("Where is Chen Mo?", held) == []  # 沈 is read "shen"


def test_every_step_asks_a_bounded_number_of_pairs_and_long_words_are_no_names():
    held, asked = _store("许静怡")
    spelt_names("Xu Yiyi", held)
    assert asked and all(len(tokens) <= 3 * 150 for tokens in asked)
    assert syllables("m" + "o" * 1500) is None  # no recursion into a page of o's
    held, asked = _store("陈默")
    assert spelt_names("Where is Chen M" + "o" * 1500 + "?", held) == []
    asked.clear()
    spelt_names("Chen Mo, Chen Ma, Chen Mi, Chen Mu, Chen Ming, Chen Mao, Chen Mo", held)
    assert len(asked) == 4  # four names a question at most (one syllable: one step each)
