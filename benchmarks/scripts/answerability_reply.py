"""Fits of the answerability score compared on the same dumped rows (issue 45's reply inputs,
``remem/search/reply_evidence.py``):
per dataset, the AUC of the best hit's score (unanswerable questions and probes against
answerable ones), the share of answers in the top 10 scoring 0.5 or more, auto-recall at the
highest threshold that empties at most 3% of the answerable questions, and the MRR of the top
10 in the pipeline's order against the order by each fit's score (``search.hit_order =
"answerability"``: the currency stage's leads first, then by the score; and the leads kept in
their place, ``score_order``).

    PYTHONPATH=src:benchmarks:benchmarks/scripts python benchmarks/scripts/fit_answerability.py \
        --fresh --rows ROWS.jsonl --save REPLY.json
    ... fit_answerability.py --rows ROWS.jsonl --save BASE.json \
        --leave-out chat_words,q_chat_words,prev_asks,reply_subject,reply_lift,prev_relevance,prev_rank,prev_subject
    ... answerability_reply.py ROWS.jsonl --fit shipped=src/remem/data/answerability.json \
        --fit base=BASE.json --fit reply=REPLY.json --out benchmarks/results/answerability-reply.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from suite_cli import read_rows

from remem.config import Config
from remem_bench.answerability import evaluate, groups, row_scores, tradeoff

Row = dict[str, Any]


LEADS = ("first", "slot")


def score_order(row: Row, scores: Sequence[float], leads: str = "first") -> list[int]:
    """The top 10's indexes by the score: the currency stage's leads first (``"first"``,
    ``candidates.in_hit_order`` today) or each lead kept in its place in the pipeline's order
    and the other hits by the score in the places left (``"slot"``: a lead is only placed
    above the stale value it replaces, not above every hit, ``currency._prefer_current``)."""
    hits = list(range(len(row["hits"])))[:10]
    led = [i for i in hits if row["hits"][i].get("lead")]
    rest = sorted((i for i in hits if not row["hits"][i].get("lead")), key=lambda i: -scores[i])
    if leads == "first":
        return led + rest
    others = iter(rest)
    return [i if row["hits"][i].get("lead") else next(others) for i in hits]


def reciprocal_rank(row: Row, scores: Sequence[float] | None, leads: str = "first") -> float:
    """1 / the rank of the first gold hit in the top 10: in the pipeline's order when
    ``scores`` is None, else in ``score_order``."""
    hits = list(range(len(row["hits"])))[:10]
    if scores is not None:
        hits = score_order(row, scores, leads)
    for rank, i in enumerate(hits, 1):
        if row["hits"][i]["gold"]:
            return 1.0 / rank
    return 0.0


def mrr(rows: Sequence[Row], fitted: dict[str, Any] | None, leads: str = "first") -> float | None:
    """The MRR of the answerable rows (0 for a question with no gold in its top 10)."""
    ans = [r for r in rows if r["kind"] == "ans" and r["gold"]]
    if not ans:
        return None
    total = sum(
        reciprocal_rank(r, None if fitted is None else row_scores(fitted, r), leads) for r in ans
    )
    return round(total / len(ans), 4)


def compare(rows: list[Row], fits: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per group of rows (``groups``): the pipeline's MRR, then each fit's figures."""
    cfg = Config.load(env={})
    search_t, recall_t = cfg.search.answerability_threshold, cfg.recall.answerability_threshold
    chat_t = cfg.search.chat_answerability_threshold
    per_fit = {
        name: (evaluate(rows, f, search_t, recall_t, chat_t), tradeoff(rows, f, search_t))
        for name, f in fits.items()
    }
    out: dict[str, Any] = {}
    for group, sub in groups(rows).items():
        entry: dict[str, Any] = {"held_out": bool(sub and sub[0]["held_out"])}
        entry["mrr pipeline order"] = mrr(sub, None)
        for name, f in fits.items():
            figs, curves = per_fit[name]
            fig, curve = figs[group], curves[group]
            point = curve.get("at 3% emptied") or {}
            entry[name] = {
                "auc_unanswerable": fig["auc_unanswerable"],
                "auc_probes": fig["auc_probes"],
                "answer_found_at_0.5": fig["answer_found_at_0.5"],
                "unanswerable_best_below_0.5": fig["unanswerable_best_below_0.5"],
                "recall at 3% emptied": {
                    k: point.get(k) for k in ("threshold", "injects unanswerable", "injects probes")
                },
                **{f"mrr score order, leads {lead}": mrr(sub, f, lead) for lead in LEADS},
            }
        out[group] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--fit", action="append", required=True, help="NAME=PATH of a fit's file")
    ap.add_argument("--out")
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    rows = read_rows(args.rows)
    models, paths = {}, []
    for spec in args.fit:
        name, _, path = spec.partition("=")
        models[name] = json.loads(Path(path).read_text())
        paths.append(path)
    fits = {name: m["fit"] for name, m in models.items()}
    report = {
        "what": "answerability fits compared on the same rows (benchmarks/scripts/"
        "answerability_reply.py): AUC, answers at 0.5 or more, auto-recall at the 3% "
        "point, MRR of the top 10 in the pipeline's order and by each fit's score",
        "note": args.note,
        "fits": {  # each whole, so a fit measured here can be saved back to a file and read
            name: {"path": path, **m} for (name, m), path in zip(models.items(), paths, strict=True)
        },
        "groups": compare(rows, fits),
    }
    for group, entry in report["groups"].items():
        line = [f"{group:32s} mrr pipe {entry['mrr pipeline order']}"]
        for name in fits:
            e = entry[name]
            p = e["recall at 3% emptied"]
            line.append(
                f"{name}: auc {e['auc_unanswerable']}/{e['auc_probes']} ans>=.5 "
                f"{e['answer_found_at_0.5']} inj {p['injects unanswerable']}/{p['injects probes']}"
                f" mrr {e['mrr score order, leads first']}/{e['mrr score order, leads slot']}"
            )
        print(" | ".join(line))
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
