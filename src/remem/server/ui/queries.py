"""What the web UI reads that the ``Memory`` API has no method for: counts grouped by kind,
scope, platform, model and index status, messages and memories per day, sessions grouped by
platform and group, superseded-only memory listings, and where a record sits in its session.

Every function takes the ``Memory`` and the scopes the caller may read (``None`` = the local
operator, unrestricted) and never returns anything outside them. The aggregates are plain
indexed or single-pass SQL over the SQLite store; they are cached until the store changes
(``store.change_token()``, which also sees commits of other processes), so a page reload on a
large store does not redo them.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from remem.store.sqlite import filters_sql
from remem.types import Filters, Record

T = TypeVar("T")
NONE_LABEL = "(none)"


class ChangeCache:
    """Results keyed by (query, arguments), valid while the store's change token holds."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[tuple, tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def get(self, mem, key: tuple, compute: Callable[[], T]) -> T:
        token = mem.store.change_token()
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] == token:
                self._items.move_to_end(key)
                return hit[1]
        value = compute()
        with self._lock:
            self._items[key] = (token, value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


CACHE = ChangeCache()


def _scoped(scopes: list[str] | None, **extra: Any) -> Filters:
    return Filters(scopes=scopes, **extra)


def _key(scopes: list[str] | None) -> tuple[str, ...] | None:
    return None if scopes is None else tuple(sorted(scopes))


@dataclass
class Overview:
    total: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    by_scope: dict[str, int] = field(default_factory=dict)
    by_platform: dict[str, int] = field(default_factory=dict)
    by_model: dict[str, int] = field(default_factory=dict)
    index_status: dict[str, int] = field(default_factory=dict)
    per_day: dict[int, tuple[int, int]] = field(default_factory=dict)
    sessions: int = 0


def overview(mem, scopes: list[str] | None) -> Overview:
    return CACHE.get(mem, ("overview", _key(scopes)), lambda: _overview(mem, scopes))


def _overview(mem, scopes: list[str] | None) -> Overview:
    where, params = filters_sql(_scoped(scopes))
    out = Overview()

    with mem.store.read() as c:

        def group(column: str) -> dict[str, int]:
            rows = c.execute(f"SELECT r.{column}, count(*) FROM records r WHERE 1=1{where} "
                             f"GROUP BY r.{column} ORDER BY count(*) DESC", params)  # fmt: skip
            return {(k if k is not None else NONE_LABEL): n for k, n in rows}

        out.by_kind = group("kind")
        out.total = sum(out.by_kind.values())
        out.by_scope = group("scope")
        out.by_platform = group("platform")
        out.index_status = group("index_status")
        out.by_model = {m: n for m, n in c.execute(
            f"SELECT v.model_id, count(*) FROM vectors v JOIN records r ON r.rowid = "
            f"v.record_rowid WHERE 1=1{where} GROUP BY v.model_id ORDER BY count(*) DESC",
            params)}  # fmt: skip
        per_day: dict[int, list[int]] = {}
        for day, kind, n in c.execute(
            f"SELECT CAST(r.created_at / 86400 AS INTEGER), r.kind, count(*) FROM records r "
            f"WHERE 1=1{where} GROUP BY 1, 2", params):  # fmt: skip
            per_day.setdefault(day, [0, 0])[0 if kind == "message" else 1] += n
        out.per_day = {d: (m, n) for d, (m, n) in per_day.items()}
        out.sessions = c.execute(f"SELECT count(DISTINCT r.session) FROM records r WHERE "
                                 f"r.session IS NOT NULL{where}", params).fetchone()[0]  # fmt: skip
    return out


def store_size(path: Path) -> int:
    """Bytes on disk of the database with its WAL and shared-memory files."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            total += part.stat().st_size
    return total


@dataclass
class SessionRow:
    session: str
    platform: str | None
    group_id: str | None
    group_name: str | None
    messages: int
    first: float
    last: float


@dataclass
class SessionGroup:
    platform: str
    group: str
    sessions: list[SessionRow]


def session_groups(mem, scopes: list[str] | None, limit: int = 200) -> list[SessionGroup]:
    """The ``limit`` most recently active sessions, grouped by platform, then group."""
    return CACHE.get(mem, ("sessions", _key(scopes), limit),
                     lambda: _session_groups(mem, scopes, limit))  # fmt: skip


def _session_groups(mem, scopes: list[str] | None, limit: int) -> list[SessionGroup]:
    where, params = filters_sql(_scoped(scopes))
    with mem.store.read() as c:
        rows = c.execute(
            "SELECT r.session, max(r.platform), max(r.group_id), max(r.group_name), count(*), "
            "min(r.created_at), max(r.created_at) FROM records r WHERE r.session IS NOT NULL "
            f"AND r.kind = 'message'{where} GROUP BY r.session ORDER BY max(r.created_at) DESC "
            "LIMIT ?", [*params, limit]).fetchall()  # fmt: skip
    groups: dict[tuple[str, str], SessionGroup] = {}
    for session, platform, group_id, group_name, n, first, last in rows:
        key = (platform or NONE_LABEL, group_name or group_id or NONE_LABEL)
        groups.setdefault(key, SessionGroup(*key, [])).sessions.append(
            SessionRow(session, platform, group_id, group_name, n, first, last))  # fmt: skip
    return list(groups.values())  # in order of each group's most recent session


def session_page(mem, scopes: list[str] | None, session: str, *, offset: int,
                 limit: int) -> tuple[list[Record], int]:  # fmt: skip
    """One page of a session's records, oldest first on the page, pages counted from the
    newest; returns (records, total in the session)."""
    filters = _scoped(scopes, sessions=[session])
    total = mem.store.count(filters)
    records = mem.list(filters, limit=limit, offset=offset)
    return list(reversed(records)), total


def offset_of(mem, scopes: list[str] | None, record: Record, page: int) -> int:
    """The page offset (newest-first) on which ``record`` shows in its session."""
    filters = _scoped(scopes, sessions=[record.session], since=record.created_at)
    newer_or_same = mem.store.count(filters)
    return max(newer_or_same - 1, 0) // page * page


MEMORY_STATES = ("current", "superseded", "all")


def memory_filters(scopes: list[str] | None, category: str | None, state: str) -> Filters:
    """The filters of the memories page; ``superseded`` is applied by ``superseded_ids``."""
    filters = _scoped(scopes, kinds=["memory"], category=category)
    filters.include_superseded = state != "current"
    return filters


def memory_page(mem, scopes: list[str] | None, *, category: str | None, state: str,
                offset: int, limit: int) -> tuple[list[Record], int]:  # fmt: skip
    """Memories passing the filters, newest first, and how many there are in all. ``scopes``
    is what the caller may read, already narrowed to a requested scope."""
    filters = memory_filters(scopes, category, state)
    if state != "superseded":
        return mem.list(filters, limit=limit, offset=offset), mem.store.count(filters)
    ids = superseded_ids(mem, filters, limit=limit, offset=offset)
    got = {r.id: r for r in mem.list(Filters(ids=ids, scopes=filters.scopes), limit=None)}
    return [got[i] for i in ids if i in got], count_superseded(mem, filters)


def superseded_ids(mem, filters: Filters, *, limit: int | None, offset: int) -> list[str]:
    """Ids of memories whose validity has ended (replaced or undone), newest first."""
    where, params = filters_sql(filters)
    with mem.store.read() as c:
        rows = c.execute(
            "SELECT r.id FROM records r WHERE r.valid_to IS NOT NULL AND r.valid_to <= ?"
            f"{where} ORDER BY r.created_at DESC, r.rowid DESC LIMIT ? OFFSET ?",
            [time.time(), *params, -1 if limit is None else limit, offset]).fetchall()  # fmt: skip
    return [r[0] for r in rows]


def count_superseded(mem, filters: Filters) -> int:
    where, params = filters_sql(filters)
    with mem.store.read() as c:
        return c.execute("SELECT count(*) FROM records r WHERE r.valid_to IS NOT NULL AND "
                         f"r.valid_to <= ?{where}", [time.time(), *params]).fetchone()[0]  # fmt: skip


def matching_memory_ids(mem, filters: Filters, state: str) -> list[str]:
    """Every id the memories page's filters select (for a bulk delete), newest first."""
    if state == "superseded":
        return superseded_ids(mem, filters, limit=None, offset=0)
    return [r.id for r in mem.list(filters, limit=None)]


def categories(mem, scopes: list[str] | None) -> list[str]:
    """The memory categories in use (for the filter's choices)."""

    def compute() -> list[str]:
        where, params = filters_sql(_scoped(scopes, kinds=["memory"]))
        with mem.store.read() as c:
            rows = c.execute(f"SELECT DISTINCT r.category FROM records r WHERE "
                             f"r.category IS NOT NULL{where} ORDER BY 1", params)  # fmt: skip
            return [r[0] for r in rows]

    return CACHE.get(mem, ("categories", _key(scopes)), compute)
