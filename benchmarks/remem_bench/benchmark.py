"""Retrieval benchmark over the ../shared/bench format (LoCoMo, LongMemEval ...): what
``remem bench DATASET_DIR`` runs.

For each conversation: a fresh store, its turns ingested as messages (timestamps, speakers,
sessions kept), then each of its queries searched with ``now`` = the query's time. Scores:
recall@5, recall@10, hit@10, session_recall@10 and MRR (first gold turn within the top 10),
overall and per category, plus search latency with and without the query embedding and
ingest throughput.

Several *variants* (channels and search settings) can be scored over the same ingested
stores, which is how the comparison and ablation tables (README, HISTORY.md) are produced
cheaply. Only remem's public names are used.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem import Config, Embedder, RememError, query_vector

METRICS = ("recall@5", "recall@10", "hit@10", "session_recall@10", "mrr")


@dataclass
class Variant:
    name: str
    channels: tuple[str, ...] = ("vector", "lexical")
    # "section.key" -> value, e.g. {"search.fusion": "rrf", "scoring.recency_weight": 0}
    overrides: dict[str, Any] = field(default_factory=dict)
    disable: tuple[str, ...] = ()  # pipeline stages to skip, e.g. ("decay", "diversity")


@dataclass
class _Scores:
    per_query: list[dict[str, float]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    latency_embed: list[float] = field(default_factory=list)


def apply_overrides(config: Config, overrides: dict[str, Any]) -> dict[str, Any]:
    """Set dotted settings on a live config; returns the previous values (to restore)."""
    previous = {}
    for dotted, value in overrides.items():
        section_name, _, key = dotted.partition(".")
        section = getattr(config, section_name)
        previous[dotted] = getattr(section, key)
        setattr(section, key, value)
    return previous


def load_dataset(path: Path) -> tuple[list[dict], list[dict]]:
    corpus_file, queries_file = path / "corpus.jsonl", path / "queries.jsonl"
    for f in (corpus_file, queries_file):
        if not f.is_file():
            raise RememError(
                f"{str(f)!r} not found; DATASET_DIR must hold corpus.jsonl and queries.jsonl "
                "(the ../shared/bench format)"
            )
    return read_jsonl(corpus_file), read_jsonl(queries_file)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a UTF-8 JSONL file, blank lines skipped."""
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line.strip()]


def score_query(
    ranked_ids: list[str], ranked_sessions: list[str], gold: list[str], gold_sessions: list[str]
) -> dict[str, float]:
    gold_set = set(gold)
    top5, top10 = ranked_ids[:5], ranked_ids[:10]
    out = {
        "recall@5": len(gold_set & set(top5)) / len(gold_set) if gold_set else 0.0,
        "recall@10": len(gold_set & set(top10)) / len(gold_set) if gold_set else 0.0,
        "hit@10": 1.0 if gold_set & set(top10) else 0.0,
    }
    gs = set(gold_sessions)
    out["session_recall@10"] = len(gs & set(ranked_sessions[:10])) / len(gs) if gs else 0.0
    mrr = 0.0
    for rank, rid in enumerate(top10, start=1):
        if rid in gold_set:
            mrr = 1.0 / rank
            break
    out["mrr"] = mrr
    return out


def _aggregate(scores: _Scores) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    def mean(rows: list[dict[str, float]]) -> dict[str, float]:
        return {m: round(statistics.fmean(r[m] for r in rows), 4) if rows else 0.0 for m in METRICS}

    by_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    for cat, row in zip(scores.categories, scores.per_query, strict=True):
        by_cat[cat].append(row)
    return mean(scores.per_query), {c: {**mean(r), "n": len(r)} for c, r in sorted(by_cat.items())}


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return round(ordered[index], 3)


@dataclass
class _Run:
    """State of one benchmark run across its conversations."""

    variants: list[Variant]
    depth: int
    scores: dict[str, _Scores]
    embedder: Embedder | None
    ingest_seconds: float = 0.0
    ingested: int = 0
    done_queries: int = 0
    turns_done: int = 0  # conversation turns stored so far, for the ingest progress


def by_conversation(
    corpus: list[dict], queries: list[dict]
) -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for turn in corpus:
        by_conv[turn["conversation"]].append(turn)
    q_by_conv: dict[str, list[dict]] = defaultdict(list)
    for q in queries:
        q_by_conv[q["conversation"]].append(q)
    return by_conv, q_by_conv


def turn_fields(turns: list[dict]) -> list[dict]:
    """A dataset's turns as the records the benchmark stores (their other fields left out)."""
    keys = ("id", "text", "session", "timestamp", "speaker", "role")
    return [{key: t.get(key) for key in keys} for t in turns]


def _ingest(
    mem: Any, turns: list[dict], reuse: bool, run: _Run, progress: Callable[[int], None]
) -> None:
    """Store (and embed) one conversation's turns; ``progress(n)`` as batches finish."""
    rows = turn_fields(turns)
    if reuse and mem.count() == len(rows):
        return
    start = time.perf_counter()
    mem.ingest_many(rows, on_conflict="skip", wait=True, progress=progress)
    mem.embed_pending()
    run.ingest_seconds += time.perf_counter() - start
    run.ingested += len(rows)


def _ask(mem: Any, q: dict, session_of: dict[str, str], run: _Run) -> None:
    """One query through every variant, scored."""
    t0 = time.perf_counter()
    qvec = query_vector(mem, q["query"]) if run.embedder is not None else None
    t_embed = time.perf_counter() - t0
    for variant in run.variants:
        saved = apply_overrides(mem.config, variant.overrides)
        t1 = time.perf_counter()
        result = mem.search(
            q["query"],
            k=run.depth,
            now=q["timestamp"],
            query_vector=qvec,
            channels=variant.channels,
            disable=variant.disable,
        )
        elapsed = time.perf_counter() - t1
        ids = [h.record.id for h in result.hits]
        row = score_query(
            ids, [session_of.get(i, "") for i in ids], q["gold"], q.get("gold_sessions", [])
        )
        s = run.scores[variant.name]
        s.per_query.append(row)
        s.categories.append(q.get("category", "all"))
        s.latency.append(elapsed * 1000)
        uses_vector = "vector" in variant.channels and qvec is not None
        s.latency_embed.append((elapsed + (t_embed if uses_vector else 0)) * 1000)
        # restore defaults so variants don't leak into each other
        apply_overrides(mem.config, saved)


def _summary(dataset: Path, variant: Variant, k: int, run: _Run) -> dict[str, Any]:
    s = run.scores[variant.name]
    overall, by_category = _aggregate(s)
    return {
        "dataset": dataset.name,
        "variant": variant.name,
        "channels": list(variant.channels),
        "n_queries": len(s.per_query),
        "k": k,
        "overall": overall,
        "by_category": by_category,
        "latency_ms": {
            "search_p50": _percentile(s.latency, 50),
            "search_p95": _percentile(s.latency, 95),
            "search_embed_p50": _percentile(s.latency_embed, 50),
            "search_embed_p95": _percentile(s.latency_embed, 95),
        },
        "ingest_per_s": round(run.ingested / run.ingest_seconds, 1) if run.ingest_seconds else 0.0,
        "embed_model": run.embedder.model_id if run.embedder else None,
    }


def run_benchmark(
    dataset_dir: str | Path,
    *,
    config: Config | None = None,
    k: int = 10,
    variants: list[Variant] | None = None,
    embedder: Embedder | None = None,
    limit_conversations: int | None = None,
    limit_queries: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    workdir: str | Path | None = None,
    reuse_dir: str | Path | None = None,
    store_url: str | None = None,
) -> dict[str, Any]:
    """Run the benchmark; returns one result dict per variant under ``variants``.

    ``reuse_dir`` keeps ingested stores between runs (for tuning search settings only:
    anything that changes indexing needs a fresh directory). ``store_url`` runs on a
    PostgreSQL server instead, one schema per conversation (``bench_<n>``, emptied first).
    ``progress(stage, done, total)`` reports stage "ingest" (conversation turns stored and
    embedded) and "query"."""
    from remem.engine import Memory

    dataset = Path(dataset_dir)
    corpus, queries = load_dataset(dataset)
    config = config or Config.load(env={})
    variants = variants or [Variant("hybrid")]
    by_conv, q_by_conv = by_conversation(corpus, queries)
    conversations = [c for c in by_conv if q_by_conv.get(c)][:limit_conversations]
    total = sum(len(q_by_conv[c]) for c in conversations)
    total = min(total, limit_queries) if limit_queries else total
    total_turns = sum(len(by_conv[c]) for c in conversations)
    report = progress or (lambda _stage, _done, _total: None)
    run = _Run(variants, max(k, 10), {v.name: _Scores() for v in variants}, embedder)
    with tempfile.TemporaryDirectory(dir=workdir, prefix="remem-bench-") as tmp:
        base = Path(reuse_dir) if reuse_dir else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        for ci, conv in enumerate(conversations):
            if limit_queries and run.done_queries >= limit_queries:
                break
            db = base / f"conv-{ci}.db"
            reuse = reuse_dir is not None and db.exists()
            conv_config, target = config, str(db)
            if store_url is not None:
                conv_config, target, reuse = config.model_copy(deep=True), store_url, False
                conv_config.store.pg_schema = f"bench_{ci}"
            with Memory(target, conv_config, embedder=run.embedder) as mem:
                if store_url is not None:
                    mem.delete_all()
                if run.embedder is None:
                    run.embedder = mem.get_embedder()
                turns_before = run.turns_done

                def ingested(n: int) -> None:
                    run.turns_done += n
                    report("ingest", run.turns_done, total_turns)

                _ingest(mem, by_conv[conv], reuse, run, ingested)
                run.turns_done = turns_before + len(by_conv[conv])  # skipped ones count too
                report("ingest", run.turns_done, total_turns)
                session_of = {t["id"]: t["session"] for t in by_conv[conv]}
                for q in q_by_conv[conv]:
                    if limit_queries and run.done_queries >= limit_queries:
                        break
                    _ask(mem, q, session_of, run)
                    run.done_queries += 1
                    report("query", run.done_queries, total)
    return {"variants": {v.name: _summary(dataset, v, k, run) for v in variants}}
