"""The fact layer's answerability inputs measured by themselves (issue 45: *whose* value a line
states, ``remem/search/fact_evidence.py``), as ``attribute_auc.py`` measures the asked
attribute: per dataset of rows dumped by fit_answerability.py, the AUC of each input's best
value over the search's top hits (what the question's part reads), unanswerable questions
(near misses included) against answerable ones, and the share of questions it is known for.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/fact_evidence_auc.py ROWS.jsonl \
        --out benchmarks/results/fact-evidence.json

"auc": a question the input is not known for counts as 0.5 (no evidence); "auc_typed": only
the questions both sides where it is known.

"ceiling": the AUC of the shipped score's best hit with the evidence made perfect (gold facts:
an extractor that reads every answer's fact and nothing else) where it can apply: "read" for
the questions it is read for today (the question names a subject with facts and an attribute
family: ``fact_whose`` known), "family" for every question whose words name a family
(``facts.question.asked_attributes``), as if every subject were known; such an answerable
question scores 1, such an unanswerable one 0, the rest keep their score.
"""

from __future__ import annotations

import json
from pathlib import Path

from attribute_auc import answer_counts, figures
from suite_cli import read_rows, rows_and_out

from remem.facts.question import asked_attributes
from remem.search.answerability import MODEL_FILE
from remem_bench.answerability import auc, groups, row_scores

# (fact_held, the asked subject holding the attribute anywhere, was measured too and left
# out: docs/decisions/0014-answerability.md)
INPUTS = ("fact_whose", "speaker_whose", "attribute")


def ceiling(rows: list[dict], fitted: dict) -> dict[str, float | None]:
    """The best-hit AUC with perfect fact evidence where it applies (see the docstring)."""
    out: dict[str, float | None] = {}
    applies = {
        "read": lambda r: any(h["features"].get("fact_whose") is not None for h in r["hits"]),
        "family": lambda r: bool(asked_attributes(r["query"])),
    }
    best = [max(row_scores(fitted, r), default=0.0) for r in rows]
    out["today"] = _auc(rows, best)
    for name, test in applies.items():
        perfect = [
            (1.0 if r["kind"] == "ans" else 0.0) if test(r) else b
            for r, b in zip(rows, best, strict=True)
        ]
        out[name] = _auc(rows, perfect)
        out[f"{name}_share"] = round(sum(bool(test(r)) for r in rows) / len(rows), 3)
    return out


def _auc(rows: list[dict], best: list[float]) -> float | None:
    pos = [b for r, b in zip(rows, best, strict=True) if r["kind"] == "ans"]
    neg = [b for r, b in zip(rows, best, strict=True) if r["kind"] == "unans"]
    found = auc(pos, neg)
    return None if found is None else round(found, 3)


def main() -> None:
    args = rows_and_out()
    rows = read_rows(args.rows)
    fitted = json.loads(MODEL_FILE.read_text("utf-8"))["fit"]
    report: dict = {"what": __doc__.split("\n\n")[0].replace("\n", " "), "datasets": {}}
    for name, sub in groups(rows).items():
        entry = answer_counts(sub)
        if entry is None:
            continue
        entry["top10"] = {i: figures(sub, i, 10) for i in INPUTS}
        entry["ceiling"] = ceiling([r for r in sub if r["kind"] != "probe"], fitted)
        report["datasets"][name] = entry
        t10 = entry["top10"]
        print(
            f"{name:34s}",
            "  ".join(
                f"{i} {t10[i]['auc']} ({t10[i]['auc_typed']}; known "
                f"{t10[i]['known']['answerable']}/{t10[i]['known']['unanswerable']})"
                for i in INPUTS
            ),
            "| ceiling",
            entry["ceiling"],
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
