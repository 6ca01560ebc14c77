"""Operator commands: delete-bulk, clear, embed --dry-run / --force and resuming."""

from __future__ import annotations

import json

import pytest
from test_cli import one_error_line, run

from helpers import HashEmbedder
from remem import Config, Memory


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "op.db"
    f = tmp_path / "in.jsonl"
    rows = [
        {
            "id": f"a{i}",
            "text": f"alpha note {i}",
            "scope": "user:a",
            "timestamp": f"2026-0{1 + i % 3}-10T00:00:00Z",
        }
        for i in range(6)
    ]
    rows += [
        {
            "id": f"b{i}",
            "text": f"beta note {i}",
            "scope": "user:b",
            "kind": "memory",
            "category": "fact",
        }
        for i in range(3)
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert run(["ingest", str(f)], db, lexical=True).returncode == 0
    return db


def count(db):
    return json.loads(run(["stats", "--json"], db, lexical=True).stdout)["records"]


def test_delete_bulk(store):
    line = one_error_line(run(["delete-bulk"], store, lexical=True))
    assert "at least one filter" in line
    dry = json.loads(
        run(
            ["delete-bulk", "--scope", "user:a", "--before", "2026-02-01", "--dry-run", "--json"],
            store,
            lexical=True,
        ).stdout
    )
    assert dry == {"would_delete": 2} and count(store) == 9
    done = json.loads(
        run(["delete-bulk", "--category", "fact", "--json"], store, lexical=True).stdout
    )
    assert done == {"deleted": 3} and count(store) == 6
    assert "invalid scope" in one_error_line(
        run(["delete-bulk", "--scope", "x"], store, lexical=True)
    )


def test_clear_needs_confirmation_and_clears_the_right_things(store):
    assert "without confirmation" in one_error_line(
        run(["clear", "-t", "all"], store, lexical=True)
    )
    assert "invalid -t" in one_error_line(
        run(["clear", "-t", "cache", "--yes"], store, lexical=True)
    )
    out = json.loads(
        run(
            ["clear", "-t", "context", "--scope", "user:a", "--yes", "--json"], store, lexical=True
        ).stdout
    )
    assert out == {"target": "context", "cleared": 6} and count(store) == 3
    run(["embed"], store)  # vectors for the remaining memories
    cleared = json.loads(run(["clear", "-t", "vector", "--yes", "--json"], store).stdout)
    assert cleared["cleared"] == 3
    stats = json.loads(run(["stats", "--json"], store).stdout)
    assert stats["vectors"] == [] and stats["index_status"] == {"pending": 3}
    assert json.loads(run(["clear", "-t", "all", "-y", "--json"], store).stdout)["cleared"] == 3
    assert count(store) == 0


def test_embed_dry_run_and_force(store):
    dry = json.loads(run(["embed", "--dry-run", "--json"], store).stdout)
    assert dry["would_embed"] == 9
    assert json.loads(run(["embed", "--json"], store).stdout)["embedded"] == 9
    assert json.loads(run(["embed", "--dry-run", "--json"], store).stdout)["would_embed"] == 0
    assert json.loads(run(["embed", "--force", "--json"], store).stdout)["embedded"] == 9


class Interrupting(HashEmbedder):
    def __init__(self, after_calls: int) -> None:
        super().__init__()
        self.after_calls = after_calls

    def embed_passages(self, texts):
        if self.calls >= self.after_calls:
            raise KeyboardInterrupt
        return super().embed_passages(texts)


@pytest.mark.parametrize("force", [False, True])
def test_interrupted_embed_resumes_without_redoing_work(tmp_path, force):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.batch_size": 10})
    db = tmp_path / "r.db"
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"row {i}"} for i in range(50)], embed=force)
    emb = Interrupting(after_calls=2)
    with Memory(db, config, embedder=emb) as mem, pytest.raises(KeyboardInterrupt):
        mem.embed_pending(force=force)
    resumed = HashEmbedder()
    with Memory(db, config, embedder=resumed) as mem:
        report = mem.embed_pending(force=force)
        assert report == {"embedded": 30, "failed": 0, "remaining": 0}  # 20 were done before
        assert resumed.calls == 3
        assert mem.store.meta_get("embed", f"force:{resumed.model_id}") is None


def test_bad_input_on_operator_commands(store, tmp_path):
    cases = [
        (["export", "-o", str(tmp_path)], "is a directory"),
        (["export", "--scope", "nope"], "invalid scope"),
        (["delete-bulk", "--before", "someday"], "invalid until"),
        (["clear", "-t", "vector", "--scope", "bad", "--yes"], "invalid scope"),
        (["config", "validate", str(tmp_path / "missing.toml")], "does not exist"),
        (["list", "--category", ""], "category"),
    ]
    for args, expect in cases:
        line = one_error_line(run(args, store, lexical=True))
        assert expect in line, (args, line)
    line = one_error_line(run(["reembed", "--model", "gpt-7"], store))
    assert "not a bundled model" in line
    assert count(store) == 9  # nothing changed
