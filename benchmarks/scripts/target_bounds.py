"""How far the bundled models can go on issue 17's two unmet targets, measured, not guessed.

1. Cross-lingual recall@5 >= 0.85. For each cross_lingual question of a Chinese set, the rank
   of its first gold turn in every ranking remem can build from the bundled parts: the default
   pipeline, the pipeline on each channel alone, and the raw cosine of each bundled model over
   every record of the store (e5-small as stored; USE multilingual embedded here). The *union
   bound* is the share of questions whose answer is in the top K of at least one of them: what
   an oracle that picked the best ranking for every question would score. A fusion can beat it
   only by lifting an answer that no ranking puts in its top K above all of their top K.

2. False injection <= 10% of unanswerable questions (near misses: "how much did Lao Zhao's
   drone cost?" where the store holds the drone but no price). For every question, the best
   margin any candidate has over the relevance floor it is held to (search with every floor
   read, none applied). The AUC says how well that margin tells an answerable question from an
   unanswerable one; the table gives, for each threshold, the share of unanswerable questions
   that would still inject something and the share of answerable ones that would be emptied.

PYTHONPATH=src python benchmarks/scripts/target_bounds.py --datasets zh_groupchat --json out.json
(the suite's cached stores; a missing one is built as `remem bench --suite` builds it)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from suite_cli import add_suite_options, chosen_datasets

from remem.config import Config
from remem.embed.factory import make_embedder
from remem.embed.fast_model import fast_embedder
from remem.search import relevance as relevance_stage
from remem.store.queries import RecordPage
from remem_bench.suite import SuiteRun, conversations, ingest, is_unanswerable

KS = (1, 5, 10, 20)
PIPELINES = {
    "default": ("vector", "lexical"),
    "vector-only": ("vector",),
    "lexical-only": ("lexical",),
}


def first_rank(ids: list[str], gold: list[str]) -> int | None:
    ranks = [ids.index(g) + 1 for g in gold if g in ids]
    return min(ranks) if ranks else None


def raw_ranks(matrices: dict[str, Any], e5_query: np.ndarray, query: str, gold: list[str]) -> dict:
    """The gold's rank by each bundled model's raw cosine over every record of the store."""
    use_query = np.asarray(fast_embedder(2).embed_queries([query])[0], np.float32)
    out = {}
    for name, matrix, qvec in (
        ("e5 raw", matrices["e5"], np.asarray(e5_query, np.float32)),
        ("USE raw", matrices["use"], use_query),
    ):
        order = np.argsort(-(matrix @ qvec))[:50]
        out[name] = first_rank([matrices["ids"][i] for i in order], gold)
    return out


def store_matrices(mem: Any, model_id: str) -> dict[str, Any]:
    """Every record's id, its e5 vector as stored and its USE vector (embedded now, from the
    text e5 embedded: the speaker's label and the line)."""
    rows = mem.store.list_records(RecordPage(limit=None))
    stored = mem.store.vectors_of([r.rowid for r in rows])
    e5 = {
        rowid: np.frombuffer(blob, np.float32)
        for rowid, found in stored.items()
        for (model, _provider, _name, blob) in found
        if model == model_id
    }
    kept = [r for r in rows if r.rowid in e5]
    texts = [r.embed_text(with_speaker=True) for r in kept]
    return {
        "ids": [r.id for r in kept],
        "e5": np.stack([e5[r.rowid] for r in kept]),
        "use": np.asarray(fast_embedder(2).embed_passages(texts), np.float32),
    }


class MarginProbe:
    """Records the best (relevance - its floor) of each search. While ``reading``, the floors
    are read but none applied, else searches run as shipped. A context manager: it patches
    the relevance stage's ``Floors.judge`` on entry and puts it back on exit."""

    def __init__(self) -> None:
        self.best = -1.0
        self.reading = False
        self._original = relevance_stage.Floors.judge

    def __enter__(self) -> MarginProbe:
        original = self._original

        def judge(floors: Any, relevance: float, floor: tuple[str, float]) -> None:
            self.best = max(self.best, relevance - floor[1])
            original(floors, relevance, floor)
            floors.cleared = floors.cleared or self.reading  # the margin is what we measure

        relevance_stage.Floors.judge = judge  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        relevance_stage.Floors.judge = self._original  # type: ignore[method-assign]

    def margin(self, search: Any) -> float:
        """The best margin of ``search()`` (a thunk), every floor read, none applied."""
        self.best, self.reading = -1.0, True
        try:
            search()
        finally:
            self.reading = False
        return self.best


def measure(run: SuiteRun, dataset: Any, probe: MarginProbe) -> dict[str, Any]:
    from remem.engine import Memory

    cross: list[dict] = []
    margins: list[tuple[float, bool]] = []  # (margin, answerable)
    for ci, (_conv, turns, questions) in enumerate(conversations(dataset.path, [])):
        db = run.db_path(dataset, ci)
        with Memory(db, run.config, embedder=run.embedder) as mem:
            ingest(mem, turns)  # a no-op on a complete cached store
            matrices = store_matrices(mem, run.embedder.model_id)
            for q in questions:
                qvec = mem.searcher.embed_query(run.embedder, q["query"])
                margin = probe.margin(
                    lambda q=q, qvec=qvec: mem.search(
                        q["query"], k=10, now=q.get("timestamp"), query_vector=qvec
                    )
                )
                margins.append((margin, not is_unanswerable(q)))
                if q.get("category") != "cross_lingual" or is_unanswerable(q):
                    continue
                row = {"qid": q["qid"], "query": q["query"]}
                for name, channels in PIPELINES.items():
                    hits = mem.search(
                        q["query"],
                        k=50,
                        now=q.get("timestamp"),
                        query_vector=qvec if "vector" in channels else None,
                        channels=channels,
                    ).hits
                    row[name] = first_rank([h.record.id for h in hits], q["gold"])
                row.update(raw_ranks(matrices, qvec, q["query"], q["gold"]))
                cross.append(row)
    return {"cross_lingual": summarise_ranks(cross), "abstention": summarise_margins(margins)}


def summarise_ranks(rows: list[dict]) -> dict[str, Any]:
    names = [*PIPELINES, "e5 raw", "USE raw"]
    n = len(rows) or 1

    def share(k: int, among: list[str]) -> float:
        return round(sum(any((r[m] or 10**9) <= k for m in among) for r in rows) / n, 3)

    table = {m: {f"hit@{k}": share(k, [m]) for k in KS} for m in names}
    table["union of all"] = {f"hit@{k}": share(k, names) for k in KS}
    return {"n": len(rows), "rankings": table, "questions": rows}


def summarise_margins(margins: list[tuple[float, bool]]) -> dict[str, Any]:
    pos = np.array([m for m, a in margins if a])
    neg = np.array([m for m, a in margins if not a])
    if not len(pos) or not len(neg):
        return {"n_answerable": len(pos), "n_unanswerable": len(neg)}
    auc = float(np.mean([(p > neg).mean() + 0.5 * (p == neg).mean() for p in pos]))
    thresholds = sorted({round(float(x), 2) for x in np.quantile(neg, np.linspace(0, 1, 11))})
    rows = [
        {
            "margin above": t,
            "unanswerable answered": round(float((neg > t).mean()), 3),
            "answerable emptied": round(float((pos <= t).mean()), 3),
        }
        for t in thresholds
    ]
    return {
        "n_answerable": len(pos),
        "n_unanswerable": len(neg),
        "auc": round(auc, 3),
        "by_threshold": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="zh_groupchat")
    ap.add_argument("--json", help="write everything here")
    args = ap.parse_args()
    run = SuiteRun([], Config.load(env={}), Path(args.cache_dir))
    run.embedder = make_embedder(run.config.embed)
    with MarginProbe() as probe:
        report = {d.name: measure(run, d, probe) for d in chosen_datasets(args)}
    for name, found in report.items():
        print(f"{name}: cross_lingual, {found['cross_lingual']['n']} questions")
        for ranking, shares in found["cross_lingual"]["rankings"].items():
            print(f"  {ranking:14s} " + "  ".join(f"{k} {v:.3f}" for k, v in shares.items()))
        abst = found["abstention"]
        print(f"  abstention: AUC {abst.get('auc')} ({abst['n_unanswerable']} unanswerable)")
        for row in abst.get("by_threshold", []):
            print("   ", row)
    if args.json:
        Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
