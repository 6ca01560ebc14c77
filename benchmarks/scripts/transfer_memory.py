"""Peak memory of `remem export --with-vectors` and `remem import` against the record count,
and how long a cold `remem search` takes on the imported store.

Builds a synthetic store of N records (short chat lines in a few hundred sessions) with one
random unit vector of 384 dims each, labelled as the default model's (multilingual-e5-small),
so the import reuses the file's vectors and embeds nothing: the measure is the transfer, not
a model. Export and import each run in a fresh child process; its peak RSS (ru_maxrss) and
time are reported. Flat memory means 20k and 200k peak about the same.

Then, on the imported store, each in a new process (as a user runs them): `remem search`
before any vector index exists (it reads every vector from SQL), `remem index` (what
`remem import` runs at its end), and `remem search` three times with the index: wall time,
interpreter start, model load and query embedding included (min and max reported).

    python benchmarks/scripts/transfer_memory.py --records 20000 200000 [--json] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from remem.store.queries import VectorWrite

DIM = 384
WORDS = [
    "otter",
    "river",
    "tea",
    "garden",
    "train",
    "Berlin",
    "Lisbon",
    "piano",
    "bread",
    "coffee",
    "mango",
    "今天",
    "我们",
    "吃饭",
]


class FileVectorsEmbedder:
    """Reports the model id the synthetic vectors carry; never called (every record brings
    its vector), and fails loudly if it is."""

    # the default model's labels, so that `remem search` with the default config uses them
    provider, model, model_id, dim, default_chunk_chars = (
        "local",
        "multilingual-e5-small",
        "local:multilingual-e5-small",
        DIM,
        0,
    )

    def embed_passages(self, texts: Any) -> np.ndarray:
        raise AssertionError("the import should reuse the file's vectors")

    embed_queries = embed_passages


def _config() -> Any:
    from remem import Config

    return Config.load(env={}, overrides={"indexing.mode": "sync"})


def build(db: Path, n: int, seed: int = 7) -> None:
    from remem import Memory

    rng = np.random.default_rng(seed)
    emb = FileVectorsEmbedder()
    with Memory(db, _config(), embedder=emb) as mem:  # type: ignore[arg-type]
        for start in range(0, n, 5000):
            size = min(5000, n - start)
            items = [
                {
                    "id": f"r{i}",
                    "text": " ".join(rng.choice(WORDS, 12)) + f" #{i}",
                    "session": f"s{i % 500}",
                    "speaker": "Ann" if i % 2 else "Bo",
                    "timestamp": 1_700_000_000 + i,
                }
                for i in range(start, start + size)
            ]
            records = mem.ingest_many(items, embed=False)
            vecs = rng.standard_normal((size, DIM)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            mem.store.put_vectors(
                VectorWrite(
                    emb.model_id,
                    emb.provider,
                    emb.model,
                    list(zip([r.rowid for r in records], vecs, strict=True)),
                ),
            )


def _export(db: str, out: str, result: Any) -> None:
    from remem import Memory
    from remem.transfer import export_file

    start = time.perf_counter()
    with Memory(db, _config(), embedder=FileVectorsEmbedder()) as mem:  # type: ignore[arg-type]
        n = export_file(mem, Path(out), with_vectors=True)
    result.put((n, time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def _import(db: str, file: str, result: Any) -> None:
    from remem import Memory
    from remem.transfer import import_records

    start = time.perf_counter()
    with Memory(db, _config(), embedder=FileVectorsEmbedder()) as mem:  # type: ignore[arg-type]
        report = import_records(mem, Path(file))
        assert report.vectors == report.added, report.to_dict()
    result.put(
        (
            report.added,
            time.perf_counter() - start,
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        )
    )


def _child(target: Any, *args: str) -> tuple[int, float, int]:
    ctx = mp.get_context("spawn")  # a fresh interpreter: nothing inherited inflates the peak
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    got = queue.get()
    proc.join()
    return got


def _cli(db: Path, *args: str) -> tuple[float, str]:
    """Run `remem ARGS` on ``db`` in a new process; (wall seconds, stdout)."""
    env = {**os.environ, "REMEM_DB": str(db), "OMP_WAIT_POLICY": "passive"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "remem.cli", *args], env=env, capture_output=True, text=True
    )
    took = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"remem {' '.join(args)} failed: {done.stderr[-2000:]}")
    return took, done.stdout


def cold_searches(db: Path) -> dict[str, Any]:
    """`remem search` in new processes, before and after `remem index` (module docstring)."""
    query = ("search", "otter river garden in Berlin", "--json")
    unindexed, _ = _cli(db, *query)
    index_s, report = _cli(db, "index", "--json")
    runs = [_cli(db, *query)[0] for _ in range(3)]
    return {
        "search_no_index_s": round(unindexed, 2),
        "index": {**json.loads(report), "wall_s": round(index_s, 1)},
        "search_cold_s": {"min": round(min(runs), 2), "max": round(max(runs), 2)},
    }


def measure(n: int, work: Path) -> dict[str, Any]:
    src, dst, dump = work / f"src-{n}.db", work / f"dst-{n}.db", work / f"dump-{n}.jsonl"
    start = time.perf_counter()
    build(src, n)
    built = time.perf_counter() - start
    exported, export_s, export_kb = _child(_export, str(src), str(dump))
    imported, import_s, import_kb = _child(_import, str(dst), str(dump))
    searches = cold_searches(dst)
    return {
        "records": n,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "build_s": round(built, 1),
        "file_mb": round(dump.stat().st_size / 2**20, 1),
        "export": {"records": exported, "s": round(export_s, 1), "peak_rss_mb": export_kb // 1024},
        "import": {"records": imported, "s": round(import_s, 1), "peak_rss_mb": import_kb // 1024},
        **searches,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="remem-transfer-bench-") as tmp:
        for n in args.records:
            rows.append(measure(n, Path(tmp)))
            if not args.json:
                r = rows[-1]
                print(
                    f"{n:>8} records ({r['file_mb']} MB): export {r['export']['s']} s, "
                    f"peak {r['export']['peak_rss_mb']} MB; import {r['import']['s']} s, "
                    f"peak {r['import']['peak_rss_mb']} MB; cold search "
                    f"{r['search_cold_s']['min']}-{r['search_cold_s']['max']} s with the index "
                    f"({r['search_no_index_s']} s before it; built in {r['index']['wall_s']} s)",
                    flush=True,
                )
    result = {"bench": "transfer_memory", "dim": DIM, "runs": rows}
    if args.json:
        print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
