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
            # the records that still hold that text, locked against a concurrent delete (as
            # put_vectors does), then one statement writes their terms
            cur = c.execute(
                "WITH live AS (SELECT r.rowid, r.content_hash FROM records r JOIN "
                "unnest(%s::bigint[], %s::text[]) AS t (rowid, content_hash) "
                "ON r.rowid = t.rowid AND r.content_hash = t.content_hash "
                "ORDER BY r.rowid FOR KEY SHARE OF r) "
                "INSERT INTO latent_terms (record_rowid, model_id, content_hash, terms) "
                "SELECT live.rowid, %s, live.content_hash, t.terms FROM live JOIN "
                "unnest(%s::bigint[], %s::bytea[]) AS t (rowid, terms) ON t.rowid = live.rowid "
                "ON CONFLICT (record_rowid, model_id) DO UPDATE SET "
                "content_hash = excluded.content_hash, terms = excluded.terms",
                (rowids, hashes, model_id, rowids, terms),
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
