"""What the web UI reads that the ``Memory`` API has no method for: counts grouped by kind,
scope, platform, model and index status, messages and memories per day (of
``calendar.timezone``), sessions grouped by platform and group, superseded-only memory
listings, where a record sits in its session, and the people facts are known about.

Every function takes the ``Memory`` and the scopes the caller may read (``None`` = the local
operator, unrestricted) and never returns anything outside them.

The aggregates read the whole (scoped) store, which takes about a second at 100k records, so
a page never waits for them: ``AGGREGATES`` keeps the last result per query and, when the store
has changed since (``store.change_token()``, which also sees other processes' commits), hands
out that result at once and recomputes it in the background. Only the very first request for
a query computes it in line, and ``warm_up`` does those at start-up for the operator and every
token's agent. They are the store's ``DashboardStore`` reads, which every backend runs off
the connection requests use (SQLite: a read-only connection of its own; PostgreSQL: a pooled
connection in a read-only transaction). Listings are LIMITed and walk indexes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import WeakKeyDictionary

from remem.server.ui.charts import local_days
from remem.store.dashboard import StoreSize
from remem.store.queries import NewestIds
from remem.types import Filters, Record

if TYPE_CHECKING:
    from remem.engine import Memory

log = logging.getLogger("remem.ui")
T = TypeVar("T")
NONE_LABEL = "(none)"


@dataclass
class _Entry:
    token: Any
    value: Any
    refreshing: bool = False


class StaleWhileRevalidate:
    """The last result of each (query, arguments) per store; stale ones are served while a
    background thread recomputes them (one at a time per key). Results are kept per store
    object (weakly), so two stores in one process never see each other's numbers."""

    def __init__(self, size: int = 128) -> None:
        self._stores: WeakKeyDictionary[Any, OrderedDict[tuple, _Entry]] = WeakKeyDictionary()
        self._lock = threading.Lock()
        self.size = size

    def get(self, mem: Memory, key: tuple, compute: Callable[[], T]) -> T:
        store = mem.store
        token = store.change_token()
        with self._lock:
            items = self._stores.get(store)
            entry = items.get(key) if items is not None else None
            if items is not None and entry is not None:
                items.move_to_end(key)  # least recently used goes first
                if entry.token != token and not entry.refreshing:
                    entry.refreshing = True
                    threading.Thread(
                        target=self._refresh,
                        args=(store, key, token, compute, entry),
                        daemon=True,
                        name="remem-ui-aggregate",
                    ).start()
                return entry.value
        value = compute()  # the first request for this key
        self._store(store, key, token, value)
        return value

    def forget(self, mem: Memory, name: str) -> None:
        """Drop this store's results of the query ``name`` (every argument): the next page
        computes it in line (the people list after facts owed were read)."""
        with self._lock:
            items = self._stores.get(mem.store, OrderedDict())
            for key in [k for k in items if k[0] == name]:
                del items[key]

    def forget_all(self, mem: Memory) -> None:
        """Drop every result of this store: after a change made here, the next page counts
        it in line instead of showing the count from before (one whole-store read each)."""
        with self._lock:
            self._stores.pop(mem.store, None)

    def _refresh(
        self, store, key: tuple, token: Any, compute: Callable[[], Any], entry: _Entry
    ) -> None:
        try:
            value = compute()
            with self._lock:
                # forgotten meanwhile (a change made here): a count begun before the change
                # must not come back as the latest
                known = self._stores.get(store)
                if known is None or known.get(key) is not entry:
                    return
            self._store(store, key, token, value)
        except Exception:  # keep serving the previous value; say why in the log
            log.exception("recomputing %s failed", key[0])
            with self._lock:
                known = self._stores.get(store)
                current = known.get(key) if known is not None else None
                if current is not None:
                    current.refreshing = False

    def _store(self, store, key: tuple, token: Any, value: Any) -> None:
        with self._lock:
            items = self._stores.setdefault(store, OrderedDict())
            items[key] = _Entry(token, value)
            items.move_to_end(key)
            while len(items) > self.size:
                items.popitem(last=False)


AGGREGATES = StaleWhileRevalidate()


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
    per_day: dict[int, tuple[int, int]] = field(default_factory=dict)  # local day -> counts
    sessions: int = 0


def overview(mem: Memory, scopes: list[str] | None) -> Overview:
    return AGGREGATES.get(mem, ("overview", _key(scopes)), lambda: _overview(mem, scopes))


def _labelled(counts: Mapping[str, int] | Mapping[str | None, int]) -> dict[str, int]:
    """Counts with a label for "no value", the largest first (ties by label), so the pages
    list them alike on every backend."""
    named = {(NONE_LABEL if k is None else k): n for k, n in counts.items()}
    return dict(sorted(named.items(), key=lambda item: (-item[1], item[0])))


def _overview(mem: Memory, scopes: list[str] | None) -> Overview:
    counts = mem.store.breakdown(_scoped(scopes))
    return Overview(
        total=counts.total,
        by_kind=_labelled(counts.by_column["kind"]),
        by_scope=_labelled(counts.by_column["scope"]),
        by_platform=_labelled(counts.by_column["platform"]),
        by_model=_labelled(dict(counts.vectors_by_model)),
        index_status=_labelled(counts.by_column["index_status"]),
        per_day=local_days(counts.per_quarter, mem.config.calendar.zone()),
        sessions=counts.sessions,
    )


def background_backlog(mem: Memory, pending: int) -> dict[str, Any]:
    """The background backlog (``remem.ingest.backlog``) for ``pending`` records, with
    the records still without latent terms (a scan: cached until the store changes; None
    when latent terms are off)."""
    data = mem.indexer.backlog(pending)
    data["latent_missing"] = None
    if "latent_terms" in data:
        count = mem.indexer.latent.count_missing
        data["latent_missing"] = AGGREGATES.get(mem, ("latent-missing",), count)
    return data


def store_size(mem: Memory) -> StoreSize:
    """What the store takes (the file on SQLite, the schema on PostgreSQL)."""
    return mem.store.storage_size()


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


def session_groups(mem: Memory, scopes: list[str] | None, limit: int = 200) -> list[SessionGroup]:
    """The ``limit`` most recently active sessions, grouped by platform, then group."""
    return AGGREGATES.get(
        mem, ("sessions", _key(scopes), limit), lambda: _session_groups(mem, scopes, limit)
    )


def _session_groups(mem: Memory, scopes: list[str] | None, limit: int) -> list[SessionGroup]:
    summaries = mem.store.session_summaries(_scoped(scopes, kinds=["message"]), limit=limit)
    groups: dict[tuple[str, str], SessionGroup] = {}
    for s in summaries:
        key = (s.platform or NONE_LABEL, s.group_name or s.group_id or NONE_LABEL)
        groups.setdefault(key, SessionGroup(*key, [])).sessions.append(
            SessionRow(s.session, s.platform, s.group_id, s.group_name, s.records, s.first, s.last)
        )
    return list(groups.values())  # in order of each group's most recent session


def session_page(
    mem: Memory, scopes: list[str] | None, session: str, *, offset: int, limit: int
) -> tuple[list[Record], int]:
    """One page of a session's records, oldest first on the page, pages counted from the
    newest; returns (records, total in the session)."""
    filters = _scoped(scopes, sessions=[session])
    total = mem.store.count(filters)
    records = mem.list(filters, limit=limit, offset=offset)
    return list(reversed(records)), total


def offset_of(mem: Memory, scopes: list[str] | None, record: Record, page: int) -> int:
    """The page offset (newest-first) on which ``record`` shows in its session."""
    filters = _scoped(scopes, sessions=[record.session], since=record.created_at)
    newer_or_same = mem.store.count(filters)
    return max(newer_or_same - 1, 0) // page * page


MEMORY_STATES = ("current", "superseded", "all")


def memory_filters(scopes: list[str] | None, category: str | None, state: str) -> Filters:
    """The filters of the memories page; ``superseded`` is applied by ``memory_ids``."""
    filters = _scoped(scopes, kinds=["memory"], category=category)
    filters.include_superseded = state != "current"
    return filters


@dataclass
class MemoryPage:
    records: list[Record]
    more: bool  # another page follows
    total: int  # how many match in all, as of the last count (recounted in the background)


def memory_page(
    mem: Memory,
    scopes: list[str] | None,
    *,
    category: str | None,
    state: str,
    offset: int,
    limit: int,
) -> MemoryPage:
    """Memories passing the filters, newest first. ``scopes`` is what the caller may read,
    already narrowed to a requested scope."""
    filters = memory_filters(scopes, category, state)
    ids = memory_ids(mem, filters, state, limit=limit + 1, offset=offset)
    # by id alone: the ids come from the scoped query above, and a scope condition here would
    # lead SQLite to scan the scope's index instead of looking 50 ids up
    got = {r.id: r for r in mem.list(Filters(ids=ids[:limit]), limit=None)}
    total = AGGREGATES.get(
        mem,
        ("memory-count", _key(scopes), category, state),
        lambda: len(memory_ids(mem, filters, state)),
    )
    more = len(ids) > limit
    # The count may be a recount behind (a write through the API or another process): it
    # never says fewer than the rows listed, and the last page knows it exactly.
    listed = offset + min(len(ids), limit)
    if more:
        total = max(total, listed + 1)
    elif ids or offset == 0:
        total = listed
    return MemoryPage([got[i] for i in ids[:limit] if i in got], more, total)


def memory_ids(
    mem: Memory, filters: Filters, state: str, *, limit: int | None = None, offset: int = 0
) -> list[str]:
    """Ids of the memories the page's filters select, newest first (walks the kind/time
    index); ``superseded``: only those whose validity has ended (replaced or undone)."""
    ended_by = time.time() if state == "superseded" else None
    return mem.store.newest_ids(NewestIds(filters, ended_by, limit, offset))


def categories(mem: Memory, scopes: list[str] | None) -> list[str]:
    """The memory categories in use (for the filter's choices)."""

    def compute() -> list[str]:
        return mem.store.distinct_values("category", _scoped(scopes, kinds=["memory"]))

    return AGGREGATES.get(mem, ("categories", _key(scopes)), compute)


def scopes_in_use(mem: Memory) -> list[str]:
    """Every scope that holds a record (the operator's scope choices)."""

    def compute() -> list[str]:
        return mem.store.distinct_values("scope")

    return AGGREGATES.get(mem, ("scopes",), compute)


@dataclass(frozen=True)
class Person:
    """A subject of facts as the people page lists it."""

    key: str  # the subject key: speaker:<id> or name:<name>
    name: str  # the newest fact's subject name
    facts: int


def people(mem: Memory, scopes: list[str] | None) -> list[Person]:
    """Every subject of the facts in these scopes, most facts first (the store's
    ``fact_subjects``, a whole-scope read: kept like the other aggregates)."""

    def compute() -> list[Person]:
        return [Person(*row) for row in mem.store.fact_subjects(scopes)]

    return AGGREGATES.get(mem, ("people", _key(scopes)), compute)


def warm_up(mem: Memory, scope_sets: Iterable[list[str] | None]) -> None:
    """Compute the aggregates the pages show for these callers (in a background thread at
    start-up), so that no page load waits for a whole-store scan."""
    scopes_in_use(mem)
    for scopes in scope_sets:
        overview(mem, scopes)
        session_groups(mem, scopes)
        categories(mem, scopes)
        people(mem, scopes)
