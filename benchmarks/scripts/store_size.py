"""On-disk size per record, SQLite against PostgreSQL, for docs/scaling.md's records per GB.

Writes N real chat turns (LoCoMo and LongMemEval, cycled when N is larger) through remem's
write path into a SQLite file and into a PostgreSQL schema, gives every record a 384-d vector
(the bundled e5's size; random values: a float32 vector takes the same room whatever it
holds), then measures what each store takes: the SQLite file and its snapshot index beside it
(vectors and, from 20k, its HNSW graph), and the PostgreSQL tables with their indexes, before
and after the HNSW index remem builds at 10k vectors.

    python benchmarks/scripts/store_size.py --pg postgresql://... --n 20000 --out benchmarks/results/store-size-20k.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # the bench scripts beside this one
from ann_vectors import corpus_texts
from load import store_size

from remem import Config, Memory
from remem.store.queries import VectorWrite

MODEL_ID, PROVIDER, MODEL, DIM = (
    "local:multilingual-e5-small",
    "local",
    "multilingual-e5-small",
    384,
)


def fill(db: str, env: dict[str, str], texts: list[str]) -> float:
    """Ingest the texts as messages (sessions of 40 turns) and give each a vector; seconds."""
    overrides = {"embed.provider": "none", "indexing.mode": "sync"}
    config = Config.load(env=env, overrides=overrides)
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    with Memory(db, config) as mem:
        for lo in range(0, len(texts), 1000):
            batch = [
                {"text": t, "session": f"s{(lo + i) // 40}", "speaker": "alice"}
                for i, t in enumerate(texts[lo : lo + 1000])
            ]
            records = mem.ingest_many(batch)
            vectors = rng.standard_normal((len(records), DIM)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rowids = [r.rowid for r in records if r.rowid is not None]
            mem.store.put_vectors(
                VectorWrite(MODEL_ID, PROVIDER, MODEL, list(zip(rowids, vectors, strict=True)))
            )
    return time.perf_counter() - started


def sqlite_snapshot(db: str) -> float:
    """Build the snapshot index a search would build (vectors, filter columns, graph); s."""
    from remem.index.filtered import FilteredVectorIndex
    from remem.store.sqlite import SQLiteStore

    store = SQLiteStore(db)
    started = time.perf_counter()
    index = FilteredVectorIndex(store, MODEL_ID, DIM)
    index.vectors.build(wait=True)  # what a search starts in the background at this size
    index.sync()
    store.close()
    return time.perf_counter() - started


def pg_hnsw(url: str, schema: str) -> dict[str, Any]:
    """Build the HNSW index as remem does (``build_vector_index``); its size and time."""
    import psycopg

    from remem.store.postgres import PostgresStore
    from remem.store.postgres.nearest import index_name

    store = PostgresStore(url, schema=schema, pool_size=1)
    started = time.perf_counter()
    store.build_vector_index(MODEL_ID, DIM)
    seconds = time.perf_counter() - started
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        size = conn.execute(
            "SELECT pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = %s",
            (schema, index_name(MODEL_ID, DIM)),
        ).fetchone()
    return {"build_s": round(seconds, 1), "bytes": int(size[0]) if size else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", required=True, help="a postgresql:// URL (a private server)")
    parser.add_argument("--schema", default="store_size")
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--note", help="a note kept first in the report (date, machine, load)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    corpus = corpus_texts()
    texts = [corpus[i % len(corpus)] for i in range(args.n)]
    report: dict[str, Any] = {"note": args.note} if args.note else {}
    report |= {
        "records": args.n,
        "dim": DIM,
        "text": "real chat turns (LoCoMo, LongMemEval), cycled",
        "mean_text_chars": round(sum(map(len, texts)) / len(texts), 1),
        "load_average_before": os.getloadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="remem-size-") as tmp:
        db = str(Path(tmp) / "size.db")
        report["sqlite_fill_s"] = round(fill(db, {}, texts), 1)
        report["sqlite_snapshot_s"] = round(sqlite_snapshot(db), 1)
        report["sqlite"] = store_size(db, {})
    env = {"REMEM_STORE__PG_SCHEMA": args.schema}
    report["postgres_fill_s"] = round(fill(args.pg, env, texts), 1)
    report["postgres"] = store_size(args.pg, env)
    report["postgres_hnsw"] = pg_hnsw(args.pg, args.schema)
    report["postgres_with_hnsw"] = store_size(args.pg, env)
    report["load_average_after"] = os.getloadavg()
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
