"""Irregular word forms: a question's "buy" asks for "bought", "went" for "go"."""

from __future__ import annotations

from remem.text.tokenize import Tokenizer
from remem.text.word_forms import IRREGULAR_NOUNS, IRREGULAR_VERBS, other_forms


def forms_of(text: str, tokenizer: Tokenizer | None = None) -> dict[str, str]:
    t = tokenizer or Tokenizer()
    return other_forms(t, t.query_tokens(text))


def test_a_base_form_asks_for_its_past_forms_and_the_reverse():
    assert forms_of("When did Caroline go to the support group?") == {"went": "go", "gone": "go"}
    assert forms_of("I bought a smoker") == {"buy": "bought"}
    assert forms_of("Where did we meet?") == {"met": "meet"}
    assert forms_of("my children") == {"child": "children"}


def test_forms_already_asked_and_regular_words_add_nothing():
    assert forms_of("buy or bought") == {}
    assert forms_of("moved to Berlin, painting") == {}  # the stemmer already joins these
    assert forms_of("") == {}


def test_forms_are_tokens_of_the_tokenizer_that_asks():
    unstemmed = Tokenizer(stem_english=False)
    assert forms_of("children running", unstemmed) == {"child": "children"}
    # stemmed: "children" -> "children", "child" -> "child"; "learned" is "learn" either way
    assert "learn" in forms_of("I learnt it")


def test_no_token_is_a_form_of_two_words():
    # an ambiguous form would widen a question toward a word it did not ask about
    t = Tokenizer()
    seen: dict[str, str] = {}
    for entry in IRREGULAR_VERBS + IRREGULAR_NOUNS:
        words = [w for part in entry.split() for w in part.split(",")]
        for token in set(t.word_tokens(words)):
            assert seen.setdefault(token, entry) == entry, (token, seen[token], entry)


def test_the_tables_hold_only_words_the_tokenizer_keeps():
    t = Tokenizer()
    for entry in IRREGULAR_VERBS + IRREGULAR_NOUNS:
        words = [w for part in entry.split() for w in part.split(",")]
        assert all(t.word_tokens(words)), entry  # no stop word, nothing over-long
        assert entry.islower() and len(entry.split()) in (2, 3), entry
