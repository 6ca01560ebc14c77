"""Build corpus.jsonl and queries.jsonl of zh_validation, the held-out Chinese chat set (see
README.md), from its hand-written sources, with the functions of ``../zh_groupchat/build.py``
(the same source conventions). Run from anywhere:

    python benchmarks/data/zh_validation/build.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONVERSATIONS = ("parents", "gamers", "landlord")


def _groupchat_builder():
    """zh_groupchat's build.py (benchmarks/data is a folder of scripts, not a package)."""
    if "zh_groupchat_build" in sys.modules:
        return sys.modules["zh_groupchat_build"]
    path = HERE.parent / "zh_groupchat" / "build.py"
    spec = importlib.util.spec_from_file_location("zh_groupchat_build", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["zh_groupchat_build"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_builder = _groupchat_builder()
CATEGORIES = _builder.CATEGORIES
to_jsonl = _builder.to_jsonl


def build(source: Path = HERE / "source") -> tuple[list[dict], list[dict]]:
    """Read the hand-written sources; returns (corpus turns, questions)."""
    return _builder.build(source, CONVERSATIONS)


if __name__ == "__main__":
    _builder.main(HERE, CONVERSATIONS)
