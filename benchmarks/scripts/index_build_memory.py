"""Peak memory of the vector index build that ends `remem import` (and `remem index`), by phase.

Opens a store in a fresh process, samples its RSS (anonymous and file-backed, from
/proc/self/status) every 20 ms while ``ops.build_vector_index(force=True)`` runs, and
prints the peak and the RSS entering and leaving the graph build. The store is made by
``transfer_memory.build`` (random unit 384-d vectors labelled as the bundled model's) unless
``--db`` names an existing one.

    PYTHONPATH=src:benchmarks:benchmarks/scripts python benchmarks/scripts/index_build_memory.py \
        --db /tmp/index-100k.db --records 100000
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

import transfer_memory

import remem.index.ann as ann
from remem import Memory, ops


def rss() -> dict[str, int]:
    """VmRSS, RssAnon and RssFile of this process, in MB."""
    out = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS", "RssAnon", "RssFile")):
                out[line.split(":")[0]] = int(line.split()[1]) // 1024
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="built first if missing")
    ap.add_argument("--records", type=int, default=100_000)
    args = ap.parse_args()
    if not args.db.exists():
        transfer_memory.build(args.db, args.records)
    phase = ["open"]
    peak: dict = {"VmRSS": 0}
    report: dict = {}

    def sample() -> None:
        while True:
            now = rss()
            if now["VmRSS"] > peak["VmRSS"]:
                peak.update(now, phase=phase[0])
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    build_graph = ann.build_graph

    def traced(*a, **k):
        phase[0] = "graph"
        report["entering_graph"] = rss()
        build_graph(*a, **k)
        report["leaving_graph"] = rss()
        phase[0] = "after graph"

    ann.build_graph = traced
    config = transfer_memory._config()
    with Memory(args.db, config, embedder=transfer_memory.FileVectorsEmbedder()) as mem:  # type: ignore[arg-type]
        report["opened"] = rss()
        phase[0] = "read"
        built = ops.build_vector_index(mem, force=True)
        report["built"] = built.to_dict()
    report["peak"] = peak
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
