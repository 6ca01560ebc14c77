"""Writers of one SQLite file queue in the kernel, not in SQLite's busy handler (issue 47).

SQLite lets one connection at a time hold a database's write lock. Another that asks for it
(``BEGIN IMMEDIATE``) is answered SQLITE_BUSY, and its busy handler sleeps before asking
again, 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms (``sqlite3_busy_timeout``), however
soon the lock is let go. Eight writer processes whose write transactions last about a
millisecond left the lock free much of the time while their waiters slept: an ack p99 of
50-57 ms on a quiet machine. Here a write transaction first takes an exclusive ``flock`` on
``<db>-writer``: a waiter sleeps in the kernel and wakes as soon as the holder lets go, and
``BEGIN IMMEDIATE`` then finds SQLite's lock free (quiet machine, alternated: 1,422-1,773 ->
1,608-2,277 acknowledged writes/s, ack p99 50-57 -> 10-13 ms;
benchmarks/results/writers-sqlite-writer-queue.json). SQLite's own handler still covers
writers outside the queue (a checkpoint, another program).

The lock is held for the transaction alone and let go before the durability barrier, so the
next writer commits while this one waits for the fsync they then share (durability.py). A
waiter blocks in ``flock`` itself: waiting on a thread that could give up after the busy
timeout cost a second wake-up and GIL hand-off per write (1,452 writes/s against 2,298 for the
direct wait, same run). So a writer waits for the queue as long as the transaction before it
lasts (a schema migration, a long ``transaction()`` block), where SQLite would have given up
after ``store.busy_timeout_ms``. A process that dies holding the lock loses it with its
descriptors. The holder writes its process id into the file: a writer that finds the lock
held by a stopped process (Ctrl-Z, SIGSTOP) does not queue behind it but asks SQLite directly,
whose busy timeout then ends the wait with the usual error; a holder stopped while others
already wait holds them until it continues or ends.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; writers wait in SQLite's busy handler
    fcntl = None  # type: ignore[assignment]

WRITER_QUEUE_AVAILABLE = fcntl is not None
_STOPPED = {"T", "t"}  # /proc/<pid>/stat states: stopped by a signal, or by a debugger


class WriterQueue:
    """The exclusive lock one write transaction of this file holds (see the module). Used
    by one thread at a time: the connection's own lock is held around ``acquire`` ...
    ``release``."""

    def __init__(self, db_path: Path) -> None:
        self._fd = os.open(f"{db_path}-writer", os.O_RDWR | os.O_CREAT, 0o600)
        self._held = False

    def acquire(self) -> bool:
        """Take the lock, waiting for it; False (not taken) when its holder is stopped."""
        assert fcntl is not None and not self._held
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if _stopped(self._holder()):
                return False
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._held = True
        os.pwrite(self._fd, str(os.getpid()).encode().ljust(12), 0)
        return True

    def _holder(self) -> int | None:
        raw = os.pread(self._fd, 12, 0).strip()
        return int(raw) if raw.isdigit() else None

    def release(self) -> None:
        """Let the lock go (nothing when not held)."""
        assert fcntl is not None
        if self._held:
            self._held = False
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd >= 0:
            self.release()
            os.close(self._fd)
            self._fd = -1


def _stopped(pid: int | None) -> bool:
    """Whether process ``pid`` is stopped (False where /proc cannot tell)."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return False
    return state in _STOPPED
