"""Dump, for every suite question and no-answer probe, the evidence of each of its top hits
(no relevance floor): the e5 cosine and the query's e5 neutral baseline, the share of the
query's own words in the hit, the USE cosine of the (query, hit text) pair and the query's
USE baseline, whether the cross-script witness would read the hit (the other script, among the
best search.witness_top), the hit's rank and score, and whether it is gold.

It answers two questions offline: does USE, asked at search time about a few candidates,
tell answers from off-topic hits better than e5 (the relevance floor), and does it rank
answers in the other script better (the cross-lingual category)?

PYTHONPATH=src python benchmarks/scripts/cross_script_features.py --cache-dir /var/tmp/suite-cache \
    --out /var/tmp/xs.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from remem.config import Config
from remem.embed.calibrations import NEUTRAL
from remem.embed.factory import make_embedder
from remem.embed.fast_model import fast_embedder
from remem.engine import Memory
from remem.search.query_terms import idf_weights, term_coverage
from remem.text.scripts import crosses, script_of
from remem_bench.suite import (
    NO_ANSWER_TARGETS,
    cache_key,
    conversations,
    is_unanswerable,
    load_no_answer,
    suite_datasets,
)

REPO = Path(__file__).resolve().parents[2]
STORE_RANKS = 50  # how many of the store's nearest cosines each row keeps


def unseen_share(weights: dict[str, float], df: dict[str, int]) -> float:
    """The share of the query's IDF mass in terms no record of the store holds (``df`` from
    ``LexicalStore.term_stats``): a question mostly about words this store has never contained
    is about something else. In [0, 1]; 0 for a query without terms."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for t, w in weights.items() if not df.get(t)) / total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="locomo,zh_groupchat")
    ap.add_argument("--shared-dir", default="/work/shared/bench")
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "search.relevance_floor": 0})
    embedder = make_embedder(config.embed)
    assert embedder is not None
    use = fast_embedder(2)
    use_neutral = np.asarray(use.embed_passages(list(NEUTRAL)), np.float32)
    no_answer = load_no_answer(REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl")
    names = args.datasets.split(",")
    with open(args.out, "w") as out:
        for ds in suite_datasets(Path(args.shared_dir), REPO / "benchmarks" / "data", quick=False):
            if ds.name not in names:
                continue
            targets = NO_ANSWER_TARGETS.get(ds.name, ())
            probes = [dict(p, gold=[], kind="probe") for p in no_answer if p["target"] in targets]
            folder = Path(args.cache_dir) / cache_key(ds, embedder.model_id)
            # the suite's own numbering of the cached stores (conversations asked something)
            for ci, (_conv, _turns, questions) in enumerate(conversations(ds.path, probes)):
                db = folder / f"conv-{ci}.db"
                if not db.exists():
                    continue
                with Memory(db, config, embedder=embedder) as mem:
                    for q in questions + probes:
                        kind = q.get("kind") or ("unans" if is_unanswerable(q) else "ans")
                        row = _features(mem, embedder, use, use_neutral, q, args.k)
                        row.update(
                            dataset=ds.name, conv=ci, qid=q["qid"], kind=kind,
                            cat=q.get("category"),
                        )  # fmt: skip
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                print(ds.name, ci, flush=True)


def _features(mem, embedder, use, use_neutral, q, k) -> dict:
    query = q["query"]
    qvec = mem.searcher.embed_query(embedder, query)
    result = mem.search(query, k=k, now=q.get("timestamp"), query_vector=qvec)
    hits = result.hits
    rowids = [h.record.rowid for h in hits]
    vecs = mem.searcher.index_for(embedder).vectors_for(rowids)
    tokens = mem.searcher.tokenizer.query_tokens(query)
    weights = idf_weights(mem.store, tokens)
    _, df = mem.store.term_stats(list(weights))
    base = mem.searcher._baseline(qvec)
    uq = use.embed_queries([query])[0]
    ubase = float(np.max(use_neutral @ uq))
    texts = [h.record.text for h in hits]
    uvecs = use.embed_passages(texts) if texts else np.zeros((0, 512), np.float32)
    gold = set(q.get("gold") or [])
    out = []
    for i, h in enumerate(hits):
        v = vecs.get(h.record.rowid)
        out.append(
            {
                "id": h.record.id,
                "rank": i,
                "score": h.score,
                "cos": float(np.dot(v, qvec)) if v is not None else None,
                "cov": term_coverage(weights, mem.searcher.tokenizer.index_tokens(h.record.text)),
                "ucos": float(uvecs[i] @ uq),
                # what the relevance stage would ask the witness about (search.witness_top)
                "cross": i < mem.config.search.witness_top
                and crosses(script_of(query), h.record.text),
                "gold": h.record.id in gold,
            }
        )
    # the query's cosines to the store's nearest records, best first: how close it comes to
    # this store's ordinary lines (a store-relative baseline)
    nearest = mem.searcher.index_for(embedder).search(qvec, STORE_RANKS)
    return {
        "hits": out,
        "store_cos": [round(c, 5) for _, c in nearest],
        "base": base,
        "ubase": ubase,
        "n_gold": len(gold),
        # the share of the query's IDF mass in words this store has never held
        "unseen": unseen_share(weights, df),
    }


if __name__ == "__main__":
    main()
