"""Search while a burst is indexed (issue 47, item 2): search latency on an idle store, then
while a burst of messages is being embedded in the background, for each background priority
(``indexing.background_nice``), all in one run.

For each setting, in a process of its own (a thread's priority is never raised back): a fresh
store gets ``--base`` LoCoMo turns, embedded synchronously; ``--questions`` LoCoMo questions
are searched twice over (idle p50 / p95); then ``--burst`` more turns are ingested at once
(async: the call returns after the commit) and the same questions are searched in a loop
until the background work has settled (the queue, the fast lane and the latent fill), or for
``--during-s`` seconds: search p50 / p95 / max during the burst, their ratio to idle, the
machine's load, and how long the burst took to index (or how much of it was left).

    python benchmarks/scripts/search_during_burst.py --burst 1000 --nice 0 10 --json --out r.json

The done-when of issue 47: search p95 during a 1,000-message burst <= 2x its idle p95, in one
run; state the machine's load (``--note``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before any model loads (STACK.md)

import remem
from remem import Config, Memory
from remem.config.sections import IndexingConfig

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo"


def _turns(n: int, offset: int = 0) -> list[dict[str, Any]]:
    with (BENCH / "corpus.jsonl").open(encoding="utf-8") as fh:
        turns = [json.loads(line) for line in fh if line.strip()]
    return [
        {
            "text": f"{t['text']} ({offset + i})",
            "session": f"burst-{(offset + i) % 50}",
            "speaker": t["speaker"],
            "role": t["role"],
            "timestamp": 1_700_000_000 + offset + i,
        }
        for i, t in enumerate(islice(cycle(turns), offset, offset + n))
    ]


def _questions(n: int) -> list[str]:
    with (BENCH / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in islice(fh, n)]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _config(db: Path, nice: int, mode: str) -> Config:
    overrides: dict[str, Any] = {"store.path": str(db), "indexing.mode": mode}
    if "background_nice" in IndexingConfig.model_fields:  # absent before issue 47's item 2
        overrides["indexing.background_nice"] = nice
    return Config.load(env={}, overrides=overrides)


def one_setting(nice: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """One setting, in a process of its own (a thread's priority is never raised back)."""
    db = work / f"nice-{nice}.db"
    questions = _questions(args.questions)
    # the base store: embedded synchronously (at the process's own priority), fully indexed
    with Memory(config=_config(db, 0, "sync")) as mem:
        mem.ingest_many(_turns(args.base))
    with Memory(config=_config(db, nice, "async")) as mem:
        # the searches during the burst repeat these questions, so the query's latent terms
        # are cached for them: warm them first, or the idle figure pays for what they do not
        for q in questions:
            mem.search(q, k=10)
        idle = []
        for q in questions * 2:
            t0 = time.perf_counter()
            mem.search(q, k=10)
            idle.append(time.perf_counter() - t0)
        load_idle = os.getloadavg()[0]
        start = time.perf_counter()
        mem.ingest_many(_turns(args.burst, offset=args.base))
        during: list[float] = []
        window = args.during_s or args.timeout
        while not mem.wait_indexed(0) and time.perf_counter() - start < window:
            for q in questions:
                t0 = time.perf_counter()
                mem.search(q, k=10)
                during.append(time.perf_counter() - t0)
                if mem.wait_indexed(0) or time.perf_counter() - start >= window:
                    break
        searched_s = time.perf_counter() - start
        left = mem.stats()["backlog"]["pending"]
        load_during = os.getloadavg()[0]
        if not args.during_s and not mem.wait_indexed(args.timeout):
            raise SystemExit("the burst was not indexed in time")
        indexed_s = time.perf_counter() - start
    row: dict[str, Any] = {
        "idle_p50_ms": _pct(idle, 0.5),
        "idle_p95_ms": _pct(idle, 0.95),
        "load_idle": round(load_idle, 1),
        "load_during": round(load_during, 1),
        "searched_during_s": round(searched_s, 1),
        "burst_left_pending": left,
        "searches_during": len(during),
    }
    if not args.during_s:
        row["burst_indexed_s"] = round(indexed_s, 1)
    if during:
        row |= {
            "during_p50_ms": _pct(during, 0.5),
            "during_p95_ms": _pct(during, 0.95),
            "during_max_ms": round(1000 * max(during), 1),
            "p95_ratio": round(_pct(during, 0.95) / max(_pct(idle, 0.95), 1e-9), 2),
        }
    return row


def _in_child(nice: int, argv: list[str] | None, work: Path) -> dict[str, Any]:
    out = work / f"row-{nice}.json"
    rest = [a for a in (sys.argv[1:] if argv is None else argv)]
    subprocess.run(
        [sys.executable, __file__, *rest, "--nice", str(nice), "--one", str(out)], check=True
    )
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=int, default=500, help="turns indexed before")
    parser.add_argument("--burst", type=int, default=1000, help="turns ingested at once")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--nice", type=int, nargs="+", default=[0, 10])
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument(
        "--during-s",
        type=float,
        default=0.0,
        help="search during the burst for at most this long (0: until it is indexed)",
    )
    parser.add_argument("--note", help="date, machine and its load")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # a child: its row here
    args = parser.parse_args(argv)
    if args.one:
        row = one_setting(args.nice[0], args, args.one.parent)
        args.one.write_text(json.dumps(row))
        return row
    work = Path(tempfile.mkdtemp(prefix="remem-burst-search-"))
    report = {
        "note": args.note,
        "load_before": os.getloadavg()[0],
        "code": str(Path(remem.__file__).parent),  # which checkout ran
        "base": args.base,
        "burst": args.burst,
        "results": {f"nice {n}": _in_child(n, argv, work) for n in args.nice},
    }
    report["load_after"] = os.getloadavg()[0]
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name, row in report["results"].items():
            print(name, row)
    return report


if __name__ == "__main__":
    main()
