"""Migration from memory-lancedb (OpenClaw's built-in plugin) and memory-lancedb-pro: their
LanceDB tables built here in each plugin's schema, and memory-lancedb-pro's JSON export."""

from __future__ import annotations

import json

import lancedb
import pytest
from test_cli import one_error_line, run

from remem import Config, Memory
from remem import lancedb_import as m
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
        assert rec.metadata["n"] == 3 and rec.metadata["migrated_from"] == "memory-lancedb-pro"
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


TS_2020 = 1_583_020_800_000  # 2020-03-01, in ms as both plugins store it


@pytest.fixture
def builtin_dir(tmp_path):
    """A table as OpenClaw's memory-lancedb writes it: createdAt (ms), agentId, scope ''."""
    d = tmp_path / "home" / ".openclaw" / "memory" / "lancedb"
    rows = [
        {
            "id": "6f1c2b9e-0000-4000-8000-000000000001",
            "text": "I live in Porto",
            "vector": [0.1, 0.2, 0.3],
            "importance": 0.7,
            "category": "fact",
            "createdAt": TS_2020,
            "agentId": "main",
            "scope": "",
        },
        {
            "id": "6f1c2b9e-0000-4000-8000-000000000002",
            "text": "I prefer aisle seats",
            "vector": [0.3, 0.2, 0.1],
            "importance": 0.5,
            "category": "preference",
            "createdAt": TS_2020 + 86_400_000,
            "agentId": "main",
            "scope": "travel",
        },
    ]
    lancedb.connect(str(d)).create_table("memories", data=rows)
    return d


def test_builtin_table_keeps_its_dates(builtin_dir, db_path):
    report = m.check(builtin_dir)
    assert report.flavour == "memory-lancedb" and report.missing_columns == []
    with Memory(db_path, cfg()) as mem:
        done = m.run(mem, builtin_dir, default_scope="agent:remy")
        assert done.added == 2 and done.invalid == []
        porto = mem.get("6f1c2b9e-0000-4000-8000-000000000001")
        assert porto.created_at == pytest.approx(TS_2020 / 1000)  # not today
        assert porto.scope == "agent:remy"  # it had none
        assert porto.metadata["migrated_from"] == "memory-lancedb"
        assert porto.metadata["source_agent"] == "main"
        seats = mem.get("6f1c2b9e-0000-4000-8000-000000000002")
        assert seats.scope == "custom:travel" and seats.metadata["source_scope"] == "travel"


@pytest.fixture
def pro_export(tmp_path):
    """The file `openclaw memory-pro export --output FILE` writes (cli.ts): pretty-printed,
    vectors left out, metadata a JSON string."""
    data = {
        "version": "1.0",
        "exportedAt": "2026-01-05T10:00:00.000Z",
        "count": 3,
        "filters": {},
        "memories": [
            {
                "id": "p1",
                "text": "I moved to Lisbon",
                "category": "fact",
                "scope": "global",
                "importance": 0.8,
                "timestamp": TS_2020,
                "metadata": '{"source": "auto"}',
            },
            {
                "id": "p2",
                "text": "我喜欢喝绿茶",
                "category": "preference",
                "scope": "agent:remy",
                "importance": 0.6,
                "timestamp": TS_2020 + 1000,
                "metadata": {"l0": "tea"},
            },
            {
                "id": "p3",
                "text": "We use PostgreSQL",
                "category": "decision",
                "importance": 0.9,
                "timestamp": TS_2020 + 2000,
            },
        ],
    }
    f = tmp_path / "memories-export.json"
    f.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return f


def test_pro_json_export_is_accepted(pro_export, db_path):
    report = m.check(pro_export)
    assert (report.flavour, report.rows) == ("memory-lancedb-pro export", 3)
    with Memory(db_path, cfg()) as mem:
        done = m.run(mem, pro_export, default_scope="user:ann")
        assert done.added == 3 and done.invalid == []
        lisbon, tea, pg = mem.get("p1"), mem.get("p2"), mem.get("p3")
        assert lisbon.created_at == pytest.approx(TS_2020 / 1000)
        assert lisbon.metadata["source"] == "auto" and tea.metadata["l0"] == "tea"
        assert (lisbon.scope, tea.scope, pg.scope) == ("global", "agent:remy", "user:ann")
        assert m.verify(mem, pro_export).sample_mismatches == []


def test_a_file_that_is_no_export_says_what_it_expected(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"records": []}', encoding="utf-8")
    with pytest.raises(RememError, match="memories"):
        m.check(bad)


def test_default_sources_follow_each_plugin(tmp_path, builtin_dir):
    home = tmp_path / "home"
    assert m.default_sources(home=home, env={}) == [
        home / ".openclaw" / "memory" / "lancedb-pro",
        home / ".openclaw" / "memory" / "lancedb",
    ]
    state = tmp_path / "state"
    assert m.default_sources(home=home, env={"OPENCLAW_STATE_DIR": str(state)})[0] == (
        state / "memory" / "lancedb-pro"
    )
    assert m.find_source(home=home, env={}) == builtin_dir  # the only one there
    with pytest.raises(RememError, match="lancedb-pro"):
        m.find_source(home=tmp_path / "empty", env={})


def test_migrate_cli_without_source_and_with_default_scope(builtin_dir, tmp_path):
    db = tmp_path / "m.db"
    env = {"HOME": str(tmp_path / "home")}
    out = run(
        ["migrate", "run", "--default-scope", "agent:remy", "--json"],
        db,
        env_extra=env,
        lexical=True,
    )
    report = json.loads(out.stdout)
    assert report["source"] == str(builtin_dir) and report["added"] == 2
    bad = run(["migrate", "run", "--default-scope", "nope"], db, env_extra=env, lexical=True)
    assert "--default-scope" in one_error_line(bad)
