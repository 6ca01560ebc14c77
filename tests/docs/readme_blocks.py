"""The fenced code blocks of a Markdown page (README.md, the docs/ pages), with the
`readme-test` directive before each.

A directive is an HTML comment on the lines just before a fence (blank lines between are
fine): ``<!-- readme-test: skip (why) -->`` leaves the block out and says why,
``<!-- readme-test: output -->`` makes the block the expected output of the block before it,
``<!-- readme-test: server -->`` starts the block's command in the background for the rest of
its section (a server the later blocks talk to).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<lang>[\w+-]*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*readme-test:\s*(?P<what>\w+)\s*(?:\((?P<why>.*)\))?\s*-->$")
HEADING = re.compile(r"^(#{1,2})\s+(?P<title>.+?)\s*$")


@dataclass
class Block:
    file: str  # the page, relative to the repository: README.md, docs/guides/rest.md ...
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    section: str  # the `#` / `##` heading it sits under
    directive: str = ""  # skip | output | server | "" (run as its language says)
    why: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line} ({self.lang or 'no language'}, in '{self.section}')"


def blocks_of(path: Path, name: str | None = None) -> list[Block]:
    """The blocks of one Markdown page; ``name`` is how messages call it (default: its file
    name)."""
    name = name or path.name
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    section = "(top)"
    i = 0
    while i < len(lines):
        heading = HEADING.match(lines[i])
        if heading:
            section = heading["title"]
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence["fence"]:
            end += 1
        if end == len(lines):
            raise ValueError(f"{name}:{i + 1}: a code block that is never closed")
        code = "\n".join(lines[i + 1 : end]) + "\n"
        block = Block(name, i + 1, fence["lang"].lower(), code, section)
        block.directive, block.why = _directive_before(lines, i, name)
        found.append(block)
        i = end + 1
    return found


def _directive_before(lines: list[str], fence_index: int, name: str) -> tuple[str, str]:
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    match = DIRECTIVE.match(lines[j].strip()) if j >= 0 else None
    if not match:
        return "", ""
    what = match["what"]
    if what not in ("skip", "output", "server"):
        raise ValueError(f"{name}:{j + 1}: unknown readme-test directive {what!r}")
    if what == "skip" and not (match["why"] or "").strip():
        raise ValueError(f"{name}:{j + 1}: a skipped block must say why: skip (reason)")
    return what, (match["why"] or "").strip()
