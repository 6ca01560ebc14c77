"""Search at scale through the whole pipeline: the snapshot index against the exact floor.

The store holds n records of real chat text (``ann_vectors.corpus_texts``: the LoCoMo
and LongMemEval turns and their sentences, distinct, up to 100k) with their real USE vectors
(512-d, unit length, cached in /tmp/ann); past 100k the vectors are mixtures of two real ones
(``synthetic_million``) and the texts repeat with a numeric suffix. 50 scopes to filter on.
Queries are the corpora's real questions, embedded beforehand (query vector given).

Each step runs in a fresh process, so its peak memory (ru_maxrss) and its timings are its own:

- ``build``: the snapshot files and the HNSW graph, from the store (build time, peak RSS);
- ``open``: open the store and answer the first search (the page cache is warm: the build just
  wrote the files), then search p50/p95 through the whole pipeline, unfiltered and with a
  scope filter, with the snapshot index (what search uses now) and with the in-memory exact
  index (what it used before); the exact floor of the same queries: one matrix-vector product
  over the whole matrix in memory plus the same FTS5 query (every query token, no pruning);
  and recall@10 of the snapshot index's vector top-10 against the exact top-10;
- ``e2e``: the query text in, hits out: the query embedded by the store's own model (USE).

Wall times on a shared 2-core machine swing with the other jobs; the ratios against the floor
are measured in the same run, query by query interleaved.

    python benchmarks/scripts/speed.py --n 100000 --queries 300 [--json benchmarks/results/speed-100k.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ann_vectors import (
    CACHE,
    corpus_texts,
    corpus_vectors,
    query_texts,
    query_vectors,
    synthetic_million,
)

from remem.store.queries import LexicalQuery, VectorRead, VectorWrite

MODEL = "local:use-multilingual-v3"
DIM = 512
SCOPES = 50


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p)), 3)


def build_store(db: Path, n: int) -> None:
    from remem import Config, Memory

    if db.exists():
        return
    texts = corpus_texts()
    base = corpus_vectors()
    vectors = base[:n] if n <= len(base) else synthetic_million(base, n)
    tmp = db.with_suffix(".tmp.db")
    mem = Memory(tmp, Config.load(env={}, overrides={"embed.provider": "none"}))
    batch = 5000
    for start in range(0, n, batch):
        rows = []
        for i in range(start, min(n, start + batch)):
            text = texts[i % len(texts)] + (f" #{i // len(texts)}" if i >= len(texts) else "")
            fields = {
                "id": f"r{i}",
                "kind": "message",
                "text": text,
                "scope": f"user:{i % SCOPES}",
                "session": f"s{i // 40}",
                "created_at": 1_700_000_000 + i * 60,
                "content_hash": str(i),
                "importance": 0.5,
            }
            rows.append((fields, mem.tokenizer.index_string(text)))
        rowids = mem.store.insert_records(rows)
        items = list(zip(rowids, vectors[start : start + len(rows)], strict=True))
        mem.store.put_vectors(VectorWrite(MODEL, "local", "use-multilingual-v3", items))
        print(f"  {start + len(rows)} records", file=sys.stderr)
    mem.close()
    tmp.rename(db)


def step_build(db: str) -> dict:
    from remem.index.filtered import FilteredVectorIndex
    from remem.store.sqlite import SQLiteStore

    store = SQLiteStore(db)
    index = FilteredVectorIndex(store, MODEL, DIM, auto_build=False)
    before = peak_rss_mb()
    t = time.perf_counter()
    index.vectors.build(threads=2)
    seconds = time.perf_counter() - t
    index.sync()
    info = index.vectors.snapshot_info
    return {
        "build_s": round(seconds, 1),
        "has_graph": info.has_graph,
        "count": info.count,
        "rss_before_mb": before,
        "peak_rss_mb": peak_rss_mb(),
        "matrix_mb": round(info.count * DIM * 4 / 2**20, 1),
    }


def _memory(db: str, embedder=None):
    from remem import Config, Memory
    from remem.embed.local import USEEmbedder

    return Memory(db, Config.load(env={}), embedder=embedder or USEEmbedder(threads=1))


def step_open(db: str) -> dict:
    """Open the store and answer the first search (query vector given)."""
    from remem.embed.local import USEEmbedder

    qvecs = query_vectors()
    embedder = USEEmbedder(threads=1)  # loading the model is not opening the store
    before = peak_rss_mb()
    t, c = time.perf_counter(), time.process_time()
    mem = _memory(db, embedder)
    opened = _since(t, c)
    t, c = time.perf_counter(), time.process_time()
    mem.search("what did she say about the trip", k=10, query_vector=qvecs[0])
    first = _since(t, c)
    return {
        "open_ms": round(opened[0], 1),
        "open_cpu_ms": round(opened[1], 1),
        "first_search_ms": round(first[0], 1),
        "first_search_cpu_ms": round(first[1], 1),
        "rss_before_mb": before,
        "peak_rss_mb": peak_rss_mb(),
    }


def step_search(db: str, queries: int) -> dict:
    from remem.index.exact import ExactIndex, blas_one_thread
    from remem.types import Filters

    texts, qvecs = query_texts()[:queries], query_vectors()[:queries]
    mem = _memory(db)
    store, searcher = mem.store, mem.searcher
    embedder = searcher._embedder_factory()
    snapshot_index = searcher.index_for(embedder)
    exact_index = ExactIndex(store, MODEL, DIM)
    exact_index.sync()
    matrix = store.read_vectors(VectorRead(MODEL, DIM, by_rowid=True))
    scope = {"scope": "user:7"}
    # (wall ms, CPU ms) per search: the shared machine's load swings wall times; CPU time
    # is what the search itself costs
    floor: dict[str, list[tuple[float, float]]] = {"unfiltered": [], "scope": []}
    runs: dict[str, list[tuple[float, float]]] = {}
    recalls = []
    for i, (text, qv) in enumerate(zip(texts, qvecs, strict=True)):
        tokens = mem.tokenizer.query_tokens(text)
        for label, filters in (("unfiltered", None), ("scope", scope)):
            for name, index in (("snapshot", snapshot_index), ("exact", exact_index)):
                searcher._indexes[MODEL] = index
                t, c = time.perf_counter(), time.process_time()
                mem.search(text, k=10, filters=filters, query_vector=qv)
                runs.setdefault(f"{name} {label}", []).append(_since(t, c))
            t, c = time.perf_counter(), time.process_time()
            with blas_one_thread():
                scores = matrix.matrix @ qv
            np.argpartition(-scores, 40)[:40]
            store_filters = Filters(scopes=[scope["scope"]]) if filters else None
            store.lexical_search(LexicalQuery(tokens, store_filters, time.time()), 40)
            floor[label].append(_since(t, c))
        if i < 200:
            exact = set(matrix.rowids[np.argsort(-(matrix.matrix @ qv))[:10]].tolist())
            got = {r for r, _ in snapshot_index.search(qv, 10)}
            recalls.append(len(exact & got) / 10)
    searcher._indexes[MODEL] = snapshot_index
    out: dict = {"queries": len(texts), "recall_at_10_vs_exact": round(float(np.mean(recalls)), 4)}
    for label in ("unfiltered", "scope"):
        out[f"floor {label}"] = _summary(floor[label])
        for name in ("snapshot", "exact"):
            out[f"{name} {label}"] = _summary(runs[f"{name} {label}"], floor[label])
    out["stage_ms_p50 (snapshot, last run)"] = {
        k: round(v, 3)
        for k, v in mem.search(texts[0], k=10, query_vector=qvecs[0]).timings_ms.items()
    }
    return out


def step_e2e(db: str, queries: int) -> dict:
    """End to end: the query text in, hits out, the query embedded by the store's own model
    (USE here: the vectors are USE's), the pipeline as shipped (embedding beside the keyword
    search). For another model add its query-embedding time, minus the keyword search it
    overlaps (``benchmarks/results/query-embed-timing.json`` has e5's)."""
    texts = query_texts()[:queries]
    mem = _memory(db)
    for text in texts[:20]:  # warm: the model, the mapped pages
        mem.search(text, k=10)
    runs, embed = [], []
    for text in texts:
        t, c = time.perf_counter(), time.process_time()
        result = mem.search(text, k=10)
        runs.append(_since(t, c))
        embed.append(result.timings_ms["embed"])
    mem.close()
    return {
        "queries": len(texts),
        "model": MODEL,
        **_summary(runs),
        "embed_p50": pct(embed, 50),
        "embed_p95": pct(embed, 95),
    }


def _since(wall: float, cpu: float) -> tuple[float, float]:
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def _summary(
    values: list[tuple[float, float]], floor: list[tuple[float, float]] | None = None
) -> dict:
    wall, cpu = [v[0] for v in values], [v[1] for v in values]
    out = {"p50": pct(wall, 50), "p95": pct(wall, 95)}
    out |= {"cpu_p50": pct(cpu, 50), "cpu_p95": pct(cpu, 95)}
    if floor is not None:
        out["p95_vs_floor"] = round(out["p95"] / pct([f[0] for f in floor], 95), 3)
        out["cpu_p95_vs_floor"] = round(out["cpu_p95"] / pct([f[1] for f in floor], 95), 3)
    return out


def in_child(fn, *args):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--db", default=None, help="default: /tmp/ann/speed-<n>.db")
    ap.add_argument("--json", default=None, help="also write the report to this file")
    ap.add_argument("--steps", default="build,open,search,e2e", help="which steps to run")
    args = ap.parse_args()
    db = Path(args.db or CACHE / f"speed-{args.n}.db")
    t = time.perf_counter()
    build_store(db, args.n)
    report: dict = {
        "records": args.n,
        "vectors": "real USE (512-d) of real chat text"
        + (", then mixtures of two real vectors" if args.n > 100_000 else ""),
        "store_build_s": round(time.perf_counter() - t, 1),
    }
    steps = args.steps.split(",")
    if "build" in steps:
        report["build"] = in_child(step_build, str(db))
        print(json.dumps(report["build"]), file=sys.stderr)
    if "open" in steps:
        report["open"] = in_child(step_open, str(db))
        print(json.dumps(report["open"]), file=sys.stderr)
    if "search" in steps:
        report["search"] = in_child(step_search, str(db), args.queries)
    if "e2e" in steps:
        report["e2e"] = in_child(step_e2e, str(db), args.queries)
        print(json.dumps(report["e2e"]), file=sys.stderr)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")


if __name__ == "__main__":
    main()
