"""Vector search at scale: the exact index against the snapshot + HNSW index, on real vectors.

    python benchmarks/scripts/ann.py --n 100000 [--queries 500] [--json benchmarks/results/ann-100k.json]
    python benchmarks/scripts/ann.py --n 1000000 --json benchmarks/results/ann-1m.json

Builds (once, cached under /tmp/ann) a remem SQLite store of n records whose vectors are real
USE vectors of chat text (``benchmarks/scripts/ann_vectors.py``; from 100k on, mixtures of two real vectors,
see ``synthetic_million``), with 20 scopes to filter on. Then, each step in a fresh subprocess so
its peak memory (ru_maxrss) is its own:

- ``exact-load``: ``ExactIndex.sync()`` from the store (the current path of every search);
- ``build``: reading the vectors and writing the snapshot + graph;
- ``open``: opening the snapshot and the first search, then query p50/p95 and recall@10 against
  exact search, unfiltered and with allowed subsets of 10% and 0.5% of the records.

It also prints the exact floor (numpy, one BLAS thread) and the exact/graph crossover on
subsets of the vectors. Pass ``--python-path`` to run the exact-load step against another
checkout's ``src`` (the "before" figure).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ann_vectors import corpus_vectors, query_vectors, synthetic_million

from remem.store.queries import VectorRead

MODEL = "local:use-multilingual-v3"
DIM = 512
K = 10
SCOPES = 20


def vectors(n: int) -> np.ndarray:
    base = corpus_vectors()
    return base[:n] if n <= len(base) else synthetic_million(base, n)


def build_store(db: Path, n: int) -> None:
    """Records and vectors written with plain SQL into a store remem created (the record
    fields the index reads are filled; FTS is left empty: no lexical search is timed here)."""
    from remem.store.sqlite import SQLiteStore

    if db.exists():
        return
    tmp = db.with_suffix(".tmp.db")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    SQLiteStore(tmp).close()
    matrix = vectors(n)
    c = sqlite3.connect(tmp, isolation_level=None)
    c.execute("PRAGMA synchronous = OFF")
    c.execute("BEGIN")
    now = time.time()
    step = 50_000
    for start in range(0, n, step):
        stop = min(n, start + step)
        c.executemany(
            "INSERT INTO records (rowid, id, kind, text, scope, session, created_at, "
            "content_hash, index_status, rev, updated_at) VALUES (?, ?, 'message', ?, ?, ?, ?, "
            "?, 'indexed', 1, ?)",
            (
                (
                    i + 1,
                    f"r{i}",
                    f"text {i}",
                    f"scope{i % SCOPES}",
                    f"s{i // 200}",
                    1e9 + i,
                    f"h{i}",
                    now,
                )
                for i in range(start, stop)
            ),
        )
        c.executemany(
            "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, created_at) "
            "VALUES (?, ?, 'local', 'use-multilingual-v3', ?, ?, ?)",
            ((i + 1, MODEL, DIM, matrix[i].tobytes(), now) for i in range(start, stop)),
        )
    c.execute("UPDATE counters SET value = 1 WHERE name = 'rev'")
    c.execute("COMMIT")
    c.close()
    tmp.rename(db)


def rss_mb() -> float:
    """Peak resident memory of this process since the last ``reset_peak`` (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def reset_peak() -> float:
    """Reset the peak to the current resident memory (Linux: clear_refs 5); returns it, so a
    step's peak is not an import-time high-water mark."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return rss_mb()


# ---------------------------------------------------------------------------- subprocess steps
def step_exact_load(db: Path) -> dict:
    from remem.index.exact import ExactIndex
    from remem.store.sqlite import SQLiteStore

    store = SQLiteStore(db)
    base = reset_peak()
    index = ExactIndex(store, MODEL, DIM)
    wall, cpu = time.perf_counter(), time.process_time()
    index.sync()
    return {
        "load_s": round(time.perf_counter() - wall, 2),
        "load_cpu_s": round(time.process_time() - cpu, 2),
        "size": index.size,
        "rss_before_mb": base,
        "peak_rss_mb": rss_mb(),
    }


def step_sql_read(db: Path) -> dict:
    """One full read of the vectors into memory (what a build without a snapshot costs)."""
    from remem.store.sqlite import SQLiteStore

    source = SQLiteStore(db)
    base = reset_peak()
    wall, cpu = time.perf_counter(), time.process_time()
    batch = source.read_vectors(VectorRead(MODEL, DIM, 0, by_rowid=True))
    return {
        "read_s": round(time.perf_counter() - wall, 2),
        "read_cpu_s": round(time.process_time() - cpu, 2),
        "rows": len(batch),
        "rss_before_mb": base,
        "peak_rss_mb": rss_mb(),
    }


def step_build(db: Path, graph: bool) -> dict:
    from remem.index.snapshot import index_dir
    from remem.index.vector import VectorIndex
    from remem.store.sqlite import SQLiteStore

    index = VectorIndex(
        SQLiteStore(db),
        index_dir(db),
        MODEL,
        DIM,
        auto_build=False,
        ann_min=1 if graph else 2**62,
    )
    wall, cpu = time.perf_counter(), time.process_time()
    index.build(threads=2)
    total = time.perf_counter() - wall
    files = {
        p.suffixes[-2] if p.suffix == ".npy" else p.suffix: p.stat().st_size
        for p in index.folder.iterdir()
        if p.suffix in (".npy", ".faiss")
    }
    return {
        "build_s": round(total, 1),
        "build_cpu_s": round(time.process_time() - cpu, 1),
        "peak_rss_mb": rss_mb(),
        "files_mb": {k: round(v / 2**20, 1) for k, v in files.items()},
    }


def _percentiles(wall: list[float], cpu: list[float]) -> dict:
    """Wall and CPU-time (this thread) percentiles: on a loaded machine the wall figures carry
    the waits for a core, the CPU figures only the work."""
    return {
        "p50_ms": round(float(np.percentile(wall, 50)), 3),
        "p95_ms": round(float(np.percentile(wall, 95)), 3),
        "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 3),
        "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 3),
    }


def step_open(db: Path, queries: int, truth_path: Path) -> dict:
    from remem.index import ann
    from remem.index.exact import blas_one_thread
    from remem.index.snapshot import index_dir
    from remem.index.vector import VectorIndex
    from remem.store.sqlite import SQLiteStore

    qs = query_vectors()[:queries]
    truth = np.load(truth_path, allow_pickle=True).item()
    base = reset_peak()
    wall = time.perf_counter()
    index = VectorIndex(SQLiteStore(db), index_dir(db), MODEL, DIM, auto_build=False)
    first = index.search(qs[0], K)
    first_s = time.perf_counter() - wall
    assert first and index.snapshot_info is not None, "no snapshot: run the build step"
    out = {
        "first_search_ms": round(first_s * 1000, 1),
        "rss_before_mb": base,
        "graph": index.snapshot_info.has_graph,
    }
    n = index.size
    rng = np.random.default_rng(3)
    subsets = {
        "all": None,
        "scope (5%)": np.arange(1, n + 1, SCOPES, dtype=np.int64),
        "random 0.5%": np.sort(rng.choice(np.arange(1, n + 1), n // 200, replace=False)),
    }
    graph = index._snapshot.graph if index._snapshot is not None else None
    default_ef = graph.expansion if graph is not None else ann.search_expansion(n)
    out["ef_search"] = default_ef
    runs = [(name, allowed, default_ef) for name, allowed in subsets.items()]
    runs += [("all", None, ef) for ef in (64, 128, 256, 512) if ef != default_ef]
    for name, allowed, ef in runs:
        if graph is not None:
            graph.expansion = ef
        times, cpu, recalls = [], [], []
        for i, q in enumerate(qs):
            t, c = time.perf_counter(), time.thread_time()
            hits = index.search(q, K, allowed)
            cpu.append((time.thread_time() - c) * 1000)
            times.append((time.perf_counter() - t) * 1000)
            want = truth[name][i]
            recalls.append(len({r for r, _ in hits} & set(want.tolist())) / K)
        key = name if ef == default_ef else f"{name}, ef_search {ef}"
        out[key] = {**_percentiles(times, cpu), "recall@10": round(float(np.mean(recalls)), 4)}
    if graph is not None:
        graph.expansion = default_ef
    out["peak_rss_mb"] = rss_mb()  # before the exact floor below maps the whole matrix in
    # the exact floor in the same process, over the same matrix
    times, cpu = [], []
    matrix = np.asarray(index._snapshot.matrix)
    with blas_one_thread():
        for q in qs:
            t, c = time.perf_counter(), time.thread_time()
            scores = matrix @ q
            top = np.argpartition(-scores, K)[:K]
            top[np.argsort(-scores[top])]
            cpu.append((time.thread_time() - c) * 1000)
            times.append((time.perf_counter() - t) * 1000)
    out["exact floor"] = _percentiles(times, cpu)
    return out


def run_step(args: list[str], python_path: str | None = None) -> dict:
    env = {**os.environ, "OMP_WAIT_POLICY": "passive"}
    env["PYTHONPATH"] = python_path or env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"step {args[:2]} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------- in-process parts
def exact_truth(matrix: np.ndarray, qs: np.ndarray) -> dict[str, list[np.ndarray]]:
    n = len(matrix)
    rng = np.random.default_rng(3)
    subsets = {
        "all": np.arange(n),
        "scope (5%)": np.arange(0, n, SCOPES),
        "random 0.5%": np.sort(rng.choice(np.arange(1, n + 1), n // 200, replace=False)) - 1,
    }
    truth = {}
    for name, rows in subsets.items():
        sub = matrix[rows]
        tops = []
        for q in qs:
            scores = sub @ q
            top = np.argpartition(-scores, K)[:K]
            tops.append(rows[top] + 1)  # rowid = row + 1
        truth[name] = tops
    return truth


def exact_floor(matrix: np.ndarray, qs: np.ndarray) -> dict:
    from threadpoolctl import threadpool_limits

    times = []
    with threadpool_limits(1, "blas"):
        for q in qs:
            t = time.perf_counter()
            scores = matrix @ q
            top = np.argpartition(-scores, K)[:K]
            top[np.argsort(-scores[top])]
            times.append((time.perf_counter() - t) * 1000)
    return {
        "p50_ms": round(float(np.percentile(times, 50)), 3),
        "p95_ms": round(float(np.percentile(times, 95)), 3),
    }


def crossover(matrix: np.ndarray, qs: np.ndarray, sizes: list[int]) -> list[dict]:
    """Exact scan vs graph search p95 on the first ``size`` vectors."""
    from threadpoolctl import threadpool_limits

    from remem.index.ann import Graph, build_graph

    rows = []
    for size in sizes:
        sub = np.ascontiguousarray(matrix[:size])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "g.faiss"
            build_graph(path, sub, threads=2)
            graph = Graph(path, sub.shape[1], np.arange(size, dtype=np.int64), sub)
            exact_ms, graph_ms, exact_cpu, graph_cpu = [], [], [], []
            with threadpool_limits(1, "blas"):
                for q in qs[:200]:
                    t, c = time.perf_counter(), time.thread_time()
                    scores = sub @ q
                    np.argpartition(-scores, K)[:K]
                    exact_cpu.append((time.thread_time() - c) * 1000)
                    exact_ms.append((time.perf_counter() - t) * 1000)
                    t, c = time.perf_counter(), time.thread_time()
                    graph.search(q, K)
                    graph_cpu.append((time.thread_time() - c) * 1000)
                    graph_ms.append((time.perf_counter() - t) * 1000)
        rows.append(
            {
                "n": size,
                "exact": _percentiles(exact_ms, exact_cpu),
                "graph": _percentiles(graph_ms, graph_cpu),
            }
        )
        print(f"  crossover {rows[-1]}", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--python-path", help="src of another checkout for the 'before' load")
    parser.add_argument(
        "--no-graph",
        action="store_true",
        help="snapshot without the HNSW graph (exact scans of the mapped matrix)",
    )
    parser.add_argument(
        "--skip", default="", help="comma list: exact-load,before,sql-read,build,crossover"
    )
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--truth", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    db = args.db or Path(f"/tmp/ann/store-{args.n}.db")
    if args.step:
        steps = {
            "exact-load": lambda: step_exact_load(db),
            "build": lambda: step_build(db, not args.no_graph),
            "sql-read": lambda: step_sql_read(db),
            "open": lambda: step_open(db, args.queries, args.truth),
        }
        print(json.dumps(steps[args.step]()))
        return
    skip = set(filter(None, args.skip.split(",")))
    report: dict = {
        "n": args.n,
        "dim": DIM,
        "queries": args.queries,
        "raw_matrix_mb": round(args.n * DIM * 4 / 2**20, 1),
    }
    start = time.perf_counter()
    build_store(db, args.n)
    print(f"store ready ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    matrix = vectors(args.n)
    qs = query_vectors()[: args.queries]
    report["exact_floor"] = exact_floor(matrix, qs)
    print(f"exact floor {report['exact_floor']}", file=sys.stderr)
    truth_path = Path(f"/tmp/ann/truth-{args.n}-{args.queries}.npy")
    if not truth_path.exists():
        np.save(truth_path, np.array(exact_truth(matrix, qs), dtype=object), allow_pickle=True)
    if "crossover" not in skip:
        sizes = [s for s in (2_000, 5_000, 10_000, 20_000) if s <= args.n]
        report["crossover"] = crossover(matrix, qs, sizes)
    del matrix
    if "before" not in skip and args.python_path:
        report["exact_load_before"] = run_step(
            ["--step", "exact-load", "--db", str(db)], args.python_path
        )
        print(f"exact load before {report['exact_load_before']}", file=sys.stderr)
    if "exact-load" not in skip:
        report["exact_load"] = run_step(["--step", "exact-load", "--db", str(db)])
        print(f"exact load {report['exact_load']}", file=sys.stderr)
    if "sql-read" not in skip:
        report["sql_read"] = run_step(["--step", "sql-read", "--db", str(db)])
        print(f"sql read {report['sql_read']}", file=sys.stderr)
    if "build" not in skip:
        report["build"] = run_step(
            ["--step", "build", "--db", str(db), *(["--no-graph"] if args.no_graph else [])]
        )
        print(f"build {report['build']}", file=sys.stderr)
    report["open"] = run_step(
        [
            "--step",
            "open",
            "--db",
            str(db),
            "--queries",
            str(args.queries),
            "--truth",
            str(truth_path),
        ]
    )
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
