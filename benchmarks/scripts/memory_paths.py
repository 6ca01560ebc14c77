"""Latency of the curated-memory hooks with the bundled model: auto-recall before a call and
auto-capture after one, on a store of N memories (LoCoMo turns stored as memories).

    python benchmarks/scripts/memory_paths.py --memories 2000 --turns 100 [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from remem import Config, Memory, Turn

SHARED = Path(__file__).resolve().parents[3] / "shared" / "bench"
TURNS = [
    "I moved to Lisbon last month and I love the light here.",
    "We decided to use PostgreSQL for the new project.",
    "Remember that my daughter's name is Ines.",
    "我最喜欢的水果是芒果。",
    "我们决定下周五发布新版本。",
    "ok thanks",
    "I prefer trains over planes for short trips.",
    "My sister Anna works as a nurse in Munich.",
]
QUESTIONS = [
    "Where do I live now?",
    "Which database did we pick for the project?",
    "What is my daughter called, remember?",
    "我喜欢吃什么水果？",
    "我们什么时候发布？",
    "How should I travel to Porto next week?",
    "What does my sister do for a living?",
    "Can you suggest a dinner for me?",
]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    texts = [
        json.loads(line)["text"]
        for line in (SHARED / "locomo" / "corpus.jsonl").read_text().splitlines()
        if line
    ]
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(env={}, overrides={"indexing.mode": "sync"})
        with Memory(Path(tmp) / "m.db", config) as mem:
            start = time.perf_counter()
            mem.ingest_many(
                [
                    {"kind": "memory", "text": t, "scope": "agent:bench"}
                    for t in texts[: args.memories]
                ]
            )
            load_s = time.perf_counter() - start
            recall_ms, capture_ms, injected = [], [], 0
            for i in range(args.turns):
                q = QUESTIONS[i % len(QUESTIONS)]
                t0 = time.perf_counter()
                out = mem.recall_memories(q, agent="bench", session=f"s{i}")
                recall_ms.append((time.perf_counter() - t0) * 1000)
                injected += len(out.memories)
                t1 = time.perf_counter()
                mem.capture_after_turn(
                    Turn(
                        agent="bench",
                        session=f"s{i}",
                        user_id="u",
                        inputs=[{"role": "user", "text": TURNS[i % len(TURNS)] + f" ({i})"}],
                    )
                )
                capture_ms.append((time.perf_counter() - t1) * 1000)
    report = {
        "memories": args.memories,
        "turns": args.turns,
        "store_seconds": round(load_s, 1),
        "recall_p50_ms": pct(recall_ms, 50),
        "recall_p95_ms": pct(recall_ms, 95),
        "capture_p50_ms": pct(capture_ms, 50),
        "capture_p95_ms": pct(capture_ms, 95),
        "mean_injected": round(injected / args.turns, 2),
        "recall_mean_ms": round(statistics.fmean(recall_ms), 2),
    }
    print(json.dumps(report, indent=1) if args.json else report)


if __name__ == "__main__":
    main()
