"""The Store protocol every backend implements (SQLite now; PostgreSQL behind the same one)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from remem.types import Filters, Record


class Store(Protocol):
    path: Path

    def insert_records(
        self, rows: Sequence[tuple[dict[str, Any], str]], *, on_conflict: str = "error"
    ) -> list[int | None]: ...
    def get(self, record_id: str) -> Record | None: ...
    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]: ...
    def list_records(
        self,
        filters: Filters | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Record]: ...
    def count(self, filters: Filters | None = None) -> int: ...
    def delete(self, record_ids: Sequence[str]) -> int: ...
    def lexical_search(
        self, match: str, filters: Filters | None, limit: int, now: float | None = None
    ) -> list[tuple[int, float]]: ...
    def put_vectors(
        self,
        model_id: str,
        provider: str,
        model: str,
        items: Sequence[tuple[int, np.ndarray]],
        *,
        mark_indexed: bool = True,
    ) -> int: ...
    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None: ...
    def records_missing_vectors(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]: ...
    def set_session(self, session: str, origin_platform: str | None = None,
                    parent: str | None = None) -> None: ...  # fmt: skip
    def session_info(self, session: str) -> dict[str, Any] | None: ...
    def sessions_on_platform(self, platform: str) -> list[str]: ...
    def change_token(self) -> tuple[int, int]: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
