"""After `remem reembed` switches a store's model, every surface tells the truth about it:
doctor finds nothing stale, the command's own messages match what the next search uses, and
`config show` / `stats` show the model the store now searches with (issue 12)."""

from __future__ import annotations

import json

import pytest
from test_cli import run

from helpers import HashEmbedder
from remem import Config, Memory, ops
from remem.doctor import run_doctor


class OtherHashEmbedder(HashEmbedder):
    model = "hash64-b"
    model_id = "test:hash64-b"


def test_dropping_old_vectors_leaves_no_stale_ones(db_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"row {i} about the dog"} for i in range(5)])
    with Memory(db_path, config, embedder=OtherHashEmbedder()) as mem:
        assert mem.embed_pending()["remaining"] == 0
        # the new vectors were made a minute before the cut-over, as on a real, long re-embed
        mem.store._conn.execute("UPDATE vectors SET created_at = created_at - 60")
        mem.store._conn.execute("UPDATE records SET updated_at = updated_at - 60")
        report = ops.reembed(mem, drop_old=True)
        assert report.complete and report.dropped_old_vectors == 5
        found = {f.check: f for f in run_doctor(mem)}
    assert found["stale vectors"].status == "ok", found["stale vectors"].detail
    assert "0 records" in found["stale vectors"].detail


def test_clearing_vectors_does_not_date_the_text(db_path):
    """`remem clear -t vector` drops vectors; the records' text is unchanged, so a vector made
    before it by another model does not become stale."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        rec = mem.ingest({"text": "the dog sleeps"})
        before = mem.store._conn.execute(
            "SELECT updated_at FROM records WHERE rowid = ?", (rec.rowid,)
        ).fetchone()[0]
        assert mem.clear_vectors() == 1
        after = mem.store._conn.execute(
            "SELECT updated_at, index_status FROM records WHERE rowid = ?", (rec.rowid,)
        ).fetchone()
    assert after == (before, "pending")


@pytest.mark.slow  # loads the bundled USE model
def test_reembed_cli_says_what_the_next_search_uses(tmp_path):
    db = tmp_path / "switch.db"
    lines = tmp_path / "in.jsonl"
    lines.write_text("".join(f'{{"text": "note {i} about the dog"}}\n' for i in range(6)))
    assert run(["ingest", str(lines)], db, lexical=True).returncode == 0

    proc = run(["reembed", "--model", "use-multilingual-v3", "--drop-old"], db)
    assert proc.returncode == 0, proc.stderr
    # no warning telling the user to run the command that is running
    assert "reembed" not in proc.stderr, proc.stderr
    assert "now searches with local:use-multilingual-v3" in proc.stdout
    assert "set embed.model" not in proc.stdout

    shown = json.loads(run(["config", "show", "--json"], db).stdout)
    assert shown["embed.model"] == {"value": "use-multilingual-v3", "source": "store"}
    stats = json.loads(run(["stats", "--json"], db).stdout)
    assert stats["embedder"]["model"] == "use-multilingual-v3"
    assert stats["embedder"]["store_active_model"] == "local:use-multilingual-v3"
    table = run(["stats"], db, env_extra={"COLUMNS": "200"}).stdout
    assert "local:use-multilingual-v3 (the store's active model" in table
    doctor = {d["check"]: d for d in json.loads(run(["doctor", "--json"], db).stdout)}
    assert doctor["stale vectors"]["status"] == "ok"
    assert doctor["missing vectors"]["status"] == "ok"

    # an explicit embed.model is not overridden by the store, and the message says so
    pinned = {"REMEM_EMBED__MODEL": "multilingual-e5-small"}
    proc = run(["reembed", "--model", "use-multilingual-v3", "--json"], db, env_extra=pinned)
    assert json.loads(proc.stdout)["searching_with"] == "local:multilingual-e5-small"
    proc = run(["reembed", "--model", "use-multilingual-v3"], db, env_extra=pinned)
    assert "env:REMEM_EMBED__MODEL" in proc.stdout and "searches still use" in proc.stdout
    shown = json.loads(run(["config", "show", "--json"], db, env_extra=pinned).stdout)
    assert shown["embed.model"]["value"] == "multilingual-e5-small"


def test_config_show_on_a_missing_store_creates_nothing(tmp_path):
    db = tmp_path / "none" / "x.db"
    proc = run(["config", "show", "--json"], db)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["embed.model"]["source"] == "default"
    assert not db.parent.exists()
