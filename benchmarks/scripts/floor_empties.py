"""Recall@10 of the default hybrid search per dataset under configuration overrides, and which
relevance floor emptied the searches that returned nothing (issue 46: dialogue_notes' English
chats were emptied whole by the latent floor). One search per answerable question, so it is
the cheap check beside keyword_vs_bm25.py (which runs five systems):

    PYTHONPATH=src:benchmarks python benchmarks/scripts/floor_empties.py \
        --datasets dialogue_notes,zh_groupchat --set search.chat_embed_tokens=32 \
        --out benchmarks/results/chat-and-cjk-weights.json

Results are merged into ``--out`` under the overrides (as JSON) and the dataset's name.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from suite_cli import add_suite_options, chosen_datasets, hybrid_run, progress_every

from remem.config import Config
from remem_bench.benchmark import apply_overrides, score_query
from remem_bench.suite import SuiteRun, conversations, ingest, is_unanswerable

FLOORS = ("latent_relevance_floor", "wordless_relevance_floor", "cross_script", "relevance_floor")


def emptied_by(notes: list[str]) -> str:
    """The floor a search's notes name as the one its best hit fell under."""
    said = " ".join(n for n in notes if "nothing relevant" in n)
    return next((f for f in FLOORS if f"search.{f}" in said), "other" if said else "unknown")


def run_dataset(run: SuiteRun, dataset: Any) -> dict[str, Any]:
    from remem.engine import Memory

    rows: list[dict[str, float]] = []
    emptied: Counter[str] = Counter()
    convs = conversations(dataset.path, [], run.limit_conversations)
    total = sum(len(qs) for *_, qs in convs)
    done = 0
    for ci, (_conv, turns, questions) in enumerate(convs):
        session_of = {t["id"]: t["session"] for t in turns}
        with Memory(run.db_path(dataset, ci), run.config, embedder=run.embedder) as mem:
            ingest(mem, turns, run.noting(dataset, ci))
            for q in questions:
                done += 1
                if run.progress:
                    run.progress(dataset.name, done, total)
                if is_unanswerable(q):
                    continue
                result = mem.search(q["query"], k=10, now=q.get("timestamp"))
                ids = [h.record.id for h in result.hits]
                sessions = [session_of.get(i, "") for i in ids]
                rows.append(score_query(ids, sessions, q["gold"], q.get("gold_sessions", [])))
                if not ids:
                    emptied[f"{q.get('conversation')}: {emptied_by(result.notes)}"] += 1
    return {
        "n": len(rows),
        **{m: round(statistics.fmean(r[m] for r in rows), 4) for m in ("recall@10", "mrr")},
        "emptied": dict(sorted(emptied.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="dialogue_notes")
    ap.add_argument("--set", action="append", default=[], help="section.key=JSON value")
    ap.add_argument("--out", help="merge the figures into this JSON file")
    args = ap.parse_args()
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    apply_overrides(config, overrides)
    run = hybrid_run(args, config, progress_every(30))
    for dataset in chosen_datasets(args):
        found = run_dataset(run, dataset)
        print(f"{dataset.name:22} {json.dumps(overrides)} {json.dumps(found)}", flush=True)
        if args.out:
            out = Path(args.out)
            report = json.loads(out.read_text()) if out.is_file() else {}
            report.setdefault(json.dumps(overrides), {})[dataset.name] = found
            out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
