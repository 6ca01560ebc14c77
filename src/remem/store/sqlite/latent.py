"""Latent terms by model in the SQLite store (packed BLOBs, ``remem.embed.latent``)."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.rows import row_to_record
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.filters import RECORD_COLUMNS, in_marks
from remem.store.sqlite.records import chunks
from remem.types import Record

# a record lacks current terms: none of this model, or read from a text it no longer holds
_MISSING = (
    "r.index_status != 'skipped' AND NOT EXISTS (SELECT 1 FROM latent_terms l WHERE "
    "l.record_rowid = r.rowid AND l.model_id = ? AND l.content_hash = r.content_hash)"
)


class LatentMixin(SQLiteConnection):
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

    def latent_terms_of(self, model_id: str, rowids: Sequence[int]) -> dict[int, bytes]:
        """The stored terms of these records that were read from their current text."""
        out: dict[int, bytes] = {}
        for chunk in chunks(list(dict.fromkeys(rowids))):
            sql = (
                "SELECT l.record_rowid, l.terms FROM latent_terms l JOIN records r ON "
                "r.rowid = l.record_rowid AND r.content_hash = l.content_hash "
                f"WHERE l.model_id = ? AND l.record_rowid IN ({in_marks(chunk)})"
            )
            out.update((int(r[0]), bytes(r[1])) for r in self.query(sql, [model_id, *chunk]))
        return out

    def records_missing_latent_terms(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records (not 'skipped') without current terms of this model, in rowid order."""
        rows = self.query(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > ? AND {_MISSING} "
            "ORDER BY r.rowid LIMIT ?",
            (after_rowid, model_id, limit),
        )
        return [row_to_record(r) for r in rows]

    def count_missing_latent_terms(self, model_id: str) -> int:
        row = self.query_one(f"SELECT count(*) FROM records r WHERE {_MISSING}", (model_id,))
        return int(row[0])
