"""How many of a dataset's questions ``names.translate_vector`` changes: a question changes only
when it names a speaker of its conversation by another form than the label. A dataset where
none changes ranks exactly as without the setting.

    python benchmarks/scripts/names_coverage.py    # LongMemEval oracle, LoCoMo, zh_groupchat
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from remem.retrieve.names import translated
from remem.text.names import alias_table, find_names

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"


def changed(root: Path) -> tuple[int, int]:
    """(questions, questions whose embedded query the setting changes)."""
    labels: dict[str, set[str]] = defaultdict(set)
    with (root / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            labels[row["conversation"]].add(row.get("speaker") or "")
    total = moved = 0
    with (root / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            total += 1
            named = find_names(q["query"], alias_table(labels[q["conversation"]]))
            moved += translated(q["query"], named) != q["query"]
    return total, moved


if __name__ == "__main__":
    for name, root in (
        ("longmemeval_oracle", SHARED / "longmemeval_oracle"),
        ("locomo", SHARED / "locomo"),
        ("zh_groupchat", REPO / "benchmarks" / "data" / "zh_groupchat"),
    ):
        total, moved = changed(root)
        print(f"{name}: {moved} of {total} questions get a label added")
