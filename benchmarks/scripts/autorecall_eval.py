"""How well auto-recall chooses what to inject: curated memories of one user (English and
Chinese) and questions with and without a relevant memory (benchmarks/data/autorecall_eval.json).

    python benchmarks/scripts/autorecall_eval.py [--json]

For each setting of the relevance gate: on answerable questions, how often a relevant memory is
injected (hit) and what share of the injected memories are relevant (precision); on the others,
how often anything is injected at all (false injection) and how much.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from remem import Config, Memory

DATA = Path(__file__).resolve().parents[1] / "data" / "autorecall_eval.json"
MARGINS = (-0.03, -0.01, 0.0, 0.01, 0.02, 0.03, 0.05)


def evaluate(mem: Memory, questions: list[dict], ids: dict[str, str]) -> dict[str, float]:
    hits = precise = injected_answerable = 0
    answerable = [q for q in questions if q["gold"]]
    unanswerable = [q for q in questions if not q["gold"]]
    false_any = false_count = 0
    for i, q in enumerate(questions):
        out = mem.recall_memories(q["q"], agent="eval", session=f"s{i}")
        got = {h.record.id for h in out.memories}
        gold = {ids[g] for g in q["gold"]}
        if gold:
            hits += bool(got & gold)
            precise += len(got & gold)
            injected_answerable += len(got)
        else:
            false_any += bool(got)
            false_count += len(got)
    return {
        "hit": round(hits / len(answerable), 3),
        "precision": round(precise / injected_answerable, 3) if injected_answerable else 0.0,
        "false_injection": round(false_any / len(unanswerable), 3),
        "mean_false_items": round(false_count / len(unanswerable), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    data = json.loads(DATA.read_text())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(env={}, overrides={"indexing.mode": "sync"})
        with Memory(Path(tmp) / "eval.db", config) as mem:
            ids = {key: mem.add(text, scope="agent:eval").id for key, text in data["facts"].items()}
            for keyword in (True, False):
                for margin in MARGINS:
                    mem.config.autorecall.keyword_match = keyword
                    mem.config.autorecall.min_margin = margin
                    rows.append(
                        {
                            "keyword_match": keyword,
                            "min_margin": margin,
                            **evaluate(mem, data["questions"], ids),
                        }
                    )
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(
            f"keyword {r['keyword_match']!s:5s} margin {r['min_margin']:+.2f}  hit "
            f"{r['hit']:.3f}  precision {r['precision']:.3f}  false injection "
            f"{r['false_injection']:.3f}  ({r['mean_false_items']} items)"
        )


if __name__ == "__main__":
    main()
