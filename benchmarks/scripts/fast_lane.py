"""What the fast lane does to quality while records wait for the main model, and how fast a
burst becomes searchable by meaning.

Quality (``--quality``): per conversation of LoCoMo (the first ``--conversations``) and the
Chinese dev set, a store with every turn embedded by e5 and by USE. Then the newest
``--waiting`` share of the turns lose their e5 vector, as if e5 had not reached them yet, and
every answerable question is asked (the shipped pipeline, ``now`` = the question's time):

- ``e5 for all``: nothing waits (the steady state, and the reference);
- ``waiting, no lane``: the waiting turns are found by keyword search only (before the lane);
- ``waiting, lane``: they are found by their USE vectors too (``indexing.fast_lane``).

recall@10 and MRR over all questions and over the questions whose gold turns all wait.

Speed (``--burst N``): N short chat messages through ``ingest_many`` (async, the defaults), and
the time until every one has a vector of either model (searchable by meaning), and until
every one has its e5 vector, with the lane on and off.

    python benchmarks/scripts/fast_lane.py --quality [--conversations 3] [--waiting 0.3]
    python benchmarks/scripts/fast_lane.py --burst 2000 [--words 12]
    [--out benchmarks/results/fast-lane.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from remem.store.queries import VectorWrite

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"
E5_ID = "local:multilingual-e5-small"
CACHE = Path(tempfile.gettempdir()) / "remem-fast-lane-bench"


def _config(**overrides: Any):
    from remem import Config

    base = {"indexing.mode": "sync", "indexing.backfill": False}
    return Config.load(env={}, overrides={**base, **overrides})


def build(db: Path, turns: list[dict], e5, use) -> None:
    """Every turn with its e5 and its USE vector (cached across runs)."""
    from remem import Memory
    from remem.embed.fast_model import FAST_MODEL, FAST_MODEL_ID
    from remem_bench.suite import turn_fields

    if db.exists():
        return
    tmp = db.with_suffix(".tmp.db")
    with Memory(tmp, _config(), embedder=e5) as mem:
        mem.ingest_many(turn_fields(turns), wait=True)
        records = sorted(mem.list(limit=None), key=lambda r: r.rowid or 0)
        texts = [r.embed_text(mem.config.embed.with_speaker) for r in records]
        vectors = use.embed_passages(texts)
        mem.store.put_vectors(
            VectorWrite(
                FAST_MODEL_ID,
                "local",
                FAST_MODEL,
                [(r.rowid, v) for r, v in zip(records, vectors, strict=True) if r.rowid],
                mark_indexed=False,
            ),
        )
    tmp.rename(db)


def ask(db: Path, questions: list[dict], lane: bool, e5, waiting: set[str]) -> list[dict]:
    from remem import Memory
    from remem_bench.benchmark import score_query

    rows = []
    with Memory(db, _config(**{"indexing.fast_lane": lane}), embedder=e5) as mem:
        for q in questions:
            result = mem.search(q["query"], k=10, now=q["timestamp"])
            ids = [h.record.id for h in result.hits]
            row = score_query(ids, [], q["gold"], [])
            row["gold_waits"] = all(g in waiting for g in q["gold"])
            rows.append(row)
    return rows


def quality(conversations: int, share: float) -> dict[str, Any]:
    from remem import Config, Memory
    from remem.embed.fast_model import fast_embedder
    from remem.embed.local import E5Embedder
    from remem.types import Filters
    from remem_bench.benchmark import load_dataset

    e5, use = E5Embedder(), fast_embedder(Config.load(env={}).embed.threads)
    CACHE.mkdir(exist_ok=True)
    out: dict[str, Any] = {}
    sets = {
        "locomo": (SHARED / "locomo", conversations),
        "zh_groupchat": (REPO / "benchmarks" / "data" / "zh_groupchat", None),
    }
    for name, (folder, limit) in sets.items():
        corpus, queries = load_dataset(folder)
        convs = list(dict.fromkeys(t["conversation"] for t in corpus))[:limit]
        runs: dict[str, list[dict]] = {
            "e5 for all": [],
            "waiting, no lane": [],
            "waiting, lane": [],
        }
        for conv in convs:
            turns = sorted(
                (t for t in corpus if t["conversation"] == conv), key=lambda t: t["timestamp"]
            )
            asked = [q for q in queries if q["conversation"] == conv and q.get("gold")]
            db = CACHE / f"{name}-{conv.replace(':', '_')}.db"
            build(db, turns, e5, use)
            late = {t["id"] for t in turns[int(len(turns) * (1 - share)) :]}
            runs["e5 for all"] += ask(db, asked, False, e5, late)
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / "w.db"
                shutil.copy(db, copy)
                with Memory(copy, _config(), embedder=e5) as mem:
                    mem.store.clear_vectors(Filters(ids=sorted(late)), model_id=E5_ID)
                runs["waiting, no lane"] += ask(copy, asked, False, e5, late)
                runs["waiting, lane"] += ask(copy, asked, True, e5, late)
            print(f"  {name} {conv}: {len(asked)} questions", file=sys.stderr)
        out[name] = {variant: _summary(rows) for variant, rows in runs.items()}
    return {"waiting_share": share, "datasets": out}


def _summary(rows: list[dict]) -> dict[str, Any]:
    def mean(sel: list[dict], key: str) -> float:
        return round(float(np.mean([r[key] for r in sel])), 4) if sel else 0.0

    waits = [r for r in rows if r["gold_waits"]]
    return {
        "questions": len(rows),
        "recall@10": mean(rows, "recall@10"),
        "mrr": mean(rows, "mrr"),
        "gold_waits": {"questions": len(waits), "recall@10": mean(waits, "recall@10")},
    }


def burst(n: int, words: int = 12) -> dict[str, Any]:
    from remem import Config, Memory
    from remem.embed.fast_model import FAST_MODEL_ID

    sentences = [
        "we should book the train tickets for the trip to Lisbon next month",
        "my sister just adopted a small grey cat from the shelter downtown",
        "the project review moved to Thursday afternoon after lunch today",
        "can someone bring the projector and the long cable to the meeting",
    ]

    def text(i: int) -> str:  # ``words`` words: sentences in turn, then the message number
        parts: list[str] = []
        j = i
        while len(parts) < words - 1:
            parts += sentences[j % 4].split()
            j += 1
        return " ".join(parts[: words - 1]) + f" {i}"

    out: dict[str, Any] = {"messages": n, "words_per_message": words}
    for lane in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            config = Config.load(env={}, overrides={"indexing.fast_lane": lane})
            with Memory(Path(tmp) / "b.db", config) as mem:
                mem.search("warm up", k=1)  # the model loads before the clock starts
                items = [
                    {
                        "id": f"b{i}",
                        "session": "s",
                        "speaker": "Ann",
                        "text": text(i),
                    }
                    for i in range(n)
                ]
                start = time.perf_counter()
                mem.ingest_many(items)
                written = time.perf_counter() - start
                searchable = None
                while True:
                    stats = dict((m, c) for m, _d, c in mem.store.vector_stats())
                    e5, fast = stats.get(E5_ID, 0), stats.get(FAST_MODEL_ID, 0)
                    pending = mem.stats()["index_status"].get("pending", 0)
                    # every record has a vector of one model or the other
                    if searchable is None and e5 + min(fast, pending) >= n:
                        searchable = time.perf_counter() - start
                    if pending == 0:
                        break
                    time.sleep(0.2)
                done = time.perf_counter() - start
            out["lane" if lane else "no lane"] = {
                "written_s": round(written, 2),
                "searchable_by_meaning_s": round(searchable or done, 1),
                "searchable_per_s": round(n / (searchable or done), 1),
                "all_e5_s": round(done, 1),
                "e5_per_s": round(n / done, 1),
            }
            print(f"  lane={lane}: {out['lane' if lane else 'no lane']}", file=sys.stderr)
    out["bare encoders (texts/s, batches of 32)"] = bare_rates([text(i) for i in range(n)])
    out["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return out


def bare_rates(texts: list[str]) -> dict[str, float]:
    """The encoders alone on the same texts (what the pipeline's rates compare with)."""
    from remem import Config
    from remem.embed.fast_model import fast_embedder
    from remem.embed.local import E5Embedder

    sample = texts[: min(len(texts), 256)]
    rates = {}
    for name, emb in (
        ("e5", E5Embedder()),
        ("use", fast_embedder(Config.load(env={}).embed.threads)),
    ):
        emb.embed_passages(sample[:4])
        start = time.perf_counter()
        for i in range(0, len(sample), 32):
            emb.embed_passages(sample[i : i + 32])
        rates[name] = round(len(sample) / (time.perf_counter() - start), 1)
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quality", action="store_true")
    ap.add_argument("--conversations", type=int, default=3)
    ap.add_argument("--waiting", type=float, default=0.3)
    ap.add_argument("--burst", type=int, default=0)
    ap.add_argument("--words", type=int, default=12, help="words per burst message")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    report: dict[str, Any] = {"bench": "fast_lane"}
    if args.quality:
        report["quality"] = quality(args.conversations, args.waiting)
    if args.burst:
        report["burst"] = burst(args.burst, args.words)
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
