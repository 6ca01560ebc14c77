"""What storing latent terms costs ingest: the first N turns of LoCoMo, sync and async, with
latent terms off (``search.latent_top = 0``) and on (the default), fast lane off.

Sync: the caller waits for vectors and terms of each batch. Async: ``vectors_s`` is when every
record has its vector (the background fill waits for the queue to idle, so it should not
move), ``all_s`` when the fill has stored every record's terms too.

    PYTHONPATH=src python benchmarks/scripts/latent_ingest.py --n 300 [--json benchmarks/results/latent-ingest.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from remem import Config, Memory
from remem.embed.local import E5Embedder

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo" / "corpus.jsonl"
KEYS = ("id", "text", "session", "timestamp", "speaker", "role")


def measure(rows: list[dict], mode: str, top: int, embedder: E5Embedder) -> dict:
    overrides = {"indexing.mode": mode, "search.latent_top": top, "indexing.fast_lane": False}
    config = Config.load(env={}, overrides=overrides)
    with Memory(Path(tempfile.mkdtemp()) / "i.db", config, embedder=embedder) as mem:
        start = time.perf_counter()
        mem.ingest_many(rows)
        mem.wait_indexed()
        vectors = time.perf_counter() - start
        if mem.indexer.latent.fill is not None:
            mem.indexer.latent.fill.wait_settled()
        done = time.perf_counter() - start
        missing = mem.indexer.latent.count_missing()
    n = len(rows)
    return {
        "n": n,
        "vectors_s": round(vectors, 2),
        "all_s": round(done, 2),
        "vectors_per_s": round(n / vectors, 1),
        "all_per_s": round(n / done, 1),
        "latent_missing": missing,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    lines = args.corpus.read_text("utf-8").splitlines()[: args.n]
    rows = [{k: json.loads(line).get(k) for k in KEYS} for line in lines if line.strip()]
    embedder = E5Embedder()
    embedder.embed_passages(["warm up"])
    embedder.latent_terms(["warm up"])
    out = {}
    for mode in ("sync", "async"):
        for top in (0, 10):
            out[f"{mode}-latent{top}"] = measure(rows, mode, top, embedder)
            print(f"{mode}-latent{top}", out[f"{mode}-latent{top}"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
