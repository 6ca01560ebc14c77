"""Migration from a memory-lancedb(-pro) LanceDB table built here in that schema."""

from __future__ import annotations

import json

import lancedb
import pytest
from test_cli import one_error_line, run

from remem import Config, Memory
from remem import migrate as m
from remem.errors import RememError


@pytest.fixture
def lance_dir(tmp_path):
    d = tmp_path / "lance"
    db = lancedb.connect(str(d))
    rows = [
        {
            "id": f"mem-{i}",
            "text": f"memory number {i} about tea",
            "vector": [0.1 * i, 0.2, 0.3],
            "category": "preference" if i % 2 else "fact",
            "scope": "global" if i < 3 else "agent:x",
            "importance": 0.9,
            "timestamp": 1_700_000_000_000 + i,
            "metadata": json.dumps({"n": i}),
        }
        for i in range(6)
    ]
    rows.append(
        {
            "id": "weird",
            "text": "odd scope",
            "vector": [0.0, 0.0, 1.0],
            "category": None,
            "scope": "my team",
            "importance": float("nan"),
            "timestamp": 0,
            "metadata": "not json",
        }
    )
    rows.append(
        {
            "id": "empty",
            "text": "",
            "vector": [0.0, 1.0, 0.0],
            "category": "fact",
            "scope": "global",
            "importance": 0.5,
            "timestamp": 1,
            "metadata": "{}",
        }
    )
    db.create_table("memories", data=rows)
    return d


def cfg():
    return Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})


def test_check_run_verify(lance_dir, db_path):
    report = m.check(lance_dir)
    assert report.table == "memories" and report.rows == 8 and report.missing_columns == []
    with Memory(db_path, cfg()) as mem:
        dry = m.run(mem, lance_dir, dry_run=True)
        assert dry.added == 7 and mem.store.count() == 0
        done = m.run(mem, lance_dir)
        assert done.added == 7 and [i["id"] for i in done.invalid] == ["empty"]
        rec = mem.get("mem-3")
        assert (rec.kind, rec.scope, rec.category, rec.importance) == (
            "memory",
            "agent:x",
            "preference",
            0.9,
        )
        assert rec.created_at == pytest.approx(1_700_000_000.003)
        assert rec.metadata["n"] == 3 and rec.metadata["migrated_from"] == "lancedb"
        weird = mem.get("weird")
        assert weird.scope == "global" and weird.metadata["source_scope"] == "my team"
        assert weird.importance == 0.5 and weird.metadata["raw_metadata"] == "not json"
        with pytest.raises(RememError, match="skip-existing"):
            m.run(mem, lance_dir)
        again = m.run(mem, lance_dir, skip_existing=True)
        assert again.added == 0 and again.skipped == 7
        checked = m.verify(mem, lance_dir)
        assert checked.added == 7 and checked.sample_mismatches == ["empty: missing"]


def test_migrate_cli_and_errors(lance_dir, tmp_path):
    db = tmp_path / "m.db"
    proc = run(["migrate", "check", "--source", str(lance_dir), "--json"], db, lexical=True)
    assert json.loads(proc.stdout)["rows"] == 8
    out = json.loads(
        run(["migrate", "run", "--source", str(lance_dir), "--json"], db, lexical=True).stdout
    )
    assert out["added"] == 7
    assert "not a LanceDB directory" in one_error_line(
        run(["migrate", "check", "--source", str(tmp_path / "nope")], db, lexical=True)
    )
    assert "invalid action" in one_error_line(
        run(["migrate", "explode", "--source", str(lance_dir)], db, lexical=True)
    )
    assert "no table 'x'" in one_error_line(
        run(["migrate", "check", "--source", str(lance_dir), "--table", "x"], db, lexical=True)
    )
