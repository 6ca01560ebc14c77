"""What `remem doctor` asks of the SQLite file: integrity, index rows, malformed vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from remem.store.sqlite.connection import SQLiteConnection


class MaintenanceMixin(SQLiteConnection):
    def integrity_problems(self) -> list[str]:
        """What ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check`` report, and vector
        counts that disagree with the vectors (empty when the file is sound). These read
        every row, so they run here and after a migration, never on every open."""
        result = [r[0] for r in self.query("PRAGMA integrity_check")]
        problems = [] if result == ["ok"] else result
        broken = self.query("PRAGMA foreign_key_check")
        if broken:
            tables = sorted({r[0] for r in broken})
            problems.append(f"{len(broken)} broken references in {', '.join(tables)}")
        counted = self.query(
            "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim "
            "EXCEPT SELECT model_id, dim, n FROM vector_counts"
        )
        if counted or self.query(
            "SELECT model_id, dim, n FROM vector_counts EXCEPT "
            "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim"
        ):
            problems.append("the vector counts disagree with the stored vectors")
        kept, actual = self.query_one(
            "SELECT (SELECT value FROM counters WHERE name = 'records'), "
            "(SELECT count(*) FROM records)"
        )
        if kept != actual:
            problems.append(f"the record count says {kept}, the table holds {actual}")
        return problems

    def lexical_row_problems(self) -> tuple[list[int], list[int]]:
        """(records without a lexical row, lexical rows without a record), as rowids."""
        missing = self.query(
            "SELECT rowid FROM records WHERE rowid NOT IN (SELECT rowid FROM records_fts)"
        )
        orphans = self.query(
            "SELECT rowid FROM records_fts WHERE rowid NOT IN (SELECT rowid FROM records)"
        )
        return [r[0] for r in missing], [r[0] for r in orphans]

    def repair_lexical_rows(self, orphans: Sequence[int], tokens: Mapping[int, str]) -> None:
        """Drop orphan lexical rows and write the given records' tokens (no context)."""
        with self.write() as c:
            for rowid in orphans:
                c.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
            for rowid, text in tokens.items():
                c.execute(
                    "INSERT INTO records_fts (rowid, tokens, context) VALUES (?, ?, '')",
                    (rowid, text),
                )

    def malformed_vectors(self) -> list[int]:
        """Sequence numbers of vectors whose blob does not hold ``dim`` float32 values."""
        return [r[0] for r in self.query("SELECT seq FROM vectors WHERE length(vec) != dim * 4")]
