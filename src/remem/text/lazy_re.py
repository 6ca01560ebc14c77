"""Regular expressions compiled when first used, not when their module is imported.

The pattern tables of ``remem.text``, ``remem.facts`` and ``remem.capture`` hold hundreds of
patterns; compiled at import they cost every process that imports the engine (every CLI
command, the MCP server's start, every hook) a second before it reads any text.
``lazy_compile`` returns a stand-in that compiles the pattern the first time one of its
methods is looked up, once per process under a lock, and then keeps each method it was asked
for as its own attribute: after the first use a call costs what a compiled pattern's does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, cast

__all__ = ["LazyPattern", "compile_all", "lazy_compile"]

# Reentrant: a pattern built from others (``source`` a function) compiles them while it holds it.
_COMPILING = threading.RLock()
# every stand-in made so far (module-level tables: they live as long as the process anyway),
# for a long-running server to compile them in the background (``compile_all``)
_MADE: list[LazyPattern] = []


class LazyPattern:
    """A ``re.Pattern`` compiled on first use (see the module docstring). ``source`` is the
    pattern's text, or a function giving it (a pattern built from other patterns)."""

    def __init__(self, source: str | Callable[[], str], flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        _MADE.append(self)

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        compiled = self._compiled
        if compiled is None:
            with _COMPILING:
                compiled = self._compiled
                if compiled is None:
                    source = self._source if isinstance(self._source, str) else self._source()
                    compiled = self._compiled = re.compile(source, self._flags)
        return compiled

    def __getattr__(self, name: str) -> Any:
        # only reached for a name not set yet: "search", "match", "pattern", ...
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        setattr(self, name, value)  # found directly from now on
        return value

    def __repr__(self) -> str:
        state = "compiled" if self._compiled is not None else "not compiled yet"
        return f"<LazyPattern {self._source!r} ({state})>"


def lazy_compile(source: str | Callable[[], str], flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, done on the pattern's first use (``LazyPattern``);
    typed as the pattern it stands for."""
    return cast("re.Pattern[str]", LazyPattern(source, flags))


def compile_all() -> int:
    """Compile every stand-in made so far that has not compiled yet; how many it compiled.
    (For a long-running server's warm-up: a one-shot command should not pay for patterns it
    never uses.)"""
    done = 0
    for pattern in list(_MADE):
        if pattern._compiled is None:
            pattern.compiled()
            done += 1
    return done
