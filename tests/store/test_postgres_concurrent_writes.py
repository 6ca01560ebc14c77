"""Concurrent writers of one PostgreSQL store (issue 47): a writer never waits for another's
row locks (the write counters and term statistics are per shard, a record's revision is its
transaction id), yet a reader's revision still never lets a later commit slip below it, and
the BM25 statistics add up. A store written before schema version 11 upgrades in place."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conformance import T, fields

from pg_server import fresh_schema, pg_url, schema_at_version
from remem.store.queries import LexicalQuery

psycopg = pytest.importorskip("psycopg")
from remem.store.postgres import PostgresStore  # noqa: E402

WAIT = 30  # seconds a step may take on a loaded machine before it counts as blocked


@pytest.fixture
def stores() -> Iterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores (two pools, as two processes have) over one fresh schema."""
    schema = fresh_schema()
    first = PostgresStore(pg_url(), schema=schema, pool_size=1)
    second = PostgresStore(pg_url(), schema=schema, pool_size=1)
    yield first, second
    first.close()
    second.close()


class Held:
    """``store.transaction()`` with ``body`` run inside, kept open in a thread until
    ``release()``: a writer that has written and not committed."""

    def __init__(self, store: PostgresStore, body: Callable[[], Any]) -> None:
        self._ready, self._go = threading.Event(), threading.Event()
        self.errors: list[BaseException] = []

        def run() -> None:
            try:
                with store.transaction():
                    body()
                    self._ready.set()
                    self._go.wait(WAIT * 2)
            except BaseException as exc:  # reported by the test
                self.errors.append(exc)
                self._ready.set()

        self._thread = threading.Thread(target=run)
        self._thread.start()
        assert self._ready.wait(WAIT) and not self.errors

    def release(self) -> None:
        self._go.set()
        self._thread.join(WAIT)
        assert not self._thread.is_alive() and not self.errors


def finishes(call: Callable[[], Any]) -> tuple[bool, threading.Thread]:
    """Run ``call`` in a thread; whether it returned within ``WAIT`` seconds."""
    done = threading.Event()

    def run() -> None:
        call()
        done.set()

    thread = threading.Thread(target=run)
    thread.start()
    return done.wait(WAIT), thread


def test_an_ingest_completes_while_another_writer_holds_its_transaction_open(stores):
    """Today's writers queue on each other's row locks (the revision counter, the write
    counter, the BM25 totals, a common term's frequency) until the first commits."""
    first, second = stores
    held = Held(first, lambda: first.insert_records([(fields(1), "ferry harbour")]))
    try:
        finished, thread = finishes(lambda: second.insert_records([(fields(2), "ferry museum")]))
    finally:
        held.release()
    thread.join(WAIT)
    assert finished, "the second writer waited for the first one's transaction to end"
    assert second.term_stats(["ferry", "museum", "harbour"]) == (
        2,
        {"ferry": 2, "museum": 1, "harbour": 1},
    )
    assert second.integrity_problems() == []


def test_a_record_committed_after_a_reader_looked_is_in_its_next_delta(stores):
    """The revision a reader takes as current sits below every write still running: a record
    whose transaction started first but commits after the reader looked comes in the
    reader's next ``filter_rows`` and ``index_delta`` (it would be lost if the reader took
    the highest revision it could see)."""
    first, second = stores
    held = Held(first, lambda: first.insert_records([(fields(1), "slow")]))
    try:
        finished, thread = finishes(lambda: second.insert_records([(fields(2), "quick")]))
        assert finished, "the second writer waited for the first one's transaction to end"
        rows, rev = second.filter_rows(0)
        _, meta, delta_rev, _ = second.index_delta("m", 2, 0, 0)
    finally:
        held.release()
    thread.join(WAIT)
    quick, slow = (second.rowids_for_ids([i])[0] for i in ("r2", "r1"))
    assert [r[0] for r in rows] == [quick] and [r[0] for r in meta] == [quick]
    later, newer = second.filter_rows(rev)
    assert slow in [r[0] for r in later] and newer > rev
    assert slow in [r[0] for r in second.index_delta("m", 2, 0, delta_rev)[1]]


def test_many_writers_at_once_keep_every_record_and_the_bm25_statistics(stores):
    """8 threads (4 on each pool) writing records that share terms: every record once, and
    the per-shard statistics add up to what the rows hold, also after deletes."""
    first, second = stores
    errors: list[BaseException] = []

    def write(store: PostgresStore, worker: int) -> None:
        try:
            for i in range(15):
                n = worker * 100 + i
                store.insert_records([(fields(n), f"ferry harbour w{worker} {i}")])
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(first if w % 2 else second, w)) for w in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 4)
    assert errors == [] and first.count() == 120
    assert first.term_stats(["ferry", "w3"]) == (120, {"ferry": 120, "w3": 15})
    assert first.integrity_problems() == []
    # shards are taken from the first free one: a term has no more rows than writers at once
    (most,) = first.query_one(
        "SELECT max(n) FROM (SELECT count(*) AS n FROM lexical_terms GROUP BY term) t"
    )
    assert 1 <= most <= 8
    first.delete([f"r{300 + i}" for i in range(15)])  # worker 3's
    assert second.term_stats(["ferry", "w3"]) == (105, {"ferry": 105})
    assert second.integrity_problems() == []
    hits = second.lexical_search(LexicalQuery(tokens=["harbour"]), 200)
    assert len(hits) == 105


def _version_10_store(schema: str) -> None:
    """A schema at version 10 holding two records and their BM25 statistics, written as
    version 10's code wrote them (one counter row each, one row per term)."""
    with psycopg.connect(pg_url(), autocommit=True) as c, c.transaction():
        schema_at_version(c, schema, 10)
        for n, words in ((1, ["ferry", "harbour"]), (2, ["ferry"])):
            f = fields(n)
            (rowid,) = c.execute(
                "INSERT INTO records (id, kind, text, created_at, content_hash, rev, "
                "updated_at) VALUES (%s, 'message', %s, %s, %s, %s, %s) RETURNING rowid",
                (f["id"], " ".join(words), f["created_at"], f["content_hash"], n, T),
            ).fetchone()
            doc = " ".join(f"'{w}':1A" for w in words)
            c.execute(
                "INSERT INTO lexical (rowid, tok, ctx, doc, len) VALUES (%s, %s, '{}', %s, %s)",
                (rowid, words, doc, len(words)),
            )
            for w in words:
                c.execute(
                    "INSERT INTO lexical_terms VALUES (%s, 1, 1) ON CONFLICT (term) DO UPDATE "
                    "SET df_tok = lexical_terms.df_tok + 1, df_any = lexical_terms.df_any + 1",
                    (w,),
                )
            c.execute(
                "UPDATE counters SET value = value + CASE name WHEN 'lex_rows' THEN 1 "
                "WHEN 'lex_terms' THEN %s ELSE 1 END WHERE name IN ('lex_rows', 'lex_terms', "
                "'rev', 'writes')",
                (len(words),),
            )


def test_a_version_10_store_upgrades_with_its_statistics_and_revisions():
    schema = fresh_schema()
    _version_10_store(schema)
    store = PostgresStore(pg_url(), schema=schema, pool_size=1)
    try:
        assert store.schema_version() >= 11
        assert store.term_stats(["ferry", "harbour"]) == (2, {"ferry": 2, "harbour": 1})
        assert store.integrity_problems() == []
        rows, rev = store.filter_rows(0)
        assert len(rows) == 2 and rev >= 2  # past the old counter's revisions
        store.insert_records([(fields(3), "harbour")])
        later, newer = store.filter_rows(rev)
        assert [r[0] for r in later] == store.rowids_for_ids(["r3"]) and newer > rev
        assert store.term_stats(["harbour"]) == (3, {"harbour": 2})
        store.delete(["r1"])
        assert store.term_stats(["ferry", "harbour"]) == (2, {"ferry": 1, "harbour": 1})
        assert store.integrity_problems() == []
    finally:
        store.close()
