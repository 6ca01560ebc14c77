"""Group commit for the PostgreSQL store: single-message writes of one process's threads that
arrive together are written as one transaction (issue 47).

A message's write is alone one statement in autocommit: a transaction, a commit and a WAL
flush of its own, and every one of its term-statistics rows updated for it alone. A bot or a
server writes from many threads through one pool, and while the server commits one write,
others arrive. Here at most ``leaders`` writes run at once, each on its own pooled
connection; a write that arrives while they all run waits, and when a leader's write returns,
the writes that waited meanwhile go out as one transaction (the store's multi-record insert:
each record's row, then their lexical rows and one update of the statistics for all of them)
run by the first of them. A lone write goes out at once, as before; under load each commit
carries every write that queued behind the last one. There is no timer: the window is the
time the server takes for the write before.

Every write is acknowledged only once the COMMIT that carries it has returned: durable at the
server's ``synchronous_commit``, as a write alone is. Each write keeps its own outcome: a
taken id or a moved context is its own result (it writes nothing and the others go on); when
the transaction fails, nothing of it is committed and each of its writes runs again alone, so
an error reaches its own caller and no other.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

# The most writes one transaction carries: each holds its row locks until the COMMIT.
MAX_GROUP = 64

Item = TypeVar("Item")


@dataclass(eq=False)
class _Write(Generic[Item]):
    item: Item
    alone: Callable[[Item], Any]
    together: Callable[[Sequence[Item]], list[Any]]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    # set by the leader that hands over: the writes this one runs (itself first)
    group: list[_Write[Item]] | None = None

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class GroupCommit:
    """Runs writes, grouping those that arrive while ``leaders`` writes run.

    ``run(item, alone, together)``: ``alone(item)`` writes one item as a transaction of its
    own and returns its result; ``together(items)`` writes several as one transaction and
    returns each one's result, or raises when the transaction failed. ``retryable(error)``
    says that such an error left nothing committed and came from what was written, not from
    the connection (each write then runs again alone); any other error fails every write of
    the group, as it would have failed each alone. ``keys(item)``: no two writes of one group
    share one of these (the later waits for the next group).
    """

    def __init__(
        self,
        *,
        leaders: int,
        retryable: Callable[[BaseException], bool],
        keys: Callable[[Any], Iterable[Hashable]],
    ) -> None:
        if leaders < 1:
            raise ValueError(f"leaders must be at least 1, not {leaders}")
        self._leaders = leaders
        self._keys = keys
        self._retryable = retryable
        self._lock = threading.Lock()
        self._running = 0
        self._waiting: deque[_Write[Any]] = deque()
        self.groups = 0  # transactions of more than one write, for tests and benchmarks
        self.grouped = 0  # the writes they carried

    def run(
        self,
        item: Item,
        alone: Callable[[Item], Any],
        together: Callable[[Sequence[Item]], list[Any]],
    ) -> Any:
        """The item's result, once it is committed."""
        write = _Write(item, alone, together)
        with self._lock:
            lead = self._running < self._leaders
            if lead:
                self._running += 1
            else:
                self._waiting.append(write)
        if not lead:
            write.done.wait()
            if write.group is None:  # a leader wrote it
                return write.outcome()
        self._lead(write.group or [write])
        return write.outcome()

    def _lead(self, group: list[_Write[Any]]) -> None:
        """Write this group, then hand the writes that waited meanwhile to the first of them
        (or give the leader's place back)."""
        try:
            self._execute(group)
        finally:
            with self._lock:
                nxt = self._next_group()
                if not nxt:
                    self._running -= 1
            if nxt:
                nxt[0].group = nxt
                nxt[0].done.set()
            for write in group[1:]:  # the first is this thread's own
                write.done.set()

    def _next_group(self) -> list[_Write[Any]]:
        """The waiting writes the next transaction carries, in arrival order: up to
        ``MAX_GROUP``, none sharing a key with one before it (that one waits for the next)."""
        group: list[_Write[Any]] = []
        taken: set[Any] = set()
        kept: deque[_Write[Any]] = deque()
        while self._waiting and len(group) < MAX_GROUP:
            write = self._waiting.popleft()
            keys = self._keys(write.item)
            if taken.intersection(keys):
                kept.append(write)
                continue
            taken.update(keys)
            group.append(write)
        kept.extend(self._waiting)
        self._waiting = kept
        return group

    def _execute(self, group: list[_Write[Any]]) -> None:
        if len(group) > 1:
            try:
                results = group[0].together([w.item for w in group])
            except BaseException as exc:
                if not self._retryable(exc):
                    for write in group:
                        write.error = exc
                    return
                # nothing committed: each write runs alone below and meets its own outcome
            else:
                with self._lock:
                    self.groups += 1
                    self.grouped += len(group)
                for write, result in zip(group, results, strict=True):
                    write.result = result
                return
        for write in group:
            try:
                write.result = write.alone(write.item)
            except BaseException as exc:
                write.error = exc
