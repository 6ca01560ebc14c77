"""The two SQL dialects: one statement, written with ``?``, in each backend's spelling."""

from __future__ import annotations

from remem.store.sql_dialect import POSTGRES, SQLITE


def test_a_statement_takes_the_dialects_placeholder():
    sql = "UPDATE records SET valid_to = ? WHERE rowid = ?"
    assert SQLITE.sql(sql) == sql
    assert POSTGRES.sql(sql) == "UPDATE records SET valid_to = %s WHERE rowid = %s"


def test_a_list_is_one_mark_per_value_in_sqlite_and_one_typed_array_in_postgres():
    assert SQLITE.member("rowid", [1, 2, 3]) == ("rowid IN (?,?,?)", [1, 2, 3])
    assert POSTGRES.member("rowid", [1, 2, 3], array="bigint") == (
        "rowid = ANY(%s::bigint[])",
        [[1, 2, 3]],
    )
    assert SQLITE.member("id", ["a"], negate=True) == ("id NOT IN (?)", ["a"])
    assert POSTGRES.member("id", ["a"], negate=True) == ("NOT id = ANY(%s::text[])", [["a"]])


def test_no_limit_and_chunks():
    assert (SQLITE.limit(None), SQLITE.limit(-1), SQLITE.limit(5)) == (-1, -1, 5)
    assert (POSTGRES.limit(None), POSTGRES.limit(7)) == (None, 7)
    assert [len(c) for c in SQLITE.chunks(list(range(1001)))] == [500, 500, 1]
    assert [len(c) for c in POSTGRES.chunks(list(range(1001)))] == [1001]
    assert list(SQLITE.chunks([])) == []
