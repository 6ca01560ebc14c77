"""What the compile-on-first-use tests share: ``re.compile`` calls recorded, and one function
called by several threads released together (the race a lazy compile must win once)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable


def record_compiles(monkeypatch) -> list[str]:
    """The patterns ``re.compile`` is called with from now on (still compiling them)."""
    calls: list[str] = []
    real = re.compile

    def counting(pattern, flags=0):
        calls.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    return calls


def at_once(first_use: Callable[[], None], threads: int = 8) -> None:
    """Call ``first_use`` on ``threads`` threads released by one barrier; wait for them all."""
    start = threading.Barrier(threads)

    def run() -> None:
        start.wait()
        first_use()

    started = [threading.Thread(target=run) for _ in range(threads)]
    for t in started:
        t.start()
    for t in started:
        t.join()
