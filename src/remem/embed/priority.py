"""Background embedding yields the CPU to chats: the thread that runs background model calls
lowers its own scheduling priority.

On Linux a thread is a task with its own nice value, and threads it starts inherit it: the
one thread that runs every background slice (``query_first.BACKGROUND``) raises its nice
value by ``indexing.background_nice``, so the OpenMP threads the e5 engine starts from it run
at that priority too. A chat's search and pre-turn recall (at the process's own priority, in
this process or in another one on the machine) then get the CPU first while a burst is
indexed, and the background work takes what is left: nothing is throttled on an idle machine.
Only that thread is lowered: it holds no lock a search takes (the queue workers, which write
to the store, keep their priority). An unprivileged thread can lower its priority but never
raise it back. Elsewhere (macOS, Windows) this is a no-op.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger("remem.indexing")

MAX_NICE = 19


def thread_nice() -> int | None:
    """The calling thread's nice value (None where threads have none of their own)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "getpriority"):
        return None
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    except OSError:
        return None


def lower_this_thread(by: int) -> bool:
    """Raise the calling thread's nice value by ``by`` (capped at 19); True when it was
    lowered. Never fails: without the means, the thread keeps its priority."""
    current = thread_nice()
    if by <= 0 or current is None:
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(MAX_NICE, current + by))
    except OSError as exc:
        log.debug("background thread keeps its priority: %s", exc)
        return False
    return True
