"""Latent terms by model in the SQLite store (packed BLOBs, ``remem.embed.latent``)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.latent_sql import SQLLatent
from remem.store.sqlite.connection import SQLiteConnection


class LatentMixin(SQLLatent, SQLiteConnection):
    def put_latent_terms(self, model_id: str, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (rowid, content hash, packed terms), replacing older ones; records deleted
        meanwhile or holding another text now are skipped. Returns how many were written."""
        if not items:
            return 0
        written = 0
        with self.write() as c:
            for rowid, content_hash, terms in items:
                current = c.execute(
                    "SELECT 1 FROM records WHERE rowid = ? AND content_hash = ?",
                    (rowid, content_hash),
                ).fetchone()
                if current is None:
                    continue
                c.execute(
                    "INSERT INTO latent_terms (record_rowid, model_id, content_hash, terms) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (record_rowid, model_id) DO UPDATE SET "
                    "content_hash = excluded.content_hash, terms = excluded.terms",
                    (rowid, model_id, content_hash, bytes(terms)),
                )
                written += 1
        return written
