"""Server response time of every web UI page on a large store (default 100,000 records).

Builds (once) a store of chat traffic: real chat lines (the LoCoMo and LongMemEval corpora in
../shared/bench, repeated until N records; random words when they are not there) spread over
500 sessions on four platforms and 50 groups over a year, plus curated memories (a tenth of the
records) in three scopes, a hundredth of them superseded. It is
filled through the public ``ingest_many`` without embedding (the records stay ``pending``) and
searched lexically (``embed.provider = none``): the pages' cost is the store queries, not the
model. Then a real uvicorn server on 127.0.0.1 serves the app and each page is fetched:

- warm: the same page again (the aggregates are cached until the store changes);
- cold: each fetch right after a write (one ingest), so every aggregate is recomputed.

    python benchmarks/scripts/ui_pages.py [--n 100000] [--rounds 20] [--db /tmp/ui-bench.db] [--json out]

``--db`` may be a PostgreSQL URL (the store in its schema ``remem``): the same pages on the
PostgreSQL store.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx

from remem import Config, Memory
from remem.server.rest import create_app

_VOCABULARY = (
    "trail lake weather coffee tea Berlin Paris train ticket dinner birthday book chapter "
    "music concert movie flight hotel doctor appointment project deadline meeting garden "
    "dog cat bike repair recipe noodles dumplings 杭州 西湖 喝茶 读书 周末 电影 火车 生日 "
    "项目 会议 医生 咖啡 音乐 旅行 天气 晚饭 朋友 家人"
)
WORDS = tuple(_VOCABULARY.split())
# the shared benchmark data sits beside the repository (../shared/bench)
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "bench"
PLATFORMS = ("qq", "telegram", "discord", "slack")
SCOPES = ("global", "agent:bench-a", "agent:bench-b")


def chat_lines(shared: Path) -> list[str]:
    """Real chat text when the shared corpora are there, else random words."""
    lines: list[str] = []
    for name in ("locomo", "longmemeval_oracle"):
        path = shared / name / "corpus.jsonl"
        if path.exists():
            lines += [
                json.loads(row)["text"]
                for row in path.read_text("utf-8").splitlines()
                if row.strip()
            ]
    if lines:
        return lines
    rng = random.Random(3)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18))) for _ in range(5000)]


def build(db: str, n: int, shared: Path) -> None:
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db, config) as mem:
        have = mem.store.count()
        if have >= n:
            return
        rng = random.Random(7)
        lines = chat_lines(shared)
        start_time = time.time() - 365 * 86_400
        t0 = time.perf_counter()
        for start in range(have, n, 5000):
            items = []
            for i in range(start, min(n, start + 5000)):
                text = f"{lines[i % len(lines)]} #{i // len(lines)}"
                created = start_time + i * (365 * 86_400 / n)
                if i % 10 == 9:  # a tenth are curated memories
                    items.append(
                        {
                            "kind": "memory",
                            "text": f"fact {i}: {text}",
                            "scope": SCOPES[i % 3],
                            "category": rng.choice(["fact", "preference", "decision", "entity"]),
                            "importance": round(rng.random(), 2),
                            "created_at": created,
                            **({"valid_to": created + 3600} if i % 100 == 99 else {}),
                        }
                    )
                else:
                    session = f"s{i % 500}"
                    platform = PLATFORMS[i % 500 % 4]
                    items.append(
                        {
                            "text": text,
                            "session": session,
                            "platform": platform,
                            "group_id": f"g{i % 500 % 50}",
                            "group_name": f"group {i % 50}",
                            "role": "assistant" if i % 7 == 0 else "user",
                            "speaker": f"user{i % 37}",
                            "scope": SCOPES[i % 500 % 3],
                            "created_at": created,
                        }
                    )
            mem.ingest_many(items, embed=False)
            print(
                f"  {start + len(items):,} records ({time.perf_counter() - t0:.0f} s)",
                file=sys.stderr,
            )


class Server:
    def __init__(self, app) -> None:
        import socket

        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--db", default="/tmp/remem-ui-bench.db", help="a SQLite file or a postgresql:// URL"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=SHARED,
        help="the shared benchmark data (default: ../shared/bench)",
    )
    args = parser.parse_args()
    build(args.db, args.n, args.corpus)
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    mem = Memory(args.db, config)
    memory = mem.list({"kind": "memory"}, limit=1)[0]
    message = mem.list({"kind": "message", "session": "s1"}, limit=1, offset=120)[0]
    pages = {
        "overview": "/ui",
        "conversations": "/ui/conversations",
        "session (newest page)": "/ui/session?s=s1",
        "session (jump to a hit)": f"/ui/record/{message.id}",
        "memories": "/ui/memories",
        "memories (superseded)": "/ui/memories?state=superseded",
        "memories (scope + category)": "/ui/memories?scope=agent:bench-a&category=fact",
        "memory + history": f"/ui/memory/{memory.id}",
        "search with explain": "/ui/search?q=" + quote("coffee Berlin weekend 咖啡"),
        "search (+ injected, page)": f"/ui/search?inject=1&turn={message.id}&q="
        + quote(message.text),
        "injected blocks (fragment)": f"/ui/inject?turn={message.id}&q=" + quote(message.text),
        "settings": "/ui/settings",
    }
    server = Server(create_app(mem))
    results: dict[str, dict[str, float]] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=60, follow_redirects=True) as client:
            for name, path in pages.items():
                assert client.get(path).status_code == 200, name  # and fills the caches
                warm = []
                for _ in range(args.rounds):
                    t = time.perf_counter()
                    client.get(path).raise_for_status()
                    warm.append((time.perf_counter() - t) * 1000)
                cold = []
                for i in range(max(3, args.rounds // 4)):
                    mem.ingest({"text": f"bench write {i}", "session": "bench"}, embed=False)
                    t = time.perf_counter()
                    client.get(path).raise_for_status()
                    cold.append((time.perf_counter() - t) * 1000)
                results[name] = {
                    "warm_p50_ms": statistics.median(warm),
                    "warm_p95_ms": percentile(warm, 0.95),
                    "cold_p50_ms": statistics.median(cold),
                    "cold_max_ms": max(cold),
                }
                r = results[name]
                print(
                    f"{name:30s} warm p50 {r['warm_p50_ms']:6.1f} ms  p95 "
                    f"{r['warm_p95_ms']:6.1f} ms   cold p50 {r['cold_p50_ms']:6.1f} ms  max "
                    f"{r['cold_max_ms']:6.1f} ms"
                )
    finally:
        server.close()
        mem.delete_where({"session": "bench"})
        mem.close()
    if args.json:
        args.json.write_text(json.dumps({"records": args.n, "pages": results}, indent=1))


if __name__ == "__main__":
    main()
