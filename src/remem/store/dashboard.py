"""The web UI's reads of a store (``DashboardStore``) and what they return: counts by column,
per hour and per model, sessions, distinct values, the lines a pattern matches, the store's
size. Part of every backend's ``Store`` (``store/base.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from remem.store.queries import NewestIds
from remem.types import Filters

ALL_NEWEST = NewestIds()

# The record columns a breakdown counts by, and those whose values a form offers.
BREAKDOWN_COLUMNS = ("kind", "scope", "platform", "index_status")
# How a SQL backend groups them: kind and scope each from an index, the two no index leads
# with in one scan of the records together
BREAKDOWN_GROUPS = (("kind",), ("scope",), ("platform", "index_status"))
DistinctColumn = Literal["scope", "category", "speaker_label"]
# The parts of a text pattern every backend matches the same way, case-sensitively, over the
# whole text (``speaker_lines_matching``): "%" stands for any run of characters, "[A-Z]" for one
# capital ASCII letter, any other character for itself.
PATTERN_PARTS = re.compile(r"%|\[A-Z\]|.", re.S)


def pattern_regex(pattern: str, literal: Callable[[str], str], end: str = "$") -> str:
    """A text pattern as a regular expression searched for in the text (anchored where the
    pattern does not start or end with "%"; ``end``: the flavour's end of text), each other
    character written by ``literal``."""
    parts = PATTERN_PARTS.findall(pattern)
    head = "" if parts[:1] == ["%"] else "^"
    tail = "" if parts[-1:] == ["%"] and len(parts) > 1 else end
    body = parts[1 if head == "" else 0 : len(parts) - (1 if tail == "" else 0)]
    regex = "".join(".*" if p == "%" else p if p == "[A-Z]" else literal(p) for p in body)
    return f"{head}{regex}{tail}"


# Every UTC offset in use since 1972 is a multiple of 15 minutes (Nepal's +05:45, Lord Howe's
# half-hour daylight saving), so each quarter of an hour lies within one local day anywhere.
QUARTER = 900


@dataclass(slots=True)
class RecordBreakdown:
    """The records passing one filter, counted as a dashboard shows them, in one snapshot.
    A ``None`` key counts the records without a value in that column."""

    by_column: dict[str, dict[str | None, int]]  # column of BREAKDOWN_COLUMNS -> value -> n
    vectors_by_model: dict[str, int]  # model id -> vectors of these records
    # (quarter of an hour: created_at // 900, kind) -> n; the UI folds them into the days of
    # calendar.timezone
    per_quarter: dict[tuple[int, str], int]
    sessions: int  # distinct sessions among these records

    @property
    def total(self) -> int:
        return sum(self.by_column["kind"].values())


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One session as the records passing a filter show it. Platform and group are the
    greatest value among its records (code point order; they normally agree)."""

    session: str
    platform: str | None
    group_id: str | None
    group_name: str | None
    records: int
    first: float  # created_at of its oldest record
    last: float  # and of its newest


@dataclass(frozen=True, slots=True)
class StoreSize:
    """What a store takes: ``measure`` says what was measured (the database file with its
    WAL; the tables and indexes of the store's schema on the server; nothing, in memory);
    ``location`` names it (a path, a URL without password and its schema, ``:memory:``)."""

    bytes: int
    measure: Literal["file", "schema", "memory"]
    location: str


@runtime_checkable
class DashboardStore(Protocol):
    """Counts and listings over a whole (filtered) store, for the web UI. They scan, so a
    backend runs them off the connection ordinary requests use (SQLite: a read-only
    connection of their own; PostgreSQL: a pooled connection in a read-only transaction);
    callers cache the answers by ``change_token``."""

    def breakdown(self, filters: Filters | None = None) -> RecordBreakdown: ...

    def session_summaries(
        self, filters: Filters | None = None, *, limit: int = 200
    ) -> list[SessionSummary]:
        """Sessions of the records passing the filters, the most recently active first
        (ties: by session)."""
        ...

    def distinct_values(self, column: DistinctColumn, filters: Filters | None = None) -> list[str]:
        """The values (not None) the column holds among these records, in code point order."""
        ...

    def speaker_lines_matching(
        self, patterns: Sequence[str], filters: Filters | None = None, *, limit: int = 10_000
    ) -> list[tuple[str, str]]:
        """(speaker label, text) of the records with a speaker label whose whole text matches
        one of ``patterns``, case-sensitively ("%": any run of characters, "[A-Z]": a capital
        ASCII letter, any other character itself), newest first, at most ``limit``: the lines
        a self-introduction is looked for in."""
        ...

    def newest_ids(self, query: NewestIds = ALL_NEWEST) -> list[str]:
        """The ids ``query`` names, newest first (created_at, then rowid)."""
        ...

    def storage_size(self) -> StoreSize: ...
