"""Dump, for every suite question, the evidence of each top-10 hit: raw cosine to the query,
the IDF-weighted share of the query's terms found in the hit's own text, and whether the hit is
gold. bench/fit_calibration.py fits the relevance calibration on these rows.

PYTHONPATH=src python bench/calibration_features.py --out /tmp/features.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from remem.benchmark import load_dataset
from remem.benchmark_suite import (
    NO_ANSWER_TARGETS,
    cache_key,
    is_unanswerable,
    load_no_answer,
    suite_datasets,
)
from remem.config import Config
from remem.embed.factory import make_embedder
from remem.engine import Memory
from remem.retrieve.relevance import idf_weights, term_coverage

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="locomo,zh_groupchat")
    ap.add_argument("--shared-dir", default="/work/shared/bench")
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--max-conversations", type=int, default=1000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    embedder = make_embedder(config.embed)
    assert embedder is not None
    no_answer = load_no_answer(REPO / "bench" / "data" / "no_answer" / "queries.jsonl")
    names = args.datasets.split(",")
    with open(args.out, "w") as out:
        for ds in suite_datasets(Path(args.shared_dir), REPO / "bench" / "data", quick=False):
            if ds.name not in names:
                continue
            corpus, queries = load_dataset(ds.path)
            convs = list(dict.fromkeys(t["conversation"] for t in corpus))
            by_conv = defaultdict(list)
            for q in queries:
                by_conv[q["conversation"]].append(q)
            targets = NO_ANSWER_TARGETS.get(ds.name, ())
            probes = [dict(p, gold=[], kind="probe") for p in no_answer if p["target"] in targets]
            folder = Path(args.cache_dir) / cache_key(ds, embedder.model_id)
            for ci, conv in enumerate(convs[: args.max_conversations]):
                db = folder / f"conv-{ci}.db"
                if not db.exists():
                    continue
                with Memory(db, config, embedder=embedder) as mem:
                    for q in by_conv[conv] + probes:
                        kind = q.get("kind") or ("unans" if is_unanswerable(q) else "ans")
                        row = _features(mem, embedder, q)
                        row.update(dataset=ds.name, qid=q["qid"], kind=kind, cat=q.get("category"))
                        out.write(json.dumps(row) + "\n")


def _features(mem, embedder, q) -> dict:
    qvec = mem.searcher.embed_query(embedder, q["query"])
    result = mem.search(q["query"], k=10, now=q.get("timestamp"), query_vector=qvec)
    rowids = [h.record.rowid for h in result.hits]
    vecs = mem.searcher.index_for(embedder).vectors_for(rowids)
    tokens = mem.searcher.tokenizer.query_tokens(q["query"])
    weights = idf_weights(mem.store, tokens)
    gold = set(q.get("gold") or [])
    hits = []
    for h in result.hits:
        v = vecs.get(h.record.rowid)
        cos = float(np.dot(v, qvec)) if v is not None else None
        cov = term_coverage(weights, mem.searcher.tokenizer.index_tokens(h.record.text))
        hits.append({"cos": cos, "cov": cov, "gold": h.record.id in gold, "score": h.score})
    return {"hits": hits, "n_terms": len(weights)}


if __name__ == "__main__":
    main()
