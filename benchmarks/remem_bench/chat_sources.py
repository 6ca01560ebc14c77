"""The builder of the hand-written chat sets (``data/zh_groupchat/build.py``) for the other
sets written in its format: each names its conversations and its categories.

``data/`` is a folder of scripts and data, not a package, so the builder is loaded by path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

DATA = Path(__file__).resolve().parents[1] / "data"


def groupchat_builder() -> ModuleType:
    """zh_groupchat's build.py, loaded once."""
    if "zh_groupchat_build" in sys.modules:
        return sys.modules["zh_groupchat_build"]
    spec = importlib.util.spec_from_file_location(
        "zh_groupchat_build", DATA / "zh_groupchat" / "build.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["zh_groupchat_build"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def to_jsonl(rows: list[dict]) -> str:
    """The sets' JSONL: one object a line, as the builder writes them."""
    return groupchat_builder().to_jsonl(rows)


def conversations_in(source: Path) -> tuple[str, ...]:
    """Every conversation of a source folder, in name order (``<name>.chat.txt``)."""
    return tuple(sorted(p.name.removesuffix(".chat.txt") for p in source.glob("*.chat.txt")))


def build_set(here: Path, categories: set[str]) -> tuple[list[dict], list[dict]]:
    """(corpus turns, questions) of the set in ``here``: its ``source/`` folder, every
    conversation there, its own categories."""
    source = here / "source"
    return groupchat_builder().build(source, conversations_in(source), categories)


def write_set(here: Path, categories: set[str]) -> None:
    """Rebuild ``corpus.jsonl`` and ``queries.jsonl`` of the set in ``here``."""
    source = here / "source"
    groupchat_builder().main(here, conversations_in(source), categories)
