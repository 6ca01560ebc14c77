"""Which script a text is in (remem/text/scripts.py)."""

from __future__ import annotations

import pytest

from remem.text.budget import estimate_tokens
from remem.text.scripts import crosses, script_of


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Who is allergic to peanuts?", "latin"),
        ("我对花生过敏", "cjk"),
        ("周末去 Rifugio Firenze", "cjk"),  # three characters against two words
        ("What did 小明 say about the trip?", "latin"),
        ("ピーナッツアレルギー", "cjk"),
        ("땅콩 알레르기", "cjk"),
        ("😀 42", None),
        ("", None),
    ],
)
def test_a_text_has_the_script_it_holds_more_of(text, script):
    assert script_of(text) == script


def test_only_a_text_in_the_other_script_crosses():
    assert crosses("latin", "我对花生过敏")
    assert crosses("cjk", "The hut costs 65 euros")
    assert not crosses("latin", "The hut costs 65 euros")
    assert not crosses("latin", "👍")  # no script: nothing to cross
    assert not crosses(None, "我对花生过敏")


def test_the_token_budget_counts_every_cjk_script_alike():
    # one estimated token per Han, kana or hangul character; four Latin characters a token
    assert estimate_tokens("花生ピー땅콩") == 6
    assert estimate_tokens("abcdefgh") == 2
