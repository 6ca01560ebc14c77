"""remem doctor (checks and safe repairs) and the online model switch (remem reembed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from test_cli import run

from helpers import HashEmbedder
from remem import Config, Memory
from remem.doctor import run_doctor


def cfg():
    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def test_doctor_finds_and_fixes(db_path):
    emb = HashEmbedder()
    with Memory(db_path, cfg(), embedder=emb) as mem:
        mem.ingest_many([{"id": f"r{i}", "text": f"row {i}", "speaker": "Al"} for i in range(5)])
        assert {f.status for f in run_doctor(mem)} == {"ok"}
        c = mem.store._conn
        rowid = mem.get("r1").rowid
        c.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
        c.execute("INSERT INTO records_fts (rowid, tokens, context) VALUES (999, 'ghost', '')")
        c.execute("UPDATE vectors SET vec = x'00' WHERE record_rowid = ?", (mem.get("r2").rowid,))
        mem.ingest({"id": "late", "text": "no vector yet"}, embed=False)
        found = {f.check: f for f in run_doctor(mem)}
        assert found["lexical index"].status == "warn"
        assert "1 records without lexical rows, 1 orphan rows" in found["lexical index"].detail
        assert found["vector blobs"].status == "error"
        assert found["missing vectors"].status == "warn"
        fixed = {f.check: f for f in run_doctor(mem, fix=True)}
        assert fixed["lexical index"].fixed and fixed["vector blobs"].fixed
        again = {f.check: f.status for f in run_doctor(mem)}
        assert set(again.values()) == {"ok"}, again
        assert mem.search("row 1", k=1, channels=("lexical",)).hits[0].record.id == "r1"


def test_a_model_without_vectors_is_reported_on_open(db_path, caplog):
    with Memory(db_path, cfg(), embedder=HashEmbedder()) as mem:
        mem.ingest({"text": "x"})
    with Memory(db_path, cfg()):
        pass
    assert any("test:hash64" in r.message and "remem reembed" in r.message for r in caplog.records)


def test_doctor_cli(tmp_path):
    db = tmp_path / "d.db"
    f = tmp_path / "in.jsonl"
    f.write_text('{"text": "hello"}\n')
    run(["ingest", str(f)], db)
    proc = run(["doctor", "--json"], db)
    assert proc.returncode == 0
    assert {d["check"] for d in json.loads(proc.stdout)} >= {
        "integrity",
        "schema",
        "lexical index",
        "missing vectors",
    }


SEARCHER = textwrap.dedent(
    """
    import sys, time
    from remem import Config, Memory
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    ok = 0
    with Memory(sys.argv[1], config) as mem:
        deadline = time.time() + float(sys.argv[2])
        while time.time() < deadline:
            result = mem.search("walking the dog in the park", k=3)
            # the vector channel served it (any hit: the score orders them, not a channel)
            assert any(h.explain.vector_rank is not None for h in result.hits)
            assert not result.degraded
            ok += 1
    print(ok)
    """
)


def test_online_reembed_while_another_process_searches(tmp_path):
    db = tmp_path / "switch.db"
    with Memory(db, cfg()) as mem:  # the default e5 model
        mem.ingest_many(
            [{"text": f"note {i}: walking the dog in the park, day {i}"} for i in range(400)]
        )
    searcher = subprocess.Popen(
        [sys.executable, "-c", SEARCHER, str(db), "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    env = {**os.environ, "REMEM_DB": str(db)}
    proc = subprocess.run(
        [sys.executable, "-m", "remem.cli", "reembed", "--model", "use-multilingual-v3", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["complete"] and report["embedded"] == 400
    out, err = searcher.communicate(timeout=120)
    assert searcher.returncode == 0, err
    assert int(out) > 0  # searched with the old model the whole time, never degraded
    with Memory(db, Config.load(env={}, overrides={"embed.model": "use-multilingual-v3"})) as m:
        assert {v["model_id"] for v in m.stats()["vectors"]} == {
            "local:multilingual-e5-small",
            "local:use-multilingual-v3",
        }
        assert m.search("dog park", k=1).hits[0].explain.vector_rank == 1
    dropped = subprocess.run(
        [
            sys.executable,
            "-m",
            "remem.cli",
            "reembed",
            "--model",
            "use-multilingual-v3",
            "--drop-old",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert json.loads(dropped.stdout)["dropped_old_vectors"] == 400
    with Memory(db, cfg()) as m:
        stats = m.stats()
        assert [v["model_id"] for v in stats["vectors"]] == ["local:use-multilingual-v3"]
        assert stats["index_status"] == {"indexed": 400}
        assert stats["file_bytes"] > 0
