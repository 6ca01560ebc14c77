"""Latent terms in both SQL backends, written once over their ``SQLDialect`` (issue 42):
reading them and finding the records that lack current ones. Writing them stays each
backend's own (SQLite: row by row; PostgreSQL: one statement that locks the live records)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.sql_base import SQLConnection
from remem.types import Record

# a record lacks current terms: none of this model, or read from a text it no longer holds
_MISSING = (
    "r.index_status != 'skipped' AND NOT EXISTS (SELECT 1 FROM latent_terms l WHERE "
    "l.record_rowid = r.rowid AND l.model_id = ? AND l.content_hash = r.content_hash)"
)


class SQLLatent(SQLConnection):
    def latent_terms_of(self, model_id: str, rowids: Sequence[int]) -> dict[int, bytes]:
        """The stored terms of these records that were read from their current text."""
        d = self._sql
        out: dict[int, bytes] = {}
        for chunk in d.chunks(list(dict.fromkeys(int(r) for r in rowids))):
            member, bound = d.member("l.record_rowid", chunk, array="bigint")
            sql = d.sql(
                "SELECT l.record_rowid, l.terms FROM latent_terms l JOIN records r ON "
                "r.rowid = l.record_rowid AND r.content_hash = l.content_hash "
                "WHERE l.model_id = ? AND "
            )
            out.update(
                (int(r[0]), bytes(r[1])) for r in self.query(sql + member, [model_id, *bound])
            )
        return out

    def records_missing_latent_terms(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records (not 'skipped') without current terms of this model, in rowid order."""
        return self._records(
            f"WHERE r.rowid > ? AND {_MISSING} ORDER BY r.rowid LIMIT ?",
            (after_rowid, model_id, limit),
        )

    def count_missing_latent_terms(self, model_id: str) -> int:
        sql = self._sql.sql(f"SELECT count(*) FROM records r WHERE {_MISSING}")
        return int(self.query_one(sql, (model_id,))[0])
