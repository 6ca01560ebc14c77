"""Reads someone is waiting for: one query deadline for all the embedding calls they make.

A search embeds one query; an auto-recall embeds its baseline sentences, the query, and the
query again inside its search. Inside ``interactive()`` every remote embedding call of the
thread gets what is left of one ``embed.query_timeout_s`` counted from the start of the
outermost block, so a slow provider costs a read that deadline once, not once per call.
Kept free of HTTP imports: the engine imports it at start-up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_reads = threading.local()


@contextmanager
def interactive() -> Iterator[None]:
    """Mark this thread's embedding calls as part of one read someone is waiting for."""
    outermost = getattr(_reads, "started", None) is None
    if outermost:
        _reads.started = time.monotonic()
    try:
        yield
    finally:
        if outermost:
            _reads.started = None


def read_budget(query_timeout_s: float) -> float | None:
    """Seconds left of the current read's query deadline (None outside ``interactive()``;
    zero or less when spent)."""
    started = getattr(_reads, "started", None)
    if started is None:
        return None
    return query_timeout_s - (time.monotonic() - started)
