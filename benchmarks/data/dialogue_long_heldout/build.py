"""Build corpus.jsonl and queries.jsonl of dialogue_long_heldout from its hand-written sources,
with dialogue_notes' builder: the same source format (see ../dialogue_notes/build.py), its own
users and dialogues. Run from anywhere:

    python build.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def _builder() -> ModuleType:
    path = HERE.parent / "dialogue_notes" / "build.py"
    spec = importlib.util.spec_from_file_location("dialogue_notes_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(source: Path = HERE / "source") -> tuple[list[dict], list[dict]]:
    return _builder().build(source)


def main() -> None:
    _builder().main(HERE)


if __name__ == "__main__":
    main()
