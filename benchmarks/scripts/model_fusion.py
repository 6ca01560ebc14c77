"""Does fusing the two bundled embedding models (e5 + USE) beat e5 alone? (issues 16 and 17)

Per dataset of the development suite (LoCoMo, zh_groupchat with the no-answer probes aimed at
each, LongMemEval oracle or its first ``--limit-conversations`` conversations in corpus order):

1. the suite's own variants with the whole pipeline, through ``run_suite``: e5 vector channel
   only, USE vector channel only, lexical only, the shipped defaults with e5 and with USE;
2. offline, from each question's per-channel candidate lists, ``pool`` long as the search
   fetches them for k=10 (the engine's own lexical channel; each model's own vector index):
   every channel alone, the two vector lists fused by each rule of ``FUSION_RULES``, and the
   hybrid of lexical + one vector list through the engine's own ``weighted_fuse`` (its weights
   and span floor from the config). The scoring stages are left out, so the offline rows
   differ only in how the candidates were fused;
3. whether the best hit's score separates "something relevant" from "nothing relevant":
   p10/p50/p90 of the top score for answerable questions, the ``unanswerable`` category and
   the no-answer probes (each asked in every store of its dataset), raw and minus the query's
   cosine to the model's neutral sentences (what the relevance floor calibrates against), and
   the AUC of telling answerable from the rest by that score;
4. with ``--speed``: query-embedding ms (median of 50) and passages/s for short (~15 words) and
   long (~300 words) turns, per model, with the load average beside them.

Scores come from the suite's own code (``score_query``, ``summarise``, ``macro_average``).
Stores are the suite's cache (``.remem-bench-cache/``, keyed by dataset, model and corpus
digest), so a re-run only searches. Everything is deterministic.

OMP_WAIT_POLICY=passive PYTHONPATH=src python benchmarks/scripts/model_fusion.py --datasets zh_groupchat
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fusion_rules import FUSION_RULES, RRF_K, Ranked, auc, spread

from remem.config import Config
from remem.embed.base import Embedder, chunk_limit, embed_with_chunks
from remem.embed.factory import make_embedder
from remem.search.candidates import pool_size
from remem.search.fusion import weighted_fuse
from remem.search.lexical import lexical_candidates
from remem_bench.benchmark import Variant, load_dataset, score_query
from remem_bench.suite import (
    NO_ANSWER_TARGETS,
    SuiteDataset,
    VariantScores,
    cache_key,
    is_unanswerable,
    load_no_answer,
    macro_average,
    run_suite,
    suite_datasets,
    summarise,
)
from remem_bench.suite import conversations as suite_conversations

REPO = Path(__file__).resolve().parents[2]
MODELS = {"e5": "multilingual-e5-small", "use": "use-multilingual-v3"}
K = 10


# ---------------------------------------------------------------------- offline pass
@dataclass
class ModelSide:
    """One model's cached store of one conversation, its vectors in conversation order."""

    name: str
    embedder: Embedder
    mem: Any  # remem.Memory
    matrix: np.ndarray  # (turns, dim), row i = the conversation's i-th turn
    position_of: dict[int, int]  # the store's rowid -> position in the conversation
    neutral: np.ndarray  # the model's neutral-sentence vectors (relevance calibration)


@dataclass
class Offline:
    """Offline variants' scores and the top-score samples for the separation figures."""

    scores: dict[str, VariantScores] = field(default_factory=lambda: defaultdict(VariantScores))
    # score kind ("e5", "e5-margin", ...) -> question group -> the best hit's score
    tops: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )


def open_side(name: str, embedder: Embedder, db: Path, config: Config, ids: list[str]) -> ModelSide:
    from remem.engine import Memory

    mem = Memory(db, config, embedder=embedder)
    rowids = mem.store.rowids_for_ids(ids)
    if len(rowids) != len(ids) or mem.store.count() != len(ids):
        mem.close()
        raise SystemExit(
            f"{db}: holds {mem.store.count()} records, not the {len(ids)} turns of "
            "its conversation; run the suite variants first to build the cache"
        )
    # rowids_for_ids answers in no particular order: place each rowid by its record's id
    where = {record_id: i for i, record_id in enumerate(ids)}
    position_of = {r: where[rec.id] for r, rec in mem.store.get_by_rowids(rowids).items()}
    index = mem.searcher.index_for(embedder)
    index.sync()  # vectors_for reads what the index holds; a fresh index holds nothing yet
    vectors = index.vectors_for(rowids)
    matrix = np.zeros((len(ids), embedder.dim), np.float32)
    for rowid, vector in vectors.items():
        matrix[position_of[rowid]] = vector
    if len(vectors) != len(ids):
        raise SystemExit(f"{db}: {len(ids) - len(vectors)} turns have no {name} vector")
    neutral = mem.searcher.neutral_vectors(embedder)
    return ModelSide(name, embedder, mem, matrix, position_of, neutral)


@dataclass
class Question:
    query: dict[str, Any]
    probe: bool  # a no-answer probe (asked in every store of its dataset)

    @property
    def group(self) -> str:
        if self.probe:
            return "no_answer"
        return "unanswerable" if is_unanswerable(self.query) else "answerable"

    @property
    def groups(self) -> list[str]:
        """Its group, and ``cross_lingual`` besides for those answerable questions: a
        relevance floor must not abstain on them (issue 17)."""
        cross = self.group == "answerable" and self.query.get("category") == "cross_lingual"
        return [self.group, "cross_lingual"] if cross else [self.group]


def channel_lists(
    sides: dict[str, ModelSide], question: Question, config: Config, pool: int, out: Offline
) -> tuple[Ranked, dict[str, Ranked]]:
    """The lexical list and every vector list (each model's, each fused rule's) of one
    question; notes the best hit's scores for the separation figures."""
    text, now = question.query["query"], question.query.get("timestamp")
    lists: dict[str, Ranked] = {}
    cos: dict[str, np.ndarray] = {}
    baseline: dict[str, float] = {}
    for name, side in sides.items():
        qv = np.asarray(side.mem.searcher.embed_query(side.embedder, text), np.float32)
        hits = side.mem.searcher.index_for(side.embedder).search(qv, pool, None, now)
        lists[name] = [(side.position_of[r], s) for r, s in hits]
        cos[name] = side.matrix @ qv
        baseline[name] = float(np.max(side.neutral @ qv))
    cfg, lexical_side = config.search, sides["e5"]
    found = lexical_candidates(
        lexical_side.mem.store,
        lexical_side.mem.tokenizer.query_tokens(text),
        None,
        pool,
        now,
        context_weight=cfg.context_weight,
        max_df=cfg.lexical_max_df,
        prune_min_docs=cfg.lexical_prune_min_docs,
        postings_budget=cfg.lexical_postings_budget,
    )
    lexical = [(lexical_side.position_of[r], s) for r, s in found]
    vectors = {
        **lists,
        **{f"fused-{r}": rule(lists, cos, pool) for r, rule in FUSION_RULES.items()},
    }
    best = {name: (lists[name][0][1], baseline[name]) for name in sides if lists[name]}
    if vectors["fused-mean-cos"]:
        mean_baseline = statistics.fmean(baseline.values())
        best["fused-mean-cos"] = (vectors["fused-mean-cos"][0][1], mean_baseline)
    for kind, (score, base) in best.items():
        for group in question.groups:
            out.tops[kind][group].append(score)
            out.tops[f"{kind}-margin"][group].append(score - base)
    return lexical, vectors


def rankings(lexical: Ranked, vectors: dict[str, Ranked], config: Config) -> dict[str, Ranked]:
    """Every offline variant's ranking: each channel alone, and lexical + each vector list
    through the engine's weighted fusion."""
    cfg = config.search
    out = {"lexical": lexical}
    for name, vector in vectors.items():
        out[f"vector:{name}"] = vector
        fused = weighted_fuse(
            vector,
            lexical,
            vector_weight=cfg.vector_weight,
            lexical_weight=cfg.lexical_weight,
            min_vector_span=cfg.min_vector_span,
        )
        out[f"hybrid:{name}"] = [(c.rowid, c.fused) for c in fused]
    return out


def score_rankings(
    ranked: dict[str, Ranked], question: Question, ids: list[str], sessions: list[str], out: Offline
) -> None:
    if question.group != "answerable":
        return  # offline lists never abstain: the separation figures speak for these
    q = question.query
    for variant, ranking in ranked.items():
        top_k = [i for i, _ in ranking[:K]]
        row = score_query(
            [ids[i] for i in top_k],
            [sessions[i] for i in top_k],
            q["gold"],
            q.get("gold_sessions", []),
        )
        out.scores[variant].add_answerable(row, q.get("category", "all"))


def conversations(
    dataset: SuiteDataset, probes: list[dict[str, Any]], limit: int | None
) -> list[tuple[list[dict], list[dict]]]:
    """(turns, questions) per conversation, in the order ``SuiteRun`` numbers its stores."""
    return [(turns, qs) for _, turns, qs in suite_conversations(dataset.path, probes, limit)]


def offline_pass(
    dataset: SuiteDataset,
    probes: list[dict[str, Any]],
    configs: dict[str, Config],
    embedders: dict[str, Embedder],
    cache_dir: Path,
    limit: int | None,
) -> Offline:
    config = configs["e5"]
    cfg = config.search
    pool = pool_size(
        K, floor=cfg.candidate_pool, factor=cfg.candidate_factor, role_factor=1, role_filter=False
    )
    out = Offline()
    convs = conversations(dataset, probes, limit)
    started = time.time()
    for ci, (turns, queries) in enumerate(convs):
        ids, sessions = [t["id"] for t in turns], [t["session"] for t in turns]
        sides = {}
        try:
            for name, embedder in embedders.items():
                db = cache_dir / cache_key(dataset, embedder.model_id) / f"conv-{ci}.db"
                sides[name] = open_side(name, embedder, db, configs[name], ids)
            asked = [Question(q, False) for q in queries] + [Question(p, True) for p in probes]
            for question in asked:
                lexical, vectors = channel_lists(sides, question, config, pool, out)
                score_rankings(rankings(lexical, vectors, config), question, ids, sessions, out)
        finally:
            for side in sides.values():
                side.mem.close()
        print(
            f"  {dataset.name} offline: conversation {ci + 1}/{len(convs)}, "
            f"{time.time() - started:.0f}s",
            file=sys.stderr,
        )
    return out


def separation(tops: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """Per score kind: the best hit's score by question group, and the AUC of telling the
    answerable (and the cross-lingual) questions from the others by it."""
    out: dict[str, Any] = {}
    for kind, groups in sorted(tops.items()):
        out[kind] = {
            **{g: spread(v) for g, v in sorted(groups.items())},
            **{
                f"auc_{pos}_vs_{neg}": auc(groups[pos], groups[neg])
                for pos in ("answerable", "cross_lingual")
                for neg in ("unanswerable", "no_answer")
                if groups.get(pos) and groups.get(neg)
            },
        }
    return out


# ---------------------------------------------------------------------- the suite's own runs
SUITE_VARIANTS = {
    "e5": [
        Variant("e5-default"),
        Variant("e5-vector", ("vector",)),
        Variant("lexical", ("lexical",)),
    ],
    "use": [Variant("use-default"), Variant("use-vector", ("vector",))],
}


def suite_pass(
    dataset: SuiteDataset,
    no_answer: list[dict[str, Any]],
    configs: dict[str, Config],
    embedders: dict[str, Embedder],
    cache_dir: Path,
    limit: int | None,
) -> dict[str, Any]:
    """The suite's own variants with the whole pipeline, one model at a time (this also
    builds the cached stores the offline pass reads)."""
    started, last = time.time(), [0.0]

    def progress(name: str, done: int, total: int) -> None:
        if time.time() - last[0] > 30 or done == total:
            last[0] = time.time()
            print(f"  {name} suite: {done}/{total}, {time.time() - started:.0f}s", file=sys.stderr)

    out: dict[str, Any] = {}
    for name, variants in SUITE_VARIANTS.items():
        result = run_suite(
            [dataset],
            no_answer=no_answer,
            config=configs[name],
            cache_dir=cache_dir,
            variants=variants,
            embedder=embedders[name],
            progress=progress,
            limit_conversations=limit,
        )
        for vname, v in result["variants"].items():
            out[vname] = v["datasets"][dataset.name]
    return out


def kept_suite(path: Path, limit: int | None) -> dict[str, Any]:
    """The suite figures of an earlier run with the same conversations (``--skip-suite``)."""
    if not path.is_file():
        return {}
    earlier = json.loads(path.read_text())
    return earlier["suite"] if earlier["params"]["limit_conversations"] == limit else {}


def model_configs(threads: int | None = None) -> dict[str, Config]:
    """Each model's configuration: the defaults, sync indexing (and ``embed.threads``)."""
    extra = {} if threads is None else {"embed.threads": threads}
    return {
        name: Config.load(
            env={}, overrides={"indexing.mode": "sync", "embed.model": model, **extra}
        )
        for name, model in MODELS.items()
    }


def load_embedders(configs: dict[str, Config]) -> dict[str, Embedder]:
    out = {}
    for name, config in configs.items():
        embedder = make_embedder(config.embed)
        if embedder is None:
            raise SystemExit(f"embed.model {MODELS[name]!r} did not load")
        out[name] = embedder
    return out


def run_dataset(
    dataset: SuiteDataset, no_answer: list[dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    configs = model_configs()
    embedders = load_embedders(configs)
    cache_dir, limit = Path(args.cache_dir), args.limit_conversations
    probes = [q for q in no_answer if q.get("target") in NO_ANSWER_TARGETS.get(dataset.name, ())]
    started = time.time()
    suite = (
        kept_suite(Path(args.out_dir) / f"model-fusion-{dataset.name}.json", limit)
        if args.skip_suite
        else suite_pass(dataset, no_answer, configs, embedders, cache_dir, limit)
    )
    offline = offline_pass(dataset, probes, configs, embedders, cache_dir, limit)
    cfg = configs["e5"].search
    return {
        "dataset": dataset.name,
        "params": {
            "k": K,
            "models": MODELS,
            "limit_conversations": limit,
            "conversations": len(conversations(dataset, probes, limit)),
            "no_answer_probes": len(probes),
            "pool": pool_size(
                K,
                floor=cfg.candidate_pool,
                factor=cfg.candidate_factor,
                role_factor=1,
                role_filter=False,
            ),
            "vector_weight": cfg.vector_weight,
            "lexical_weight": cfg.lexical_weight,
            "min_vector_span": cfg.min_vector_span,
            "rrf_k": RRF_K,
            "fusion_rules": list(FUSION_RULES),
        },
        "suite": suite,
        "offline": {v: summarise(s) for v, s in sorted(offline.scores.items())},
        "separation": separation(offline.tops),
        "seconds": round(time.time() - started),
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }


# ---------------------------------------------------------------------- cost
def speed_texts(shared_dir: Path) -> dict[str, list[str]]:
    """Deterministic samples: LoCoMo turns of 13-17 words, LongMemEval turns of 250-350
    words, LoCoMo questions; the first of each in file order."""
    locomo_turns, _ = load_dataset(shared_dir / "locomo")
    lme_turns, _ = load_dataset(shared_dir / "longmemeval_oracle")
    _, questions = load_dataset(shared_dir / "locomo")
    return {
        "short": [t["text"] for t in locomo_turns if 13 <= len(t["text"].split()) <= 17][:200],
        "long": [t["text"] for t in lme_turns if 250 <= len(t["text"].split()) <= 350][:40],
        "queries": [q["query"] for q in questions[:53]],
    }


def measure_speed(shared_dir: Path, threads: int) -> dict[str, Any]:
    """Query-embedding ms (median of 50 after 3 warm-up) and passages/s per model, embedded
    the way the engine embeds (chunked, its batch size), with ``embed.threads`` = threads
    (once per process: e5's OpenMP reads its thread count when it loads)."""
    texts = speed_texts(shared_dir)
    configs = model_configs(threads)
    out: dict[str, Any] = {
        "embed_threads": threads,
        "load_average_1m_before": round(os.getloadavg()[0], 2),
    }
    for name, embedder in load_embedders(configs).items():
        cfg = configs[name].embed

        def embed(batch: list[str], is_query: bool) -> float:
            start = time.perf_counter()
            embed_with_chunks(
                embedder,  # noqa: B023 - called within this iteration only
                batch,
                is_query=is_query,
                max_chars=chunk_limit(embedder, cfg),  # noqa: B023
                overlap=cfg.chunk_overlap,  # noqa: B023
                batch_size=cfg.batch_size,  # noqa: B023
            )
            return time.perf_counter() - start

        times = [embed([q], True) * 1000 for q in texts["queries"]][3:]
        out[name] = {
            "query_ms_median": round(statistics.median(times), 2),
            "query_ms_p90": round(float(np.quantile(times, 0.9)), 2),
            "queries": len(times),
            **{
                f"{kind}_passages_per_s": round(len(texts[kind]) / embed(texts[kind], False), 1)
                for kind in ("short", "long")
            },
            "short_passages": len(texts["short"]),
            "long_passages": len(texts["long"]),
        }
    out["load_average_1m_after"] = round(os.getloadavg()[0], 2)
    return out


# ---------------------------------------------------------------------- summary
HEADLINE = ("recall@5", "recall@10", "mrr")


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Variant x dataset headline figures, the cross_lingual category, the macro average, and
    which datasets a variant leaves below their lexical-only run: a suite variant against the
    suite's lexical row (whole pipeline), an offline one against the offline lexical list."""
    table: dict[str, dict[str, Any]] = defaultdict(dict)
    lexical: dict[str, dict[str, Any]] = defaultdict(dict)  # variant -> dataset -> reference
    for r in results:
        rows = {**{f"suite:{v}": s for v, s in r["suite"].items()}, **r["offline"]}
        for variant, s in rows.items():
            if s["n_answerable"]:
                table[variant][r["dataset"]] = s
                reference = r["suite"] if variant.startswith("suite:") else r["offline"]
                if "lexical" in reference:
                    lexical[variant][r["dataset"]] = reference["lexical"]["overall"]
    out: dict[str, Any] = {}
    for variant, per_dataset in sorted(table.items()):
        below = [
            d
            for d, s in per_dataset.items()
            if d in lexical[variant]
            and s["overall"]["recall@10"] < lexical[variant][d]["recall@10"]
        ]
        out[variant] = {
            "datasets": {d: {m: s["overall"][m] for m in HEADLINE} for d, s in per_dataset.items()},
            "cross_lingual": {
                d: s["by_category"]["cross_lingual"]
                for d, s in per_dataset.items()
                if "cross_lingual" in s["by_category"]
            },
            "macro": macro_average(per_dataset),
            "below_lexical_recall@10": below,
        }
    return out


def print_table(table: dict[str, Any]) -> None:
    for variant, row in table.items():
        cells = "  ".join(
            f"{d} {v['recall@5']:.3f}/{v['recall@10']:.3f}/{v['mrr']:.3f}"
            for d, v in row["datasets"].items()
        )
        macro = row["macro"]
        print(f"{variant:28s} {cells}  macro r@10 {macro['recall@10']:.3f} mrr {macro['mrr']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--datasets",
        default="zh_groupchat,locomo",
        help='comma-separated suite datasets; "" only rebuilds the summary from --out-dir',
    )
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--out-dir", default=str(REPO / "benchmarks" / "results"))
    ap.add_argument(
        "--limit-conversations", type=int, help="only the first N conversations (corpus order)"
    )
    ap.add_argument(
        "--skip-suite",
        action="store_true",
        help="offline pass only (stores cached); keeps the suite figures of --out-dir's file",
    )
    ap.add_argument("--speed", action="store_true", help="measure the embedding cost only")
    ap.add_argument("--threads", type=int, default=2, help="embed.threads for --speed")
    args = ap.parse_args()
    out_dir = Path(args.out_dir)
    if args.speed:
        result = measure_speed(Path(args.shared_dir), args.threads)
        path = out_dir / f"model-fusion-speed-threads{args.threads}.json"
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps(result, indent=1))
        return
    names = args.datasets.split(",")
    datasets = [
        d
        for d in suite_datasets(Path(args.shared_dir), REPO / "benchmarks" / "data", quick=False)
        if d.name in names
    ]
    no_answer = load_no_answer(REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl")
    for dataset in datasets:
        print(f"{dataset.name}: starting", file=sys.stderr)
        result = run_dataset(dataset, no_answer, args)
        path = out_dir / f"model-fusion-{dataset.name}.json"
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"{dataset.name}: done in {result['seconds']}s -> {path}", file=sys.stderr)
    results = [
        json.loads(p.read_text())
        for p in sorted(out_dir.glob("model-fusion-*.json"))
        if p.stem != "model-fusion-summary" and not p.stem.startswith("model-fusion-speed")
    ]
    table = summary(results)
    (out_dir / "model-fusion-summary.json").write_text(json.dumps(table, indent=1) + "\n")
    print_table(table)


if __name__ == "__main__":
    main()
