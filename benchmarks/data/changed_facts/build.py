"""Build corpus.jsonl and queries.jsonl of this set from ``source/`` (zh_groupchat's source
conventions; see README.md). Run from anywhere: ``python build.py``."""

from __future__ import annotations

from pathlib import Path

from remem_bench.chat_sources import build_set, write_set

HERE = Path(__file__).resolve().parent
CATEGORIES = {"now", "before", "current", "stable", "unanswerable"}


def build() -> tuple[list[dict], list[dict]]:
    return build_set(HERE, CATEGORIES)


if __name__ == "__main__":
    write_set(HERE, CATEGORIES)
