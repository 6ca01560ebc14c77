"""Why the keyword channel trails plain BM25 on changed_facts (issue 46): FTS5's BM25 formula
(``remem.store.memory.lexical_index.row_score``) over each store's indexed terms, the record's
own column and its context column (the turn before it, ``text.context_turns``), for the
query's phrase tokens, recall@10 under variants of how the context column counts:

- ``bm25``: the own column only (FTS5's idf; what ``keyword_reference.PlainBM25`` compares);
- ``context 0.2`` / ``context 0``: the context column at search.context_weight 0.2 (default) / 0;
- ``names out of context``: the store's speaker names do not count in the context column (its
  speaker label says who spoke the turn before, not what this line is about);
- ``own-column idf``: document frequency from the own column only, the context still scored;
- ``lucene idf``: plain BM25's idf (always positive) with the context column at 0.2;
- ``bm25f 0.1`` / ``bm25f 0.2``: BM25F, each column's term frequency normalised by its own
  length over that column's mean (FTS5 normalises by the whole row, so a long turn before a
  line lowers the line's own words), the context at weight 0.1 / 0.2, the own column's
  document frequency and plain BM25's idf;
- ``gap W`` (issue 46's "the context counts only for what it adds", ``context_gap.gap_score``):
  BM25F with plain BM25's idf where a query phrase counts through the context column, at
  weight W, only in a row whose own column lacks it; ``lucene`` / ``both-column df``: the
  document frequency from the own column / from either column (default: FTS5's idf over the
  own column); ``names out``: the store's speaker names left out of the context column;
  ``W/A``: weight A instead of W for a row whose own column holds no query phrase at all (its
  context alone would make it a hit); ``own support``: A = 0.

Figures per query shape (``keyword_reference.query_shapes``); ``--variants`` runs a few.

No pruning, translation or word forms (the channel's own ranking adds those; in these small
stores they change nothing measurable). One line per dataset and shape:

    PYTHONPATH=src:benchmarks python benchmarks/scripts/context_column.py \
        --datasets changed_facts,dialogue_notes
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from suite_cli import add_suite_options, chosen_datasets, hybrid_run

from remem.config import Config
from remem.store.memory.lexical_index import idf, row_score, terms
from remem_bench.benchmark import score_query
from remem_bench.context_gap import gap_score
from remem_bench.keyword_reference import query_shapes
from remem_bench.suite import SuiteRun, conversations, ingest, is_unanswerable

Rows = dict[int, tuple[list[str], list[str]]]  # rowid -> (own terms, context terms)


def occurs(tokens: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:  # nearly every query token: list.count, in C
        return tokens.count(phrase[0])
    n = len(phrase)
    return sum(1 for i in range(len(tokens) - n + 1) if tokens[i : i + n] == phrase)


def lucene_idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def variants(names: set[str]) -> dict[str, dict[str, Any]]:
    """How each variant counts: context weight, which columns give a phrase's df, the idf
    formula, and which context terms are dropped."""
    return {
        "bm25": {"weight": 0.0, "both": False},
        "context 0.2": {"weight": 0.2, "both": True},
        "context 0": {"weight": 0.0, "both": True},
        "names out of context": {"weight": 0.2, "both": True, "drop": names},
        "own-column idf": {"weight": 0.2, "both": False},
        "lucene idf": {"weight": 0.2, "both": True, "idf": lucene_idf},
        "bm25f 0.1": {"weight": 0.1, "both": False, "idf": lucene_idf, "fields": True},
        "bm25f 0.2": {"weight": 0.2, "both": False, "idf": lucene_idf, "fields": True},
        **{
            f"gap {w}{' lucene' if lu else ''}": {
                "weight": w,
                "both": False,
                "gap": True,
                **({"idf": lucene_idf} if lu else {}),
            }
            for w in (0.1, 0.2, 0.3, 0.5)
            for lu in (False, True)
        },
        **{
            f"gap {w} names out": {
                "weight": w,
                "both": False,
                "gap": True,
                "idf": lucene_idf,
                "drop": names,
            }
            for w in (0.1, 0.2, 0.3, 0.5)
        },
        **{
            f"gap {w} names out own support": {
                "weight": w,
                "both": False,
                "gap": True,
                "idf": lucene_idf,
                "drop": names,
                "alone": 0.0,
            }
            for w in (0.2, 0.3, 0.5)
        },
        **{
            f"gap {w} both-column df{' names out' if out else ''}": {
                "weight": w,
                "both": True,
                "gap": True,
                "idf": lucene_idf,
                **({"drop": names} if out else {}),
            }
            for w in (0.2, 0.3, 0.5, 0.7)
            for out in (False, True)
        },
        **{
            f"gap {w}/{alone} both-column df names out": {
                "weight": w,
                "alone": alone,
                "both": True,
                "gap": True,
                "idf": lucene_idf,
                "drop": names,
            }
            for w, alone in ((0.5, 0.1), (0.5, 0.2), (0.7, 0.2), (0.3, 0.2))
        },
    }


def bm25f_scores(
    docs: Rows, phrases: list[list[str]], idfs: list[float], weight: float
) -> dict[int, float]:
    """BM25F (k1 1.2, b 0.75): per phrase, the own and context frequencies each normalised by
    its column's length over that column's mean, summed with the context at ``weight``, then
    saturated once."""
    n = len(docs)
    own_mean = sum(len(o) for o, _ in docs.values()) / n or 1.0
    ctx_mean = sum(len(c) for _, c in docs.values()) / n or 1.0
    k1, b = 1.2, 0.75
    scores: dict[int, float] = {}
    for r, (own, ctx) in docs.items():
        own_norm = 1 - b + b * len(own) / own_mean
        ctx_norm = 1 - b + b * len(ctx) / ctx_mean
        score = 0.0
        for phrase, weight_of in zip(phrases, idfs, strict=True):
            tf = occurs(own, phrase) / own_norm + weight * occurs(ctx, phrase) / ctx_norm
            score += weight_of * tf / (tf + k1) if tf else 0.0
        scores[r] = score
    return scores


def gap_scores(
    docs: Rows, phrases: list[list[str]], idfs: list[float], weight: float, alone: float
) -> dict[int, float]:
    """``context_gap.gap_score`` of every row, each column's length over its own mean."""
    n = len(docs)
    means = (sum(len(o) for o, _ in docs.values()) / n, sum(len(c) for _, c in docs.values()) / n)
    return {
        r: gap_score(own, ctx, phrases, idfs, means, weight, alone)
        for r, (own, ctx) in docs.items()
    }


def ranked(rows: Rows, phrases: list[list[str]], how: dict[str, Any]) -> list[int]:
    drop: set[str] = how.get("drop", set())
    docs = {r: (own, [t for t in ctx if t not in drop]) for r, (own, ctx) in rows.items()}
    n = len(docs)
    own_only = how["weight"] == 0.0 and not how["both"]
    avgdl = sum(len(o) + (0 if own_only else len(c)) for o, c in docs.values()) / n
    formula: Callable[[int, int], float] = how.get("idf", idf)
    idfs = [
        formula(
            n,
            sum(1 for o, c in docs.values() if occurs(o, p) or (how["both"] and occurs(c, p))),
        )
        for p in phrases
    ]
    if how.get("gap"):
        scores = gap_scores(docs, phrases, idfs, how["weight"], how.get("alone", how["weight"]))
    elif how.get("fields"):
        scores = bm25f_scores(docs, phrases, idfs, how["weight"])
    else:
        scores = {
            r: row_score(o, [] if own_only else c, phrases, idfs, avgdl, how["weight"])
            for r, (o, c) in docs.items()
        }
    return [r for r, s in sorted(scores.items(), key=lambda x: (-x[1], x[0])) if s > 0][:10]


def run_dataset(run: SuiteRun, dataset: Any, only: set[str]) -> dict[str, Any]:
    from remem.engine import Memory

    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    asked: Counter[str] = Counter()
    for ci, (_conv, turns, questions) in enumerate(
        conversations(dataset.path, [], run.limit_conversations)
    ):
        with Memory(run.db_path(dataset, ci), run.config, embedder=run.embedder) as mem:
            ingest(mem, turns)
            rowids = mem.store.rowids_for_ids([t["id"] for t in turns])
            # the backend's own and context terms (what lexical_rescore scores)
            with mem.store._rescore_source() as source:  # type: ignore[attr-defined]
                rows: Rows = {r: (o, c) for r, o, c in source.row_terms(rowids)}
            records = mem.store.get_by_rowids(list(rows))
            names = {
                t
                for s in {t.get("speaker") or "" for t in turns}
                for t in mem.tokenizer.phrase_tokens(s)
            }
            for q in questions:
                if is_unanswerable(q):
                    continue
                shapes = query_shapes(q["query"], q.get("category", "all"))
                asked.update(shapes)
                tokens = dict.fromkeys(mem.tokenizer.phrase_tokens(q["query"]))
                phrases = [p for p in (terms(t) for t in tokens) if p]
                for name, how in variants(names).items():
                    if only and name not in only:
                        continue
                    ids = [records[r].id for r in ranked(rows, phrases, how) if r in records]
                    found = score_query(ids, [""] * len(ids), q["gold"], [])["recall@10"]
                    for shape in shapes:
                        totals[shape][name] += found
    return {
        shape: {"n": asked[shape], **{k: round(v / asked[shape], 4) for k, v in by.items()}}
        for shape, by in sorted(totals.items())
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="changed_facts,dialogue_notes")
    ap.add_argument("--out", help="merge the figures into this JSON file")
    ap.add_argument("--variants", default="", help="run only these (comma-separated names)")
    args = ap.parse_args()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    run = hybrid_run(args, config)
    for dataset in chosen_datasets(args):
        found = run_dataset(run, dataset, {v for v in args.variants.split(",") if v})
        for shape, row in found.items():
            print(f"{dataset.name:22} {shape:24} {json.dumps(row)}", flush=True)
        if args.out:
            out = Path(args.out)
            report = json.loads(out.read_text()) if out.is_file() else {}
            report.setdefault("context_column_shapes", {})[dataset.name] = found
            out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
