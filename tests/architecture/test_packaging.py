"""The package's metadata: one version, extras named for what they enable (old names kept as
aliases), and every `pip install 'remem[...]'` that an error message or docstring tells a user
to run names an extra that exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import remem

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS: dict[str, list[str]] = PROJECT["project"]["optional-dependencies"]
# old extra -> the one it now equals
ALIASES = {"rerank-onnx": "rerank", "lancedb": "lancedb-import"}


def test_the_version_has_one_source_and_the_changelog_names_it():
    assert "version" in PROJECT["project"]["dynamic"]
    assert "version" not in PROJECT["project"]
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "remem.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", remem.__version__), remem.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{remem.__version__}]" in changelog


def test_extras_are_named_for_what_they_enable_and_old_names_still_resolve():
    for name in ("server", "mcp", "postgres", "postgres-server", "rerank", "lancedb-import"):
        assert EXTRAS.get(name), f"extra {name!r} missing from pyproject.toml"
    for old, new in ALIASES.items():
        assert EXTRAS[old] == EXTRAS[new], f"alias {old!r} drifted from {new!r}"


def test_every_install_hint_in_the_code_names_an_existing_extra():
    hints = {
        (path.relative_to(ROOT).as_posix(), extra)
        for path in (ROOT / "src" / "remem").rglob("*.py")
        for extra in re.findall(r"remem\[([a-z0-9,-]+)\]", path.read_text(encoding="utf-8"))
    }
    assert hints, "no install hints found: the pattern is wrong"
    unknown = {(where, e) for where, extras in hints for e in extras.split(",") if e not in EXTRAS}
    assert not unknown, f"install hints naming no extra: {sorted(unknown)}"
    old = {(where, e) for where, extras in hints for e in extras.split(",") if e in ALIASES}
    assert not old, f"install hints using an old extra name: {sorted(old)}"
