"""Why a form of the keyword channel's gap rule (``remem_bench.context_gap``) moves the hybrid,
question by question (issue 46): every answerable question of a dataset is asked with today's
channel and with each form; per form it reports the hybrid's and the keyword channel's
recall@10 / MRR, the shapes where the channel's top 10 falls below plain BM25's, the questions
whose gold left (or entered) the hybrid's top 10, and what the rows that took the gold's place
in the hybrid's top 10 are made of: their keyword score over the list's best (today -> form),
and their gap score split by (column, kind of term): the line's own column or the context
filling a gap; a speaker's name, a dictionary translation, a CJK bigram, a longer CJK word, a
single CJK character, a Latin word. Summaries are merged into ``--out`` under
``context_gap.diagnosis``:

    PYTHONPATH=src:benchmarks:benchmarks/scripts python benchmarks/scripts/context_gap_diagnosis.py \
        --datasets zh_groupchat --forms 0.5/0.2/names,0.5/0.2/names/fts/lidf
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from keyword_vs_bm25 import _FUSED
from suite_cli import add_suite_options, chosen_datasets, hybrid_run, progress_every, watch_fusion

from remem import query_vector
from remem.config import Config
from remem.store.memory.lexical_index import terms
from remem_bench.context_gap import GapForm, gap_rescore, install, occurs, remember_store
from remem_bench.keyword_reference import PlainBM25, query_shapes
from remem_bench.suite import SuiteRun, conversations, ingest, is_unanswerable

_CJK = re.compile(r"[\u3400-\u9fff]")


def recall(ids: list[str], gold: list[str]) -> float:
    return len(set(gold) & set(ids[:10])) / len(set(gold))


def mrr(ids: list[str], gold: list[str]) -> float:
    return next((1 / (i + 1) for i, x in enumerate(ids[:10]) if x in gold), 0.0)


def kind(token: str, names: set[str], translated: set[str]) -> str:
    if token in translated:
        return "translated"
    if token in names:
        return "name"
    if not _CJK.search(token):
        return "latin"
    return {1: "cjk char", 2: "cjk bigram"}.get(len(token), "cjk word")


def ask(mem: Any, q: dict, forms: list[GapForm]) -> dict[str, Any]:
    """Today's and each form's hybrid top 10, keyword list (50, with scores), translations."""
    qv = query_vector(mem, q["query"])
    seen = _FUSED.setdefault(id(mem.searcher), {})
    watch_fusion(mem.searcher, lambda vector, lexical: seen.update(lexical=lexical))
    out = {}
    for label, form in [("today", None), *((str(i), f) for i, f in enumerate(forms))]:
        seen.clear()
        if form is None:
            result = mem.search(q["query"], k=10, now=q.get("timestamp"), query_vector=qv)
        else:
            with install(form):
                result = mem.search(q["query"], k=10, now=q.get("timestamp"), query_vector=qv)
        lexical = seen.get("lexical", [])[:50]
        records = mem.store.get_by_rowids([r for r, _ in lexical])
        out[label] = {
            "hits": [h.record.id for h in result.hits],
            "lex": [records[r].id for r, _ in lexical if r in records],
            "scores": {records[r].id: s for r, s in lexical if r in records},
            "rowid": {records[r].id: r for r, _ in lexical if r in records},
            "translated": list(result.translated_tokens),
        }
    return out


def rank(ids: list[str], record: str) -> int | None:
    return ids.index(record) + 1 if record in ids else None


def moved_entry(q: dict, base: dict[str, Any], mine: dict[str, Any]) -> dict[str, Any]:
    """A question whose hybrid top 10 gained or lost gold: each gold line's hybrid and
    keyword ranks (today -> form; None: not in the top 10 / the keyword list's 50)."""
    return {
        "query": q["query"],
        "translated": mine["translated"],
        "gold [id, hybrid today, form, keyword today, form]": [
            [
                g,
                rank(base["hits"], g),
                rank(mine["hits"], g),
                rank(base["lex"], g),
                rank(mine["lex"], g),
            ]
            for g in q["gold"]
        ],
        "entered": [],  # lost only: [id, [score / best today, form], what it is made of]
    }


def made_of(
    mem: Any, rowid: int, tokens: list[str], form: GapForm, names: set[str], translated: set[str]
) -> Counter[tuple[str, str]]:
    """A row's gap score split by (own column or context, kind of term)."""
    with mem.store._rescore_source() as source:
        own = next(o for _, o, _ in source.row_terms([rowid]))
    parts: Counter[tuple[str, str]] = Counter()
    for token in tokens:
        score = gap_rescore(mem.store, [rowid], [token], form).get(rowid, 0.0)
        if score:
            column = "own" if occurs(own, terms(token)) else "context"
            parts[(column, kind(token, names, translated))] += score
    return parts


def diagnose(run: SuiteRun, dataset: Any, forms: list[GapForm]) -> list[dict[str, Any]]:
    """Per form: the summary over the dataset's answerable questions."""
    from remem.engine import Memory

    sums = [defaultdict(float) for _ in forms]
    today: dict[str, float] = defaultdict(float)
    below = [defaultdict(lambda: [0, 0.0, 0.0]) for _ in forms]
    moved: list[dict[str, list[Any]]] = [{"lost": [], "gained": []} for _ in forms]
    parts: list[Counter[tuple[str, str]]] = [Counter() for _ in forms]
    lift: list[list[tuple[float, float]]] = [[] for _ in forms]
    n = 0
    for ci, (_c, turns, questions) in enumerate(
        conversations(dataset.path, [], run.limit_conversations)
    ):
        with Memory(run.db_path(dataset, ci), run.config, embedder=run.embedder) as mem:
            ingest(mem, turns)
            rowids = mem.store.rowids_for_ids([t["id"] for t in turns])
            names = {
                n
                for s in {t.get("speaker") or "" for t in turns}
                for n in mem.tokenizer.phrase_tokens(s)
            }
            remember_store(mem.store, rowids, names)
            bm25 = PlainBM25(mem.store.lexical_tokens(rowids))
            for q in questions:
                if is_unanswerable(q):
                    continue
                n += 1
                gold = q["gold"]
                plain = bm25.top(mem.tokenizer.phrase_tokens(q["query"]), 10)
                found = mem.store.get_by_rowids(plain)
                plain_ids = [found[r].id for r in plain if r in found]
                got = ask(mem, q, forms)
                base = got["today"]
                today["hybrid r@10"] += recall(base["hits"], gold)
                today["hybrid mrr"] += mrr(base["hits"], gold)
                today["channel r@10"] += recall(base["lex"], gold)
                today["channel mrr"] += mrr(base["lex"], gold)
                for i, form in enumerate(forms):
                    mine = got[str(i)]
                    s = sums[i]
                    s["hybrid r@10"] += recall(mine["hits"], gold)
                    s["hybrid mrr"] += mrr(mine["hits"], gold)
                    s["channel r@10"] += recall(mine["lex"], gold)
                    s["channel mrr"] += mrr(mine["lex"], gold)
                    for shape in query_shapes(q["query"], q.get("category", "all")):
                        b = below[i][shape]
                        b[0] += 1
                        b[1] += recall(plain_ids, gold)
                        b[2] += recall(mine["lex"], gold)
                    before, after = recall(base["hits"], gold), recall(mine["hits"], gold)
                    if before == after:
                        continue
                    entry = moved_entry(q, base, mine)
                    moved[i]["lost" if after < before else "gained"].append(entry)
                    if after > before:
                        continue
                    tokens = mem.tokenizer.query_tokens(q["query"]) + mine["translated"]
                    best = (
                        max(base["scores"].values(), default=0) or 1,
                        max(mine["scores"].values(), default=0) or 1,
                    )
                    for rid in [h for h in mine["hits"] if h not in base["hits"]]:
                        if rid not in mine["rowid"]:  # found by the vector channel alone
                            entry["entered"].append([rid, "vector only"])
                            continue
                        ratio = (
                            base["scores"].get(rid, 0.0) / best[0],
                            mine["scores"][rid] / best[1],
                        )
                        lift[i].append(ratio)
                        made = made_of(
                            mem, mine["rowid"][rid], tokens, form, names, set(mine["translated"])
                        )
                        parts[i] += made
                        shown = {f"{c}/{k}": round(v, 2) for (c, k), v in made.most_common()}
                        entry["entered"].append([rid, [round(x, 3) for x in ratio], shown])
    out = []
    for i, form in enumerate(forms):
        total = sum(parts[i].values()) or 1.0
        out.append(
            {
                "form": asdict(form),
                "n": n,
                "today": {k: round(v / n, 4) for k, v in today.items()},
                "form_figures": {k: round(v / n, 4) for k, v in sums[i].items()},
                "channel_below_bm25": {
                    shape: [round(b[2] / b[0], 4), round(b[1] / b[0], 4), b[0]]
                    for shape, b in below[i].items()
                    if b[2] < b[1] - 1e-9
                },
                "hybrid_top10_lost": moved[i]["lost"],
                "hybrid_top10_gained": moved[i]["gained"],
                "rows_taking_the_gold_place_score_over_best": [
                    round(sum(a for a, _ in lift[i]) / max(len(lift[i]), 1), 3),
                    round(sum(b for _, b in lift[i]) / max(len(lift[i]), 1), 3),
                    len(lift[i]),
                ],
                "their_gap_score_by_column_and_term": {
                    f"{c}/{k}": round(v / total, 3) for (c, k), v in parts[i].most_common()
                },
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="zh_groupchat")
    ap.add_argument("--forms", required=True, help="comma-separated --context-gap forms")
    ap.add_argument("--out", default="benchmarks/results/keyword-vs-bm25.json")
    args = ap.parse_args()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    run = hybrid_run(args, config, progress_every(30))
    forms = [GapForm.parse(f) for f in args.forms.split(",")]
    out = Path(args.out)
    report = json.loads(out.read_text()) if out.is_file() else {}
    section = report.setdefault("context_gap", {}).setdefault("diagnosis", {})
    for dataset in chosen_datasets(args):
        found = diagnose(run, dataset, forms)
        for text, row in zip(args.forms.split(","), found, strict=True):
            section.setdefault(dataset.name, {})[text] = row
            print(dataset.name, text, row["today"], row["form_figures"], flush=True)
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
