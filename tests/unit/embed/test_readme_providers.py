"""The README's embedding-provider examples run as written: every TOML snippet of the
"Embedding providers" section loads, builds its embedder (no network call is made until the
first embedding) and carries the label the section's table promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from remem.config import Config
from remem.embed.factory import make_embedder, model_id_for

README = Path(__file__).resolve().parents[3] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Embedding providers")
    return text[start : text.index("\n## ", start)]


SNIPPETS = re.findall(r"```toml\n(.*?)```", _section(), re.S)


def test_the_section_has_examples():
    assert len(SNIPPETS) >= 5


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_loads_and_builds(snippet, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(snippet, encoding="utf-8")
    cfg = Config.load(path, env={})
    embedder = make_embedder(cfg.embed)
    assert embedder is not None
    label = f"{cfg.embed.provider}:{cfg.embed.model}" + (
        f"@{cfg.embed.dimensions}" if cfg.embed.dimensions else ""
    )
    assert embedder.model_id == model_id_for(cfg.embed) == label
    assert f"`{cfg.embed.provider}:<model>[@dim]`" in _section()
