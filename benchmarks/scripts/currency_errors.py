"""Why the currency stage misses: for every changed_facts question whose first gold record is
not at rank 1 (stage on), one reason, counted per category.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/currency_errors.py [--dataset NAME] [--oracle]

``--oracle`` gives every annotated line exactly its gold statements (``currency.py --oracle``):
what is left is the stage's and the question reader's, not the extractor's.

Reasons, checked in this order:

- ``no fact from gold``: the extractor reads no fact in any gold line;
- ``no fact from top``: the line above gold (rank 1) carries no fact: the stage cannot see it
  as the stale value;
- ``other chain on top``: rank 1 carries facts, none of a chain any gold line carries;
- ``chain not changed``: rank 1 and gold share a chain the fold never closed (one value, or
  two values the fold holds as one);
- ``same chain, not lifted``: they share a changed chain and gold still ranks below;
- ``not found``: gold is not in the first 50.

Prints one line per miss (question, rank, rank 1's text, the facts of each) and the counts.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from currency import put_facts, read_gold  # this folder's script: the same facts, or the ceiling

from remem import Config, Memory
from remem.embed.local import E5Embedder
from remem.ops import store_latent_terms
from remem.store.base import FactStore
from remem.store.memory import InMemoryStore
from remem.types import Fact
from remem_bench.benchmark import by_conversation, load_dataset, turn_fields

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
CATEGORIES = ("now", "before", "current", "stable")


def chains(facts: list[Fact]) -> set[tuple[str, str]]:
    return {(f.subject, f.attribute) for f in facts}


def reason(store: FactStore, ids: list[str], gold: list[str], changed: set[tuple[str, str]]) -> str:
    if not set(gold) & set(ids):
        return "not found"
    gold_facts = store.facts_citing(gold)
    if not gold_facts:
        return "no fact from gold"
    top_facts = store.facts_citing(ids[:1])
    if not top_facts:
        return "no fact from top"
    shared = chains(gold_facts) & chains(top_facts)
    if not shared:
        return "other chain on top"
    if not shared & changed:
        return "chain not changed"
    return "same chain, not lifted"


def show(facts: list[Fact]) -> str:
    return "; ".join(
        f"{f.subject}.{f.attribute}={f.value}{'' if f.valid_to is None else ' (closed)'}"
        for f in facts
    )


def analyse(dataset: str, embedder: E5Embedder, *, oracle: bool = False) -> dict[str, Any]:
    corpus, queries = load_dataset(DATA / dataset)
    gold_facts = read_gold(DATA / dataset / "facts.jsonl") if oracle else None
    queries = [q for q in queries if q.get("category") in CATEGORIES]
    turns, asked = by_conversation(corpus, queries)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for conv, conv_queries in asked.items():
        config = Config.load(env={}, overrides={"indexing.mode": "sync"})
        with Memory(store=InMemoryStore(), config=config, embedder=embedder) as mem:
            mem.ingest_many(turn_fields(turns[conv]), on_conflict="skip", wait=True)
            mem.embed_pending()
            store_latent_terms(mem)
            put_facts(mem, gold_facts)
            store = mem.store
            assert isinstance(store, FactStore)
            everything = store.facts()
            changed = {(f.subject, f.attribute) for f in everything if f.valid_to is not None}
            text = {t["id"]: t["text"] for t in turns[conv]}
            for q in conv_queries:
                ids = [h.record.id for h in mem.search(q["query"], k=50, now=q["timestamp"]).hits]
                cat = q["category"]
                counts[cat]["questions"] += 1
                if ids[:1] and ids[0] in q["gold"]:
                    counts[cat]["rank 1"] += 1
                    continue
                why = reason(store, ids, q["gold"], changed)
                counts[cat][why] += 1
                rank = next((i for i, r in enumerate(ids, 1) if r in q["gold"]), None)
                print(f"[{cat}] {why} | {q['query']} | gold rank {rank}")
                print(f"    top: {text.get(ids[0], '?') if ids else '-'}")
                print(f"         {show(store.facts_citing(ids[:1]))}")
                print(f"    gold: {text.get(q['gold'][0], '?')}")
                print(f"         {show(store.facts_citing(q['gold']))}")
    return {cat: dict(c) for cat, c in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="changed_facts")
    parser.add_argument("--oracle", action="store_true", help="annotated lines state their gold")
    args = parser.parse_args()
    result = analyse(args.dataset, E5Embedder(), oracle=args.oracle)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
