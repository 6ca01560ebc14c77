"""Chat-bot ingestion rules: what is stored only, what becomes searchable, visible content,
and the schema-4 migration that added these fields."""

from __future__ import annotations

import sqlite3

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ValidationError
from remem.store import migrations
from remem.store.queries import VectorWrite
from remem.store.sqlite import SQLiteStore

T = 1_800_000_000.0


def cfg():
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def test_only_people_talking_become_hits(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        mem.ingest_many(
            [
                {
                    "id": "talk",
                    "session": "g",
                    "timestamp": T,
                    "role": "user",
                    "text": "the zebra escaped from the zoo",
                },
                {
                    "id": "notice",
                    "session": "g",
                    "timestamp": T + 1,
                    "role": "notice",
                    "text": "[image] zebra.png sent",
                },
                {
                    "id": "cron",
                    "session": "g",
                    "timestamp": T + 2,
                    "role": "user",
                    "source": "scheduled-task",
                    "text": "zebra daily reminder fired",
                },
                {
                    "id": "sep",
                    "session": "g",
                    "timestamp": T + 3,
                    "role": "system",
                    "message_kind": "control",
                    "text": "--- zebra context compacted ---",
                },
                {
                    "id": "dir",
                    "session": "g",
                    "timestamp": T + 4,
                    "role": "user",
                    "message_kind": "directive",
                    "text": "/zebra mode on",
                },
                {
                    "id": "media",
                    "session": "g",
                    "timestamp": T + 5,
                    "role": "assistant",
                    "message_kind": "media",
                    "text": "zebra sticker",
                },
                {
                    "id": "reply",
                    "session": "g",
                    "timestamp": T + 6,
                    "role": "user",
                    "text": "they caught it near the river",
                },
            ]
        )
        hits = [h.record.id for h in mem.search("zebra", k=10)]
        assert hits[0] == "talk"
        assert not {"notice", "cron", "sep", "dir", "media"} & set(hits)
        assert "reply" in hits  # lifted as a neighbour: skipped rows are not neighbours
        stored = {r.id: r for r in mem.list(limit=None)}
        assert len(stored) == 7  # everything is kept
        assert stored["cron"].index_status == "skipped"
        assert "source 'scheduled-task'" in stored["cron"].index_error
        assert mem.store.vector_count(emb.model_id) == 2
        assert mem.embed_pending() == {"embedded": 0, "failed": 0, "remaining": 0}
        stats = mem.stats()
        assert stats["index_status"]["skipped"] == 5 and stats["index_errors"] == 0
        sys_msg = mem.ingest({"text": "system: session resumed", "role": "system"})
        assert sys_msg.index_status == "skipped"


def test_visible_text_is_embedded_searched_and_shown(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        envelope = '{"type": "card", "payload": {"id": 17}}'
        rec = mem.ingest(
            {
                "id": "c",
                "text": envelope,
                "visible_text": "Lunch at noon on Friday",
                "session_type": "group",
                "session_label": "群聊",
            }
        )
        assert rec.shown_text == "Lunch at noon on Friday" and rec.text == envelope
        assert rec.session_label == "群聊"
        hit = mem.search("lunch friday", k=1).hits[0]
        assert hit.record.id == "c" and hit.explain.vector_rank == 1
        assert mem.search("payload", k=1, channels=("lexical",)).hits == []
        with pytest.raises(ValidationError, match="message_kind"):
            mem.ingest({"text": "x", "message_kind": "shout"})


def test_schema_4_migration_keeps_records_vectors_and_references(db_path, monkeypatch):
    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:3])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 3)
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        old_cols = [r[1] for r in mem.store._conn.execute("PRAGMA table_info(records)")]
        assert "message_kind" not in old_cols
        # an old file: insert through SQL that knows only the old columns
        mem.store._conn.execute("BEGIN")
        mem.store._conn.execute(
            "INSERT INTO records (id, kind, text, created_at, content_hash, updated_at, "
            "index_status) VALUES ('old', 'message', 'an old giraffe', 1, 'h', 1, 'pending')"
        )
        mem.store._conn.execute("COMMIT")
        rowid = mem.store._conn.execute("SELECT rowid FROM records WHERE id='old'").fetchone()[0]
        mem.store._conn.execute(
            "INSERT INTO records_fts (rowid, tokens, context) VALUES (?, 'old giraff', '')",
            (rowid,),
        )
        mem.store.put_vectors(
            VectorWrite(emb.model_id, "test", "hash64", [(rowid, emb._vec("old giraffe"))])
        )
    monkeypatch.undo()
    store = SQLiteStore(db_path)
    assert store.schema_version() == migrations.LATEST_VERSION
    rec = store.get("old")
    assert rec.message_kind == "chat" and rec.index_status == "indexed"
    assert store.vector_count(emb.model_id) == 1
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store._conn.execute("PRAGMA foreign_key_check").fetchall() == []
    store.delete(["old"])  # the cascade still works after the rebuild
    assert store.vector_count(emb.model_id) == 0
    store.close()
    c = sqlite3.connect(db_path)
    assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
