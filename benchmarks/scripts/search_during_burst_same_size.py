"""Search during a burst against a store of the burst's size, in one process (issue 47).

search_during_burst.py compares a 200-turn store idle with the same store while 1,000 more
turns wait to be embedded: two things change at once, the store's size and the background
work. Here a second store of all 1,200 turns, embedded beforehand, is searched idle, then
again right after the searches during the burst, while the burst's background work still
runs in the same process: a slowdown of the indexed store then comes from that work, not
from the store searched.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/search_during_burst_same_size.py
"""

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np
import search_during_burst as b

from remem import Memory


def run(mem: Memory, qs: list[str], n: int = 1) -> list[float]:
    out = []
    for q in qs * n:
        t = time.perf_counter()
        mem.search(q, k=10)
        out.append((time.perf_counter() - t) * 1000)
    return out


def show(label: str, v: list[float]) -> None:
    print(
        label,
        "n",
        len(v),
        f"p50 {np.percentile(v, 50):.0f} p95 {np.percentile(v, 95):.0f}",
        "load",
        os.getloadavg()[0],
        flush=True,
    )


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="remem-burst-same-size-"))
    qs = b._questions(20)
    big = work / "big.db"
    small = work / "small.db"
    with Memory(config=b._config(big, 0, "sync")) as mem:
        mem.ingest_many(b._turns(200))
        mem.ingest_many(b._turns(1000, offset=200))
    with Memory(config=b._config(small, 0, "sync")) as mem:
        mem.ingest_many(b._turns(200))
    print("built", flush=True)
    with (
        Memory(config=b._config(big, 10, "async")) as mb,
        Memory(config=b._config(small, 10, "async")) as ms,
    ):
        show("idle 200", run(ms, qs, 2))
        show("idle 1200 indexed", run(mb, qs, 2))
        ms.ingest_many(b._turns(1000, offset=200))
        during = []
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 120:
            during += run(ms, qs)
        show("during burst (200+1000 pending)", during)
        show("1200 indexed, same time", run(mb, qs, 2))
        print(ms.stats()["backlog"]["pending"])


if __name__ == "__main__":
    main()
