"""Rewrites (edited messages) and checkpoint rollback."""

from __future__ import annotations

import threading

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import NotFoundError, ValidationError

T = 1_800_000_000.0


class SlowEmbedder(HashEmbedder):
    """Holds the first embedding call until released (texts are recorded in ``seen``)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()
        self.first = True

    def embed_passages(self, texts):
        if self.first:
            self.first = False
            self.entered.set()
            assert self.release.wait(10)
        return super().embed_passages(texts)


def cfg(mode):
    return Config.load(env={}, overrides={"indexing.mode": mode})


def test_rewrite_updates_text_tokens_and_vector(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg("sync"), embedder=emb) as mem:
        mem.ingest({"id": "m", "session": "s", "timestamp": T, "text": "meet at the harbour"})
        before = mem.store._conn.execute("SELECT seq FROM vectors").fetchone()[0]
        rec = mem.rewrite("s", T, "meet at the station instead")
        assert rec.text == "meet at the station instead" and rec.id == "m"
        assert [h.record.id for h in mem.search("station", disable=("neighbour_lift",))] == ["m"]
        assert mem.search("harbour", channels=("lexical",)).hits == []
        after = mem.store._conn.execute("SELECT seq FROM vectors").fetchall()
        assert len(after) == 1 and after[0][0] != before  # replaced, never two copies


def test_rewrites_apply_in_arrival_order_after_in_flight_indexing(db_path):
    emb = SlowEmbedder()
    with Memory(db_path, cfg("async"), embedder=emb) as mem:
        mem.ingest({"id": "m", "session": "s", "timestamp": T, "text": "version one"})
        assert emb.entered.wait(10)  # the first embedding is now in flight and held
        mem.store.mark_index_status([mem.get("m").rowid], "indexed")  # as if indexed before
        mem.rewrite("s", T, "version two")
        mem.rewrite("s", T, "version three")
        emb.release.set()
        assert mem.wait_indexed(10)
        assert emb.seen[0] == "version one"
        assert emb.seen[-1] == "version three"  # the last rewrite wins, after the in-flight one
        vec = mem.searcher.index_for(emb)
        vec.sync()
        stored = vec.vectors_for([mem.get("m").rowid])[mem.get("m").rowid]
        assert stored == pytest.approx(emb._vec("version three"))


def test_failed_re_embedding_keeps_the_old_vector(db_path, caplog):
    emb = HashEmbedder()
    with Memory(db_path, cfg("sync"), embedder=emb) as mem:
        mem.ingest({"id": "m", "session": "s", "timestamp": T, "text": "old words"})
        emb.fail = True
        rec = mem.rewrite("s", T, "new words")
        assert rec.index_status == "indexed"
        assert "previous vector kept" in rec.index_error
        assert mem.store.vector_count(emb.model_id) == 1
        assert any("keep their previous vector" in r.message for r in caplog.records)


def test_never_embedded_message_is_not_embedded_by_a_rewrite(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg("sync"), embedder=emb) as mem:
        mem.ingest({"id": "m", "session": "s", "timestamp": T, "text": "draft"}, embed=False)
        calls = emb.calls
        mem.rewrite("s", T, "final")
        assert emb.calls == calls
        assert mem.get("m").index_status == "pending"


def test_rewrite_errors(db_path):
    with Memory(db_path, cfg("sync"), embedder=HashEmbedder()) as mem:
        with pytest.raises(NotFoundError, match="no message in session"):
            mem.rewrite("s", T, "x")
        with pytest.raises(ValidationError, match="new_text"):
            mem.rewrite("s", T, " ")
        with pytest.raises(ValidationError, match="timestamp"):
            mem.rewrite("s", "noon", "x")


def test_rollback_deletes_only_that_session_after_the_checkpoint(db_path):
    with Memory(db_path, cfg("sync"), embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [
                {"id": f"{s}{i}", "session": s, "timestamp": T + i, "text": f"{s} turn {i}"}
                for s in ("a", "b")
                for i in range(5)
            ]
        )
        assert mem.rollback("a", T + 2) == 2
        assert sorted(r.id for r in mem.list({"session": "a"}, limit=None)) == ["a0", "a1", "a2"]
        assert len(mem.list({"session": "b"}, limit=None)) == 5
        assert mem.search("turn 4", filters={"session": "a"}).hits[0].record.id != "a4"
        with pytest.raises(ValidationError, match="after"):
            mem.rollback("a", "whenever")


def test_rewrite_replaces_the_visible_text_with_the_content(db_path):
    emb = HashEmbedder()
    envelope = '{"type": "card", "title": "harbour"}'
    with Memory(db_path, cfg("sync"), embedder=emb) as mem:
        mem.ingest(
            {
                "id": "m",
                "session": "s",
                "timestamp": T,
                "text": envelope,
                "visible_text": "meet at the harbour",
            }
        )
        # a plain-text edit: the old visible text no longer describes the message
        rec = mem.rewrite("s", T, "meet at the station")
        assert rec.visible_text is None and rec.shown_text == "meet at the station"
        assert emb.seen[-1].endswith("meet at the station")
        assert mem.search("harbour", channels=("lexical",)).hits == []
        # an edited envelope with its own visible text: that is what is embedded and found
        rec = mem.rewrite("s", T, '{"type": "card", "title": "pier"}', visible_text="the pier")
        assert rec.shown_text == "the pier" and emb.seen[-1].endswith("the pier")
        assert [h.record.id for h in mem.search("pier", channels=("lexical",))] == ["m"]
        with pytest.raises(ValidationError, match="visible_text"):
            mem.rewrite("s", T, "x", visible_text="  ")
