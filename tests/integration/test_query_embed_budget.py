"""search.query_embed_tokens: the vector channel embeds the query's newest text only, the
lexical channel still matches all of it."""

from __future__ import annotations

from helpers import HashEmbedder
from remem import Config, Memory


def test_a_long_query_embeds_its_tail_and_matches_all_its_words(tmp_path):
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"search.query_embed_tokens": 8})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.ingest_many(
            [
                {"id": "a", "text": "The glacier trail opens in June", "session": "s"},
                {"id": "b", "text": "Rifugio Firenze is booked for Saturday", "session": "s"},
            ],
            wait=True,
        )
        embedder.seen.clear()
        older = "someone mentioned the glacier trail earlier today in the group"
        result = mem.search(f"{older}\nwhich hut is booked?", k=5)
        assert embedder.seen == ["which hut is booked?"]  # only the newest message
        assert {h.record.id for h in result.hits} >= {"a", "b"}  # "glacier" still matches a


def test_zero_embeds_the_whole_query(tmp_path):
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"search.query_embed_tokens": 0})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.ingest_many([{"id": "a", "text": "hello there", "session": "s"}], wait=True)
        embedder.seen.clear()
        query = "a first message that is rather long\nand a second one"
        mem.search(query, k=3)
        assert embedder.seen == [query]
