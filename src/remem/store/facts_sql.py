"""The ``FactStore`` as SQL, written once for both SQL backends (issue 42: no second copy).

Tables (each backend's migration 9): ``facts`` holds a fact's fields, its ``source_ids`` as
a JSON array (their order kept, read back with the row); ``fact_sources (fact_id,
record_id)`` indexes that array by record, so "facts citing record X" is an index lookup, as
``closed_by``'s own index makes "facts X closed" one. Every write of a fact replaces both.

A record delete calls ``forget_records`` inside its own transaction (``FactStore``: facts
citing a deleted record as a source go, facts it closed reopen). Explicit SQL rather than
triggers: it is written here once instead of a SQLite trigger and a PL/pgSQL function, and
it acts on the ids the caller deleted, as the in-memory reference does, also for a fact
citing a record already gone.

SQLite and PostgreSQL differ here only in what their ``SQLDialect`` holds: the placeholder
and how a list is bound, the "no limit" value and how text sorts by code point (as
``dashboard_sql`` explains). ``SQLFacts`` is the protocol's methods over these functions,
on a connection of the backend's ``write()`` or ``read()``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from remem.store.facts_check import check_fact, fact_order
from remem.store.queries import ALL_FACTS, FactBacklog, FactQuery
from remem.store.sql_base import SQLConnection
from remem.store.sql_dialect import SQLDialect
from remem.types import Fact, Record

COLUMNS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Fact))
_SOURCE_IDS_AT = COLUMNS.index("source_ids")
# one statement for both dialects (SQLite 3.24+ and PostgreSQL spell the upsert alike); "?"
# becomes the dialect's placeholder
_UPSERT = (
    f"INSERT INTO facts ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
    "ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in COLUMNS if name != "id")
)


def _to_row(fact: Fact) -> list[Any]:
    row = [getattr(fact, name) for name in COLUMNS]
    row[_SOURCE_IDS_AT] = json.dumps(list(fact.source_ids), ensure_ascii=False)
    return row


def _to_fact(row: Sequence[Any]) -> Fact:
    values = list(row)
    values[_SOURCE_IDS_AT] = tuple(json.loads(values[_SOURCE_IDS_AT]))
    return Fact(*values)


def _select(conn: Any, where: str, params: list[Any], tail: str = "") -> list[Fact]:
    rows = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM facts f{where}{tail}", params)
    return [_to_fact(row) for row in rows.fetchall()]


# ---------------------------------------------------------------- writes
def put_facts(conn: Any, d: SQLDialect, facts: Sequence[Fact]) -> int:
    """Insert facts, replacing stored ones of the same id (a fact given twice: its last
    version), which the caller has checked (``check_fact``). The caller's transaction makes
    it all or nothing."""
    given = {fact.id: fact for fact in facts}
    latest = {fact_id: given[fact_id] for fact_id in sorted(given)}  # one lock order for all
    if not latest:
        return 0
    mark = d.mark
    cur = conn.cursor()
    # The fact rows first: on PostgreSQL the upsert locks each row (waiting for a concurrent
    # writer of the same fact to commit), so the source rows replaced next are this
    # writer's alone, never a mix of two writers' sources.
    cur.executemany(d.sql(_UPSERT), [_to_row(fact) for fact in latest.values()])
    for chunk in d.chunks(list(latest)):
        sql, params = d.member("fact_id", chunk)
        conn.execute(f"DELETE FROM fact_sources WHERE {sql}", params)
    sources = [(f.id, r) for f in latest.values() for r in dict.fromkeys(f.source_ids)]
    if sources:
        cur.executemany(
            f"INSERT INTO fact_sources (fact_id, record_id) VALUES ({mark}, {mark})", sources
        )
    return len(facts)


def _delete_ids(conn: Any, d: SQLDialect, ids: Sequence[str]) -> int:
    """Delete these facts and their source rows; returns how many facts existed."""
    deleted = 0
    for chunk in d.chunks(list(dict.fromkeys(ids))):
        sources, params = d.member("fact_id", chunk)
        conn.execute(f"DELETE FROM fact_sources WHERE {sources}", params)
        facts, params = d.member("id", chunk)
        deleted += conn.execute(f"DELETE FROM facts WHERE {facts}", params).rowcount
    return deleted


def _scope_where(d: SQLDialect, scopes: Sequence[str] | None, alias: str = "f") -> tuple:
    if scopes is None:
        return "", []
    sql, params = d.member(f"{alias}.scope", list(scopes))
    return f" AND {sql}", params


def clear_facts(conn: Any, d: SQLDialect, scopes: Sequence[str] | None, origin: str | None) -> int:
    if scopes is not None and not scopes:
        return 0
    where, params = _scope_where(d, scopes)
    if origin is not None:
        where += f" AND f.origin = {d.mark}"
        params = [*params, origin]
    ids = [r[0] for r in conn.execute(f"SELECT f.id FROM facts f WHERE 1=1{where}", params)]
    return _delete_ids(conn, d, ids)


def forget_records(conn: Any, d: SQLDialect, record_ids: Sequence[str]) -> None:
    """What deleting these records does to facts, inside the delete's transaction: facts
    citing one as a source are deleted, facts one of them closed are open again."""
    unique = list(dict.fromkeys(record_ids))
    for chunk in d.chunks(unique):
        cited, params = d.member("record_id", chunk)
        doomed = conn.execute(f"SELECT DISTINCT fact_id FROM fact_sources WHERE {cited}", params)
        _delete_ids(conn, d, [r[0] for r in doomed.fetchall()])
    for chunk in d.chunks(unique):
        closer, params = d.member("closed_by", chunk)
        conn.execute(f"UPDATE facts SET valid_to = NULL, closed_by = NULL WHERE {closer}", params)


# ---------------------------------------------------------------- reads
def facts(conn: Any, d: SQLDialect, query: FactQuery) -> list[Fact]:
    scopes, subject, attribute, at = query.scopes, query.subject, query.attribute, query.at
    if scopes is not None and not scopes:
        return []
    mark = d.mark
    where, params = _scope_where(d, scopes)
    for column, value in (("subject", subject), ("attribute", attribute)):
        if value is not None:
            where += f" AND f.{column} = {mark}"
            params.append(value)
    if at is not None:  # Fact.holds_at
        where += f" AND f.valid_from <= {mark} AND (f.valid_to IS NULL OR {mark} < f.valid_to)"
        params += [at, at]
    if query.current:
        where += " AND f.valid_to IS NULL"
    tail = f" ORDER BY f.valid_from, f.said_at, f.id{d.by_code_point} LIMIT {mark}"
    limit_value = d.limit(query.limit)
    return _select(conn, f" WHERE 1=1{where}", [*params, limit_value], tail)


def facts_citing(conn: Any, d: SQLDialect, record_ids: Sequence[str]) -> list[Fact]:
    found: dict[str, Fact] = {}
    for chunk in d.chunks(list(dict.fromkeys(record_ids))):
        where, params = citing_where(d, chunk)
        for fact in _select(conn, where, params):
            found[fact.id] = fact
    return sorted(found.values(), key=fact_order)


def citing_where(d: SQLDialect, record_ids: Sequence[str]) -> tuple[str, list[Any]]:
    """The facts with one of these records as a source or as the record that closed them:
    one statement (the indexer asks after every write; two were a round trip more)."""
    cited, params = d.member("s.record_id", record_ids)
    closer, closer_params = d.member("f.closed_by", record_ids)
    where = f" WHERE f.id IN (SELECT s.fact_id FROM fact_sources s WHERE {cited}) OR {closer}"
    return where, [*params, *closer_params]


def fact_subjects(
    conn: Any, d: SQLDialect, scopes: Sequence[str] | None
) -> list[tuple[str, str, int]]:
    if scopes is not None and not scopes:
        return []
    where, params = _scope_where(d, scopes)
    text = d.by_code_point
    rows = conn.execute(
        "SELECT subject, subject_name, n FROM (SELECT f.subject, f.subject_name, "
        "count(*) OVER (PARTITION BY f.subject) AS n, row_number() OVER (PARTITION BY "
        f"f.subject ORDER BY f.said_at DESC, f.id{text} DESC) AS k FROM facts f WHERE 1=1"
        f"{where}) AS newest WHERE k = 1 ORDER BY n DESC, subject{text}",
        params,
    )
    return [(subject, name, int(n)) for subject, name, n in rows.fetchall()]


def fact_count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])


class SQLFacts(SQLConnection):
    """The ``FactStore`` methods over a SQL backend's connection: writes in its ``write()``
    (one transaction, or a savepoint of this thread's open one), reads in its ``read()``
    (one snapshot; inside a transaction, that transaction)."""

    def put_facts(self, facts: Sequence[Fact]) -> int:
        for fact in facts:  # before the transaction: a bad fact costs no write lock
            check_fact(fact)
        with self.write() as c:
            return put_facts(c, self._sql, facts)

    def delete_facts(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        with self.write() as c:
            return _delete_ids(c, self._sql, ids)

    def clear_facts(self, scopes: Sequence[str] | None = None, origin: str | None = None) -> int:
        with self.write() as c:
            return clear_facts(c, self._sql, scopes, origin)

    def facts(self, query: FactQuery = ALL_FACTS) -> list[Fact]:
        with self.read() as c:
            return facts(c, self._sql, query)

    def facts_citing(self, record_ids: Sequence[str]) -> list[Fact]:
        if not record_ids:
            return []
        ids = list(dict.fromkeys(record_ids))
        if len(ids) <= self._sql.chunk:
            # one statement needs no snapshot of its own (a PostgreSQL read transaction
            # waits for the server twice more: its BEGIN and COMMIT)
            where, params = citing_where(self._sql, ids)
            sql = f"SELECT {', '.join(COLUMNS)} FROM facts f{where}"
            return sorted((_to_fact(row) for row in self.query(sql, params)), key=fact_order)
        with self.read() as c:
            return facts_citing(c, self._sql, ids)

    def fact_subjects(self, scopes: Sequence[str] | None = None) -> list[tuple[str, str, int]]:
        with self.read() as c:
            return fact_subjects(c, self._sql, scopes)

    # ---------------------------------------------------------------- the facts backlog
    def records_awaiting_facts(self, backlog: FactBacklog) -> list[Record]:
        upto = "" if backlog.upto_rowid is None else " AND r.rowid <= ?"
        params: list[Any] = [backlog.after_rowid]
        if backlog.upto_rowid is not None:
            params.append(backlog.upto_rowid)
        if backlog.rowids is not None:  # a few hundred at most (FactsFill's batch)
            member, bound = self._sql.member("r.rowid", backlog.rowids, array="bigint")
            upto += f" AND {member}"
            params += bound
        params.append(backlog.limit)
        return self._records(
            f"JOIN facts_backlog b ON b.record_rowid = r.rowid WHERE r.rowid > ?{upto} "
            f"ORDER BY r.rowid{' DESC' if backlog.newest_first else ''} LIMIT ?",
            params,
        )

    def facts_extracted(self, rowids: Sequence[int]) -> int:
        if not rowids:
            return 0
        d, done = self._sql, 0
        with self.write() as c:
            for chunk in d.chunks(list(dict.fromkeys(int(r) for r in rowids))):
                member, params = d.member("record_rowid", chunk, array="bigint")
                cur = c.execute(d.sql(f"DELETE FROM facts_backlog WHERE {member}"), params)
                done += cur.rowcount
        return done

    def count_awaiting_facts(self) -> int:
        return int(self.query("SELECT count(*) FROM facts_backlog")[0][0])
