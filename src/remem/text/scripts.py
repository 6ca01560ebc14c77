"""Which writing system a text is in: CJK (Han, kana, hangul) or Latin. Embedding models and
token budgets treat the two differently (one estimated token per CJK character; e5-small
matches a question in one against a line in the other poorly)."""

from __future__ import annotations

from remem.text.lazy_re import lazy_compile

# Han, kana and hangul
CJK = lazy_compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LATIN_WORD = lazy_compile(r"[A-Za-z]{2,}")
# A text's first characters decide its script: a long turn is not read whole.
SCRIPT_CHARS = 400


def script_of(text: str) -> str | None:
    """ "cjk" or "latin", whichever the text has more of (a CJK character against a Latin
    word: "周末去 Rifugio Firenze" is CJK, "What did 小明 say about the trip?" Latin); None
    for a text with neither (emoji, digits)."""
    head = text[:SCRIPT_CHARS]
    cjk = len(CJK.findall(head))
    latin = len(_LATIN_WORD.findall(head))
    if not cjk and not latin:
        return None
    return "cjk" if cjk >= latin else "latin"


def crosses(query_script: str | None, text: str) -> bool:
    """Whether a text is in the other script than the question's."""
    other = script_of(text)
    return query_script is not None and other is not None and other != query_script
