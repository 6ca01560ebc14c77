"""The embedding queue across processes: records without a vector are claimed before they
are embedded, so any number of workers (``remem embed`` runs, serve workers) share the
backlog without embedding a record twice.

A claim is a row in ``claims`` (record, model, worker, until). Claiming picks candidates with
``FOR UPDATE SKIP LOCKED`` (workers running at once take disjoint rows instead of queueing on
each other), then takes each with ``INSERT ... ON CONFLICT DO UPDATE ... WHERE expired``,
which sees the latest committed claim whatever the snapshot: a live claim of another worker
wins, an expired one (a crashed worker's) is taken over. A last statement drops rows whose
vector was committed meanwhile. Writing the vector deletes the claim (``put_vectors``).
Times are the server's clock, so workers on several machines agree.
"""

from __future__ import annotations

from remem.store.postgres.filters import RECORD_COLUMNS
from remem.store.postgres.vectors import VectorsMixin
from remem.store.queries import Backlog
from remem.store.rows import row_to_record
from remem.types import Record

_NOW = "extract(epoch FROM clock_timestamp())"


class ClaimsMixin(VectorsMixin):
    def claim_missing_vectors(
        self, backlog: Backlog, worker: str, lease_s: float = 300.0
    ) -> list[Record]:
        """See ``ClaimStore.claim_missing_vectors``."""
        if backlog.before_rowid is not None:
            raise ValueError(
                f"claim_missing_vectors pages in rowid order: Backlog.before_rowid must be "
                f"None, got {backlog.before_rowid!r}; use after_rowid"
            )
        model_id, limit, after_rowid = backlog.model_id, backlog.limit, backlog.after_rowid
        with self.write() as c:
            candidates = [
                int(r[0])
                for r in c.execute(
                    "SELECT r.rowid FROM records r WHERE r.rowid > %s "
                    "AND r.index_status != 'skipped' AND NOT EXISTS (SELECT 1 FROM vectors v "
                    "WHERE v.record_rowid = r.rowid AND v.model_id = %s) AND NOT EXISTS "
                    "(SELECT 1 FROM claims k WHERE k.rowid = r.rowid AND k.model_id = %s "
                    f"AND k.worker != %s AND k.until > {_NOW}) "
                    "ORDER BY r.rowid LIMIT %s FOR UPDATE OF r SKIP LOCKED",
                    (after_rowid, model_id, model_id, worker, limit),
                )
            ]
            if not candidates:
                return []
            claimed = c.execute(
                "INSERT INTO claims (rowid, model_id, worker, until) "
                f"SELECT unnest(%s::bigint[]), %s, %s, {_NOW} + %s "
                "ON CONFLICT (rowid, model_id) DO UPDATE SET worker = excluded.worker, "
                f"until = excluded.until WHERE claims.worker = excluded.worker "
                f"OR claims.until <= {_NOW} RETURNING rowid",
                (candidates, model_id, worker, lease_s),
            ).fetchall()
            mine = sorted(int(r[0]) for r in claimed)
            done = c.execute(  # a fresh snapshot: vectors committed since the first SELECT
                "DELETE FROM claims k WHERE k.model_id = %s AND k.rowid = ANY(%s::bigint[]) "
                "AND EXISTS (SELECT 1 FROM vectors v WHERE v.record_rowid = k.rowid "
                "AND v.model_id = %s) RETURNING k.rowid",
                (model_id, mine, model_id),
            ).fetchall()
            finished = {int(r[0]) for r in done}
            rows = c.execute(
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid = ANY(%s::bigint[]) "
                "ORDER BY r.rowid",
                ([r for r in mine if r not in finished],),
            ).fetchall()
        return [row_to_record(r) for r in rows]

    def release_claims(self, model_id: str, worker: str) -> int:
        """Give back what ``worker`` still holds (records it could not embed return to the
        queue at once instead of when the lease ends). Returns how many."""
        with self.write() as c:
            gone = c.execute(
                "DELETE FROM claims WHERE model_id = %s AND worker = %s RETURNING rowid",
                (model_id, worker),
            ).fetchall()
        return len(gone)
