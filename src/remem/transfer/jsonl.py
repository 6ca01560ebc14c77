"""JSONL in and out, a line at a time: only "\\n" ends a line, a bad line is one error.

``str.splitlines`` (and files opened in universal-newline mode) would also split on "\\r",
U+2028, U+2029 and other separators, which JSON strings may hold as they are; every reader
here splits on "\\n" alone and drops one trailing "\\r".
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from io import IOBase
from pathlib import Path
from typing import IO, Any, cast

from remem.errors import ValidationError


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text already in memory."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def iter_file_lines(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 JSONL file, read as they are needed (constant memory).

    A file that is not UTF-8 raises ValidationError naming it (at the first bad byte)."""
    try:
        # newline="\n": only "\n" ends a line; nothing is translated
        with path.open("r", encoding="utf-8", newline="\n") as fh:
            for line in fh:
                yield line.removesuffix("\n").removesuffix("\r")
    except UnicodeDecodeError:
        raise ValidationError("file", str(path), "give a UTF-8 text file") from None


def spool(source: Iterable[str] | IO[bytes]) -> Path:
    """Write a one-shot input (a binary stream such as stdin, or an iterable of lines) to a
    temporary file, so it can be read twice without holding it in memory. The caller deletes
    the file."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl", prefix="remem-import-", delete=False) as fh:
        if isinstance(source, IOBase):
            shutil.copyfileobj(cast(IO[bytes], source), fh)  # decoded when read back
        else:
            for line in cast(Iterable[str], source):
                fh.write((line.removesuffix("\n") + "\n").encode("utf-8", "surrogatepass"))
    return Path(fh.name)


def parse_lines(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, object or None, error) for every non-blank line."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, None, f"not valid JSON ({exc.msg})"
            continue
        except RecursionError:
            yield number, None, "not valid JSON (nested too deeply)"
            continue
        if not isinstance(item, dict):
            yield number, None, "expected a JSON object per line"
            continue
        yield number, item, ""
