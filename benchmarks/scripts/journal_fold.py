"""A journal and a fold (issue 47), measured before it is built: can 8 writer processes on
one SQLite file reach 2,000 acknowledged durable writes/s if a write is acknowledged once the
message alone is durable, and a fold moves the messages into the real tables in batches?

A faithful prototype on a real store file (the real schema, the real group commit):

- each writer process runs what ``Memory.ingest`` runs before its insert (validation, the
  record's fields, its lexical tokens: ``RecordWriter.validated``), serializes the record
  (JSON) and appends it to a ``proto_journal`` table in one write of the store's own
  ``SQLiteConnection.write`` (BEGIN IMMEDIATE, one UPDATE of the ``rev`` and ``commits``
  counters, which stands in for allocating the record's rowid, the INSERT, COMMIT at
  synchronous=NORMAL, then the group-commit barrier): that is the acknowledgement;
- one folder process folds batches of up to ``--batch`` journal rows, each in one
  transaction that runs the store's own insert (``RecordWriter.with_context`` for the
  context tokens, ``SQLiteStore._insert_rows``: the record with its indexes, the FTS5 row,
  the facts backlog mark, the counters) and deletes the rows it folded; no barrier (a fold
  lost by a power loss leaves its journal rows, folded again on open), and hands the folded
  rowids to its facts fill as a write does today (``FactsFill.owe``: the facts read after
  the acknowledgement, in the folder's CPU instead of the writer's);
- beside it in the same run: remem as it is (``writers.py``'s ``remem`` configuration) and
  the bare ``synchronous=FULL`` insert loop.

Reported per batch size: acked writes/s, ack p50/p95/p99, the writers' CPU per write (the
ack path), the fold's rows/s while the writers run and its CPU per row (facts included), the
backlog left when the writers stop and how long the fold takes to drain it, and a check that
every acknowledged write is in ``records`` exactly once with the journal empty.

    python benchmarks/scripts/journal_fold.py --writers 8 --seconds 15 --batches 1,16,64,256 \\
        --out benchmarks/results/journal-fold-prototype.json --note "idle, load 0.2"

``remem-current`` is the store as it is: the journal was built after this measurement,
measured in the real write path and not adopted (decision 0026; the code is commit d451da5
of branch h64).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from writers import (
    Gate,
    _fresh_sqlite,
    _open,
    _percentile,
    bare_sqlite_writer,
    measure,
    timed_writes,
)
from writers import remem_writer as current_writer

JOURNAL_DDL = (
    "CREATE TABLE IF NOT EXISTS proto_journal (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)"
)


def journal_writer(spec: dict[str, Any], gate: Any, out: Any) -> None:
    """Acknowledge a message once its journal row is durable (module docstring)."""
    worker = spec["worker"]
    with _open(spec) as mem:
        store, writer = mem.store, mem.writer

        def append(message: dict[str, Any]) -> None:
            prepared, _ = writer.validated([message], numbered=False)
            body = json.dumps(prepared[0], separators=(",", ":"), ensure_ascii=False)
            with store.write() as c:
                store._bump_rev(c)  # the rowid's counter and the commit's ticket
                c.execute("INSERT INTO proto_journal (body) VALUES (?)", (body,))

        append({"id": f"warm-{worker}-{uuid.uuid4().hex[:6]}", "text": "warm up the ferry"})
        out.put(timed_writes(spec, gate, append))


def fold_once(mem: Any, batch: int) -> list[int]:
    """Fold up to ``batch`` journal rows in one transaction (no barrier); their rowids."""
    from remem.store.records_sql import InsertBatch

    store = mem.store
    with store._lock:
        c = store._conn
        store._begin_immediate(c)
        store._depth = 1
        try:
            rows = c.execute("SELECT seq, body FROM proto_journal ORDER BY seq LIMIT ?", (batch,))
            rows = rows.fetchall()
            if not rows:
                c.execute("COMMIT")
                return []
            prepared = [tuple(json.loads(body)) for _, body in rows]
            folded = InsertBatch(mem.writer.with_context(prepared), time.time(), True, True)
            rowids = store._insert_rows(c, folded, store._bump_rev(c))
            c.execute("DELETE FROM proto_journal WHERE seq <= ?", (rows[-1][0],))
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise
        finally:
            store._depth = 0
            store._ticket = None
        store.local_writes += 1
    done = [r for r in rowids if r is not None]
    if mem.indexer.facts is not None:
        mem.indexer.facts.owe(done)
    return done


def folder(spec: dict[str, Any], gate: Any, out: Any, writers_done: Any) -> None:
    """Fold while the writers run, then drain what they left (``writers_done``)."""
    with _open(spec) as mem:
        stop_at = gate.start(spec["seconds"])
        cpu0 = time.process_time()
        during = 0
        while time.monotonic() < stop_at:
            n = len(fold_once(mem, spec["batch"]))
            during += n
            if not n:
                time.sleep(0.002)
        cpu_during = time.process_time() - cpu0
        backlog = int(mem.store.query_one("SELECT count(*) FROM proto_journal")[0])
        t_stop = time.monotonic()
        drained = 0
        while True:
            n = len(fold_once(mem, spec["batch"]))
            drained += n
            if not n:
                if writers_done.is_set():
                    break
                time.sleep(0.002)
        drain_s = time.monotonic() - t_stop
        mem.wait_facts(600)
        facts_s = time.monotonic() - t_stop
        cpu_total = time.process_time() - cpu0
    out.put(
        {
            "folded_during": during,
            "cpu_during": cpu_during,
            "backlog_at_stop": backlog,
            "drained": drained,
            "drain_s": drain_s,
            "facts_done_s": facts_s,
            "cpu_total": cpu_total,
        }
    )


def run_journal(spec: dict[str, Any], writers: int) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    out, fold_out = ctx.Queue(), ctx.Queue()
    gate = Gate(ctx, writers + 1)
    done = ctx.Event()
    procs = [
        ctx.Process(target=journal_writer, args=({**spec, "worker": w}, gate, out))
        for w in range(writers)
    ]
    procs.append(ctx.Process(target=folder, args=(spec, gate, fold_out, done)))
    for p in procs:
        p.start()
    gate.open_when_ready(procs, timeout=300)
    results = [out.get(timeout=spec["seconds"] + 300) for _ in range(writers)]
    done.set()
    fold = fold_out.get(timeout=900)
    for p in procs:
        p.join(60)
    lat = [x for r in results for x in r["lat"]]
    ids = [x for r in results for x in r["ids"]]
    seconds = spec["seconds"]

    def ms(q: float) -> float | None:
        v = _percentile(lat, q)
        return None if v is None else round(v * 1000, 2)

    total_rows = fold["folded_during"] + fold["drained"]
    return {
        "writes": len(lat),
        "writes_per_s": round(len(lat) / seconds, 1),
        "ack_p50_ms": ms(0.5),
        "ack_p95_ms": ms(0.95),
        "ack_p99_ms": ms(0.99),
        "ack_cpu_ms_per_write": round(1000 * sum(r["cpu"] for r in results) / len(lat), 3),
        "fold_rows_per_s_during": round(fold["folded_during"] / seconds, 1),
        "fold_cpu_ms_per_row": round(1000 * fold["cpu_total"] / max(1, total_rows), 3),
        "backlog_at_stop": fold["backlog_at_stop"],
        "drain_s": round(fold["drain_s"], 2),
        "facts_done_s": round(fold["facts_done_s"], 2),
        "check": check(spec, ids),
    }


def check(spec: dict[str, Any], ids: list[str]) -> dict[str, int]:
    with _open(spec) as mem:
        store = mem.store
        found = {r[0] for r in store.query("SELECT id FROM records")}
        total = store.count()
        journal = int(store.query_one("SELECT count(*) FROM proto_journal")[0])
    return {
        "acked": len(ids),
        "missing": len(set(ids) - found),
        "duplicated": total - len(found),
        "journal_left": journal,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a directory for the files (default: a temporary one)")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--batches", default="1,16,64,256")
    parser.add_argument("--note", help="date, machine and its load")
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args(argv)
    work = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="remem-journal-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: dict[str, Any] = {}
    load_before = os.getloadavg()[0]
    spec: dict[str, Any] = {"overrides": {}, "seconds": args.seconds}
    spec["db"] = _fresh_sqlite(work / "current.db")
    with _open(spec):
        pass
    row = measure(current_writer, spec, args.writers, 0)
    row.pop("ids")
    rows["remem-current"] = row
    for batch in [int(b) for b in args.batches.split(",")]:
        spec = {"overrides": {}, "seconds": args.seconds, "batch": batch}
        spec["db"] = _fresh_sqlite(work / f"journal-{batch}.db")
        with _open(spec) as mem, mem.store.write() as c:
            c.execute(JOURNAL_DDL)
        rows[f"journal-batch-{batch}"] = run_journal(spec, args.writers)
        print(batch, json.dumps(rows[f"journal-batch-{batch}"]), flush=True)
    import sqlite3

    db = _fresh_sqlite(work / "bare-full.db")
    c = sqlite3.connect(db)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("CREATE TABLE bare (id TEXT PRIMARY KEY, text TEXT)")
    c.close()
    bare = measure(
        bare_sqlite_writer, {"db": db, "sync": "FULL", "seconds": args.seconds}, args.writers, 0
    )
    bare.pop("ids")
    rows["bare-full"] = bare
    report = {
        "note": args.note,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "writers": args.writers,
        "seconds": args.seconds,
        "results": rows,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
