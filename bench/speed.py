"""Search latency on a large store (default 100,000 records), on this machine.

The store is built from real chat text (the LoCoMo and LongMemEval corpora, repeated with a
numeric suffix until N records) so the lexical index sees a realistic token distribution.
Embedding 100k texts with the bundled model takes ~30 minutes on 2 cores, so vectors are the
real e5 vectors of the first ``--unique-vectors`` texts, reused with small noise: the cost of an
exact matrix-vector search does not depend on what the vectors say.

    python bench/speed.py --n 100000 --queries 300 [--db /tmp/speed.db] [--json]

Reports p50 / p95 of the whole search call (query vector precomputed), of each stage, and of
the query embedding, with and without a scope filter.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from remem import Config, Memory
from remem.embed.local import E5Embedder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench"


def corpus_texts() -> list[str]:
    texts = []
    for name in ("locomo", "longmemeval_oracle"):
        f = SHARED / name / "corpus.jsonl"
        texts += [json.loads(line)["text"] for line in f.read_text().splitlines() if line]
    return texts


def queries(n: int) -> list[str]:
    f = SHARED / "locomo" / "queries.jsonl"
    return [json.loads(line)["query"] for line in f.read_text().splitlines() if line][:n]


def build(db: Path, n: int, unique_vectors: int, emb: E5Embedder) -> Memory:
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    mem = Memory(db, config)
    if mem.store.count() >= n:
        return mem
    texts = corpus_texts()
    print(f"embedding {unique_vectors} unique texts ...", file=sys.stderr)
    base = emb.embed_passages(texts[:unique_vectors])
    rng = np.random.default_rng(7)
    batch = 5000
    for start in range(mem.store.count(), n, batch):
        rows = []
        for i in range(start, min(n, start + batch)):
            text = f"{texts[i % len(texts)]} #{i // len(texts)}"
            rows.append(
                (
                    {
                        "id": f"r{i}",
                        "kind": "message",
                        "text": text,
                        "scope": f"user:{i % 50}",
                        "session": f"s{i // 40}",
                        "created_at": 1_700_000_000 + i * 60,
                        "content_hash": str(i),
                        "importance": 0.5,
                        "speaker_label": f"user{i % 50}",
                    },
                    mem.tokenizer.index_string(text),
                )
            )
        rowids = mem.store.insert_records(rows)
        vecs = base[np.arange(start, start + len(rows)) % len(base)]
        vecs = vecs + rng.normal(scale=0.01, size=vecs.shape).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        mem.store.put_vectors(
            emb.model_id, "local", emb.model, list(zip(rowids, vecs, strict=True))
        )
        print(f"  {start + len(rows)} records", file=sys.stderr)
    return mem


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--unique-vectors", type=int, default=3000)
    ap.add_argument("--db", default="/tmp/remem-speed.db")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    emb = E5Embedder()
    built = build(Path(args.db), args.n, args.unique_vectors, emb)
    built.close()
    mem = Memory(args.db, Config.load(env={}), embedder=emb)
    qs = queries(args.queries)
    embed_ms, qvecs = [], []
    for q in qs:
        t = time.perf_counter()
        qvecs.append(mem.searcher.embed_query(emb, q))
        embed_ms.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    mem.search("warm up", k=10, query_vector=qvecs[0])  # loads the matrix
    load_ms = (time.perf_counter() - t) * 1000

    report = {"records": mem.store.count(), "queries": len(qs), "index_load_ms": round(load_ms)}
    from remem.retrieve.search import STAGE_NAMES

    runs = [
        ("v1 unfiltered", None, tuple(STAGE_NAMES), 0.0),
        ("pipeline unfiltered", None, (), None),
        ("v1 scope filter", {"scope": "user:7"}, tuple(STAGE_NAMES), 0.0),
        ("pipeline scope filter", {"scope": "user:7"}, (), None),
    ]
    default_ctx = mem.config.search.context_weight
    for label, filters, disable, ctx_weight in runs:
        mem.config.search.context_weight = default_ctx if ctx_weight is None else ctx_weight
        totals: list[float] = []
        stages: dict[str, list[float]] = {}
        for q, v in zip(qs, qvecs, strict=True):
            t = time.perf_counter()
            result = mem.search(q, k=10, filters=filters, query_vector=v, disable=disable)
            totals.append((time.perf_counter() - t) * 1000)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
        report[label] = {
            "search_p50": pct(totals, 50),
            "search_p95": pct(totals, 95),
            "stages_p50": {s: pct(v, 50) for s, v in stages.items() if s != "embed"},
        }
    report["query_embed_p50"] = pct(embed_ms, 50)
    report["query_embed_p95"] = pct(embed_ms, 95)
    report["query_embed_mean"] = round(statistics.fmean(embed_ms), 3)
    print(json.dumps(report, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
