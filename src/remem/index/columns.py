"""Filter columns beside a vector index: kind, scope, session ... as small integer codes.

A filtered search turns the filters into one boolean mask over these columns instead of asking
SQLite. The store re-checks every returned hit against the filters, so a stale column can cost
a hit but never leak one. Rows are loaded a whole column at a time (a dict lookup per cell in C,
no Python call per cell): at 1M records coding cell by cell cost 6M calls and seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from remem.types import Filters

CODED = ("kind", "scope", "session", "role", "platform", "category")
# Positions of the coded columns in a row of the store's INDEX_META_FIELDS
# ("rowid, kind, scope, session, role, created_at, platform, category, valid_to").
_META_POSITION = {"kind": 1, "scope": 2, "session": 3, "role": 4, "platform": 6, "category": 7}
_CREATED, _VALID_TO = 5, 8


@dataclass
class Codes:
    """String <-> small int per filter column; code 0 means NULL."""

    maps: dict[str, dict[str | None, int]] = field(
        default_factory=lambda: {c: {None: 0} for c in CODED}
    )

    def codes(self, column: str, values: tuple) -> np.ndarray:
        """Codes of a whole column of values (new values get new codes)."""
        table = self.maps[column]
        for value in dict.fromkeys(values):  # the distinct values, in C
            if value not in table:
                table[value] = len(table)
        return np.fromiter(map(table.__getitem__, values), np.int32, len(values))

    def lookup(self, column: str, values: list[str]) -> np.ndarray:
        table = self.maps[column]
        return np.array([table[v] for v in values if v in table], dtype=np.int32)


class FilterColumns:
    """One row per record position; ``rowids[:size]`` says which record each position is."""

    def __init__(self) -> None:
        self.size = 0
        self.rowids = np.empty(0, np.int64)
        self.pos: dict[int, int] = {}
        self.codes = Codes()
        self.cols = {c: np.empty(0, np.int32) for c in CODED}
        self.created = np.empty(0, np.float64)
        self.valid_to = np.empty(0, np.float64)

    def _grow(self, need: int) -> None:
        capacity = len(self.rowids)
        if need <= capacity:
            return
        new_cap = max(need, int(capacity * 1.5) + 1024)

        def grown(arr: np.ndarray) -> np.ndarray:
            # rows past ``size`` are never read: np.empty, not np.full (it touches every page)
            out = np.empty(new_cap, dtype=arr.dtype)
            out[: self.size] = arr[: self.size]
            return out

        self.rowids = grown(self.rowids)
        self.cols = {c: grown(a) for c, a in self.cols.items()}
        self.created = grown(self.created)
        self.valid_to = grown(self.valid_to)

    def add(self, rowids: list[int]) -> None:
        """New positions at the end, in this order; they match no filter value until their
        rows arrive (codes NULL, created 0, valid for ever)."""
        if not rowids:
            return
        start, end = self.size, self.size + len(rowids)
        self._grow(end)
        self.pos.update(zip(rowids, range(start, end), strict=True))
        self.rowids[start:end] = rowids
        for c in CODED:
            self.cols[c][start:end] = 0
        self.created[start:end] = 0
        self.valid_to[start:end] = math.inf
        self.size = end

    def apply(self, meta: list[tuple], *, add_unknown: bool = False) -> None:
        """Take rows of INDEX_META_FIELDS; rows of unknown records are skipped, or added at
        the end with ``add_unknown``."""
        if not meta:
            return
        columns = list(zip(*meta, strict=True))
        get = self.pos.get
        if add_unknown:
            self.add([r for r in columns[0] if get(r) is None])
        pos = np.fromiter((get(r, -1) for r in columns[0]), np.int64, len(meta))
        known = pos >= 0
        if not known.any():
            return
        pos = pos[known]
        for column, index in _META_POSITION.items():
            self.cols[column][pos] = self.codes.codes(column, columns[index])[known]
        self.created[pos] = np.asarray(columns[_CREATED], np.float64)[known]
        valid_to = np.array(columns[_VALID_TO], np.float64)  # None -> nan
        self.valid_to[pos] = np.where(np.isnan(valid_to), math.inf, valid_to)[known]

    def is_sorted(self) -> bool:
        r = self.rowids[: self.size]
        return bool(np.all(r[1:] > r[:-1]))

    def sort_by_rowid(self) -> None:
        """Reorder the positions by rowid (then ``rowids[mask]`` comes out sorted)."""
        n = self.size
        order = np.argsort(self.rowids[:n], kind="stable")
        self.rowids = self.rowids[:n][order]
        self.cols = {c: a[:n][order] for c, a in self.cols.items()}
        self.created = self.created[:n][order]
        self.valid_to = self.valid_to[:n][order]
        self.pos = dict(zip(self.rowids.tolist(), range(n), strict=True))

    def mask(self, filters: Filters | None, now: float | None, store) -> np.ndarray | None:
        """Positions passing the filters (None: no filter). ``store`` resolves record ids and
        the sessions of a platform."""
        if filters is None or filters.is_empty():
            return None
        n = self.size
        cols, codes = self.cols, self.codes
        mask = np.ones(n, dtype=bool)
        platform = filters.platform
        for column, values in (
            *filters.listed_columns(),
            (
                "platform",
                [platform] if platform is not None and not filters.platform_by_session else None,
            ),
            ("category", [filters.category] if filters.category is not None else None),
        ):
            if values is not None:
                mask &= np.isin(cols[column][:n], codes.lookup(column, values))
        if platform is not None and filters.platform_by_session:
            on_platform = np.isin(cols["platform"][:n], codes.lookup("platform", [platform]))
            sessions = store.sessions_on_platform(platform)
            if sessions:
                on_platform |= np.isin(cols["session"][:n], codes.lookup("session", sessions))
            mask &= on_platform
        if filters.exclude_roles:
            mask &= ~np.isin(cols["role"][:n], codes.lookup("role", filters.exclude_roles))
        if filters.exclude_ids:
            rowids = store.rowids_for_ids(filters.exclude_ids)
            mask &= ~np.isin(self.rowids[:n], np.asarray(rowids, dtype=np.int64))
        if filters.since is not None:
            mask &= self.created[:n] >= filters.since
        if filters.until is not None:
            mask &= self.created[:n] <= filters.until
        if filters.include_superseded is False and now is not None:
            mask &= self.valid_to[:n] > now
        if filters.ids is not None:
            # rare (a tool call on a known set of records): resolve the ids once per search
            rowids = store.rowids_for_ids(filters.ids)
            mask &= np.isin(self.rowids[:n], np.asarray(rowids, dtype=np.int64))
        return mask
