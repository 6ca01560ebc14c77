"""The README is a front page, not the manual (issue 43): one screen's depth, the two make
targets first, links that lead somewhere; the manual is the docs/ site."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail to docs/"
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split()[:2] for line in first_block] == [["make", "demo"], ["make", "test"]]
    assert "pip install remem" in text and "pipx install" in text and ".venv/bin/activate" in text


def test_every_relative_link_of_the_readme_exists():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links to the documentation"
    generated = {  # written by docgen/hooks.py when the site is built
        "docs/reference/cli.md",
        "docs/reference/configuration.md",
        "docs/reference/rest.md",
        "docs/decisions/index.md",  # until the decision records bring their own
    }
    missing = [t for t in local if t not in generated and not (ROOT / t).exists()]
    assert missing == [], f"README links to files that do not exist: {missing}"
