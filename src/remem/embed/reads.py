"""Reads someone is waiting for: one query deadline for all the embedding calls they make.

A search embeds one query; an auto-recall embeds its baseline sentences, the query, and the
query again inside its search. Inside ``interactive()`` every remote embedding call of the
thread gets what is left of one ``embed.query_timeout_s`` counted from the start of the
outermost block, so a slow provider costs a read that deadline once, not once per call.
The mark is a context variable: work a read hands to another thread with the read's context
(``contextvars.copy_context().run``, as the search's query embedding does) shares its deadline.
Kept free of HTTP imports: the engine imports it at start-up.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_started: ContextVar[float | None] = ContextVar("remem_read_started", default=None)


@contextmanager
def interactive() -> Iterator[None]:
    """Mark this context's embedding calls as part of one read someone is waiting for."""
    token = _started.set(time.monotonic()) if _started.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _started.reset(token)


def read_budget(query_timeout_s: float) -> float | None:
    """Seconds left of the current read's query deadline (None outside ``interactive()``;
    zero or less when spent)."""
    started = _started.get()
    if started is None:
        return None
    return query_timeout_s - (time.monotonic() - started)
