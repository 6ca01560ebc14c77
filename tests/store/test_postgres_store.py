"""What only the PostgreSQL store does: BM25 equal to FTS5's, server-side vector search
(exact and HNSW, filtered), migrations racing, and the embedding queue shared by processes
through claims. The protocol itself is covered by the conformance suite (``store`` fixture)."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conformance import T, fields

from pg_server import fresh_schema, pg_url
from remem.store.base import ClaimStore, NearestStore
from remem.store.queries import Backlog, LexicalQuery, NearestQuery, TextUpdate, VectorWrite
from remem.store.sqlite import SQLiteStore
from remem.types import Filters

psycopg = pytest.importorskip("psycopg")
from remem.store.postgres import PostgresStore  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture
def pg():
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)
    yield store
    store.close()


@pytest.mark.parametrize("context_weight", [0.0, 0.4, 2.0])
def test_bm25_scores_equal_fts5s(tmp_path, pg, context_weight):
    rng = random.Random(7)
    words = [f"w{i}" for i in range(25)] + ["Élan", "foo-bar", "苹果"]  # folded; a phrase
    rows = [
        (
            fields(i),
            " ".join(rng.choices(words, k=rng.randint(0, 10))),
            " ".join(rng.choices(words, k=rng.randint(0, 10))),
        )
        for i in range(150)
    ]
    sqlite = SQLiteStore(tmp_path / "s.db")
    sqlite.insert_records(rows)
    pg.insert_records(rows)
    for _ in range(40):
        query = rng.sample([*words, "élan", "w1 w2"], k=rng.randint(1, 4))
        want = dict(sqlite.lexical_search(LexicalQuery(query, None, None, context_weight), 1000))
        got = dict(pg.lexical_search(LexicalQuery(query, None, None, context_weight), 1000))
        assert got.keys() == want.keys(), query
        for rowid, score in want.items():
            assert got[rowid] == pytest.approx(score, rel=1e-9), (query, rowid)
    sqlite.close()


def test_bm25_statistics_follow_updates_and_deletes(tmp_path, pg):
    rows = [(fields(i), f"alpha beta{i % 3}", "gamma" if i % 2 else "") for i in range(30)]
    sqlite = SQLiteStore(tmp_path / "s.db")
    for store in (sqlite, pg):
        rowids = store.insert_records(rows)
        store.update_text(TextUpdate(rowids[0], "x", "h", "alpha alpha delta"))
        store.delete([f"r{i}" for i in range(5, 12)])
    for query in (["alpha"], ["beta1", "delta"], ["gamma"]):
        want = dict(sqlite.lexical_search(LexicalQuery(query, None, None, 0.5), 100))
        got = dict(pg.lexical_search(LexicalQuery(query, None, None, 0.5), 100))
        assert got.keys() == want.keys()
        for rowid, score in want.items():
            assert got[rowid] == pytest.approx(score, rel=1e-9)
    assert pg.term_stats(["alpha", "gamma", "nope"]) == sqlite.term_stats(
        ["alpha", "gamma", "nope"]
    )
    assert pg.integrity_problems() == []
    sqlite.close()


def _clustered(n: int, dim: int, seed: int = 3) -> np.ndarray:
    """Unit vectors around 20 centres: like real embeddings, unlike uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, dim))
    x = centres[rng.integers(0, 20, n)] + 0.35 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _fill(store, vectors: np.ndarray) -> list[int]:
    rows = [(fields(i, scope="even" if i % 2 == 0 else "odd"), "") for i in range(len(vectors))]
    rowids = [r for r in store.insert_records(rows) if r is not None]
    store.put_vectors(VectorWrite("m", "p", "m", list(zip(rowids, vectors, strict=True))))
    return rowids


def test_nearest_exact_and_hnsw_agree_with_brute_force(pg):
    assert isinstance(pg, NearestStore)
    drawn = _clustered(3020, 32)  # the last 20 are queries from the same clusters
    vectors, queries = drawn[:3000], drawn[3000:]
    rowids = np.array(_fill(pg, vectors))
    exact = [pg.nearest(NearestQuery("m", 32, q, 10)) for q in queries]
    for q, hits in zip(queries, exact, strict=True):
        best = np.argsort(-(vectors @ q))[:10]
        assert [r for r, _ in hits] == rowids[best].tolist()
        assert [s for _, s in hits] == pytest.approx((vectors @ q)[best].tolist(), abs=1e-5)
    assert pg.build_vector_index("m", 32)
    assert pg._has_index("m", 32)
    found = 0
    for q, want in zip(queries, exact, strict=True):
        got = pg.nearest(NearestQuery("m", 32, q, 10))
        assert len(got) == 10 and [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        found += len({r for r, _ in got} & {r for r, _ in want})
    assert found / (10 * len(queries)) >= 0.95  # HNSW recall@10 against exact


def test_hnsw_search_widens_with_the_index_size(pg):
    from remem.store.postgres.nearest import search_expansion

    assert search_expansion(0, 10) == search_expansion(20_000, 10) == 40  # pgvector's default
    assert search_expansion(20_000, 100) == 100  # one pass can fill the page
    assert search_expansion(80_000, 10) == 80
    assert search_expansion(1_000_000, 10) == 283
    assert search_expansion(10**9, 10) == 1000  # pgvector's maximum
    vectors = _clustered(3000, 32)
    _fill(pg, vectors)
    pg.build_vector_index("m", 32)
    assert pg._index_size("m", 32) == 3000  # the planner's count, set by the build
    widths = []
    real = pg.read

    def spy():
        conn = real()
        return _RecordingRead(conn, widths)

    pg.read = spy
    pg.nearest(NearestQuery("m", 32, vectors[0], 10))
    assert widths == ["40"]


class _RecordingRead:
    """A read transaction that notes the ``hnsw.ef_search`` each search sets."""

    def __init__(self, inner, widths):
        self.inner, self.widths = inner, widths

    def __enter__(self):
        conn = self.inner.__enter__()
        widths = self.widths

        class Conn:
            def execute(self, statement, *args):
                text = statement.as_string(conn) if hasattr(statement, "as_string") else statement
                if "hnsw.ef_search" in text:
                    widths.append(text.rsplit("=", 1)[1].strip().strip("'"))
                return conn.execute(statement, *args)

        return Conn()

    def __exit__(self, *exc):
        return self.inner.__exit__(*exc)


def test_filtered_hnsw_search_still_returns_k(pg):
    vectors = _clustered(3000, 32)
    rowids = _fill(pg, vectors)
    pg.build_vector_index("m", 32)
    odd = set(rowids[1::2])
    hits = pg.nearest(NearestQuery("m", 32, vectors[0], 50, Filters(scopes=["odd"])))
    assert len(hits) == 50 and {r for r, _ in hits} <= odd
    rare = Filters(ids=["r7", "r2001"])  # very selective: the exact retry fills it
    assert sorted(r for r, _ in pg.nearest(NearestQuery("m", 32, vectors[0], 5, rare))) == [
        rowids[7],
        rowids[2001],
    ]
    pg.set_validity(rowids[1], T, {})
    gone = pg.nearest(
        NearestQuery("m", 32, vectors[1], 5, Filters(include_superseded=False), now=T + 1)
    )
    assert rowids[1] not in [r for r, _ in gone]


def test_migrations_race_safely():
    schema = fresh_schema()
    stores: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            stores.append(PostgresStore(pg_url(), schema=schema, pool_size=1))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 4
    stores[0].insert_records([(fields(1), "one")])
    assert [s.count() for s in stores] == [1, 1, 1, 1]  # one schema, seen by all
    for s in stores:
        s.close()


def test_a_version_8_schema_gets_the_fact_tables(monkeypatch):
    from remem.store.postgres import schema as pg_schema
    from remem.types import Fact

    name = fresh_schema()
    up_to_8 = [m for m in pg_schema.MIGRATIONS if m[0] <= 8]
    monkeypatch.setattr("remem.store.postgres.connection.MIGRATIONS", up_to_8)
    monkeypatch.setattr("remem.store.postgres.connection.LATEST_VERSION", 8)
    old = PostgresStore(pg_url(), schema=name, pool_size=1)
    old.close()
    # records as version 8's code wrote them (today's code writes what version 11 has)
    with psycopg.connect(pg_url(), autocommit=True) as c:
        for i in range(3):
            c.execute(
                f"INSERT INTO {name}.records (id, kind, text, created_at, content_hash, "
                "rev, updated_at) VALUES (%s, 'message', 't', %s, %s, %s, %s)",
                (f"r{i}", T + i, f"h{i}", i + 1, T),
            )
        c.execute(f"UPDATE {name}.counters SET value = 3 WHERE name = 'rev'")
    monkeypatch.undo()
    store = PostgresStore(pg_url(), schema=name, pool_size=1)
    try:
        assert store.schema_version() == pg_schema.LATEST_VERSION and store.count() == 3
        assert store.count_awaiting_facts() == 0  # the facts backlog came with the latest
        fact = Fact("f1", "global", "name:tom", "Tom", "lives_in", "Shanghai", 5.0, 5.0)
        store.put_facts([dataclasses.replace(fact, source_ids=("r1",))])
        assert [f.value for f in store.facts_citing(["r1"])] == ["Shanghai"]
        store.delete(["r1"])
        assert store.facts() == [] and store.stats()["facts"] == 0
    finally:
        store.close()


def test_two_writers_of_one_fact_leave_one_writers_sources(pg):
    """A second writer of a fact waits for the first to commit, then replaces the fact and
    all of its sources: never a unique-key error, never a mix of both writers' sources."""
    from remem.types import Fact

    other = PostgresStore(pg.url, schema=pg._schema, pool_size=1)
    fact = Fact("f1", "global", "name:tom", "Tom", "lives_in", "Shenzhen", 5.0, 5.0)
    errors: list[BaseException] = []

    def second_writer() -> None:
        try:
            other.put_facts([dataclasses.replace(fact, value="Shanghai", source_ids=("r2",))])
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        with pg.transaction():
            pg.put_facts([dataclasses.replace(fact, source_ids=("r1",))])
            writer = threading.Thread(target=second_writer)
            writer.start()
            with psycopg.connect(pg.url, autocommit=True) as watch:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and writer.is_alive():
                    waiting = watch.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND query LIKE 'INSERT INTO facts%%'"
                    ).fetchone()[0]
                    if waiting:
                        break
                    time.sleep(0.05)
                else:
                    pytest.fail("the second writer never waited for the first")
        writer.join(timeout=60)
        assert errors == []
        (stored,) = pg.facts()
        assert (stored.value, stored.source_ids) == ("Shanghai", ("r2",))
        assert pg.facts_citing(["r1"]) == [] and pg.facts_citing(["r2"]) == [stored]
    finally:
        other.close()


def test_claims_split_the_backlog_and_expire(pg):
    assert isinstance(pg, ClaimStore)
    pg.insert_records([(fields(i), "") for i in range(10)])
    a = pg.claim_missing_vectors(Backlog("m", 4), "a")
    b = pg.claim_missing_vectors(Backlog("m", 100), "b")
    assert len(a) == 4 and len(b) == 6 and not {r.rowid for r in a} & {r.rowid for r in b}
    assert pg.claim_missing_vectors(Backlog("m", 100), "c") == []  # everything is held
    assert len(pg.claim_missing_vectors(Backlog("other-model", 100), "c")) == 10
    # done: unclaimed
    pg.put_vectors(VectorWrite("m", "p", "m", [(r.rowid, np.ones(3)) for r in a[:2]]))
    assert pg.release_claims("m", "a") == 2  # a gives back what it did not finish
    again = pg.claim_missing_vectors(Backlog("m", 100), "c")
    assert [r.rowid for r in again] == [r.rowid for r in a[2:]]
    crashed = pg.claim_missing_vectors(Backlog("m", 0), "d")
    assert crashed == []
    with pytest.raises(ValueError, match=r"Backlog\.before_rowid"):
        pg.claim_missing_vectors(Backlog("m", 10, before_rowid=5), "d")
    short = PostgresStore(pg.url, schema=pg._schema, pool_size=1)
    pg.release_claims("m", "b")
    assert len(short.claim_missing_vectors(Backlog("m", 100), "e", lease_s=-1)) == 6  # expired
    assert len(pg.claim_missing_vectors(Backlog("m", 100), "f")) == 6  # taken over
    short.close()


WORKER = """
import json, sys
from helpers import HashEmbedder
from remem import Config, Memory
url, schema, out = sys.argv[1:4]
embedder = HashEmbedder()
config = Config.load(env={}, overrides={"store.url": url, "store.pg_schema": schema})
with Memory(config=config, embedder=embedder) as mem:
    report = mem.embed_pending(batch_size=7)
with open(out, "w") as fh:
    json.dump({"seen": embedder.seen, "report": report}, fh)
"""


def test_two_processes_embed_the_backlog_once(pg, tmp_path):
    texts = [f"message number {i}" for i in range(120)]
    pg.insert_records([(fields(i, text=t), t) for i, t in enumerate(texts)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    outs = [tmp_path / f"w{i}.json" for i in range(2)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, pg.url, pg._schema, str(out)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for out in outs
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read() if p.stderr else ""
    seen = [json.loads(out.read_text())["seen"] for out in outs]
    assert sorted(seen[0] + seen[1]) == sorted(texts)  # every record once, none twice
    assert pg.count_missing_vectors("test:hash64") == 0
    assert pg.vector_count("test:hash64") == 120


def _waiting_for_transaction_lock(schema: str) -> int:
    """Connections waiting for the ``transaction()`` lock of the store in ``schema``."""
    with psycopg.connect(pg_url(), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND classid = %s AND objsubid = 2 "
            "AND objid::bigint = (hashtext(%s)::bigint + 4294967296) %% 4294967296",
            (0x72656D, schema),
        ).fetchone()
    return int(row[0]) if row else 0


def test_transactions_on_one_store_run_one_at_a_time():
    """Two pools on one schema (two processes): the second transaction waits for the first
    to end and then reads what it committed, so two supersessions never both find the same
    version current. A store in another schema does not wait."""
    schema = fresh_schema()
    one, two = (PostgresStore(pg_url(), schema=schema, pool_size=2) for _ in range(2))
    other = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)
    order: list[str] = []
    seen = []

    def second() -> None:
        with two.transaction():
            order.append("second began")
            seen.append(two.get("r1"))

    try:
        with one.transaction():
            one.insert_records([(fields(1), "")])
            thread = threading.Thread(target=second)
            thread.start()
            with other.transaction():
                order.append("other schema")
            deadline = time.monotonic() + 30
            while not _waiting_for_transaction_lock(schema) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _waiting_for_transaction_lock(schema) == 1
            order.append("first ends")
        thread.join(timeout=30)
        assert order == ["other schema", "first ends", "second began"]
        assert seen[0] is not None and seen[0].id == "r1"
    finally:
        for store in (one, two, other):
            store.close()
