"""``lazy_compile``: a pattern compiled on first use, once across threads, then used at the
speed of the compiled pattern (its methods kept as the stand-in's own attributes)."""

from __future__ import annotations

import re

from first_use import at_once, record_compiles
from remem.text.lazy_re import LazyPattern, lazy_compile


def test_it_compiles_on_first_use_once_across_threads(monkeypatch):
    calls = record_compiles(monkeypatch)
    pattern = lazy_compile(r"(?P<city>[A-Z]\w+)", re.I)
    assert calls == []
    found: list[str] = []

    def first_use() -> None:
        m = pattern.search("i live in porto")
        found.append(m["city"] if m else "")

    at_once(first_use)
    assert calls == [r"(?P<city>[A-Z]\w+)"]
    assert found == ["live"] * 8  # re.I: as the compiled pattern answers
    assert pattern.flags == re.compile(r"x", re.I).flags
    assert "search" in vars(pattern)  # looked up once, then found directly


def test_it_answers_as_the_compiled_pattern_does():
    source = r"(\d+)-(\d+)"
    lazy, real = lazy_compile(source), re.compile(source)
    text = "1-2 and 30-40"
    assert lazy.pattern == real.pattern and lazy.groups == real.groups == 2
    assert lazy.sub(r"\2-\1", text) == real.sub(r"\2-\1", text)
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.fullmatch("7-8") is not None and lazy.match("x") is None
    assert lazy.split(text) == real.split(text)


def test_a_pattern_built_from_others_is_built_on_first_use():
    """Its source compiles the others while the compile lock is held: the lock is reentrant
    (with a plain lock this hung, as the combined pattern of ``text.noise`` did)."""
    parts = [lazy_compile("cat"), lazy_compile("dog", re.I)]
    built: list[int] = []

    def source() -> str:
        built.append(1)
        return "|".join(f"(?i:{p.pattern})" if p.flags & re.I else p.pattern for p in parts)

    either = lazy_compile(source)
    assert built == []
    assert either.fullmatch("DOG") and not either.fullmatch("CAT")
    assert either.fullmatch("cat") and built == [1]
    assert "not compiled yet" in repr(LazyPattern("x")) and "compiled" in repr(either)


def test_compile_all_compiles_every_pattern_not_compiled_yet():
    from remem.text.lazy_re import compile_all

    waiting = [lazy_compile(r"warm\d+"), lazy_compile(r"up\w*", re.I)]
    used = lazy_compile("used")
    used.search("used")
    assert compile_all() >= 2  # (and whatever other tables this process imported)
    assert all(vars(p)["_compiled"] is not None for p in waiting)
    assert compile_all() == 0  # nothing left
    assert waiting[1].fullmatch("UPWARD")
