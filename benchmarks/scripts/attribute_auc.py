"""The asked-attribute input measured by itself (issue 45, point 1: each feature alone before
it is combined): per dataset of rows dumped by fit_answerability.py (with the input added by
reread_rows.py), the AUC of the best ``attribute`` over the search's top hits, unanswerable
questions (near misses included) against answerable ones, beside the same for ``answer_type``.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/attribute_auc.py ROWS.jsonl \
        --out benchmarks/results/attribute-evidence.json

"auc": a question of no known attribute counts as 0.5 (no evidence); "auc_typed": only the
questions both sides where the input is known; "known": the share of questions it is known for.
"""

from __future__ import annotations

import json
from pathlib import Path

from suite_cli import read_rows, rows_and_out

from remem_bench.answerability import auc, groups

INPUTS = ("attribute", "answer_type")
TOPS = (3, 10)


def best(row: dict, name: str, top: int) -> float | None:
    values = [h["features"].get(name) for h in row["hits"][:top]]
    known = [v for v in values if v is not None]
    return max(known) if known else None


def figures(rows: list[dict], name: str, top: int) -> dict:
    ans = [best(r, name, top) for r in rows if r["kind"] == "ans"]
    unans = [best(r, name, top) for r in rows if r["kind"] == "unans"]
    known_a = [v for v in ans if v is not None]
    known_u = [v for v in unans if v is not None]

    def rounded(v: float | None) -> float | None:
        return None if v is None else round(v, 3)

    return {
        "auc": rounded(
            auc([0.5 if v is None else v for v in ans], [0.5 if v is None else v for v in unans])
        ),
        "auc_typed": rounded(auc(known_a, known_u)) if known_a and known_u else None,
        "known": {
            "answerable": round(len(known_a) / len(ans), 3),
            "unanswerable": round(len(known_u) / len(unans), 3),
        },
    }


def answer_counts(sub: list) -> dict | None:
    """A dataset's entry with its answerable and unanswerable counts, or None when it lacks
    either (no AUC to take)."""
    n_ans = sum(r["kind"] == "ans" for r in sub)
    n_unans = sum(r["kind"] == "unans" for r in sub)
    if not n_ans or not n_unans:
        return None
    return {"n_answerable": n_ans, "n_unanswerable": n_unans}


def main() -> None:
    args = rows_and_out()
    rows = read_rows(args.rows)
    report: dict = {"what": __doc__.split("\n\n")[0].replace("\n", " "), "datasets": {}}
    for name, sub in groups(rows).items():
        entry = answer_counts(sub)
        if entry is None:
            continue
        for top in TOPS:
            entry[f"top{top}"] = {i: figures(sub, i, top) for i in INPUTS}
        report["datasets"][name] = entry
        t10 = entry["top10"]
        print(
            f"{name:34s}", "  ".join(f"{i} {t10[i]['auc']} ({t10[i]['auc_typed']})" for i in INPUTS)
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
