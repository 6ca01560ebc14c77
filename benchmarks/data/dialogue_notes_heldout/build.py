"""Build corpus.jsonl and queries.jsonl of dialogue_notes_heldout from ``source/`` (dialogue_notes' held-out twin; dialogue_notes'
source format, see ../dialogue_notes/build.py and README.md). Run from anywhere: ``python build.py``."""

from __future__ import annotations

from pathlib import Path

from remem_bench.chat_sources import build_dialogues, write_dialogues

HERE = Path(__file__).resolve().parent


def build() -> tuple[list[dict], list[dict]]:
    return build_dialogues(HERE)


if __name__ == "__main__":
    write_dialogues(HERE)
