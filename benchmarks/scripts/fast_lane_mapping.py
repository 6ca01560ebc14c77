"""Fit the line that maps the fast lane's USE cosines onto e5's scale.

Records waiting for the main model (bundled multilingual-e5-small) are searched with their
USE vectors meanwhile (``remem.ingest.fast_lane``); their cosines must be comparable to
the e5 cosines of the other vector hits they are ranked with. This bench embeds real turns and
questions with both models (LoCoMo's first conversations and the Chinese dev set), pairs every
question with the turns of its own conversation, and fits e5 = a + b * USE over those pairs by least
squares. It reports the line, R^2 and the rank agreement, and writes them to ``--out``.
Every turn of the question's conversation is a pair (not only the top candidates: selecting
the top of either model's list keeps the pairs they disagree on and flattens the line).

    python benchmarks/scripts/fast_lane_mapping.py [--conversations 3] [--out benchmarks/results/fast-lane-mapping.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"


def load(folder: Path, conversations: int | None) -> tuple[list[dict], list[dict]]:
    turns = [json.loads(x) for x in (folder / "corpus.jsonl").read_text().splitlines() if x]
    queries = [json.loads(x) for x in (folder / "queries.jsonl").read_text().splitlines() if x]
    convs = list(dict.fromkeys(t["conversation"] for t in turns))[:conversations]
    keep = set(convs)
    turns = [t for t in turns if t["conversation"] in keep]
    queries = [q for q in queries if q["conversation"] in keep and q.get("gold")]
    return turns, queries


def embed_all(embedder, texts: list[str], is_query: bool) -> np.ndarray:
    out = []
    for i in range(0, len(texts), 64):
        batch = texts[i : i + 64]
        out.append(embedder.embed_queries(batch) if is_query else embedder.embed_passages(batch))
    return np.vstack(out).astype(np.float32)


def pairs_for(turns: list[dict], queries: list[dict], models: dict) -> dict[str, np.ndarray]:
    """(USE cosine, e5 cosine) of every question with every turn of its conversation, each
    pair's question index, and each model's neutral baseline for the question."""
    texts = [t["text"] for t in turns]
    questions = [q["query"] for q in queries]
    by_conv: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(turns):
        by_conv[t["conversation"]].append(i)
    passages, asked = {}, {}
    for name, emb in models.items():
        start = time.perf_counter()
        passages[name] = embed_all(emb, texts, False)
        asked[name] = embed_all(emb, questions, True)
        print(
            f"  {name}: {len(texts)} turns, {len(questions)} questions in "
            f"{time.perf_counter() - start:.0f}s",
            file=sys.stderr,
        )
    from remem.embed.calibrations import NEUTRAL

    baseline = {
        name: (embed_all(emb, list(NEUTRAL), False) @ asked[name].T).max(axis=0)
        for name, emb in models.items()
    }
    use, e5, qid = [], [], []
    for qi, q in enumerate(queries):
        rows = np.array(by_conv[q["conversation"]])
        s_use = passages["use"][rows] @ asked["use"][qi]
        s_e5 = passages["e5"][rows] @ asked["e5"][qi]
        # Every turn of the conversation: picking the top of either list would select pairs
        # the two models disagree on and bias the slope towards 0.
        for j in range(len(rows)):
            use.append(s_use[j])
            e5.append(s_e5[j])
            qid.append(qi)
    qid_arr = np.array(qid)
    return {
        "use": np.array(use),
        "e5": np.array(e5),
        "question": qid_arr,
        "use_base": baseline["use"][qid_arr],
        "e5_base": baseline["e5"][qid_arr],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=3, help="LoCoMo conversations")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    from remem.embed.local import E5Embedder, USEEmbedder

    models = {"e5": E5Embedder(threads=2), "use": USEEmbedder(threads=1)}
    sets = {
        "locomo": load(SHARED / "locomo", args.conversations),
        "zh_groupchat": load(REPO / "benchmarks" / "data" / "zh_groupchat", None),
    }
    every: dict[str, list[np.ndarray]] = {k: [] for k in ("use", "e5", "use_base", "e5_base")}
    groups: list[np.ndarray] = []
    report: dict = {"bench": "fast_lane_mapping", "datasets": {}}
    for name, (turns, queries) in sets.items():
        got = pairs_for(turns, queries, models)
        for k in every:
            every[k].append(got[k])
        groups.append(got["question"] + len(groups) * 100_000)  # question ids per dataset
        b, a = np.polyfit(got["use"], got["e5"], 1)
        report["datasets"][name] = {
            "pairs": len(got["use"]),
            "questions": len(queries),
            "line": [round(float(a), 4), round(float(b), 4)],
            "spearman": round(float(_spearman(got["use"], got["e5"])), 3),
        }
    use, e5 = np.concatenate(every["use"]), np.concatenate(every["e5"])
    use_base, e5_base = np.concatenate(every["use_base"]), np.concatenate(every["e5_base"])
    group = np.concatenate(groups)
    report["all"] = {"pairs": len(use)}
    # 1. one line for every question: fails, e5's level moves with the question
    b, a = np.polyfit(use, e5, 1)
    report["all"]["pooled line"] = _fit_report(e5, a + b * use, (a, b))
    # 2. each model's margin over its own neutral baseline (what a search can compute)
    b, a = np.polyfit(use - use_base, e5 - e5_base, 1)
    report["all"]["margin line (used)"] = _fit_report(
        e5, e5_base + a + b * (use - use_base), (a, b)
    )
    # 3. the ceiling: each question's own mean known (not available to a search)
    means_e5 = {g: e5[group == g].mean() for g in np.unique(group)}
    means_use = {g: use[group == g].mean() for g in np.unique(group)}
    d5 = e5 - np.array([means_e5[g] for g in group])
    du = use - np.array([means_use[g] for g in group])
    b, a = np.polyfit(du, d5, 1)
    ceiling = np.array([means_e5[g] for g in group]) + a + b * du
    report["all"]["within-question line (ceiling)"] = _fit_report(e5, ceiling, (a, b))
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


def _fit_report(e5: np.ndarray, predicted: np.ndarray, line: tuple[float, float]) -> dict:
    r2 = 1 - float(np.sum((e5 - predicted) ** 2) / np.sum((e5 - e5.mean()) ** 2))
    return {
        "a, b": [round(float(line[0]), 4), round(float(line[1]), 4)],
        "r2": round(r2, 3),
        "residual_sd": round(float(np.std(e5 - predicted)), 4),
    }


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


if __name__ == "__main__":
    main()
