"""Which ANN library: usearch vs faiss-cpu vs hnswlib on real USE vectors.

Each (library, configuration) runs in its own subprocess so its peak memory is its own. Figures:
build time (2 threads), peak RSS, file size, open time (memory-mapped where the library can),
single-query latency p50/p95 on one thread, recall@10 against exact search. Queries are the
real LoCoMo / LongMemEval questions (``benchmarks/scripts/ann_vectors.py``).

    python benchmarks/scripts/ann_libs.py --n 100000 [--queries 500] [--json benchmarks/results/ann-libs-100k.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ann_vectors import corpus_vectors, query_vectors, synthetic_million

K = 10
CONFIGS = {
    # name: (library, options)
    "usearch-f32": ("usearch", {"dtype": "f32"}),
    "usearch-f16": ("usearch", {"dtype": "f16"}),
    "usearch-i8": ("usearch", {"dtype": "i8"}),
    "faiss-hnsw-flat": ("faiss", {"kind": "flat"}),
    "faiss-hnsw-sq8": ("faiss", {"kind": "sq8"}),
    "hnswlib": ("hnswlib", {}),
}
# The same graph settings for all three: 16 links per node (32 on level 0), 128 candidates
# while building; searched with 64, 128 and 256 candidates.
M, EF_ADD, EF_SEARCH = 16, 128, (64, 128, 256)


def data(n: int, queries: int) -> tuple[np.ndarray, np.ndarray]:
    base = corpus_vectors()
    vectors = base[:n] if n <= len(base) else synthetic_million(base, n)
    return np.ascontiguousarray(vectors), query_vectors()[:queries]


def exact_top(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    out = np.empty((len(queries), K), np.int64)
    for start in range(0, len(queries), 64):
        scores = queries[start : start + 64] @ vectors.T
        top = np.argpartition(-scores, K, axis=1)[:, :K]
        out[start : start + 64] = top
    return out


def rss_mb() -> float:
    """Peak resident memory of this process (VmHWM: ru_maxrss would carry the parent's peak
    over from the fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(name: str, n: int, queries: int, truth_path: str) -> dict:
    lib, opts = CONFIGS[name]
    vectors, qs = data(n, queries)
    truth = np.load(truth_path)
    keys = np.arange(n, dtype=np.int64)
    rss_data = rss_mb()
    workdir = Path(tempfile.mkdtemp(prefix="ann-libs-"))
    path = workdir / "index.bin"
    start = time.perf_counter()
    if lib == "usearch":
        from usearch.index import Index

        index = Index(
            ndim=vectors.shape[1],
            metric="ip",
            dtype=opts["dtype"],
            connectivity=M,
            expansion_add=EF_ADD,
        )
        index.add(keys, vectors, threads=2)
        build = time.perf_counter() - start
        index.save(str(path))
        del index
        start = time.perf_counter()
        index = Index.restore(str(path), view=True)
        opened = time.perf_counter() - start

        def set_ef(ef: int) -> None:
            index.expansion_search = ef

        def search(q: np.ndarray) -> np.ndarray:
            return index.search(q, K, threads=1).keys

    elif lib == "faiss":
        import faiss

        faiss.omp_set_num_threads(2)
        if opts["kind"] == "flat":
            index = faiss.IndexHNSWFlat(vectors.shape[1], M, faiss.METRIC_INNER_PRODUCT)
        else:
            index = faiss.IndexHNSWSQ(
                vectors.shape[1], faiss.ScalarQuantizer.QT_8bit, M, faiss.METRIC_INNER_PRODUCT
            )
            index.train(vectors[:20000])
        index.hnsw.efConstruction = EF_ADD
        index.add(vectors)
        build = time.perf_counter() - start
        faiss.write_index(index, str(path))
        del index
        start = time.perf_counter()
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
        opened = time.perf_counter() - start
        faiss.omp_set_num_threads(1)

        def set_ef(ef: int) -> None:
            index.hnsw.efSearch = ef

        def search(q: np.ndarray) -> np.ndarray:
            return index.search(q.reshape(1, -1), K)[1][0]

    else:
        import hnswlib

        index = hnswlib.Index(space="ip", dim=vectors.shape[1])
        index.init_index(max_elements=n, ef_construction=EF_ADD, M=M)
        index.set_num_threads(2)
        index.add_items(vectors, keys)
        build = time.perf_counter() - start
        index.save_index(str(path))
        del index
        start = time.perf_counter()
        index = hnswlib.Index(space="ip", dim=vectors.shape[1])
        index.load_index(str(path), max_elements=n)  # no memory-mapping: reads the whole file
        index.set_num_threads(1)
        opened = time.perf_counter() - start

        def set_ef(ef: int) -> None:
            index.set_ef(ef)

        def search(q: np.ndarray) -> np.ndarray:
            return index.knn_query(q, K)[0][0]

    set_ef(EF_SEARCH[0])
    first = time.perf_counter()
    search(qs[0])
    first_ms = (time.perf_counter() - first) * 1000
    sweep = {}
    for ef in EF_SEARCH:
        set_ef(ef)
        search_ms, cpu_ms, recalls = [], [], []
        for q, want in zip(qs, truth, strict=True):
            t, c = time.perf_counter(), time.thread_time()
            got = search(q)
            cpu_ms.append((time.thread_time() - c) * 1000)
            search_ms.append((time.perf_counter() - t) * 1000)
            recalls.append(len(set(np.asarray(got).tolist()) & set(want.tolist())) / K)
        sweep[ef] = {
            "p50_ms": round(float(np.percentile(search_ms, 50)), 3),
            "p95_ms": round(float(np.percentile(search_ms, 95)), 3),
            # CPU time of this thread: the work without the waits for a core
            "cpu_p50_ms": round(float(np.percentile(cpu_ms, 50)), 3),
            "cpu_p95_ms": round(float(np.percentile(cpu_ms, 95)), 3),
            "recall@10": round(float(np.mean(recalls)), 4),
        }
    size = path.stat().st_size
    path.unlink()
    workdir.rmdir()
    return {
        "config": name,
        "n": n,
        "build_s": round(build, 2),
        "open_ms": round(opened * 1000, 2),
        "first_search_ms": round(first_ms, 2),
        "by_ef_search": sweep,
        "file_mb": round(size / 2**20, 1),
        "peak_rss_mb": round(rss_mb(), 0),
        "data_rss_mb": round(rss_data, 0),
    }


def exact_floor(vectors: np.ndarray, qs: np.ndarray) -> dict:
    from threadpoolctl import threadpool_limits

    times = []
    with threadpool_limits(1, "blas"):
        for q in qs:
            t = time.perf_counter()
            scores = vectors @ q
            np.argpartition(-scores, K)[:K]
            times.append((time.perf_counter() - t) * 1000)
    return {
        "config": "exact-numpy",
        "n": len(vectors),
        "p50_ms": round(float(np.percentile(times, 50)), 3),
        "p95_ms": round(float(np.percentile(times, 95)), 3),
        "recall@10": 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--json")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--truth", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.n, args.queries, args.truth)))
        return
    vectors, qs = data(args.n, args.queries)
    truth_path = Path(tempfile.gettempdir()) / f"ann-truth-{args.n}-{args.queries}.npy"
    if not truth_path.exists():
        np.save(truth_path, exact_top(vectors, qs))
    rows = [exact_floor(vectors, qs)]
    del vectors
    for name in args.configs.split(","):
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                name,
                "--n",
                str(args.n),
                "--queries",
                str(args.queries),
                "--truth",
                str(truth_path),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "OMP_WAIT_POLICY": "passive"},
        )
        if out.returncode != 0:
            print(f"{name} failed: {out.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr)
    columns = [
        "config",
        "build_s",
        "open_ms",
        "first_search_ms",
        "ef",
        "p50_ms",
        "p95_ms",
        "cpu_p50_ms",
        "cpu_p95_ms",
        "recall@10",
        "file_mb",
        "peak_rss_mb",
    ]
    print(" | ".join(columns))
    for row in rows:
        for ef, figures in row.get("by_ef_search", {"-": row}).items():
            line = {**row, **figures, "ef": ef}
            print(" | ".join(str(line.get(c, "")) for c in columns))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"n": args.n, "queries": args.queries, "rows": rows}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
