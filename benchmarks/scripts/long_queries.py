"""Long chat-path queries: the question comes last, after other people's messages.

The chat path's query is the turn's archived inputs, oldest first (up to 4000 characters). This
benchmark makes such queries from a dataset: each question is preceded by ``--prefix`` chat
lines from conversations that are *not* in the store (cross-talk from other chats, seeded),
and compares ``search.query_embed_tokens`` budgets (0 = embed the whole query) on recall and
on the time the query embedding takes. The short questions alone are the reference.

    python benchmarks/scripts/long_queries.py [--dataset locomo|zh_groupchat] [--conversations 2]
        [--budgets 0,32,64,128] [--prefix 4] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from remem import Config
from remem.embed.local import E5Embedder
from remem_bench.benchmark import load_dataset, run_benchmark

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "bench"
if not SHARED.exists():  # a worktree under /work/wt/<name>
    SHARED = HERE.parents[3] / "shared" / "bench"
DATASETS = {"locomo": SHARED / "locomo", "zh_groupchat": HERE / "data" / "zh_groupchat"}


def long_dataset(source: Path, target: Path, conversations: int, prefix: int) -> Path:
    """``target`` holding the source corpus and its questions, each preceded by ``prefix``
    lines of conversations beyond the first ``conversations`` (never in the store)."""
    corpus, queries = load_dataset(source)
    asked = list(dict.fromkeys(q["conversation"] for q in queries))[:conversations]
    crosstalk = [t["text"] for t in corpus if t["conversation"] not in asked and t["text"]]
    if len(crosstalk) < prefix:
        raise SystemExit(f"{source.name}: too few conversations beyond {conversations}")
    rng = random.Random(17)
    target.mkdir(parents=True, exist_ok=True)
    (target / "corpus.jsonl").write_text((source / "corpus.jsonl").read_text("utf-8"), "utf-8")
    with (target / "queries.jsonl").open("w", encoding="utf-8") as out:
        for q in queries:
            lines = rng.sample(crosstalk, prefix) if prefix else []
            out.write(json.dumps({**q, "query": "\n".join([*lines, q["query"]])}) + "\n")
    return target


def measure(dataset: Path, budget: int, conversations: int, embedder, reuse: Path) -> dict:
    config = Config.load(env={}, overrides={"search.query_embed_tokens": budget})
    result = run_benchmark(
        dataset,
        config=config,
        embedder=embedder,
        limit_conversations=conversations,
        reuse_dir=reuse,
    )["variants"]["hybrid"]
    latency = result["latency_ms"]
    return {
        "recall@10": result["overall"]["recall@10"],
        "mrr": result["overall"]["mrr"],
        "query_embed_p50_ms": round(latency["search_embed_p50"] - latency["search_p50"], 1),
        "query_embed_p95_ms": round(latency["search_embed_p95"] - latency["search_p95"], 1),
        "n_queries": result["n_queries"],
    }


def main(name: str, conversations: int, budgets: list[int], prefix: int) -> dict:
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    embedder = E5Embedder()
    source = DATASETS[name]
    out: dict = {
        "dataset": name,
        "conversations": conversations,
        "prefix_lines": prefix,
        "model": embedder.model_id,
        "note": f"{time.strftime('%Y-%m-%d %H:%M')} UTC; load before: {_load()}",
    }
    with tempfile.TemporaryDirectory(prefix="remem-long-q-") as tmp:
        reuse = Path(tmp) / "stores"
        out["short_questions"] = measure(source, 0, conversations, embedder, reuse)
        long = long_dataset(source, Path(tmp) / "long", conversations, prefix)
        out["long_queries"] = {
            str(b): measure(long, b, conversations, embedder, reuse) for b in budgets
        }
    out["note"] += f"; load after: {_load()}"
    return out


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="locomo", choices=sorted(DATASETS))
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--budgets", default="0,32,64,128")
    parser.add_argument("--prefix", type=int, default=4)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    result = main(args.dataset, args.conversations, budgets, args.prefix)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
