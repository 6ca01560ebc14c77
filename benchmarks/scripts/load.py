"""Load: several `remem serve` worker processes on one store, many clients at once.

Starts ``--workers`` REST servers (separate processes, 127.0.0.1 only) over one database
(a SQLite file or a postgresql:// URL), then runs ``--clients`` client threads for
``--seconds``, each mixing message ingest, curated memory stores and searches against the
workers in turn. Afterwards it checks the store: every acknowledged write is present exactly
once, and reports errors and p50/p95 latency per operation.

    python benchmarks/scripts/load.py --db /tmp/load.db --workers 4 --clients 16 --seconds 60
    python benchmarks/scripts/load.py --db postgresql://... --workers 4 --clients 16 --seconds 60 --json
    python benchmarks/scripts/load.py --db /tmp/load.db --workers 1 --clients 16 --requests 200 \
        --ingest-share 0.7 --scoped-share 0.5   # issue 44's mix: searches counted per session

The embedding provider is the configured one (the bundled e5 by default); ``--provider none``
measures the store and the servers alone (keyword search only).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

WORDS = [
    "alpine",
    "hut",
    "booking",
    "lantern",
    "river",
    "ferry",
    "museum",
    "ticket",
    "harbour",
    "glacier",
    "lake",
    "trail",
    "bakery",
    "market",
    "violin",
    "concert",
    "garden",
    "bicycle",
    "island",
    "lighthouse",
    "orchard",
    "valley",
]


@dataclass
class Tally:
    """What the clients saw: latencies per operation, errors and every acknowledged id."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    acked: dict[str, list[str]] = field(default_factory=lambda: {"message": [], "memory": []})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, op: str, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(op, []).append(seconds)

    def fail(self, message: str) -> None:
        with self.lock:
            self.errors.append(message)

    def ack(self, kind: str, record_id: str) -> None:
        with self.lock:
            self.acked[kind].append(record_id)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_workers(db: str, n: int, env: dict[str, str]) -> tuple[list[subprocess.Popen], list[str]]:
    """``n`` REST servers over ``db``; returns the processes and their base URLs once healthy."""
    procs, urls, logs = [], [], []
    for _ in range(n):
        port = _free_port()
        cmd = [sys.executable, "-m", "remem.cli", "--db", db, "serve", "--port", str(port)]
        # stderr to a file: a pipe nobody reads fills with the tracebacks of failed
        # requests and then blocks the worker mid-request
        log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - open for the worker's life
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log))
        logs.append(log)
        urls.append(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 120
    for proc, url, log in zip(procs, urls, logs, strict=True):
        while True:
            if proc.poll() is not None:
                stop_workers(procs)
                log.seek(0)
                raise RuntimeError(f"worker {url} exited: {log.read()}")
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                stop_workers(procs)
                raise RuntimeError(f"worker {url} did not become healthy in 120 s")
            time.sleep(0.2)
    return procs, urls


def stop_workers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


@dataclass
class Mix:
    """The share of each operation: message ingest, then curated memories, the rest searches
    (``scoped`` of them narrowed to one session, which counts BM25 over the session's
    records: ``scoped_terms.scoped_stats``)."""

    ingest: float = 0.45
    memory: float = 0.15
    scoped: float = 0.0


def _one_op(
    client: httpx.Client, rng: random.Random, run: str, tally: Tally, mix: Mix = Mix()
) -> None:
    roll = rng.random()
    if roll < mix.ingest:
        op, record_id = "ingest", f"{run}-m-{uuid.uuid4().hex[:12]}"
        text = _sentence(rng)
        session = rng.randint(1, 8)
        body: dict[str, Any] = {
            "id": record_id,
            # every line of a session names its topic, as a chat's lines name its speaker:
            # a scoped search for it counts a word every record of the scope holds
            "text": f"{WORDS[session]} {text}",
            "session": f"load-{session}",
            "speaker": rng.choice(["alice", "bob", "chen"]),
        }
        path = "/v1/ingest"
    elif roll < mix.ingest + mix.memory:
        op, record_id = "memory", f"{run}-k-{uuid.uuid4().hex[:12]}"
        body = {"id": record_id, "text": f"{record_id} remembers {_sentence(rng)}"}
        path = "/v1/memories"
    else:
        op, record_id = "search", ""
        body = {"query": " ".join(rng.sample(WORDS, 3)), "k": 10}
        if mix.scoped and rng.random() < mix.scoped:  # (the default mix draws as it did)
            session = rng.randint(1, 8)
            body["query"] = f"{WORDS[session]} {' '.join(rng.sample(WORDS, 2))}"
            body["filters"] = {"sessions": [f"load-{session}"]}
        path = "/v1/search"
    started = time.perf_counter()
    try:
        response = client.post(path, json=body)
    except httpx.HTTPError as exc:
        tally.fail(f"{op}: {type(exc).__name__}: {exc}")
        return
    tally.record(op, time.perf_counter() - started)
    if response.status_code >= 300:
        tally.fail(f"{op}: HTTP {response.status_code}: {response.text[:200]}")
    elif op != "search":
        tally.ack("message" if op == "ingest" else "memory", record_id)


def run_clients(
    urls: list[str],
    clients: int,
    seconds: float,
    run: str,
    seed: int = 0,
    *,
    requests: int | None = None,
    mix: Mix = Mix(),
) -> Tally:
    """Each client sends requests for ``seconds``, or exactly ``requests`` of them."""
    tally = Tally()
    stop_at = time.monotonic() + seconds

    def client_loop(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        sent = 0
        with httpx.Client(base_url=urls[n % len(urls)], timeout=60) as client:
            while (sent < requests) if requests is not None else time.monotonic() < stop_at:
                _one_op(client, rng, run, tally, mix)
                sent += 1

    threads = [threading.Thread(target=client_loop, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally


def verify(db: str, tally: Tally, env: dict[str, str]) -> dict[str, int]:
    """Every acknowledged id present exactly once (ids are the primary key, so "once" is
    checked as: the store holds as many records with the run's prefix as were acknowledged)."""
    from remem import Config, Memory

    overrides = {"embed.provider": "none", "indexing.mode": "sync"}
    config = Config.load(
        env={k: v for k, v in env.items() if k.startswith("REMEM_")}, overrides=overrides
    )
    acked = set(tally.acked["message"]) | set(tally.acked["memory"])
    run_prefix = next(iter(acked)).split("-")[0] + "-" if acked else ""
    with Memory(db, config) as mem:
        found = {record_id for record_id in acked if mem.get(record_id) is not None}
        stored = mem.ids_with_prefix(run_prefix, limit=10**9) if run_prefix else []
    return {
        "acknowledged": len(acked),
        "missing": len(acked - found),
        "duplicated_acks": len(tally.acked["message"]) + len(tally.acked["memory"]) - len(acked),
        "unacknowledged_extra": len(set(stored) - acked),
    }


def store_size(db: str, env: dict[str, str]) -> dict[str, Any]:
    """What the store holds after the run and what it takes on disk: for SQLite the database
    file, its WAL and the snapshot index beside it; for PostgreSQL every table of the
    store's schema with its indexes and TOAST (``pg_total_relation_size``)."""
    from remem import Config, Memory

    config = Config.load(
        env={k: v for k, v in env.items() if k.startswith("REMEM_")},
        overrides={"embed.provider": "none", "indexing.mode": "sync"},
    )
    with Memory(db, config) as mem:
        records = mem.store.count()
        vectors = sum(n for _model, _dim, n in mem.store.vector_stats())
    parts: dict[str, int] = {}
    if "://" in db:
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN "
                "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
                "AND c.relkind = 'r'",
                (config.store.pg_schema,),
            ).fetchall()
        parts = {name: int(size) for name, size in rows}
    else:
        for suffix in ("", "-wal", "-shm"):
            if Path(db + suffix).exists():
                parts[Path(db + suffix).name] = Path(db + suffix).stat().st_size
        index = Path(db + ".remem-index")
        parts[index.name] = sum(f.stat().st_size for f in index.rglob("*") if f.is_file())
    total = sum(parts.values())
    return {
        "records": records,
        "vectors": vectors,
        "bytes": total,
        "bytes_per_record": round(total / records) if records else None,
        "bytes_by_part": dict(sorted(parts.items(), key=lambda kv: -kv[1])),
    }


def summarise(tally: Tally, seconds: float) -> dict[str, Any]:
    ops = {}
    for op, values in sorted(tally.latencies.items()):
        ordered = sorted(values)
        ops[op] = {
            "count": len(ordered),
            "per_s": round(len(ordered) / seconds, 1),
            "p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
        }
    return {"operations": ops, "errors": len(tally.errors), "error_samples": tally.errors[:5]}


def run(
    db: str,
    workers: int,
    clients: int,
    seconds: float,
    provider: str | None,
    *,
    requests: int | None = None,
    mix: Mix = Mix(),
) -> dict[str, Any]:
    env = dict(os.environ, OMP_WAIT_POLICY="passive", REMEM_INDEXING__MODE="async")
    if provider:
        env["REMEM_EMBED__PROVIDER"] = provider
    load_before = os.getloadavg()  # the machine's load average says how quiet the run was
    procs, urls = start_workers(db, workers, env)
    run_id = f"load{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    try:
        tally = run_clients(urls, clients, seconds, run_id, requests=requests, mix=mix)
    finally:
        stop_workers(procs)
    if requests is not None:
        seconds = time.monotonic() - started
    report = {"db": db if "://" not in db else db.split("@")[-1], "workers": workers}
    report |= {"clients": clients, "seconds": round(seconds, 1), "requests": requests}
    report |= {"mix": vars(mix), "provider": provider or "configured"}
    report["load_average"] = {"before": load_before, "after": os.getloadavg()}
    report |= summarise(tally, seconds)
    report["server_errors"] = sum(" HTTP 5" in e for e in tally.errors)
    report["writes"] = verify(db, tally, env)
    report["store"] = store_size(db, env)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a SQLite path or a postgresql:// URL")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--requests", type=int, help="per client, instead of --seconds")
    parser.add_argument("--ingest-share", type=float, default=Mix.ingest)
    parser.add_argument("--memory-share", type=float, default=Mix.memory)
    parser.add_argument(
        "--scoped-share", type=float, default=Mix.scoped, help="of searches, per session"
    )
    parser.add_argument("--provider", help="embed.provider for the workers (e.g. none)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    parser.add_argument("--note", help="a note kept first in the report (date, machine, load)")
    args = parser.parse_args()
    mix = Mix(args.ingest_share, args.memory_share, args.scoped_share)
    report = run(
        args.db,
        args.workers,
        args.clients,
        args.seconds,
        args.provider,
        requests=args.requests,
        mix=mix,
    )
    if args.note:
        report = {"note": args.note} | report
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.workers} workers, {args.clients} clients, {args.seconds:.0f} s on {report['db']}")
    for op, s in report["operations"].items():
        print(
            f"  {op:7} {s['count']:6} ({s['per_s']}/s)  p50 {s['p50_ms']} ms  p95 {s['p95_ms']} ms"
        )
    w = report["writes"]
    print(
        f"  errors {report['errors']} ({report['server_errors']} HTTP 5xx); acknowledged writes {w['acknowledged']}, "
        f"missing {w['missing']}, duplicated {w['duplicated_acks']}"
    )


if __name__ == "__main__":
    main()
