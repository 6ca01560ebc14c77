"""`make docs` builds the documentation site with `mkdocs build --strict`: a broken link, an
anchor that is not there, a page missing from the nav or a reference that does not resolve
fails the build, and so this test. The generated reference pages must hold what the code has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from remem.config import Config

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from docgen.reference import config_keys  # the walk the configuration page is written by

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    return out


@pytest.mark.slow  # imports the whole CLI, the servers and the Python API (~30 s)
def test_the_site_builds_strictly_with_every_page(site):
    assert (site / "index.html").is_file()
    for page in ("getting-started", "guides/chat-bots", "concepts/retrieval", "architecture",
                 "decisions", "reference/python"):  # fmt: skip
        assert (site / page / "index.html").is_file(), page


@pytest.mark.slow
def test_the_reference_pages_hold_every_command_key_and_route(site):
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("remem ingest", "remem memory recall", "remem postgres start", "remem copy"):
        assert command in cli, command
    config = (site / "reference" / "configuration" / "index.html").read_text(encoding="utf-8")
    keys = [key for key, _ in config_keys(Config)]
    assert len(keys) > 150 and "search.latent_relevance_floor" in keys
    missing = [key for key in keys if f"<code>{key}</code>" not in config]
    assert missing == [], f"keys missing from the configuration reference: {missing}"
    rest = (site / "reference" / "rest" / "index.html").read_text(encoding="utf-8")
    for route in ("POST /v1/search", "POST /v1/conversation/recall", "POST /v1/chat/completions"):
        assert route in rest, route
    python = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    assert "recall_for_turn" in python and "wait_indexed" in python
