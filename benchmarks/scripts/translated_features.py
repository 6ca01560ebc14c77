"""Add each hit's translated coverage to benchmarks/scripts/cross_script_features.py rows.

A candidate written in the other script than its question shares none of the question's own
words, so the relevance stage judges it by the vectors alone (e5's and the cross-script
witness's). This script writes, for every dumped hit, ``tcov``: the IDF-weighted share of the
question's dictionary translations (``search/translate.py``, the words a search adds to its
keyword query) that the hit's text contains, so benchmarks/scripts/two_model_relevance.py can measure
whether that is evidence worth a coefficient. Rows keep their order and every other field.

PYTHONPATH=src:benchmarks/scripts python benchmarks/scripts/translated_features.py ROWS.jsonl OUT.jsonl \
    --cache-dir /var/tmp/suite-cache
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sparse_features import texts_and_queries

from remem.config import Config
from remem.engine import Memory
from remem.search.query_terms import idf_weights, term_coverage
from remem_bench.suite import cache_key, suite_datasets

REPO = Path(__file__).resolve().parents[2]
MODEL = "local:multilingual-e5-small"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("out")
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    args = ap.parse_args()
    rows = [json.loads(line) for line in Path(args.rows).read_text("utf-8").splitlines()]
    _, query = texts_and_queries({r["dataset"] for r in rows}, Path(args.shared_dir))
    datasets = {
        d.name: d
        for d in suite_datasets(Path(args.shared_dir), REPO / "benchmarks" / "data", quick=False)
    }

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    by_store: dict[tuple[str, int], list[dict]] = {}
    for r in rows:
        by_store.setdefault((r["dataset"], r["conv"]), []).append(r)
    for (name, ci), group in by_store.items():
        db = Path(args.cache_dir) / cache_key(datasets[name], MODEL) / f"conv-{ci}.db"
        with Memory(db, config) as mem:
            searcher = mem.searcher
            for r in group:
                q = query[r["qid"]]
                named = searcher.translator.names.named(q, None)
                found = searcher.translator.translate(q, [*named, *named.values()])
                # as the search weighs them: the translations that are not the question's
                # own words, against the tokens the store indexed for each hit
                own = set(searcher.tokenizer.query_tokens(q))
                added = [t for t in found.tokens if t not in own]
                weights = idf_weights(mem.store, added) if added else {}
                r["translated"] = found.words
                rowids = {h["id"]: mem.store.get(h["id"]).rowid for h in r["hits"]}
                indexed = mem.store.lexical_tokens([i for i in rowids.values() if i])
                for h in r["hits"]:
                    tokens = indexed.get(rowids[h["id"]], [])
                    h["tcov"] = term_coverage(weights, tokens) if weights else 0.0
        print(name, ci, flush=True)

    with open(args.out, "w") as out:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
