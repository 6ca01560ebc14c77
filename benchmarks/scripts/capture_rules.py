"""Capture's assertion rules measured on the capture set, through the real capture path.

For every utterance of ``benchmarks/data/capture_set``: a fresh SQLite store with the bundled
model, a real fact captured first ("I moved to Lisbon last month." and the others of SEEDS, as
the same user) so supersession can be observed, then the utterance captured with
``Memory.capture_after_turn``. Per family and language: how many were stored, how many closed
a memory, how many were captured (stored, or admitted and found to be a duplicate).

The targets (issue 48): 0 non-statements stored or superseding anything; >= 95% of the
statements (statement, third_person, negation) captured.

PYTHONPATH=src:benchmarks python benchmarks/scripts/capture_rules.py [--json] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from remem import Config, Memory, Turn
from remem.embed.local import E5Embedder
from remem_bench.capture_set import STATEMENTS, Utterance, load

OUT = Path(__file__).resolve().parents[1] / "results" / "capture-rules.json"
# Real facts of each subject capture can replace: where the user lives, works, their favourite
# food, their diet. A non-statement about any of them must leave them current.
SEEDS = {
    "en": [
        "I moved to Lisbon last month.",
        "I work at Initech.",
        "My favourite food is ramen.",
        "I'm vegetarian.",
    ],
    "zh": ["我在一家游戏公司上班。", "我住在杭州。", "我最喜欢的食物是火锅。", "我现在吃素。"],
}
T = 1_800_000_000.0


def _turn(text: str, i: int, now: float) -> Turn:
    msg = {"id": f"m{i}", "role": "user", "text": text, "speaker_id": "u1"}
    return Turn(agent="bot", inputs=[msg], session="s1", user_id="u1", now=now)


def outcome(utterance: Utterance, embedder: E5Embedder, workdir: Path) -> dict:
    """Seed the facts, capture the utterance, say what capture did with it."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    db = workdir / "capture.db"
    with Memory(db, config, embedder=embedder) as mem:
        for i, seed in enumerate(SEEDS[utterance.lang]):
            mem.capture_after_turn(_turn(seed, i, T + i))
        got = mem.capture_after_turn(_turn(utterance.text, 99, T + 100))
    db.unlink()
    for extra in workdir.glob("capture.db*"):
        extra.unlink()
    return {
        "lang": utterance.lang,
        "family": utterance.family,
        "text": utterance.text,
        "stored": len(got.stored),
        "superseded": len(got.superseded),
        "captured": bool(got.stored or got.duplicates),
        "rejected": [r.reason for r in got.rejected],
    }


def summarise(rows: list[dict]) -> dict:
    groups: dict[str, dict] = defaultdict(
        lambda: {"n": 0, "stored": 0, "superseded": 0, "captured": 0}
    )
    for row in rows:
        for key in (f"{row['family']}/{row['lang']}", row["family"]):
            g = groups[key]
            g["n"] += 1
            g["stored"] += row["stored"] > 0
            g["superseded"] += row["superseded"] > 0
            g["captured"] += row["captured"]
    statements = [r for r in rows if r["family"] in STATEMENTS]
    others = [r for r in rows if r["family"] not in STATEMENTS]
    per_lang = {}
    for lang in ("en", "zh"):
        st = [r for r in statements if r["lang"] == lang]
        ot = [r for r in others if r["lang"] == lang]
        per_lang[lang] = {
            "statements_captured": round(sum(r["captured"] for r in st) / max(1, len(st)), 4),
            "non_statements_stored": sum(r["stored"] > 0 for r in ot),
            "non_statements_superseding": sum(r["superseded"] > 0 for r in ot),
        }
    return {
        "statements": len(statements),
        "statements_captured": round(
            sum(r["captured"] for r in statements) / max(1, len(statements)), 4
        ),
        "non_statements": len(others),
        "non_statements_stored": sum(r["stored"] > 0 for r in others),
        "non_statements_superseding": sum(r["superseded"] > 0 for r in others),
        "per_language": per_lang,
        "per_family": dict(sorted(groups.items())),
        "missed_statements": [r["text"] for r in statements if not r["captured"]],
        "stored_non_statements": [r["text"] for r in others if r["stored"]],
        "superseding_non_statements": [r["text"] for r in others if r["superseded"]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--out", type=Path, default=OUT, help=f"result file (default {OUT})")
    args = ap.parse_args(argv)
    embedder = E5Embedder()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="capture-rules-") as tmp:
        rows = [outcome(u, embedder, Path(tmp)) for u in load()]
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "set": "benchmarks/data/capture_set",
        "seeds": SEEDS,
        "seconds": round(time.perf_counter() - started, 1),
        **summarise(rows),
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "rows"}, ensure_ascii=False))
    else:
        print(
            f"statements captured {result['statements_captured']:.1%} of {len(rows)} lines; "
            f"non-statements stored {result['non_statements_stored']}, superseding "
            f"{result['non_statements_superseding']} ({result['seconds']} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
