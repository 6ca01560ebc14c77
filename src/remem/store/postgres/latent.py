"""Latent terms by model in the PostgreSQL store (packed ``bytea``, ``remem.embed.latent``)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.latent_sql import SQLLatent
from remem.store.postgres.connection import PostgresConnection


class LatentMixin(SQLLatent, PostgresConnection):
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
