"""What one acknowledged SQLite insert costs, and how much of it is the FTS5 row (issue 47,
decision 0026's next step): one process, ``SQLiteStore.insert_records`` of one message at a
time (the chat path's write: group commit on, its barrier's fsync included), on a fresh store
per variant, variants alternated over rounds:

- ``as-is``: the store as it is;
- ``fts-automerge-8`` / ``fts-automerge-16``: FTS5's ``automerge`` raised from its default 4
  (level-0 segments merged less often: less merge work per commit, more segments per query);
- ``plain-lexical-table`` (a floor, not an option): ``records_fts`` replaced by an ordinary
  table with the same columns, so the same statements run without FTS5's segment per commit.

Reported per write: process CPU-ms, wall ms, and bytes the process wrote (``/proc/self/io``
``wchar``: WAL frames and the sync file; Linux only).

    python benchmarks/scripts/insert_cost.py --writes 3000 --rounds 2 --out out.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from remem.store.sqlite import SQLiteStore

VARIANTS = ("as-is", "fts-automerge-8", "fts-automerge-16", "plain-lexical-table")
WORDS = [f"w{n:04d}" for n in range(3000)]


def _wchar() -> int:
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _row(n: int, rng: random.Random) -> tuple[dict[str, Any], str, str]:
    fields = {
        "id": f"m{n}",
        "kind": "message",
        "text": f"message {n}",
        "scope": "global",
        "session": f"s{n % 8}",
        "created_at": 1.7e9 + n,
        "content_hash": f"h{n}",
        "importance": 0.5,
    }
    tokens = " ".join(rng.choices(WORDS, k=12))
    context = " ".join(rng.choices(WORDS, k=36))  # the turns before it
    return fields, tokens, context


def _prepare(store: SQLiteStore, variant: str) -> None:
    with store.write() as c:
        if variant.startswith("fts-automerge-"):
            n = int(variant.rsplit("-", 1)[1])
            c.execute("INSERT INTO records_fts (records_fts, rank) VALUES ('automerge', ?)", (n,))
        elif variant == "plain-lexical-table":
            c.execute("DROP TABLE records_vocab")
            c.execute("DROP TABLE records_fts")
            c.execute(
                "CREATE TABLE records_fts (rowid INTEGER PRIMARY KEY, tokens TEXT, context TEXT)"
            )


def measure(work: Path, variant: str, writes: int, warm: int, seed: int) -> dict[str, Any]:
    path = work / f"{variant}-{seed}.db"
    rng = random.Random(seed)
    store = SQLiteStore(path)
    try:
        _prepare(store, variant)
        for n in range(warm):
            store.insert_records([_row(n, rng)])
        cpu0, wall0, w0 = time.process_time(), time.perf_counter(), _wchar()
        for n in range(warm, warm + writes):
            store.insert_records([_row(n, rng)])
        cpu, wall, wrote = time.process_time() - cpu0, time.perf_counter() - wall0, _wchar() - w0
    finally:
        store.close()
    return {
        "cpu_ms_per_write": round(1000 * cpu / writes, 3),
        "wall_ms_per_write": round(1000 * wall / writes, 3),
        "kb_written_per_write": round(wrote / writes / 1024, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=3000)
    parser.add_argument("--warm", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--note", help="date, machine and its load")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="remem-insert-cost-"))
    rows: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for r in range(args.rounds):
        for variant in VARIANTS:
            row = measure(work, variant, args.writes, args.warm, seed=r)
            row["load"] = round(os.getloadavg()[0], 1)
            rows[variant].append(row)
            print(variant, r, row, flush=True)
    report = {"note": args.note, "writes": args.writes, "rounds": rows}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
