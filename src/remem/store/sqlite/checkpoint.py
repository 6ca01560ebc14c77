"""WAL checkpoints off the acknowledgement path (issue 47).

SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past
``wal_autocheckpoint`` pages: that writer copies the WAL's pages into the database and, with
``synchronous=NORMAL``, fsyncs the WAL before and the database after, all before its own
write is acknowledged. With eight writer processes one write in every sixty or so paid for
it (the ack's p99). With group commit the store turns the automatic checkpoint off on its
write connection and a thread of this process runs a PASSIVE checkpoint on a connection of
its own instead, woken by the commit tickets (``durability.py``): the writer whose ticket is
a multiple of ``CHECKPOINT_EVERY`` wakes its process's checkpointer, so among many writer
processes one checkpoints each stretch of commits, and a timer checkpoints what a process
wrote when fewer commits follow.

Nothing about durability changes: a checkpoint copies only committed frames (SQLite fsyncs
the WAL before copying them and the database after, at every ``synchronous`` level), and a
process killed in the middle of one leaves the WAL for the next checkpoint. PASSIVE never
waits for readers or writers: what it cannot copy now the next one copies. But the WAL
starts again from its top only when a checkpoint has copied all of it, which writers
appending all the while may never let a PASSIVE one do; so once more than
``RESTART_FRAMES`` are left, a RESTART checkpoint follows (it waits for the writer of the
moment, copies the few frames the PASSIVE one left, and lets the next writer start the WAL
again): the WAL stays bounded under a burst that never pauses. The checkpoint's connection
never waits for a lock (no busy timeout): a RESTART pending holds new writers back while it
waits for readers, so when a writer or a reader is in the way it gives up at once (SQLite
then copies what it can, as PASSIVE) and the next one tries again.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger("remem")

CHECKPOINT_EVERY = 64  # commits (tickets) per checkpoint: ~1,000 WAL pages of one-record writes
RESTART_FRAMES = 4_000  # WAL frames (pages) left after a PASSIVE checkpoint: RESTART it
IDLE_CHECKPOINT_S = 5.0  # a process that wrote but saw no multiple checkpoints after this long


class Checkpointer:
    """One process's checkpoint thread for one database (started on the first commit)."""

    def __init__(self, db_path: Path) -> None:
        self._db = db_path
        self._cond = threading.Condition()
        self._due = False  # a ticket multiple was committed here: checkpoint now
        self._wrote = False  # this process committed since its last checkpoint
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0  # checkpoints this thread ran (tests, stats)

    def committed(self, ticket: int) -> None:
        """A write of this process committed with ``ticket``."""
        with self._cond:
            if self._stopped:
                return
            self._wrote = True
            if ticket % CHECKPOINT_EVERY == 0:
                self._due = True
                self._cond.notify()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="remem-checkpoint", daemon=True
                )
                self._thread.start()

    def close(self, timeout: float = 30.0) -> None:
        """Stop the thread (a checkpoint under way finishes first)."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while True:
                with self._cond:
                    if not self._due and not self._stopped:
                        self._cond.wait(IDLE_CHECKPOINT_S)
                    if self._stopped:
                        return
                    if not (self._due or self._wrote):
                        continue
                    self._due = self._wrote = False
                if conn is None:
                    # timeout 0: never wait for a lock, never hold writers back (docstring)
                    conn = sqlite3.connect(str(self._db), timeout=0, isolation_level=None)
                self._checkpoint(conn)
        finally:
            if conn is not None:
                conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            _busy, frames, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if frames > RESTART_FRAMES:
                conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            self.checkpoints += 1
        except sqlite3.Error as exc:  # the next one copies what this one could not
            log.debug("WAL checkpoint of %s skipped: %s", self._db, exc)
