"""Auto-recall's operating point, per dataset: false injection against answerable questions
emptied for every ``recall.answerability_threshold`` from 0 to 0.3, and what auto-recall
injects at the highest threshold that empties at most 3% of a dataset's answerable questions
(issue 45's target), on rows dumped by fit_answerability.py and the shipped fit.

PYTHONPATH=src:benchmarks python benchmarks/scripts/answerability_tradeoff.py ROWS.jsonl \
    --out benchmarks/results/answerability-tradeoff.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from suite_cli import read_rows

from remem.config import Config
from remem.search.answerability import MODEL_FILE
from remem_bench.answerability import tradeoff


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--model", default=str(MODEL_FILE))
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = read_rows(args.rows)
    model = json.loads(Path(args.model).read_text())
    cfg = Config.load(env={})
    search_t = cfg.search.answerability_threshold
    curves = tradeoff(rows, model["fit"], search_t)
    report = {
        "what": "auto-recall's trade-off per dataset (benchmarks/scripts/"
        "answerability_tradeoff.py): for each recall.answerability_threshold, the share of "
        "unanswerable questions and off-topic probes it injects for and of answerable "
        f"questions it empties; the fit of {model['date']}, search threshold {search_t}",
        "recall.answerability_threshold": cfg.recall.answerability_threshold,
        "held_out": model["held_out"],
        "datasets": curves,
    }
    for name, entry in curves.items():
        print(f"{name:34s} {json.dumps(entry.get('at 3% emptied'))}")
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
