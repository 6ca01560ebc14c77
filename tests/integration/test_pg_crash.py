"""Crash safety on PostgreSQL: processes killed with SIGKILL while they write or embed.

A `remem serve` worker killed mid-ingest loses no acknowledged write and holds nothing that
outlives it; a backfill killed while it holds claims keeps its records from other processes
only until ``indexing.claim_lease_s`` ends, then they are taken over. Real embedded server,
real processes, real signals.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pg_server import fresh_schema, pg_url
from remem import Config, Memory
from serving import start_serve_processes, stop_processes

psycopg = pytest.importorskip("psycopg")
httpx = pytest.importorskip("httpx")

TESTS = Path(__file__).resolve().parents[1]
E5 = "local:multilingual-e5-small"


def _one(url: str, schema: str, sql: str, params: tuple = ()) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}")
        row = conn.execute(sql, params).fetchone()
    return int(row[0]) if row else 0


def _missing(url: str, schema: str, model_id: str) -> int:
    return _one(
        url,
        schema,
        "SELECT count(*) FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors v "
        "WHERE v.record_rowid = r.rowid AND v.model_id = %s)",
        (model_id,),
    )


class Clients:
    """Threads posting messages one by one, each to its worker, switching to the next worker
    when a request fails (what a load balancer does when a worker dies). Each id is noted
    before its request is sent (``sent``) and when it is acknowledged (``acked``): a request
    in flight when the worker died may have been stored or not, an acknowledged one must be."""

    def __init__(self, urls: list[str], n: int) -> None:
        self.urls = urls
        self.sent: list[str] = []
        self.acked: list[str] = []
        self.failed = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._loop, args=(i,)) for i in range(n)]
        for t in self._threads:
            t.start()

    def _loop(self, n: int) -> None:
        target, i = n, 0
        while not self._stop.is_set():
            record_id, i = f"crash-{n}-{i}", i + 1
            body = {"id": record_id, "text": f"note {i} from client {n} about the ferry"}
            with self._lock:
                self.sent.append(record_id)
            try:
                response = httpx.post(
                    f"{self.urls[target % len(self.urls)]}/v1/ingest",
                    json=body | {"session": f"s{n % 3}"},
                    timeout=30,
                )
            except httpx.HTTPError:
                with self._lock:
                    self.failed += 1
                target += 1
                continue
            if response.status_code == 201:
                with self._lock:
                    self.acked.append(record_id)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()


@pytest.mark.slow
def test_a_killed_serve_worker_loses_no_acknowledged_write(tmp_path):
    url, schema = pg_url(), fresh_schema()
    env = {
        **os.environ,
        "REMEM_STORE__PG_SCHEMA": schema,
        "OMP_WAIT_POLICY": "passive",
        "REMEM_INDEXING__MODE": "async",
        # one embedding thread and queue worker: a backlog builds up under the clients
        "REMEM_INDEXING__CONCURRENCY": "1",
        "REMEM_EMBED__THREADS": "1",
        # the survivor looks every 2 s whether records were left pending by someone else
        "REMEM_INDEXING__BACKFILL_CHECK_S": "2",
    }
    procs, urls = start_serve_processes(url, 2, env)
    victim, survivor = procs
    try:
        clients = Clients(urls, 6)
        deadline = time.monotonic() + 120
        while _missing(url, schema, E5) < 30 and time.monotonic() < deadline:
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)
        time.sleep(1.0)  # the clients go on with the surviving worker
        clients.stop()
        left = _missing(url, schema, E5)
        # nobody runs `remem embed`: the surviving worker's backfill finds what the dead one
        # left pending (its periodic check sees the store changed)
        deadline = time.monotonic() + 240
        while _missing(url, schema, E5) and time.monotonic() < deadline:
            time.sleep(0.2)
        picked_up = _missing(url, schema, E5) == 0
    finally:
        stop_processes([survivor, victim])
    assert clients.acked and clients.failed > 0, "the worker was not killed mid-ingest"
    stored = _one(url, schema, "SELECT count(*) FROM records WHERE id = ANY(%s)", (clients.acked,))
    assert stored == len(clients.acked)  # every acknowledged write, once (id is unique)
    # and nothing but what was sent: the unacknowledged rest were in flight at the kill
    # (stored or not) or failed against the dead worker before it took them
    assert (
        _one(url, schema, "SELECT count(*) FROM records WHERE NOT id = ANY(%s)", (clients.sent,))
        == 0
    )
    assert left > 0, "nothing was left pending by the killed worker: the pickup is untested"
    assert picked_up, "the surviving worker did not embed what the killed one left pending"
    assert _one(url, schema, "SELECT count(*) FROM claims") == 0  # serve workers hold none

    embed = subprocess.run(
        [sys.executable, "-m", "remem.cli", "--db", url, "embed", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert embed.returncode == 0, embed.stderr
    report = json.loads(embed.stdout)
    assert report["embedded"] == report["failed"] == report["remaining"] == 0  # all done
    assert _missing(url, schema, E5) == 0
    assert _one(url, schema, "SELECT count(*) FROM claims") == 0
    total = _one(url, schema, "SELECT count(*) FROM records")
    assert _one(url, schema, "SELECT count(*) FROM vectors") == total
    assert _one(url, schema, "SELECT count(*) FROM records WHERE index_status = 'indexed'") == total


STALLING_BACKFILL = """
import sys, time
from helpers import HashEmbedder
from remem import Config, Memory

class StallsOnSecondBatch(HashEmbedder):
    def embed_passages(self, texts):
        if self.calls == 1:  # the second batch is claimed: hold it until killed
            print("stalled", flush=True)
            time.sleep(600)
        return super().embed_passages(texts)

url, schema, lease = sys.argv[1:4]
overrides = {"store.url": url, "store.pg_schema": schema, "indexing.claim_lease_s": lease}
with Memory(config=Config.load(env={}, overrides=overrides), embedder=StallsOnSecondBatch()) as mem:
    mem.embed_pending(batch_size=10)
"""


def test_claims_of_a_killed_backfill_wait_out_the_lease_then_are_taken_over():
    from helpers import HashEmbedder

    url, schema, lease = pg_url(), fresh_schema(), 6.0
    store = {"store.url": url, "store.pg_schema": schema, "indexing.mode": "sync"}
    lexical = Config.load(env={}, overrides=store | {"embed.provider": "none"})
    with Memory(config=lexical) as mem:  # a backlog of 60 records without a vector
        mem.ingest_many([{"text": f"message {i} of the backlog"} for i in range(60)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLING_BACKFILL, url, schema, str(lease)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "stalled", (
            proc.stderr.read() if proc.stderr else ""
        )
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}")
        held = conn.execute(
            "SELECT rowid, worker, until - extract(epoch FROM clock_timestamp()) FROM claims"
        ).fetchall()
    assert len(held) == 10 and {w.split(":")[1] for _r, w, _l in held} == {str(proc.pid)}
    assert all(0 < left <= lease for _r, _w, left in held)  # the configured lease, not 300 s
    expires = time.monotonic() + min(left for _r, _w, left in held)

    embedder = HashEmbedder()
    with Memory(config=Config.load(env={}, overrides=store), embedder=embedder) as mem:
        first = mem.embed_pending(batch_size=10)
        assert time.monotonic() < expires, "too slow to see the lease hold; raise `lease`"
        assert first == {"embedded": 40, "failed": 0, "remaining": 10}  # its claims are held
        time.sleep(max(0.0, expires - time.monotonic()) + 0.5)
        second = mem.embed_pending(batch_size=10)
    assert second == {"embedded": 10, "failed": 0, "remaining": 0}  # taken over
    assert len(embedder.seen) == 50  # the killed run embedded the first 10: none twice
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}")
        assert conn.execute("SELECT count(*) FROM claims").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (60,)
