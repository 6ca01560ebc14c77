"""The suite with one store per dataset: every conversation in it, each asked through its own
sessions.

A bot serves many chats from one store and narrows each search to the chat it answers (its
sessions, scopes or platform). Whatever a search reads from the whole store rather than from
the records it may return then depends on the other chats: which words "the store" has talked
about decides the relevance stage's unseen-word rules, so a question about a name only another
chat mentions passed as if this chat had talked about it. ``bench/suite_variants.py`` keeps a
store per conversation and cannot see that; this script can. Its questions and probes are the
suite's, scored the same way (``remem.benchmark_suite``).

PYTHONPATH=src:bench python bench/shared_store.py --datasets zh_groupchat,locomo \
    --variants default --out bench/results/shared-store.json

The shared store is cached beside the per-conversation ones (``<cache>/<dataset key>/
shared.db``); it is built by ingesting every conversation's turns (the model embeds them once).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from remem.benchmark_suite import (
    NO_ANSWER_TARGETS,
    SuiteDataset,
    SuiteRun,
    VariantScores,
    _ingest,
    conversations,
    load_no_answer,
    macro_average,
    summarise,
)
from remem.config import Config
from remem.types import Filters
from suite_cli import REPO, add_suite_options, chosen_datasets, progress_every
from suite_variants import VARIANTS


class SharedStoreRun(SuiteRun):
    """A suite run over one store per dataset, each conversation's searches narrowed to its
    sessions; with ``as_turns``, each question is first archived as a message of the
    conversation's last session and searched for as the chat path does (its own message
    left out by id), then deleted."""

    as_turns: bool = False

    def _ask(self, mem: Any, q: dict[str, Any], session_of: dict[str, str], *args, **kw) -> None:
        if not self.as_turns:
            return super()._ask(mem, q, session_of, *args, **kw)
        narrowed = self.filters
        assert narrowed is not None and narrowed.sessions
        turn_id = "asked:" + str(q.get("qid") or hash(q["query"]))
        when = q.get("timestamp")
        turn = {"id": turn_id, "session": narrowed.sessions[-1], "speaker": "asker"}
        mem.ingest({**turn, "text": q["query"], **({"timestamp": when} if when else {})})
        self.filters = Filters(sessions=narrowed.sessions, exclude_ids=[turn_id])
        try:
            super()._ask(mem, q, session_of, *args, **kw)
        finally:
            self.filters = narrowed
            mem.delete(turn_id)

    def run(self, dataset: SuiteDataset, probes: list[dict[str, Any]]) -> None:
        from remem.engine import Memory

        convs = conversations(dataset.path, probes, self.limit_conversations)
        self.scores.setdefault(dataset.name, {v.name: VariantScores() for v in self.variants})
        db = self._db(dataset, 0).with_name("shared.db")
        total, done = sum(len(qs) + len(probes) for _, _, qs in convs), 0
        with Memory(db, self.config, embedder=self.embedder) as mem:
            _ingest(mem, [t for _, turns, _ in convs for t in turns])
            for _conv, turns, questions in convs:
                self.filters = Filters(sessions=sorted({t["session"] for t in turns}))
                done = self.ask_all(mem, dataset.name, turns, questions, probes, (done, total))
        self.filters = None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="default")
    add_suite_options(ap)
    ap.add_argument("--as-turns", action="store_true", help="ask as the chat path does")
    ap.add_argument("--out")
    args = ap.parse_args()
    run = SharedStoreRun(
        [VARIANTS[v] for v in args.variants.split(",")],
        Config.load(env={}, overrides={"indexing.mode": "sync"}),
        Path(args.cache_dir),
        progress=progress_every(20),
        limit_conversations=args.limit_conversations,
    )
    run.as_turns = args.as_turns
    no_answer = load_no_answer(REPO / "bench" / "data" / "no_answer" / "queries.jsonl")
    for dataset in chosen_datasets(args):
        targets = NO_ANSWER_TARGETS.get(dataset.name, ())
        run.run(dataset, [q for q in no_answer if q.get("target") in targets])
    out: dict[str, Any] = {
        "store": "one per dataset, searches narrowed to a conversation",
        "asked": "as a turn of the chat, left out by id" if args.as_turns else "as a search",
    }
    for variant in run.variants:
        per = {name: summarise(v[variant.name]) for name, v in run.scores.items()}
        out[variant.name] = {"datasets": per, "macro": macro_average(per)}
        for name, d in per.items():
            o = d["overall"]
            print(
                f"{variant.name:10s} {name:20s} r@5 {o['recall@5']:.3f} r@10 "
                f"{o['recall@10']:.3f} mrr {o['mrr']:.3f} unans-fh "
                f"{d['unanswerable']['false_hit_rate']} noans-fh "
                f"{d['no_answer']['false_hit_rate']} p50 {d['latency_ms']['p50']}ms"
            )
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
