"""The in-memory store's tables, counters and lock, and what every part of it shares:
the write discipline, building records from rows, the meta table and statistics.

Every public method holds the one lock for its whole body. A write validates everything it
was given before it changes anything, so an error leaves the store as it was (what a rolled
back transaction gives the SQLite store). ``transaction()`` holds the lock for a whole block
of writes and keeps a copy of the tables taken at its start, put back if the block raises.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from remem.errors import StoreError, ValidationError
from remem.store.memory.filters import record_predicate
from remem.store.memory.lexical_index import Bm25Index
from remem.store.migrations import LATEST_VERSION
from remem.store.rows import STORED_FIELDS, row_to_record
from remem.store.stats import GroupCounts, StoreStats, record_groups, sum_groups
from remem.types import Fact, Filters, Record

Item = TypeVar("Item")


def first(items: list[Item], limit: int | None, offset: int = 0) -> list[Item]:
    """``items[offset:offset + limit]``; None or a negative limit means all (SQL's LIMIT -1)."""
    return items[offset:] if limit is None or limit < 0 else items[offset : offset + limit]


@dataclass(slots=True)
class StoredRow:
    """One record as a SQL row would hold it: ``STORED_FIELDS`` columns (JSON as text) plus
    the write counter stamp an index catches up by and the last change time."""

    values: dict[str, Any]
    rev: int
    updated_at: float


@dataclass(slots=True)
class StoredVectorRow:
    seq: int
    rowid: int
    model_id: str
    provider: str
    model: str
    dim: int
    data: bytes  # float32 values
    created_at: float


@dataclass(slots=True)
class SessionRow:
    origin_platform: str | None
    parent: str | None
    platform: str | None  # the effective platform: the root's origin platform
    updated_at: float


class MemoryState:
    """The tables every part of ``InMemoryStore`` works on."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False
        self._rows: dict[int, StoredRow] = {}  # rowid -> row; rowids only grow: rowid order
        self._by_id: dict[str, int] = {}
        self._timelines: dict[str, list[tuple[float, int]]] = {}  # session -> (created_at, rowid)
        self._sessions: dict[str, SessionRow] = {}
        self._lexical = Bm25Index()
        self._vectors: dict[int, StoredVectorRow] = {}  # seq -> vector; seqs only grow
        self._record_vectors: dict[int, dict[str, int]] = {}  # rowid -> {model_id: seq}
        # rowid -> {model_id: (content hash of the text read, packed latent terms)}
        self._latent: dict[int, dict[str, tuple[str, bytes]]] = {}
        self._meta: dict[tuple[str, str], str] = {}
        self._facts: dict[
            str, Fact
        ] = {}  # fact id -> fact (replaced whole, never changed in place)
        self._awaiting_facts: set[int] = set()  # rowids whose facts are not extracted yet
        self._next_rowid = 1
        self._next_seq = 1
        self._rev = 0  # bumped by writes an in-memory index must see (stamped on the rows)
        self._deletes = 0  # bumped when records or vectors go: an index reloads
        self._writes = 0  # bumped by every write: the change token

    # ---------------------------------------------------------------- lifecycle
    @property
    def path(self) -> None:
        return None

    @property
    def index_root(self) -> None:
        return None  # an exact scan of what is in memory

    def schema_version(self) -> int:
        """The schema this store holds the data of: always the latest one."""
        return LATEST_VERSION

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def change_token(self) -> tuple[int, int]:
        """Changes whenever a write is applied (nothing else writes to this store)."""
        with self._read():
            return 0, self._writes

    @contextmanager
    def _read(self) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise StoreError("the in-memory store is closed; open a new one")
            yield

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write. The body validates before it changes anything, so an exception means
        nothing was applied and the change token stays as it is."""
        with self._read():
            yield
            self._writes += 1

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """Several writes as one (``Store.transaction``): the lock is held for the whole
        block (other threads wait), and the tables as they were at its start are restored if
        it raises. The copy costs time in proportion to the store (a few milliseconds a
        thousand records): this backend is the reference the others are checked against, not
        one for big data."""
        with self._read():
            saved = self._tables()
            try:
                yield self
            except BaseException:
                vars(self).update(saved)
                raise
            self._writes += 1

    def _tables(self) -> dict[str, Any]:
        """A copy of every table, as deep as writes change them in place (a row's values, a
        session row, a timeline, a record's vector and latent maps, the BM25 postings); what
        is only ever replaced whole (vector rows, meta values) is shared. A new table, or a
        new kind of change in place, must be copied here too: ``tests/store/
        test_memory_store.py`` checks that a rolled back block leaves every table equal."""
        return {
            "_rows": {
                k: StoredRow(dict(r.values), r.rev, r.updated_at) for k, r in self._rows.items()
            },
            "_by_id": dict(self._by_id),
            "_timelines": {k: list(v) for k, v in self._timelines.items()},
            "_sessions": {k: copy.copy(v) for k, v in self._sessions.items()},
            "_lexical": self._lexical.copy(),
            "_vectors": dict(self._vectors),
            "_record_vectors": {k: dict(v) for k, v in self._record_vectors.items()},
            "_latent": {k: dict(v) for k, v in self._latent.items()},
            "_meta": dict(self._meta),
            "_facts": dict(self._facts),
            "_awaiting_facts": set(self._awaiting_facts),
            **{
                name: getattr(self, name)
                for name in ("_closed", "_next_rowid", "_next_seq", "_rev", "_deletes", "_writes")
            },
        }

    def _bump_rev(self) -> int:
        self._rev += 1
        return self._rev

    # ---------------------------------------------------------------- rows
    def _record(self, rowid: int) -> Record:
        """A fresh ``Record`` (callers may change it without changing the store)."""
        values = self._rows[rowid].values
        return row_to_record((rowid, *(values[name] for name in STORED_FIELDS)))

    def _records_lacking(
        self,
        lacks: Callable[[int], bool],
        limit: int,
        after_rowid: int,
        before_rowid: int | None = None,
    ) -> list[Record]:
        """Records for which ``lacks(rowid)`` (derived data still owed: a vector, latent
        terms), at most ``limit`` (negative: no limit): after ``after_rowid`` in rowid order,
        or, given ``before_rowid``, below it newest first."""
        out: list[Record] = []
        with self._read():
            rows = self._rows if before_rowid is None else reversed(list(self._rows))
            for rowid in rows:
                if 0 <= limit <= len(out):
                    break
                inside = rowid > after_rowid if before_rowid is None else rowid < before_rowid
                if inside and lacks(rowid):
                    out.append(self._record(rowid))
        return out

    def _count_lacking(self, lacks: Callable[[int], bool]) -> int:
        with self._read():
            return sum(1 for rowid in self._rows if lacks(rowid))

    def _predicate(
        self, filters: Filters | None, now: float | None = None
    ) -> Callable[[dict[str, Any]], bool]:
        return record_predicate(filters, now, self._sessions_with_platform)

    def _sessions_with_platform(self, platform: str) -> set[str]:
        return {sid for sid, s in self._sessions.items() if s.platform == platform}

    def _remove_vector(self, seq: int) -> None:
        vector = self._vectors.pop(seq)
        models = self._record_vectors[vector.rowid]
        del models[vector.model_id]
        if not models:
            del self._record_vectors[vector.rowid]

    def _add_vector(
        self,
        rowid: int,
        model_id: str,
        provider: str,
        model: str,
        data: bytes,
        dim: int,
        created_at: float,
    ) -> None:
        """Write one vector (replacing the record's vector of that model) under a new seq."""
        old = self._record_vectors.get(rowid, {}).get(model_id)
        if old is not None:
            self._remove_vector(old)
        seq = self._next_seq
        self._next_seq += 1
        self._vectors[seq] = StoredVectorRow(
            seq, rowid, model_id, provider, model, dim, data, created_at
        )
        self._record_vectors.setdefault(rowid, {})[model_id] = seq

    def _forget_facts_of(self, record_ids: Collection[str]) -> None:
        """What deleting these records does to facts (``FactStore``): facts citing one as a
        source go, facts one of them closed are open again. Called inside a write."""
        for fact_id, fact in list(self._facts.items()):
            if any(i in record_ids for i in fact.source_ids):
                del self._facts[fact_id]
            elif fact.closed_by in record_ids:
                self._facts[fact_id] = dataclasses.replace(fact, valid_to=None, closed_by=None)

    # ---------------------------------------------------------------- meta
    def meta_get(self, namespace: str, key: str) -> str | None:
        with self._read():
            return self._meta.get((namespace, key))

    def meta_set(self, namespace: str, key: str, value: str | None) -> None:
        with self._write():
            if value is None:
                self._meta.pop((namespace, key), None)
            else:
                self._meta[(namespace, key)] = value

    def meta_add(self, namespace: str, key: str, amount: int) -> int:
        """Add to an integer counter kept in the meta table; returns the new value."""
        with self._write():
            old = self._meta.get((namespace, key), "0")
            try:
                value = int(old) + amount
            except ValueError:
                raise ValidationError(
                    f"meta {namespace}/{key}", old, "it holds no integer; meta_set it first"
                ) from None
            self._meta[(namespace, key)] = str(value)
            return value

    # ---------------------------------------------------------------- stats
    def stats(self) -> StoreStats:
        """The SQLite store's statistics keys (``file_bytes`` 0, ``path`` ":memory:")."""
        with self._read():
            rows = [row.values for row in self._rows.values()]
            dims = Counter((v.model_id, v.dim) for v in self._vectors.values())
            dropped = int(self._meta.get(("indexing", "dropped"), 0))

            def group(columns: tuple[str, ...]) -> GroupCounts:
                counts = Counter(tuple(v[column] for column in columns) for v in rows)
                return sum_groups(columns, ((*values, n) for values, n in counts.items()))

            errors = [v for v in rows if v["index_error"] is not None]
            return {
                "records": len(rows),
                **record_groups(group),
                "vectors": [
                    {"model_id": m, "dim": d, "count": n} for (m, d), n in sorted(dims.items())
                ],
                "index_errors": sum(1 for v in errors if v["index_status"] != "skipped"),
                "queue_dropped_total": dropped,
                "sessions": len({v["session"] for v in rows if v["session"] is not None}),
                "facts": len(self._facts),
                "schema_version": LATEST_VERSION,
                "file_bytes": 0,
                "path": ":memory:",
            }
