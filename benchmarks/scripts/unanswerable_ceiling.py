"""What separates a dataset's own unanswerable questions from its answerable ones, and the most
the answerability score's current inputs can reach there (issue 45: zh_groupchat, AUC 0.64
against the target 0.80), on rows dumped by fit_answerability.py:

- ``examples``: unanswerable questions with their best hits' texts (read from the dataset's
  corpus) and the question's inputs (``question_row``), to read what they are;
- ``single``: the AUC of each question input by itself (the best over the top 10 hits;
  a missing value counts as the lowest), answerable questions whose answer is among their hits
  against the unanswerable ones;
- ``shipped``: the AUC of the shipped score's best hit;
- ``linear in-sample``: the question part (a logistic over every question input) fitted on this
  dataset's own rows and measured on them: more than any fit on the development suite can
  reach with these inputs, an upper bound for a monotone combination of them;
- ``linear by conversation``: the same fitted on the other conversations and measured on each
  left out: what such a fit generalises to;
- ``reader oracle``: a reader that knew whether a hit states the asked attribute of the asked
  subject would score 1 where the answer is among the hits and 0 elsewhere: its AUC is bounded
  by the share of answerable questions whose answer the search found (recall of the hits).

    PYTHONPATH=src:benchmarks python benchmarks/scripts/unanswerable_ceiling.py ROWS.jsonl \
        --dataset zh_groupchat --out benchmarks/results/zh-groupchat-unanswerable-ceiling.json
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from suite_cli import DATA, read_rows

from remem.search.answerability import MODEL_FILE, QUESTION_INPUTS, question_row
from remem_bench.answerability import _logistic_fit, auc, row_scores

EXAMPLES = 20


def answered(row: dict) -> bool:
    return row["kind"] == "ans" and any(h["gold"] for h in row["hits"])


def split(rows: Sequence[dict], values: Sequence[float]) -> float | None:
    """AUC of ``values``: answerable questions with their answer among the hits against the
    unanswerable ones (the answerable ones whose answer was not found are left out: neither
    side)."""
    pos = [v for r, v in zip(rows, values, strict=True) if answered(r)]
    neg = [v for r, v in zip(rows, values, strict=True) if r["kind"] == "unans"]
    found = auc(pos, neg)
    return None if found is None else round(found, 4)


def question_rows(rows: Sequence[dict]) -> list[dict]:
    """Each row as the question part's training row (``fit_two_part``'s shape)."""
    return [
        {
            "kind": "ans" if answered(r) else "unans",
            "hits": [{"gold": True, "features": question_row([h["features"] for h in r["hits"]])}],
        }
        for r in rows
    ]


def linear_scores(train: Sequence[dict], test: Sequence[dict], l2: float) -> list[float]:
    """The question part fitted on ``train``'s rows, its outputs on ``test``'s."""
    fitted, _, _ = _logistic_fit(question_rows(train), list(QUESTION_INPUTS), l2)
    out = []
    for q in question_rows(test):
        z = fitted["intercept"]
        for name, coef in fitted["coefficients"].items():
            v = q["hits"][0]["features"].get(name)
            if v is not None:
                z += coef * (v - fitted["mean"][name]) / (fitted["scale"][name] or 1.0)
        out.append(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
    return out


def texts_of(dataset: str) -> dict[str, str]:
    corpus = DATA / dataset / "corpus.jsonl"
    out = {}
    for line in corpus.read_text("utf-8").splitlines():
        rec = json.loads(line)
        out[rec["id"]] = f"{rec.get('speaker', '')}: {rec['text']}"
    return out


def measure(rows: list[dict], fitted: dict, dataset: str, l2: float) -> dict[str, Any]:
    rows = [r for r in rows if r["hits"] and r["kind"] in ("ans", "unans")]
    qs = [question_row([h["features"] for h in r["hits"]]) for r in rows]
    single = {
        name: split(rows, [-1e9 if (v := q.get(name)) is None else v for q in qs])
        for name in QUESTION_INPUTS
    }
    known = {
        name: round(float(np.mean([q.get(name) is not None for q in qs])), 3)
        for name in QUESTION_INPUTS
    }
    shipped = [max(row_scores(fitted, r)) for r in rows]
    by_conv: list[float] = [0.0] * len(rows)
    for conv in sorted({r["conv"] for r in rows}):
        held = [i for i, r in enumerate(rows) if r["conv"] == conv]
        train = [r for r in rows if r["conv"] != conv]
        for i, s in zip(held, linear_scores(train, [rows[i] for i in held], l2), strict=True):
            by_conv[i] = s
    answerable = [r for r in rows if r["kind"] == "ans"]
    found = sum(answered(r) for r in answerable) / len(answerable)
    texts = texts_of(dataset)
    unans = [(r, q, s) for r, q, s in zip(rows, qs, shipped, strict=True) if r["kind"] == "unans"]
    unans.sort(key=lambda t: -t[2])  # the hardest first: the best hit scored highest
    return {
        "n_answer_found": sum(answered(r) for r in rows),
        "n_unanswerable": len(unans),
        "single": single,
        "known": known,
        "shipped": split(rows, shipped),
        "linear in-sample": split(rows, linear_scores(rows, rows, l2)),
        "linear by conversation": split(rows, by_conv),
        "reader oracle": {
            "answerable questions whose answer is among the hits": round(found, 4),
            # 1 for every found answer, 0 for the rest (ties at 0 count half)
            "auc against every answerable question": round(0.5 + 0.5 * found, 4),
        },
        "examples": [
            {
                "query": r["query"],
                "best score": round(s, 3),
                "inputs": {k: None if v is None else round(v, 3) for k, v in q.items()},
                "hits": [texts.get(h["id"], h["id"])[:120] for h in r["hits"][:3]],
            }
            for r, q, s in unans[:EXAMPLES]
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--dataset", default="zh_groupchat")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = [r for r in read_rows(args.rows) if r["dataset"] == args.dataset]
    fitted = json.loads(Path(MODEL_FILE).read_text())["fit"]
    found = measure(rows, fitted, args.dataset, args.l2)
    for ex in found["examples"]:
        print(f"{ex['best score']:.3f} {ex['query']}")
        print("   ", json.dumps(ex["inputs"], ensure_ascii=False))
        for hit in ex["hits"]:
            print("    -", hit)
    shown = {k: v for k, v in found.items() if k != "examples"}
    print(json.dumps(shown, ensure_ascii=False, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(found, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
