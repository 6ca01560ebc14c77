"""A burst of chat messages, far more than the indexing queue holds: how long until every one
is searchable by vector, with no manual step (the background backfill feeds the queue at the
model's pace).

Two paths, each on a fresh store with the default async indexing settings:
- ``ingest_many``: one call with every message;
- REST: ``POST /v1/ingest`` with ``--batch`` messages per request, to a server on 127.0.0.1.
For each: how long the writes took (all committed and lexically searchable), the time until
the last vector landed, records left pending (must be 0) and queue drops (must be 0). The bare
encoder's rate over the same texts is the floor the burst can reach.

Texts are LoCoMo turns (cycled, numbered to stay distinct).

    OMP_WAIT_POLICY=passive python benchmarks/scripts/burst.py --messages 10000 --model use-multilingual-v3 [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
import urllib.request
from itertools import cycle, islice
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before any model loads (STACK.md)

from remem import Config, Memory

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo" / "corpus.jsonl"


def messages(n: int, corpus: Path) -> list[dict[str, Any]]:
    with corpus.open(encoding="utf-8") as fh:
        turns = [json.loads(line) for line in fh if line.strip()]
    return [
        {
            "text": f"{t['text']} ({i})",
            "session": f"burst-{i % 50}",
            "speaker": t["speaker"],
            "role": t["role"],
            "timestamp": 1_700_000_000 + i,
        }
        for i, t in enumerate(islice(cycle(turns), n))
    ]


def config(db: Path, model: str) -> Config:
    return Config.load(env={}, overrides={"store.path": str(db), "embed.model": model})


def until_indexed(mem: Memory, total: int, timeout: float) -> float:
    """Seconds until the store holds a vector for all ``total`` records."""
    start = time.perf_counter()
    assert mem.wait_indexed(timeout), "not fully indexed within the timeout"
    embedder = mem.get_embedder()
    assert embedder is not None
    left = mem.store.count_missing_vectors(embedder.model_id)
    assert left == 0, f"{left} of {total} records left without a vector"
    return time.perf_counter() - start


def run_ingest_many(items: list[dict[str, Any]], db: Path, model: str, timeout: float) -> dict:
    with Memory(config=config(db, model)) as mem:
        mem.get_embedder()  # load the model first: the burst measures embedding, not loading
        start = time.perf_counter()
        mem.ingest_many(items)
        written = time.perf_counter() - start
        waited = until_indexed(mem, len(items), timeout)
        return summary(mem, len(items), written, written + waited)


def run_rest(items: list[dict[str, Any]], db: Path, model: str, batch: int, timeout: float) -> dict:
    import uvicorn

    from remem.server.rest import create_app

    with Memory(config=config(db, model)) as mem:
        mem.get_embedder()
        server = uvicorn.Server(
            uvicorn.Config(create_app(mem), host="127.0.0.1", port=0, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}/v1/ingest"
        try:
            start = time.perf_counter()
            for i in range(0, len(items), batch):
                body = json.dumps(items[i : i + batch]).encode()
                request = urllib.request.Request(
                    url, body, {"Content-Type": "application/json"}, method="POST"
                )
                with urllib.request.urlopen(request, timeout=60) as response:
                    assert response.status == 201
            written = time.perf_counter() - start
            waited = until_indexed(mem, len(items), timeout)
        finally:
            server.should_exit = True
            thread.join(10)
        return summary(mem, len(items), written, written + waited)


def summary(mem: Memory, n: int, written: float, indexed: float) -> dict[str, Any]:
    stats = mem.stats()
    return {
        "messages": n,
        "writes_s": round(written, 2),
        "full_index_s": round(indexed, 2),
        "indexed_per_s": round(n / indexed, 1),
        "queue_dropped": stats["queue"]["dropped"],
        "fed_by_backfill": stats["backlog"].get("backfill", {}).get("fed", 0),
        "pending_after": stats["backlog"]["pending"],
    }


def encoder_floor(items: list[dict[str, Any]], model: str, db: Path) -> dict[str, Any]:
    """The bare encoder over the same texts, batches of the default size."""
    with Memory(config=config(db, model)) as mem:
        embedder = mem.get_embedder()
        assert embedder is not None
        texts = [f"{i['speaker']}: {i['text']}" for i in items]
        size = mem.config.embed.batch_size
        start = time.perf_counter()
        for j in range(0, len(texts), size):
            embedder.embed_passages(texts[j : j + size])
        seconds = time.perf_counter() - start
    return {"s": round(seconds, 2), "per_s": round(len(texts) / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument(
        "--model", default="use-multilingual-v3", help="bundled model (default: the fast one)"
    )
    parser.add_argument("--batch", type=int, default=100, help="messages per REST request")
    parser.add_argument(
        "--floor-messages", type=int, default=1000, help="texts for the bare-encoder rate"
    )
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="LoCoMo corpus.jsonl")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    items = messages(args.messages, args.corpus)
    with tempfile.TemporaryDirectory(prefix="remem-burst-") as tmp:
        work = Path(tmp)
        result = {
            "bench": "burst",
            "model": args.model,
            "defaults": {"max_queue": 500, "concurrency": 10, "batch_size": 32},
            "encoder_floor": encoder_floor(
                items[: args.floor_messages], args.model, work / "floor.db"
            ),
            "ingest_many": run_ingest_many(items, work / "many.db", args.model, args.timeout),
            "rest": run_rest(items, work / "rest.db", args.model, args.batch, args.timeout),
        }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name in ("encoder_floor", "ingest_many", "rest"):
            print(f"{name}: {result[name]}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
