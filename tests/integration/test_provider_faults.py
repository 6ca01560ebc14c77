"""Provider faults, end to end: a real ``Memory`` on a SQLite file, configured with the remote
(OpenAI-compatible) provider, against one fake server on 127.0.0.1 whose behaviour is switched
while the test runs: down, dripping, 429 then OK, a wrong dimension first, NaN, garbage JSON.

What must hold throughout: no write is lost; every search answers within its deadline
(lexical-only with a warning while the provider is degraded); nothing mis-sized or non-finite
is stored; and once the server recovers the pending records are embedded.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from remem import Config, Memory
from remem.types import SearchResult

DIM = 16
MODEL = "fake-embed"  # not in the size table: its size must be learned from agreeing answers
QUERY_TIMEOUT_S = 1.0
COOLDOWN_S = 1.5
SLACK_S = 1.0  # scheduling slack on a shared 2-core machine


def _vector(text: str, dim: int = DIM) -> list[float]:
    # Texts sharing words get similar vectors, so a vector hit is meaningful.
    v = np.zeros(dim)
    for word in text.lower().split():
        v[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    v[0] += 0.01
    return v.tolist()


class FaultServer:
    """``POST /v1/embeddings``; ``mode`` is read per request: ok | down (connection closed
    without an answer) | drip (headers, then one byte every 0.25 s) | 429 (Retry-After: 1) |
    nan | garbage. ``wrong_dim_once`` makes the next answer 5-dimensional."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.wrong_dim_once = False
        self.requests = 0
        self.stop = threading.Event()
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer._lock:
                    outer.requests += 1
                    mode = outer.mode
                    dim = DIM
                    if mode == "ok" and outer.wrong_dim_once:
                        outer.wrong_dim_once, dim = False, 5
                if mode == "down":
                    self.close_connection = True
                    return  # no status line at all: the client sees the connection drop
                if mode == "429":
                    self._send(
                        429, b'{"error": {"message": "Rate limit reached"}}', {"Retry-After": "1"}
                    )
                    return
                if mode == "garbage":
                    self._send(200, b"<html><body>502 Bad Gateway</body></html>")
                    return
                data = [
                    {"object": "embedding", "index": i, "embedding": _vector(t, dim)}
                    for i, t in enumerate(body["input"])
                ]
                if mode == "nan":
                    data[0]["embedding"][0] = float("nan")
                payload = json.dumps({"object": "list", "data": data, "model": body["model"]})
                if mode == "drip":
                    self._drip(payload.encode())
                    return
                self._send(200, payload.encode())

            def _send(self, status: int, data: bytes, extra: dict[str, str] | None = None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _drip(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.close_connection = True
                for i in range(len(data)):
                    if outer.stop.wait(0.25):
                        return
                    try:
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up, as it should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = FaultServer()
    yield s
    s.close()


def faults_config(server: FaultServer, **extra: object) -> Config:
    return Config.load(
        env={},
        overrides={
            "embed.provider": "openai",
            "embed.base_url": server.url,
            "embed.model": MODEL,
            "embed.timeout_s": 2.0,
            "embed.query_timeout_s": QUERY_TIMEOUT_S,
            "embed.max_attempts": 3,
            "embed.backoff_s": 0.05,
            "embed.breaker_failures": 3,
            "embed.breaker_cooldown_s": COOLDOWN_S,
            "indexing.mode": "async",
            "indexing.drain_timeout_s": 5.0,
            **extra,
        },
    )


def test_no_write_lost_searches_keep_their_deadline_and_pending_records_recover(server, tmp_path):
    written: list[str] = []
    degraded_warnings: list[str] = []

    def ingest(mem: Memory, phase: str, n: int = 3) -> None:
        for i in range(n):
            record_id = f"{phase}-{i}"
            start = time.monotonic()
            mem.ingest(
                {"id": record_id, "text": f"{phase} note number {i} about {phase}", "session": "s1"}
            )
            # async indexing: the write returns at once whatever the provider does
            assert time.monotonic() - start < 0.5, phase
            written.append(record_id)

    def search(mem: Memory, phase: str, *, expect_degraded: bool) -> SearchResult:
        start = time.monotonic()
        result = mem.search(f"{phase} note", k=5)
        elapsed = time.monotonic() - start
        assert elapsed < QUERY_TIMEOUT_S + SLACK_S, (phase, elapsed)
        # the lexical index answers whatever the provider does
        assert any(h.record.id.startswith(phase) for h in result.hits), phase
        if expect_degraded:
            assert result.degraded, phase
            assert any("lexical index only" in w for w in result.warnings), (phase, result.warnings)
            degraded_warnings.extend(result.warnings)
        else:
            assert not result.degraded and not result.warnings, (phase, result.warnings)
        return result

    with Memory(tmp_path / "faults.db", faults_config(server)) as mem:
        # 1. wrong dimension first: the stray 5-d answer teaches nothing and is not stored
        server.wrong_dim_once = True
        ingest(mem, "first")
        assert mem.wait_indexed(10)
        ingest(mem, "steady")
        assert mem.wait_indexed(10)
        assert not server.wrong_dim_once  # the 5-d answer was served
        assert {(m, d) for m, d, _n in mem.store.vector_stats()} == {(f"openai:{MODEL}", DIM)}
        search(mem, "steady", expect_degraded=False)

        # 2. every fault in turn, each met with a closed breaker so the provider is really
        # asked: writes land, searches answer lexically within the deadline
        for mode in ("down", "drip", "429", "nan", "garbage"):
            server.mode = "ok"
            time.sleep(COOLDOWN_S)  # an open breaker lets its trial through ...
            search(mem, "steady", expect_degraded=False)  # ... which succeeds and closes it
            server.mode = mode
            ingest(mem, mode)
            first = search(mem, mode, expect_degraded=True)
            assert any(w.startswith("query embedding failed") for w in first.warnings), mode
            search(mem, mode, expect_degraded=True)
            assert mem.wait_indexed(15), mode

        # repeated failures open the breaker: a search no longer pays any retry budget
        server.mode = "down"
        for _ in range(3):
            search(mem, "down", expect_degraded=True)
        asked = server.requests
        start = time.monotonic()
        result = mem.search("down note", k=5)
        assert time.monotonic() - start < QUERY_TIMEOUT_S
        assert server.requests == asked  # refused without asking the provider
        assert any("embedding provider unavailable (circuit open for" in w for w in result.warnings)

        # nothing non-finite or mis-sized was stored, and nothing was lost
        stats = mem.store.vector_stats()
        assert {(m, d) for m, d, _n in stats} == {(f"openai:{MODEL}", DIM)}
        assert mem.store.count() == len(written)
        assert all(mem.get(record_id) is not None for record_id in written)
        pending = [r.id for r in mem.list(limit=None) if r.index_status == "pending"]
        assert pending, "the faults should have left records pending"

        # 3. recovery: after the cool-down the backfill embeds everything
        server.mode = "ok"
        time.sleep(COOLDOWN_S)
        report = mem.embed_pending()
        assert report["remaining"] == 0, report
        assert mem.store.vector_count(f"openai:{MODEL}") == len(written)
        assert all(r.index_status == "indexed" for r in mem.list(limit=None))
        result = mem.search("garbage note about garbage", k=3)
        assert not result.degraded and not result.warnings
        assert result.hits[0].record.id.startswith("garbage")
        assert result.hits[0].explain.vector_rank is not None
        vectors = mem.store.vectors_of([r.rowid for r in mem.list(limit=None) if r.rowid])
        for entries in vectors.values():
            assert all(np.all(np.isfinite(np.frombuffer(e[3], np.float32))) for e in entries)
    assert degraded_warnings


def test_an_explicit_backfill_probes_the_provider_past_an_open_breaker(server, tmp_path):
    """Issue 44 item 12: right after an outage the search path's breaker is open for its whole
    cool-down; an explicit backfill (``embed_pending``, what ``remem embed`` and the web UI's
    button run) must ask the provider itself instead of reporting every record failed."""
    # the breaker cannot cool down during this test
    config = faults_config(server, **{"embed.breaker_cooldown_s": 3600.0, "indexing.mode": "sync"})
    with Memory(tmp_path / "outage.db", config) as mem:
        server.mode = "down"
        for i in range(4):  # written during the outage: pending
            mem.ingest({"id": f"o-{i}", "text": f"outage note {i}", "session": "s1"})
        for _ in range(3):  # the search path opens the breaker
            mem.search("outage note", k=3)
        assert mem.search("outage note", k=3).degraded
        asked = server.requests
        mem.search("outage note", k=3)
        assert server.requests == asked  # the breaker is open: the provider is not asked

        # the provider is back; the breaker still has an hour to go
        server.mode = "ok"
        report = mem.embed_pending()
        assert report == {"embedded": 4, "failed": 0, "remaining": 0}, report
        assert server.requests > asked
        # the successful probe closed the breaker: searches use vectors again
        result = mem.search("outage note", k=3)
        assert not result.degraded and not result.warnings, result.warnings

        # still down: the backfill probes once, then the reopened breaker spares the rest
        server.mode = "down"
        for i in range(3):
            mem.ingest({"id": f"p-{i}", "text": f"second outage note {i}", "session": "s1"})
        for _ in range(3):
            mem.search("outage note", k=3)
        asked = server.requests
        report = mem.embed_pending(batch_size=1)
        assert report["failed"] == 3 and report["embedded"] == 0, report
        probes = server.requests - asked
        assert 1 <= probes <= config.embed.max_attempts  # one batch tried (with its retries)
