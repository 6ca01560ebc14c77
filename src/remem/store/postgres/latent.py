"""Latent terms by model in the PostgreSQL store (packed ``bytea``, ``remem.embed.latent``)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.postgres.connection import PostgresConnection
from remem.store.postgres.filters import RECORD_COLUMNS
from remem.store.rows import row_to_record
from remem.types import Record

# a record lacks current terms: none of this model, or read from a text it no longer holds
_MISSING = (
    "r.index_status != 'skipped' AND NOT EXISTS (SELECT 1 FROM latent_terms l WHERE "
    "l.record_rowid = r.rowid AND l.model_id = %s AND l.content_hash = r.content_hash)"
)


class LatentMixin(PostgresConnection):
    def put_latent_terms(self, model_id: str, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (rowid, content hash, packed terms), replacing older ones; records deleted
        meanwhile or holding another text now are skipped (a rowid given twice keeps its
        last terms). Returns how many were written."""
        latest = {int(rowid): (content_hash, bytes(terms)) for rowid, content_hash, terms in items}
        if not latest:
            return 0
        rowids = list(latest)
        hashes = [latest[r][0] for r in rowids]
        terms = [latest[r][1] for r in rowids]
        with self.write() as c:
            # one statement: only rows whose record still holds that text are written
            cur = c.execute(
                "INSERT INTO latent_terms (record_rowid, model_id, content_hash, terms) "
                "SELECT r.rowid, %s, r.content_hash, t.terms FROM "
                "unnest(%s::bigint[], %s::text[], %s::bytea[]) AS t (rowid, content_hash, terms) "
                "JOIN records r ON r.rowid = t.rowid AND r.content_hash = t.content_hash "
                "ON CONFLICT (record_rowid, model_id) DO UPDATE SET "
                "content_hash = excluded.content_hash, terms = excluded.terms",
                (model_id, rowids, hashes, terms),
            )
            return max(cur.rowcount, 0)

    def latent_terms_of(self, model_id: str, rowids: Sequence[int]) -> dict[int, bytes]:
        """The stored terms of these records that were read from their current text."""
        wanted = list(dict.fromkeys(int(r) for r in rowids))
        if not wanted:
            return {}
        rows = self.query(
            "SELECT l.record_rowid, l.terms FROM latent_terms l JOIN records r ON "
            "r.rowid = l.record_rowid AND r.content_hash = l.content_hash "
            "WHERE l.model_id = %s AND l.record_rowid = ANY(%s::bigint[])",
            (model_id, wanted),
        )
        return {int(r[0]): bytes(r[1]) for r in rows}

    def records_missing_latent_terms(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records (not 'skipped') without current terms of this model, in rowid order."""
        rows = self.query(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > %s AND {_MISSING} "
            "ORDER BY r.rowid LIMIT %s",
            (after_rowid, model_id, limit),
        )
        return [row_to_record(r) for r in rows]

    def count_missing_latent_terms(self, model_id: str) -> int:
        row = self.query_one(f"SELECT count(*) FROM records r WHERE {_MISSING}", (model_id,))
        return int(row[0])
