"""The embedding-provider examples run as written: every TOML snippet of the "Embedding
providers" guide (docs/guides/providers.md) loads, builds its embedder (no network call is made until the
first embedding) and carries the label the section's table promises."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from remem.config import Config
from remem.embed.factory import make_embedder, model_id_for

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "providers.md"


def _section() -> str:
    return GUIDE.read_text(encoding="utf-8")


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
