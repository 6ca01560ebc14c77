"""Where the snapshot index (``FilteredVectorIndex``) overtakes the in-memory ``ExactIndex``.

For each size, one SQLite store of random unit vectors (384-d, the e5 width; an exact scan
costs the same whatever the vectors say, and the graph's cost per query hardly depends on
them) is searched by both indexes, unfiltered and with a scope filter (1 of 50 scopes). The
snapshot index is measured as the searcher uses it: exact in memory below its delta limit,
exact over the memory-mapped snapshot below ``ANN_MIN``, HNSW above. Reported: CPU ms per
search (process time, robust to other jobs on a shared machine), p50 and p95, and the time
to the first answer after opening (sync included).

    python benchmarks/scripts/index_crossover.py --sizes 2000,10000,20000,50000 [--json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from remem.index.exact import ExactIndex
from remem.index.filtered import FilteredVectorIndex
from remem.store.queries import VectorWrite
from remem.store.sqlite import SQLiteStore
from remem.types import Filters

DIM = 384
MODEL = "bench:random"


def fill(store: SQLiteStore, n: int, rng: np.random.Generator) -> None:
    for start in range(0, n, 5000):
        count = min(5000, n - start)
        rows = [
            (
                {
                    "id": f"r{i}",
                    "kind": "message",
                    "text": f"text {i}",
                    "scope": f"user:{i % 50}",
                    "created_at": 1_700_000_000 + i,
                    "content_hash": str(i),
                    "importance": 0.5,
                },
                "t",
            )
            for i in range(start, start + count)
        ]
        rowids = store.insert_records(rows)
        vecs = rng.standard_normal((count, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.put_vectors(
            VectorWrite(MODEL, "bench", "random", list(zip(rowids, vecs, strict=True)))
        )


def cpu_ms(index, queries: np.ndarray, filters: Filters | None) -> dict[str, float]:
    times = []
    for q in queries:
        t = time.process_time()
        index.search(q, 40, filters, 2e9)
        times.append((time.process_time() - t) * 1000)
    return {
        "p50": round(float(np.percentile(times, 50)), 3),
        "p95": round(float(np.percentile(times, 95)), 3),
    }


def measure(n: int, queries: int) -> dict:
    rng = np.random.default_rng(n)
    qs = rng.standard_normal((queries, DIM)).astype(np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    scope = Filters(scopes=["user:7"])
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "x.db"
        store = SQLiteStore(db)
        fill(store, n, rng)
        out: dict = {"n": n}
        for name, make in (
            ("exact", lambda: ExactIndex(store, MODEL, DIM)),
            ("snapshot", lambda: FilteredVectorIndex(store, MODEL, DIM, background=False)),
        ):
            index = make()
            if name == "snapshot":
                index.sync()  # builds the snapshot (and graph) once, like the first search
                index = make()  # then a fresh process's view: open the files
            t = time.perf_counter()
            index.search(qs[0], 40, None, 2e9)
            out[name] = {
                "first_search_ms": round((time.perf_counter() - t) * 1000, 1),
                "unfiltered_cpu_ms": cpu_ms(index, qs, None),
                "scope_cpu_ms": cpu_ms(index, qs, scope),
            }
        store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,10000,20000,50000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = [measure(int(n), args.queries) for n in args.sizes.split(",")]
    print(json.dumps(report, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
