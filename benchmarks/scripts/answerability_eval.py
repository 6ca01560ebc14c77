"""Measure remem's answerability score on rows dumped by fit_answerability.py.

Per dataset: the AUC of the best hit's score (the dataset's unanswerable questions, near misses
included, against its answerable ones; the no-answer probes apart), the share of unanswerable
questions whose best hit scores under 0.5, the share of answerable questions whose answer (when
it is in the top 10) scores 0.5 or more, what auto-recall injects (recall.answerability_threshold)
and what search answers (search.answerability_threshold), recall@10 with the gate against
today's relevance floors ("before": the best margin over the floors below 0 empties a search),
and a reliability table (predicted against observed, 10 bins).

PYTHONPATH=src:benchmarks python benchmarks/scripts/answerability_eval.py ROWS.jsonl \
    --out benchmarks/results/answerability.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from suite_cli import read_rows

from remem.config import Config
from remem.search.answerability import MODEL_FILE
from remem_bench.answerability import OWN_SPEAKER, auc, evaluate, groups, recall10


def floors_before(rows: list[dict]) -> dict[str, dict]:
    """Today's gate on the same hits: the best margin over the relevance floors."""
    out = {}
    for name, sub in groups(rows).items():
        ans = [r for r in sub if r["kind"] == "ans"]
        unans = [r for r in sub if r["kind"] == "unans"]
        probes = [r for r in sub if r["kind"] == "probe"]

        def share(part: list[dict], answered: bool) -> float | None:
            if not part:
                return None
            return round(sum((r["best_margin"] >= 0) == answered for r in part) / len(part), 4)

        margin_auc = auc([r["best_margin"] for r in ans], [r["best_margin"] for r in unans])
        out[name] = {
            "auc_unanswerable (best floor margin)": None
            if margin_auc is None
            else round(margin_auc, 4),
            "answers_unanswerable": share(unans, True),
            "answers_probes": share(probes, True),
            "empties_answerable": share(ans, False),
            "recall@10": round(float(np.mean([recall10(r, r["best_margin"] < 0) for r in ans])), 4)
            if ans
            else None,
        }
    return out


def sweep(rows: list[dict], fitted: dict, thresholds: list[float]) -> dict[str, dict]:
    """For each search threshold: per dataset, recall@10 against the floors alone, answerable
    questions emptied, unanswerable questions and probes answered."""
    before = floors_before(rows)
    out: dict[str, dict] = {}
    for t in thresholds:
        figs = evaluate(rows, fitted, t, 0.0)
        out[f"{t:.2f}"] = {
            name: {
                "recall@10 change": round(f["recall@10_gated"] - before[name]["recall@10"], 4)
                if f["recall@10_gated"] is not None
                else None,
                "answerable emptied": f["search_empties_answerable"],
                "unanswerable answered": f["search_answers_unanswerable"],
                "probes answered": f["search_answers_probes"],
            }
            for name, f in figs.items()
        }
    return out


def recall_sweep(rows: list[dict], fitted: dict, search_t: float) -> dict[str, dict]:
    """For each recall threshold (the search's kept): per dataset or group, what auto-recall
    injects for unanswerable questions and probes, and the answerable questions it empties."""
    out: dict[str, dict] = {}
    for t in (0.03, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2):
        figs = evaluate(rows, fitted, search_t, t)
        out[f"{t:.2f}"] = {
            name: {
                "injects unanswerable": f["recall_injects_unanswerable"],
                "injects probes": f["recall_injects_probes"],
                "empties answerable": f["recall_empties_answerable"],
            }
            for name, f in figs.items()
        }
    return out


CHAT_SWEEP = (0.0, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2)


def chat_sweep(rows: list[dict], fitted: dict, search_t: float, recall_t: float) -> dict:
    """For each chat threshold (``search.chat_answerability_threshold``): per chat group (a
    chat set's chats and its own-speaker probes, ``groups``), recall@10 of the chats, the
    probes search answers and auto-recall injects."""
    out: dict[str, dict] = {}
    for t in CHAT_SWEEP:
        figs = evaluate(rows, fitted, search_t, recall_t, t)
        out[f"{t:.2f}"] = {
            name: {
                "recall@10": f["recall@10_gated"],
                "probes answered": f["search_answers_probes"],
                "probes injected": f["recall_injects_probes"],
                "chats emptied": f["search_empties_answerable"],
            }
            for name, f in figs.items()
            if OWN_SPEAKER.strip(":") in name
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--model", default=str(MODEL_FILE))
    ap.add_argument("--out")
    ap.add_argument(
        "--sweep",
        action="store_true",
        help="figures for a range of search thresholds, and of recall thresholds",
    )
    args = ap.parse_args()
    rows = read_rows(args.rows)
    model = json.loads(Path(args.model).read_text())
    cfg = Config.load(env={})
    search_t = cfg.search.answerability_threshold
    recall_t = cfg.recall.answerability_threshold
    chat_t = cfg.search.chat_answerability_threshold
    report = {
        "what": "remem's answerability score measured per dataset (benchmarks/scripts/"
        "answerability_eval.py on rows of fit_answerability.py): the score's fit of "
        f"{model['date']}, inputs {', '.join(model['inputs'])}",
        "thresholds": {
            "search.answerability_threshold": search_t,
            "recall.answerability_threshold": recall_t,
            "search.chat_answerability_threshold": chat_t,
        },
        "fitted_on": model["datasets"],
        "inputs": model["inputs"]
        + (["monotone calibration"] if "calibration" in model["fit"] else []),
        "held_out": model["held_out"],
        "after": evaluate(rows, model["fit"], search_t, recall_t, chat_t),
        "before": floors_before(rows),
    }
    for name, fig in report["after"].items():
        before = report["before"][name]
        print(
            f"{name:22s} AUC {fig['auc_unanswerable']} (before {before['auc_unanswerable (best floor margin)']})"
            f" probes-AUC {fig['auc_probes']} | unans<0.5 {fig['unanswerable_best_below_0.5']}"
            f" ans>=0.5 {fig['answer_found_at_0.5']} | recall injects unans "
            f"{fig['recall_injects_unanswerable']} probes {fig['recall_injects_probes']}"
            f" empties {fig['recall_empties_answerable']} | search answers unans "
            f"{fig['search_answers_unanswerable']} (before {before['answers_unanswerable']})"
            f" probes {fig['search_answers_probes']} (before {before['answers_probes']})"
            f" empties {fig['search_empties_answerable']} (before {before['empties_answerable']})"
            f" | r@10 {fig['recall@10_gated']} (before {before['recall@10']})"
        )
    if args.sweep:
        swept = sweep(rows, model["fit"], [i / 100 for i in range(5, 70, 5)])
        report["sweep"] = swept
        report["recall_sweep"] = recall_sweep(rows, model["fit"], search_t)
        report["chat_sweep"] = chat_sweep(rows, model["fit"], search_t, recall_t)
        for t, per in report["chat_sweep"].items():
            print("chat", t, json.dumps(per))
        for t, per in swept.items():
            print(t, json.dumps(per))
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
