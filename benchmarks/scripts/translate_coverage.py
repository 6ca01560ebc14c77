"""How many of a dataset's questions the dictionary translation (``translate.keyword``) changes:
a question changes only when it is in one script and its conversation's store holds words of
the other that translate it. A dataset where none changes ranks exactly as without it.

    PYTHONPATH=src python benchmarks/scripts/translate_coverage.py    # LongMemEval oracle, LoCoMo, zh_groupchat
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from remem import Config, Memory
from remem_bench.suite import NO_ANSWER_TARGETS, conversations, load_no_answer

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "bench"
LEXICAL = {"embed.provider": "none", "translate.keyword": True}


def changed(root: Path, probes: list[dict]) -> dict[str, int]:
    """Questions and no-answer probes asked, and how many of each get translations added."""
    out = {"questions": 0, "translated": 0, "probes": 0, "probes_translated": 0}
    config = Config.load(env={}, overrides=LEXICAL)
    with tempfile.TemporaryDirectory() as tmp:
        for ci, (_, turns, questions) in enumerate(conversations(root, probes)):
            with Memory(Path(tmp) / f"c{ci}.db", config) as mem:
                keys = ("id", "text", "session", "timestamp", "speaker", "role")
                mem.ingest_many([{k: t.get(k) for k in keys} for t in turns], on_conflict="skip")
                translator, names = mem.searcher.translator, mem.searcher.speaker_names
                for q, kind in [(q, "questions") for q in questions] + [
                    (p, "probes") for p in probes
                ]:
                    named = names.named(q["query"], None)
                    added = translator.translate(q["query"], [*named, *named.values()])
                    out[kind] += 1
                    out["translated" if kind == "questions" else "probes_translated"] += bool(added)
    return out


if __name__ == "__main__":
    for name, root in (
        ("longmemeval_oracle", SHARED / "longmemeval_oracle"),
        ("locomo", SHARED / "locomo"),
        ("zh_groupchat", REPO / "benchmarks" / "data" / "zh_groupchat"),
    ):
        targets = NO_ANSWER_TARGETS.get(name, ())
        probes = [
            q
            for q in load_no_answer(REPO / "benchmarks" / "data" / "no_answer" / "queries.jsonl")
            if q.get("target") in targets
        ]
        print(name, json.dumps(changed(root, probes)), flush=True)
