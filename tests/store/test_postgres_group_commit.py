"""PostgreSQL group commit (issue 47, item 1; ``store/postgres/group_commit.py``): one
process's message writes that arrive while others run go out together as one statement and
one commit. A group writes exactly what its writes would have written one by one (records,
lexical rows, BM25 statistics, facts marks), each write keeps its own outcome (a taken id, a
moved context), and a process killed with SIGKILL while its threads' writes are grouped
loses no acknowledged write and leaves nothing half written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conformance import fields

from pg_server import fresh_schema, pg_url

psycopg = pytest.importorskip("psycopg")
from remem.errors import ValidationError  # noqa: E402
from remem.store.base import ContextMoved, PreviousTurn  # noqa: E402
from remem.store.postgres import PostgresStore  # noqa: E402
from remem.store.postgres.records import _OneRecord  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]


def _state(store: PostgresStore) -> dict[str, Any]:
    """What a write leaves, by record id (rowids, revisions and times differ by run)."""
    with store._pool.connection() as conn:
        records = conn.execute(
            "SELECT id, kind, text, session, created_at, content_hash, index_status, speaker_id "
            "FROM records ORDER BY id"
        ).fetchall()
        lexical = conn.execute(
            "SELECT r.id, l.tok, l.ctx, l.doc::text, l.len FROM lexical l "
            "JOIN records r ON r.rowid = l.rowid ORDER BY r.id"
        ).fetchall()
        backlog = conn.execute(
            "SELECT r.id FROM facts_backlog b JOIN records r ON r.rowid = b.record_rowid "
            "ORDER BY r.id"
        ).fetchall()
        terms = conn.execute(
            "SELECT term, sum(df_tok), sum(df_any) FROM lexical_terms GROUP BY term "
            "HAVING sum(df_any) <> 0 OR sum(df_tok) <> 0 ORDER BY term"
        ).fetchall()
        totals = conn.execute("SELECT sum(lex_rows), sum(lex_terms) FROM write_counts").fetchone()
    return {
        "records": records,
        "lexical": lexical,
        "backlog": backlog,
        "terms": terms,
        "totals": totals,
    }


def _items(first: int) -> list[_OneRecord]:
    """Writes of every kind a group meets: plain, checked against the turn before, a check
    that fails, a taken id, a record not indexed, context tokens, Chinese terms."""
    now = 1.9e9
    return [
        _OneRecord((fields(10, session="a"), "ferry museum", "warm up"), None, now, True),
        _OneRecord(
            (fields(11, session="s"), "博物馆 ferry", "warm up"),
            PreviousTurn(first, "h1"),
            now,
            True,
        ),
        _OneRecord(  # assumes a turn that is not the latest before it: nothing written
            (fields(12, session="t"), "lantern", "warm up"), PreviousTurn(first, "h1"), now, True
        ),
        _OneRecord((fields(1, session="b"), "taken id", ""), None, now, True),
        _OneRecord((fields(13, session="c", index_status="skipped"), "", ""), None, now, True),
        _OneRecord((fields(14), "ferry ferry 今天 博物馆", "lantern museum"), None, now, False),
    ]


def test_a_group_writes_exactly_what_its_writes_alone_would():
    stores = [PostgresStore(pg_url(), schema=fresh_schema()) for _ in range(2)]
    try:
        outcomes = []
        for n, store in enumerate(stores):
            (first,) = store.insert_records([(fields(1, session="s"), "warm up", "")])
            assert first is not None
            items = _items(first)
            if n == 0:
                outcomes.append(store._records_together(items))
            else:
                outcomes.append([store._record_alone(item) for item in items])
        together, alone = outcomes
        # the same outcome per write: rowid or None (taken id, failed check), check passed
        assert [(r is not None, ok) for r, ok in together] == [
            (r is not None, ok) for r, ok in alone
        ]
        assert [ok for _, ok in together] == [True, True, False, True, True, True]
        assert together[3][0] is None  # the taken id
        assert _state(stores[0]) == _state(stores[1])
        for store in stores:
            assert store.integrity_problems() == []
            assert store.lexical_row_problems() == ([], [])
    finally:
        for store in stores:
            store.close()


def _held_leader(store: PostgresStore, waiting: int) -> threading.Event:
    """Make the first write that runs alone wait until ``waiting`` others queue behind it,
    so that they go out as one group."""
    real = store._record_alone
    first = threading.Event()

    def held(item: _OneRecord) -> Any:
        if not first.is_set():
            first.set()
            deadline = time.monotonic() + 30
            while len(store._groups._waiting) < waiting and time.monotonic() < deadline:
                time.sleep(0.005)
        return real(item)

    store._record_alone = held  # type: ignore[method-assign]
    return first


def test_concurrent_messages_share_one_statement_and_each_keeps_its_outcome():
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=8, writes_in_flight=1)
    try:
        (first,) = store.insert_records([(fields(1, session="s"), "warm up", "")])
        _held_leader(store, waiting=5)
        out: dict[str, Any] = {}

        def write(name: str, call: Any) -> None:
            try:
                out[name] = call()
            except Exception as exc:
                out[name] = exc

        calls = {
            "leader": lambda: store.insert_records([(fields(20, session="x"), "lead", "")]),
            "plain": lambda: store.insert_records(
                [(fields(21, session="y"), "ferry", "")], awaiting_facts=True
            ),
            "taken": lambda: store.insert_records([(fields(1, session="z"), "again", "")]),
            "skipped": lambda: store.insert_records(
                [(fields(22, session="w"), "x", "")], on_conflict="skip"
            ),
            "checked": lambda: store.insert_assuming(
                (fields(23, session="s"), "museum", "warm up"), PreviousTurn(first, "h1")
            ),
            "moved": lambda: store.insert_assuming(
                (fields(24, session="t"), "lantern", ""), PreviousTurn(first, "h1")
            ),
        }
        threads = []
        for name, call in calls.items():
            threads.append(threading.Thread(target=write, args=(name, call)))
            threads[-1].start()
            if name == "leader":  # the others queue behind it
                while store._groups._running == 0:
                    time.sleep(0.005)
        for t in threads:
            t.join(60)
        assert (store._groups.groups, store._groups.grouped) == (1, 5)
        assert isinstance(out["taken"], ValidationError) and "r1" in str(out["taken"])
        assert isinstance(out["moved"], ContextMoved)
        assert all(isinstance(out[n], list) and out[n][0] for n in ("leader", "plain", "skipped"))
        assert isinstance(out["checked"], int)
        assert store.get("r24") is None and store.get("r1").session == "s"
        with store._pool.connection() as conn:
            marked = conn.execute(
                "SELECT r.id FROM facts_backlog b JOIN records r ON r.rowid = b.record_rowid"
            ).fetchall()
        assert marked == [("r21",)]  # only the write that asked for it
        assert store.integrity_problems() == []
    finally:
        store.close()


def test_many_threads_writing_at_once_leave_sound_statistics():
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=8, writes_in_flight=1)
    errors: list[BaseException] = []
    try:

        def writer(w: int) -> None:
            try:
                for i in range(40):
                    row = fields(1000 * w + i, session=f"s{i % 3}", text=f"w{w} {i}")
                    store.insert_records([(row, f"ferry w{w} n{i} 博物馆", "warm")])
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert store.count() == 320 and store._groups.groups > 0
        assert store.integrity_problems() == []
        assert store.lexical_row_problems() == ([], [])
    finally:
        store.close()


def test_group_commit_off_writes_each_message_alone():
    store = PostgresStore(pg_url(), schema=fresh_schema(), group_commit=False)
    try:
        assert store._groups is None
        assert store.insert_records([(fields(1), "ferry", "")])[0] is not None
        assert store.integrity_problems() == []
    finally:
        store.close()


WRITER = """
import sys, threading
from remem import Config, Memory

url, schema = sys.argv[1:3]
overrides = {"store.url": url, "store.pg_schema": schema, "store.pool_size": 8,
             "store.pg_writes_in_flight": 1, "embed.provider": "none", "indexing.mode": "sync"}
lock = threading.Lock()
told = False

with Memory(config=Config.load(env={}, overrides=overrides)) as mem:
    def write(w):
        global told
        i = 0
        while True:
            record_id = f"k{w}-{i}"
            mem.ingest({"id": record_id, "text": f"note {i} from writer {w} about the ferry",
                        "session": f"s{w % 3}", "speaker": f"u{w}"})
            with lock:
                print(record_id, flush=True)
                if not told and mem.store._groups.groups:
                    told = True
                    print("grouped", flush=True)
            i += 1

    threads = [threading.Thread(target=write, args=(w,), daemon=True) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
"""


@pytest.mark.slow
def test_sigkill_during_grouped_commits_loses_no_acknowledged_write():
    url, schema = pg_url(), fresh_schema()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, url, schema],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: list[str] = []
    grouped = False
    try:
        assert proc.stdout is not None
        # kill mid-stream: once groups are being written and a few hundred writes acked
        while not grouped or len(acked) < 300:
            line = proc.stdout.readline()
            assert line, f"the writer died: exit {proc.poll()}, {proc.stderr.read()[-2000:]}"
            if line.strip() == "grouped":
                grouped = True
            else:
                acked.append(line.strip())
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=60)
    acked += [x for x in rest.split("\n") if x.strip() and x.strip() != "grouped"]
    store = PostgresStore(url, schema=schema)
    try:
        with store._pool.connection() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM records").fetchall()]
        assert set(acked) <= set(ids), sorted(set(acked) - set(ids))[:5]
        assert len(ids) == len(set(ids))  # nothing twice
        assert store.integrity_problems() == []  # no half-written group
        assert store.lexical_row_problems() == ([], [])
    finally:
        store.close()
