"""What `remem doctor` asks of the PostgreSQL store.

PostgreSQL checks its own pages; what can disagree here is remem's bookkeeping: the BM25
totals and document frequencies kept beside the lexical rows, and vectors whose stored
dimension does not match their value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from remem.store.postgres.lexical import LexicalWriter, lexical_totals
from remem.store.postgres.vectors import VectorsMixin


class MaintenanceMixin(VectorsMixin):
    def integrity_problems(self) -> list[str]:
        """The BM25 statistics that disagree with the lexical rows (empty when sound)."""
        with self.read() as c:
            rows, total = lexical_totals(c)
            real = c.execute("SELECT count(*), coalesce(sum(len), 0) FROM lexical").fetchone()
            drift = c.execute(
                "SELECT count(*) FROM (SELECT term, sum(df_tok) AS df_tok, sum(df_any) AS df_any "
                "FROM lexical_terms GROUP BY term) t FULL JOIN (SELECT term, "
                "count(DISTINCT rowid) AS n, count(DISTINCT rowid) FILTER (WHERE own) AS n_own "
                "FROM (SELECT rowid, term, true AS own FROM lexical, unnest(tok) AS term "
                "UNION ALL SELECT rowid, term, false FROM lexical, unnest(ctx) AS term) u "
                "GROUP BY term) d USING (term) WHERE coalesce(t.df_any, 0) != coalesce(d.n, 0) "
                "OR coalesce(t.df_tok, 0) != coalesce(d.n_own, 0)"
            ).fetchone()
        problems = []
        if real is not None and (rows, total) != (int(real[0]), int(real[1])):
            problems.append(
                f"lexical totals say {rows} rows / {total} terms, the rows hold "
                f"{real[0]} / {real[1]}"
            )
        if drift is not None and drift[0]:
            problems.append(f"{drift[0]} lexical document frequencies disagree with the rows")
        return problems

    def lexical_row_problems(self) -> tuple[list[int], list[int]]:
        """(records without a lexical row, lexical rows without a record), as rowids; a
        foreign key deletes lexical rows with their record, so the second is empty."""
        missing = self.query(
            "SELECT r.rowid FROM records r LEFT JOIN lexical l ON l.rowid = r.rowid "
            "WHERE l.rowid IS NULL ORDER BY r.rowid"
        )
        return [int(r[0]) for r in missing], []

    def repair_lexical_rows(self, orphans: Sequence[int], tokens: Mapping[int, str]) -> None:
        """Drop orphan lexical rows and write the given records' tokens (no context)."""
        lexical = LexicalWriter()
        with self.write() as c:
            lexical.forget(c, [*orphans, *tokens])
            lexical.insert(c, [(rowid, text, "") for rowid, text in tokens.items()])
            lexical.flush(c)

    def malformed_vectors(self) -> list[int]:
        """Sequence numbers of vectors whose value does not hold ``dim`` numbers."""
        rows = self.query("SELECT seq FROM vectors WHERE vector_dims(vec) != dim ORDER BY seq")
        return [int(r[0]) for r in rows]
