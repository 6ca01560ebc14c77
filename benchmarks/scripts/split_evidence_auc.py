"""Split evidence (``remem/search/split_evidence.py``, issue 45) measured by itself, then
combined: per dataset of rows dumped by fit_answerability.py.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/split_evidence_auc.py ROWS.jsonl \
        --out benchmarks/results/split-evidence.json

"alone": the AUC of "not split" (the question's subject matched by its best hits while none
states the asked attribute counts against answering), unanswerable questions (near misses
included) against answerable ones; a question it is not known for counts as 0.5
("auc"), or is left out ("auc_known"); the shares of questions it is known for and found
split. "combined": the two-part fit on the development rows without the input and with it
(``fit_two_part`` as ``fit_answerability.py`` runs it), the AUC of the best hit's score and
what auto-recall injects and empties at the shipped thresholds.
"""

from __future__ import annotations

import json
from pathlib import Path

from suite_cli import read_rows, rows_and_out

from remem.config import Config
from remem.search import answerability as score_module
from remem.search.answerability import NEIGHBOUR_TOP
from remem.search.split_evidence import split_evidence
from remem_bench.answerability import auc, evaluate, fit_two_part, groups


def split_of(row: dict) -> float | None:
    return split_evidence([h["features"] for h in row["hits"][:NEIGHBOUR_TOP]])


def alone(rows: list[dict]) -> dict | None:
    ans = [split_of(r) for r in rows if r["kind"] == "ans"]
    unans = [split_of(r) for r in rows if r["kind"] == "unans"]
    if not ans or not unans:
        return None
    known_a = [1 - v for v in ans if v is not None]
    known_u = [1 - v for v in unans if v is not None]
    everything = auc(
        [0.5 if v is None else 1 - v for v in ans], [0.5 if v is None else 1 - v for v in unans]
    )
    return {
        "auc": None if everything is None else round(everything, 3),
        "auc_known": round(auc(known_a, known_u) or 0.0, 3) if known_a and known_u else None,
        "known": {
            "answerable": round(len(known_a) / len(ans), 3),
            "unanswerable": round(len(known_u) / len(unans), 3),
        },
        "split": {
            "answerable": round(sum(v == 1.0 for v in ans) / len(ans), 3),
            "unanswerable": round(sum(v == 1.0 for v in unans) / len(unans), 3),
        },
    }


def combined(rows: list[dict]) -> dict[str, dict]:
    """Per dataset, the fit without the input and with it: AUC, injected, emptied."""
    train = [r for r in rows if not r["held_out"]]
    features = list(score_module.FEATURES)
    with_it = fit_two_part(train, features)
    others = [q for q in score_module.QUESTION_INPUTS if q != "q_split"]
    without = fit_two_part(train, features, question_inputs=others)
    cfg = Config.load(env={})
    search_t, recall_t = cfg.search.answerability_threshold, cfg.recall.answerability_threshold
    figs = {
        k: evaluate(rows, f, search_t, recall_t)
        for k, f in (("without", without), ("with", with_it))
    }
    keys = (
        "auc_unanswerable",
        "recall_injects_unanswerable",
        "recall_injects_probes",
        "recall_empties_answerable",
    )
    return {
        name: {k: {key: figs[k][name][key] for key in keys} for k in figs} for name in figs["with"]
    } | {"coefficient q_split": with_it["question"]["coefficients"].get("q_split")}


def main() -> None:
    args = rows_and_out()
    rows = read_rows(args.rows)
    report: dict = {"what": __doc__.split("\n\n")[0].replace("\n", " "), "alone": {}}
    for name, sub in groups(rows).items():
        found = alone(sub)
        if found is not None:
            report["alone"][name] = found
            print(f"{name:34s} {found}")
    report["combined"] = combined(rows)
    for name, entry in report["combined"].items():
        print(f"{name:34s} {entry}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
