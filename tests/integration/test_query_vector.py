"""remem.query_vector: the vector a search embeds its query to, given back so that a caller
(the benchmark package) can time it apart and share it between searches."""

from __future__ import annotations

import numpy as np

import remem
from remem import Config, Memory


def test_a_search_given_the_query_vector_finds_what_it_finds_alone(hash_memory):
    for text in ("the hut is booked for Friday", "Alice works at the bakery", "rain tomorrow"):
        hash_memory.add(text)
    query = "where does Alice work"
    vector = remem.query_vector(hash_memory, query)
    assert np.allclose(vector, hash_memory.get_embedder().embed_queries([query])[0], atol=1e-6)
    alone = [h.record.id for h in hash_memory.search(query).hits]
    given = [h.record.id for h in hash_memory.search(query, query_vector=vector).hits]
    assert given == alone and alone


def test_without_a_model_there_is_no_query_vector(tmp_path):
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(tmp_path / "m.db", config) as mem:
        assert remem.query_vector(mem, "anything") is None
