"""The suite with one store per dataset: every conversation in it, each asked through its own
sessions.

A bot serves many chats from one store and narrows each search to the chat it answers (its
sessions, scopes or platform). Whatever a search reads from the whole store rather than from
the records it may return then depends on the other chats: which words "the store" has talked
about decides the relevance stage's unseen-word rules, so a question about a name only another
chat mentions passed as if this chat had talked about it. ``benchmarks/scripts/suite_variants.py`` keeps a
store per conversation and cannot see that; this script can. Its questions and probes are the
suite's, scored the same way (``remem_bench.suite``).

PYTHONPATH=src:benchmarks/scripts python benchmarks/scripts/shared_store.py --datasets zh_groupchat,locomo \
    --variants default --out benchmarks/results/shared-store.json

The shared store is cached beside the per-conversation ones (``<cache>/<dataset key>/
shared.db``); it is built by ingesting every conversation's turns, their vectors and latent
terms copied from the per-conversation stores where the suite has built them (the model embeds
only what they lack).

``--haystack N`` asks each conversation's questions over its sessions and those of N other
conversations drawn at random (``haystacks``; 0: the whole store): LongMemEval oracle's 479
histories, each one's evidence sessions among ~50, as LongMemEval-S builds its haystacks. The
per-conversation stores of the suite hold a question's evidence alone.
"""

from __future__ import annotations

import argparse
import json
import random
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from suite_cli import REPO, add_suite_options, chosen_datasets, progress_every
from suite_variants import VARIANTS

from remem.config import Config
from remem.store.queries import RecordPage, VectorWrite
from remem.types import Filters
from remem_bench.suite import (
    NO_ANSWER_TARGETS,
    SuiteDataset,
    SuiteRun,
    VariantScores,
    conversations,
    ingest,
    load_no_answer,
    macro_average,
    summarise,
    turn_fields,
)


class SharedStoreRun(SuiteRun):
    """A suite run over one store per dataset, each conversation's searches narrowed to its
    sessions; with ``as_turns``, each question is first archived as a message of the
    conversation's last session and searched for as the chat path does (its own message
    left out by id), then deleted."""

    as_turns: bool = False
    # None: each conversation narrowed to its sessions; 0: every search over the whole store;
    # N: over its sessions and those of N other conversations (a haystack, see ``haystacks``)
    haystack: int | None = None

    def ask(self, mem: Any, q: dict[str, Any], session_of: dict[str, str], *args, **kw) -> None:
        if not self.as_turns:
            return super().ask(mem, q, session_of, *args, **kw)
        narrowed = self.filters
        assert narrowed is not None and narrowed.sessions
        turn_id = "asked:" + str(q.get("qid") or hash(q["query"]))
        when = q.get("timestamp")
        turn = {"id": turn_id, "session": narrowed.sessions[-1], "speaker": "asker"}
        mem.ingest({**turn, "text": q["query"], **({"timestamp": when} if when else {})})
        self.filters = Filters(sessions=narrowed.sessions, exclude_ids=[turn_id])
        try:
            super().ask(mem, q, session_of, *args, **kw)
        finally:
            self.filters = narrowed
            mem.delete(turn_id)

    def run(self, dataset: SuiteDataset, probes: list[dict[str, Any]]) -> None:
        from remem.engine import Memory

        convs = conversations(dataset.path, probes, self.limit_conversations)
        self.scores.setdefault(dataset.name, {v.name: VariantScores() for v in self.variants})
        db = self.db_path(dataset, 0).with_name("shared.db")
        total, done = sum(len(qs) + len(probes) for _, _, qs in convs), 0
        with Memory(db, self.config, embedder=self.embedder) as mem:
            turns = [t for _, ts, _ in convs for t in ts]
            if mem.store.count() != len(turns):
                mem.ingest_many(turn_fields(turns), on_conflict="skip", embed=False)
                reuse_vectors(mem.store, [self.db_path(dataset, i) for i in range(len(convs))])
            ingest(mem, turns)  # embeds what no conversation's store had
            hay = haystacks(convs, self.haystack) if self.haystack else {}
            for conv, turns, questions in convs:
                sessions = sorted({t["session"] for t in turns} | hay.get(conv, set()))
                self.filters = None if self.haystack == 0 else Filters(sessions=sessions)
                done = self.ask_all(mem, dataset.name, turns, questions, probes, (done, total))
        self.filters = None


def reuse_vectors(shared: Any, sources: list[Path]) -> int:
    """Copy each record's vectors and latent terms from the suite's per-conversation stores
    (the same texts, the same model) into the shared store, so that it is not embedded again
    (LongMemEval's 10,492 long turns take the bundled model over an hour on 2 cores); returns
    how many records got a vector. Stores that do not exist yet are skipped."""
    from remem.embed.latent import model_id_for as latent_model_id
    from remem.store import SQLiteStore

    rowid_of = {r.id: r for r in shared.list_records(RecordPage(None, limit=None))}
    copied = 0
    for path in (p for p in sources if p.is_file()):
        source = SQLiteStore(path)
        try:
            pairs = [
                (r.rowid, rowid_of[r.id])
                for r in source.list_records(RecordPage(None, limit=None))
                if r.id in rowid_of and r.rowid is not None
            ]
            olds = [old for old, _ in pairs]
            vectors, latent = source.vectors_of(olds), {}
            for old, new in pairs:
                target = new.rowid
                assert target is not None
                for model_id, provider, model, blob in vectors.get(old, []):
                    vector = np.frombuffer(blob, np.float32)
                    copied += shared.put_vectors(
                        VectorWrite(model_id, provider, model, [(target, vector)])
                    )
                    terms_id = latent_model_id(model_id)  # the model's latent terms, if any
                    if terms_id is None:
                        continue
                    if terms_id not in latent:
                        latent[terms_id] = source.latent_terms_of(terms_id, olds)
                    if (terms := latent[terms_id].get(old)) is not None:
                        shared.put_latent_terms(terms_id, [(target, new.content_hash, terms)])
        finally:
            source.close()
    return copied


def haystacks(convs: list[tuple[str, list[dict], list[dict]]], n: int) -> dict[str, set[str]]:
    """For each conversation, the sessions of ``n`` others drawn at random (seeded by its id,
    so every run and variant draws the same), never a twin: LongMemEval builds some questions
    over copies of one history (07741c44 and 07741c45 share their turns), and a twin's copy
    of the answer would count as a miss. Twins: conversations sharing a turn's text (over 40
    characters)."""
    holders: dict[str, set[str]] = {}
    for conv, turns, _ in convs:
        for t in turns:
            if len(t["text"]) > 40:
                holders.setdefault(t["text"], set()).add(conv)
    twins: dict[str, set[str]] = {}
    for group in holders.values():
        for conv in group:
            twins.setdefault(conv, set()).update(group)
    sessions = {conv: {t["session"] for t in turns} for conv, turns, _ in convs}
    names = sorted(sessions)
    out = {}
    for conv in names:
        others = [c for c in names if c != conv and c not in twins.get(conv, ())]
        drawn = random.Random(zlib.crc32(conv.encode())).sample(others, min(n, len(others)))
        out[conv] = set().union(*(sessions[c] for c in drawn))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="default")
    add_suite_options(ap)
    ap.add_argument("--as-turns", action="store_true", help="ask as the chat path does")
    ap.add_argument(
        "--haystack",
        type=int,
        help="search a conversation's sessions and those of N others drawn at random (0: the "
        "whole store): LongMemEval's 479 histories as haystacks, as LongMemEval-S builds them",
    )
    ap.add_argument("--out")
    args = ap.parse_args()
    run = SharedStoreRun(
        [VARIANTS[v] for v in args.variants.split(",")],
        Config.load(env={}, overrides={"indexing.mode": "sync"}),
        Path(args.cache_dir),
        progress=progress_every(20),
        limit_conversations=args.limit_conversations,
    )
    if args.haystack is not None and args.as_turns:
        ap.error("--haystack searches unnarrowed; --as-turns needs a conversation's sessions")
    run.as_turns, run.haystack = args.as_turns, args.haystack
    no_answer = load_no_answer(REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl")
    for dataset in chosen_datasets(args):
        targets = NO_ANSWER_TARGETS.get(dataset.name, ())
        run.run(dataset, [q for q in no_answer if q.get("target") in targets])
    out: dict[str, Any] = {
        "store": "one per dataset, searches narrowed to "
        + (
            "a chat"
            if args.haystack is None
            else "nothing"
            if args.haystack == 0
            else f"a chat and {args.haystack} others"
        ),
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
