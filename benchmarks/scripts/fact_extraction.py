"""Precision and recall of the fact extractor on the capture set and the changed-facts lines
that carry an answer (gold in data/capture_set/facts.jsonl, data/changed_facts/facts.jsonl):

    python benchmarks/scripts/fact_extraction.py [--out benchmarks/results/fact-extraction.json]

See remem_bench.fact_extraction for how a statement is matched. No model, no store: a few
seconds.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from remem_bench import RESULTS_DIR
from remem_bench.fact_extraction import capture_set, changed_facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "fact-extraction.json")
    args = parser.parse_args()
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "what": "remem.facts.extract (rules, no LLM) against hand-written gold statements",
        "capture_set": capture_set(),
        "changed_facts": changed_facts(),
    }
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for name in ("capture_set", "changed_facts"):
        for lang, t in result[name]["by_language"].items():
            print(
                f"{name} {lang}: precision {t['precision']:.3f} recall {t['recall']:.3f} "
                f"({t['right']} right of {t['predicted']} read, {t['gold']} gold)"
            )
    print("statements read from non-statements:", result["capture_set"]["non_statement_statements"])


if __name__ == "__main__":
    main()
