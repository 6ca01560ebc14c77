"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages are generated from the code at every
build (docgen/reference.py), and a nav entry ending in `/*.md` lists that folder's pages, so
records added to docs/decisions/ appear without editing mkdocs.yml. Until docs/decisions/ has
an index.md of its own, one listing its records is generated."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "src"):  # docgen itself, and this checkout's remem before any other
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from docgen.reference import PAGES  # noqa: E402


def _title(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem.replace("-", " ")


def _expand(items: list, docs_dir: Path) -> list:
    out: list = []
    for item in items:
        if isinstance(item, str) and item.endswith("/*.md"):
            folder = item[: -len("/*.md")]
            for page in sorted((docs_dir / folder).glob("*.md")):
                if page.name != "index.md":
                    out.append({_title(page): f"{folder}/{page.name}"})
        elif isinstance(item, dict):
            out.append(
                {k: _expand(v, docs_dir) if isinstance(v, list) else v for k, v in item.items()}
            )
        else:
            out.append(item)
    return out


def on_config(config):
    if config.nav:
        config.nav = _expand(config.nav, Path(config.docs_dir))
    return config


DECISIONS = "decisions"


def _decisions_index(docs_dir: Path) -> str:
    lines = [
        "# Decision records",
        "",
        "Why remem is built the way it is: one record per decision.",
        "",
    ]
    records = sorted(p for p in (docs_dir / DECISIONS).glob("*.md") if p.name != "index.md")
    lines += [f"- [{_title(p)}]({p.name})" for p in records] or ["No records yet."]
    return "\n".join(lines) + "\n"


def on_files(files: Files, config) -> Files:
    for src_uri, render in PAGES.items():
        existing = files.get_file_from_path(src_uri)
        if existing is not None:  # a committed copy would go stale: the generated one wins
            files.remove(existing)
        files.append(File.generated(config, src_uri, content=render()))
    index = f"{DECISIONS}/index.md"
    if files.get_file_from_path(index) is None:
        content = _decisions_index(Path(config.docs_dir))
        files.append(File.generated(config, index, content=content))
    return files
