"""The Memory facade end to end with a real SQLite file and the real bundled model."""

import asyncio
import json

import numpy as np
import pytest

from helpers import HashEmbedder
from remem import AsyncMemory, Config, Memory
from remem.errors import ValidationError

DAY = 86400.0
T0 = 1_780_000_000.0

CHAT = [
    ("m1", "s1", "Alice", "I moved to Berlin last week, the flat is near the river."),
    ("m2", "s1", "Bob", "Nice! I am still in Paris, working at the bakery."),
    ("m3", "s2", "Alice", "My cat Miso is afraid of the new vacuum cleaner."),
    ("m4", "s2", "小明", "我下个月要去上海出差，大概一个星期。"),
    ("m5", "s3", "小明", "我对花生过敏，吃饭的时候要注意。"),
    ("m6", "s3", "Bob", "I started learning the cello in September."),
]


@pytest.fixture
def chat(memory):
    _ingest_chat(memory)
    return memory


def top_id(mem, query, **kw):
    hits = mem.search(query, k=3, **kw).hits
    return hits[0].record.id if hits else None


def _ingest_chat(mem):
    mem.ingest_many(
        [
            {
                "id": i,
                "session": s,
                "speaker": sp,
                "text": t,
                "timestamp": T0 + n * DAY,
                "role": "user",
            }
            for n, (i, s, sp, t) in enumerate(CHAT)
        ]
    )


def test_recall_english_and_chinese(chat):
    assert top_id(chat, "Which city did Alice move to?") == "m1"
    assert top_id(chat, "小明要去哪里出差？") == "m4"
    assert top_id(chat, "誰對花生過敏") == "m5"  # Traditional question, Simplified text


def test_recall_across_languages(chat):
    # The ranking, without the relevance floor: the dictionary's translations (过敏, 花生;
    # "cello") find the fact in the other language.
    chat.config.search.relevance_floor = 0.0
    try:
        top3 = [h.record.id for h in chat.search("Who is allergic to peanuts?", k=3)]
        assert "m5" in top3
        top3 = [h.record.id for h in chat.search("谁在学大提琴？", k=3)]
        assert "m6" in top3
    finally:
        chat.config.search.relevance_floor = Config().search.relevance_floor


def test_recall_across_languages_at_the_default_floor(chat):
    # e5-small's cosine across languages reads as unrelated: the cross-script witness (USE)
    # is what keeps the answer above the default floor
    result = chat.search("Who is allergic to peanuts?", k=3)
    assert "m5" in [h.record.id for h in result.hits]
    assert any("USE read" in n for n in result.notes)
    chat.config.search.cross_script_witness = False
    try:
        assert not chat.search("Who is allergic to peanuts?", k=3).hits
    finally:
        chat.config.search.cross_script_witness = True


def test_alternative_model_use_crosses_languages(tmp_path):
    config = Config.load(
        env={}, overrides={"indexing.mode": "sync", "embed.model": "use-multilingual-v3"}
    )
    with Memory(tmp_path / "use.db", config) as mem:
        _ingest_chat(mem)
        assert mem.get_embedder().model_id == "local:use-multilingual-v3"
        assert top_id(mem, "Who is allergic to peanuts?") == "m5"
        assert top_id(mem, "谁在学大提琴？") == "m6"
        assert mem.stats()["vectors"][0]["dim"] == 512


def test_hits_carry_explain(chat):
    hit = chat.search("Alice Berlin river", k=1).hits[0]
    ex = hit.explain
    assert ex.vector_rank == 1 and ex.lexical_rank == 1
    assert ex.vector_score > 0 and ex.lexical_score > 0
    assert ex.stages[0] == ("fusion (weighted)", ex.fused_score)
    # the score every surface shows is the calibrated answerability when it was scored; the
    # trace keeps the pipeline's own scores, ending at its final one
    assert hit.score == (ex.stages[-1][1] if ex.answerability is None else ex.answerability)
    assert not ex.degraded
    assert "vec #1" in ex.one_line() and "bm25 #1" in ex.one_line()
    json.dumps(hit.to_dict())


def test_explain_lines_never_show_a_rank_scored_0_00(tmp_path):
    """A word in most records has no BM25 weight (FTS5 clamps its IDF to 1e-6): its ranks
    say so instead of "(0.00)", and a hit the keyword channel missed says "no keyword match"
    (issue 45)."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [{"text": f"tea with {name}", "session": "s"} for name in ("Ann", "Bob", "Cleo", "Dan")]
            + [{"text": "a walk by the river", "session": "s"}]
        )
        lines = [h.explain.one_line() for h in mem.search("tea", k=10).hits]
        assert lines and not any("(0.00)" in line for line in lines), lines
        assert any("only words most records share" in line for line in lines), lines
        vector_only = mem.search("tea", k=10, channels=("vector",)).hits
        assert "bm25: no keyword match" in vector_only[0].explain.one_line()


def test_a_greeting_that_asks_something_is_found_not_dropped_as_noise(tmp_path):
    """'大家好！周末有人想去爬山吗？' was dropped by the noise gate in every search: it opens
    with a greeting but asks something (issue 45 item 4). A greeting alone still goes."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [
                {"id": "ask", "text": "大家好！周末有人想去爬山吗？", "session": "g"},
                {"id": "hi", "text": "大家好！", "session": "g"},
                {"id": "other", "text": "我明天去超市买菜", "session": "g"},
            ]
        )
        result = mem.search("周末爬山", k=5)
        assert "ask" in [h.record.id for h in result.hits], result.dropped
        assert not any(d["id"] == "ask" for d in result.dropped)
        assert any(d["id"] == "hi" and d["stage"] == "noise" for d in result.dropped)


def test_filters(chat):
    assert {
        h.record.session for h in chat.search("Miso cat Berlin", k=10, filters={"session": "s2"})
    } == {"s2"}
    hits = chat.search(
        "anything about travel", k=10, filters={"since": T0 + 3 * DAY, "until": T0 + 4 * DAY}
    )
    assert {h.record.id for h in hits} <= {"m4", "m5"}
    assert chat.search("Berlin", k=5, filters={"kind": "memory"}).hits == []
    assert all(h.record.role == "user" for h in chat.search("Paris", filters={"role": "user"}))
    with pytest.raises(ValidationError, match="kind"):
        chat.search("x", filters={"kind": "note"})
    with pytest.raises(ValidationError, match="unknown filter"):
        chat.search("x", filters={"colour": "red"})
    with pytest.raises(ValidationError, match="since"):
        chat.search("x", filters={"since": 10, "until": 5})


@pytest.mark.parametrize("k", [0, -1, 1001, 2.5, "3", True])
def test_bad_k(chat, k):
    with pytest.raises(ValidationError, match="k"):
        chat.search("Berlin", k=k)


@pytest.mark.parametrize("query", ["", "   ", None, 42])
def test_bad_query(chat, query):
    with pytest.raises(ValidationError, match="query"):
        chat.search(query)


def test_get_list_delete_stats(chat):
    assert chat.get("m1").speaker_label == "Alice"
    assert chat.get("nope") is None
    assert [r.id for r in chat.list(limit=2)] == ["m6", "m5"]  # newest first
    assert [r.id for r in chat.list(limit=2, offset=4)] == ["m2", "m1"]
    assert len(chat.list({"session": "s1"}, limit=None)) == 2
    assert chat.delete("m1") == 1
    assert chat.delete(["m1"]) == 0
    assert top_id(chat, "Which city did Alice move to?") != "m1"
    stats = chat.stats()
    assert stats["records"] == 5
    assert stats["by_kind"] == {"message": 5}
    assert stats["vectors"][0]["model_id"] == "local:multilingual-e5-small"
    assert stats["vectors"][0]["count"] == 5
    assert stats["index_status"] == {"indexed": 5}


def test_memories_and_generated_ids(memory):
    rec = memory.add(
        "Bob prefers green tea over coffee", category="preference", importance=0.8, scope="user:bob"
    )
    assert rec.kind == "memory" and len(rec.id) == 32
    assert rec.valid_from == rec.created_at
    assert rec.content_hash and rec.index_status == "indexed"
    hits = memory.search("what does Bob like to drink", k=1, filters={"scope": "user:bob"})
    assert hits[0].record.id == rec.id
    assert memory.search("tea", filters={"scope": "user:alice"}).hits == []


def test_bad_input_changes_nothing(memory):
    with pytest.raises(ValidationError, match="item 2: role"):
        memory.ingest_many([{"text": "fine"}, {"text": "bad", "role": "boss"}])
    with pytest.raises(ValidationError, match="metadata"):
        memory.ingest({"text": "x", "metadata": {"when": object()}})
    with pytest.raises(ValidationError, match="invalid text"):
        memory.ingest({"text": ""})
    assert memory.store.count() == 0


def test_now_is_accepted_in_several_forms(chat):
    assert chat.search("Berlin", now="2026-06-01T00:00:00Z").hits
    assert chat.search("Berlin", now=T0).hits
    with pytest.raises(ValueError):
        chat.search("Berlin", now="not a time")


def test_degraded_mode_when_embedding_fails(db_path, config):
    emb = HashEmbedder()
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest({"id": "a", "text": "the red kite flies"})
        emb.fail = True
        rec = mem.ingest({"id": "b", "text": "a blue kite falls"})
        assert rec.index_status == "pending"
        assert "test embedder is down" in rec.index_error
        result = mem.search("kite")
        assert result.degraded
        assert any("lexical index only" in w for w in result.warnings)
        assert {h.record.id for h in result} == {"a", "b"}  # lexical still finds both
        assert all(h.explain.degraded for h in result)
        assert "DEGRADED" in result.hits[0].explain.one_line()
        emb.fail = False
        report = mem.embed_pending()
        assert report == {"embedded": 1, "failed": 0, "remaining": 0}
        assert mem.get("b").index_status == "indexed"
        assert not mem.search("kite").degraded


def test_only_vectors_of_the_query_model_are_compared(db_path, config, e5):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.ingest({"id": "h", "text": "zebra crossing"})
    with Memory(db_path, config, embedder=e5) as mem:
        mem.ingest({"id": "e", "text": "a zebra at the crossing"})
        result = mem.search("zebra crossing", k=5)
        by_id = {h.record.id: h.explain for h in result}
        assert by_id["e"].vector_rank == 1
        assert by_id["h"].vector_rank is None  # its hash64 vector is never compared
        assert by_id["h"].lexical_rank is not None


def test_index_follows_writes_from_another_connection(db_path, config, e5):
    with (
        Memory(db_path, config, embedder=e5) as reader,
        Memory(db_path, config, embedder=e5) as writer,
    ):
        writer.ingest({"id": "x1", "text": "the lighthouse keeper retired"})
        assert reader.search("lighthouse", k=1).hits[0].explain.vector_rank == 1
        writer.ingest({"id": "x2", "text": "a submarine surfaced near the pier"})
        hits = reader.search("submarine", k=1, filters={"ids": ["x2"]}).hits
        assert hits[0].record.id == "x2" and hits[0].explain.vector_rank == 1
        writer.delete("x2")
        assert all(h.record.id != "x2" for h in reader.search("submarine", k=5))


def test_long_text_is_chunked_not_truncated(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.chunk_chars": 200})
    emb = HashEmbedder()
    with Memory(db_path, config, embedder=emb) as mem:
        long = " ".join(["filler"] * 300) + " unicorn"
        mem.ingest({"id": "long", "text": long})
        pieces = emb.seen
        assert len(pieces) > 5 and all(len(p) <= 200 for p in pieces)
        assert "unicorn" in pieces[-1]  # the tail was embedded, not cut off
        vec = mem.searcher.index_for(emb)
        vec.sync()
        assert vec.size == 1
        assert mem.search("unicorn", k=1).hits[0].record.id == "long"


def test_lexical_only_provider(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    with Memory(db_path, config) as mem:
        mem.ingest({"text": "我们周末去爬山吧"})
        result = mem.search("爬山")
        assert len(result) == 1 and result.degraded and not result.warnings


def test_async_api(db_path, config, e5):
    async def run():
        async with AsyncMemory(db_path, config, embedder=e5) as mem:
            await mem.ingest({"id": "a1", "text": "The meeting moved to Thursday"})
            await mem.add("Carol is vegetarian", id="a2")
            hits = await mem.search("when is the meeting", k=1)
            assert hits[0].record.id == "a1"
            assert (await mem.get("a2")).kind == "memory"
            assert len(await mem.list()) == 2
            assert (await mem.stats())["records"] == 2
            assert await mem.delete("a1") == 1

    asyncio.run(run())


def test_query_vector_matches_model(chat, e5):
    vec = chat.searcher.embed_query(e5, "Berlin")
    assert vec.shape == (384,) and np.isclose(np.linalg.norm(vec), 1.0, atol=1e-3)


def test_other_models_are_counted_and_warned_once(db_path, config, e5, caplog):
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"id": f"h{i}", "text": f"old note {i}"} for i in range(3)])
    with Memory(db_path, config, embedder=e5) as mem:
        mem.ingest({"id": "e", "text": "a new note"})
        first = mem.search("note", k=5)
        assert any(
            "3 records have no local:multilingual-e5-small vector" in w and "test:hash64 (3)" in w
            for w in first.warnings
        )
        second = mem.search("note", k=5)
        assert not any("other models" in w for w in second.warnings)  # once per model
        assert len(second.hits) == 4  # still found, by the lexical channel


def test_ids_filter_reaches_the_vector_channel(db_path, config):
    emb = HashEmbedder()
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest_many([{"id": f"n{i}", "text": f"alpha beta {i}"} for i in range(300)])
        mem.ingest({"id": "target", "text": "completely different words"})
        hits = mem.search("alpha beta", k=5, filters={"ids": ["target"]})
        assert [h.record.id for h in hits] == ["target"]
        assert hits[0].explain.vector_rank == 1  # found by its vector, not only by the store
