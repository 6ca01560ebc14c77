"""A message is tokenized once on the write path (issue 47): its context in the next turn's
lexical row (``text.context_turns``, one turn by default) reuses the tokens its own row got,
instead of tokenizing the same text again on every write."""

from __future__ import annotations

import sqlite3

from remem import Config, Memory


def test_the_previous_turn_is_not_tokenized_again_for_the_next_turns_context(tmp_path):
    config = Config.load(env={}, overrides={"embed.provider": "none", "facts.enabled": False})
    with Memory(tmp_path / "m.db", config) as mem:
        tokenized: list[str] = []
        real = mem.tokenizer.index_string

        def counting(text: str) -> str:
            tokenized.append(text)
            return real(text)

        mem.tokenizer.index_string = counting  # type: ignore[method-assign]
        mem.ingest({"text": "Caroline took the ferry to Skye", "session": "s1"})
        mem.ingest({"text": "the museum was closed on Monday", "session": "s1"})
        assert tokenized == [
            "Caroline took the ferry to Skye",
            "the museum was closed on Monday",
        ]
    with sqlite3.connect(tmp_path / "m.db") as c:
        rows = c.execute("SELECT tokens, context FROM records_fts ORDER BY rowid").fetchall()
    # the second row's context is exactly the first row's tokens, as when tokenized again
    assert rows[1][1] == rows[0][0] == real("Caroline took the ferry to Skye")
    assert rows[0][1] == ""
