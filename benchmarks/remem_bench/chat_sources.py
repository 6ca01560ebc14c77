"""The builders of the hand-written sets for the other sets written in their format: the chat
sets' (``data/zh_groupchat/build.py``; each names its conversations and its categories) and
the dialogue sets' (``data/dialogue_notes/build.py``).

``data/`` is a folder of scripts and data, not a package, so the builder is loaded by path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

DATA = Path(__file__).resolve().parents[1] / "data"


def _builder(dataset: str) -> ModuleType:
    """``data/<dataset>/build.py``, loaded once."""
    name = f"{dataset}_build"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DATA / dataset / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def groupchat_builder() -> ModuleType:
    """zh_groupchat's build.py, loaded once."""
    return _builder("zh_groupchat")


def build_dialogues(here: Path) -> tuple[list[dict], list[dict]]:
    """(notes, dialogues) of a set in dialogue_notes' format (``data/dialogue_notes/build.py``)
    in ``here``: its ``source/`` folder."""
    return _builder("dialogue_notes").build(here / "source")


def write_dialogues(here: Path) -> None:
    """Rebuild ``corpus.jsonl`` and ``queries.jsonl`` of a set in dialogue_notes' format."""
    _builder("dialogue_notes").main(here)


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
