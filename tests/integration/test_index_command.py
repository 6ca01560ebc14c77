"""`remem index` and the index build at the end of `remem import`: a short-lived process
builds the vector index in the foreground, so the next process opens it instead of reading
every vector from the database."""

from __future__ import annotations

import json

import numpy as np
from test_cli import run

from remem import Config, Memory
from remem.index.snapshot import index_dir, model_dir, read_info
from remem.store.queries import VectorWrite
from remem.transfer import export_file

E5_ID = "local:multilingual-e5-small"


class E5Labelled:
    """Reports the default model's id, so vectors written with it are the ones the CLI's
    default configuration searches; never asked to embed (every record brings its vector)."""

    provider, model, model_id, dim, default_chunk_chars = (
        "local",
        "multilingual-e5-small",
        E5_ID,
        384,
        0,
    )

    def embed_passages(self, texts):
        raise AssertionError("every record brings its vector")

    embed_queries = embed_passages


def store_with_vectors(db, n: int) -> None:
    rng = np.random.default_rng(3)
    cfg = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db, cfg, embedder=E5Labelled()) as mem:
        records = mem.ingest_many(
            [{"id": f"r{i}", "text": f"note {i} about otters", "session": "s"} for i in range(n)],
            embed=False,
        )
        vecs = rng.standard_normal((n, 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        mem.store.put_vectors(
            VectorWrite(
                E5_ID,
                "local",
                "multilingual-e5-small",
                list(zip([r.rowid for r in records], vecs, strict=True)),
            ),
        )


def test_index_builds_a_snapshot_once_and_then_reports_it_current(tmp_path):
    db = tmp_path / "m.db"
    store_with_vectors(db, 50)
    assert read_info(model_dir(index_dir(db), E5_ID)) is None
    quiet = json.loads(run(["index", "--json"], db).stdout)  # 50 vectors: a scan, no snapshot
    assert (quiet["built"], quiet["vectors"]) == (False, 50)
    assert "scan" in quiet["reason"]
    proc = run(["index", "--force", "--json"], db)
    report = json.loads(proc.stdout)
    assert (report["built"], report["vectors"], report["graph"]) == (True, 50, False)
    assert report["file_bytes"] > 50 * 384 * 4 and report["model_id"] == E5_ID
    info = read_info(model_dir(index_dir(db), E5_ID))
    assert info is not None and info.count == 50
    again = json.loads(run(["index", "--json"], db).stdout)
    assert (again["built"], again["reason"]) == (False, "")
    assert "already current" in run(["index"], db).stdout


def test_import_builds_the_index_its_records_made_due(tmp_path):
    source, target, dump = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "dump.jsonl"
    store_with_vectors(source, 10_000)  # the delta that makes a snapshot due
    with Memory(source, Config.load(env={}), embedder=E5Labelled()) as mem:
        export_file(mem, dump, with_vectors=True)
    report = json.loads(run(["import", str(dump), "--json"], target).stdout)
    assert (report["added"], report["vectors"]) == (10_000, 10_000)
    assert report["index"]["built"] and report["index"]["vectors"] == 10_000
    info = read_info(model_dir(index_dir(target), E5_ID))
    assert info is not None and info.count == 10_000
    plain = run(["import", str(dump)], target).stdout  # nothing added: nothing to build
    assert "skipped 10000" in plain and "vector index" not in plain


def test_a_store_without_a_file_has_no_index_to_build():
    from remem import ops
    from remem.store.memory import InMemoryStore

    with Memory(store=InMemoryStore(), config=Config.load(env={}), embedder=E5Labelled()) as mem:
        report = ops.build_vector_index(mem)
    assert not report.built and "no file" in report.reason


def test_a_one_shot_search_leaves_the_build_to_remem_index_and_says_so(tmp_path):
    db = tmp_path / "m.db"
    store_with_vectors(db, 10_000)  # enough to make a snapshot due
    proc = run(["search", "note about otters", "--json"], db)
    assert proc.returncode == 0, proc.stderr
    said = json.dumps(json.loads(proc.stdout)) + proc.stderr
    assert "`remem index` rebuilds them" in said
    assert read_info(model_dir(index_dir(db), E5_ID)) is None  # no build started and killed
    assert not list(model_dir(index_dir(db), E5_ID).glob("*.npy"))
    run(["index"], db)
    after = run(["search", "note about otters", "--json"], db)
    assert "remem index" not in after.stdout + after.stderr
