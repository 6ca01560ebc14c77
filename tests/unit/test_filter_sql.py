"""The filters' WHERE fragment, in both SQL dialects."""

from __future__ import annotations

from remem.store.filter_sql import filters_where
from remem.store.sql_dialect import POSTGRES, SQLITE
from remem.types import Filters


def test_lists_bind_one_mark_per_value_in_sqlite_and_one_array_in_postgres():
    f = Filters(scopes=["a", "b"], exclude_roles=["assistant"], include_superseded=True)
    assert filters_where(f, SQLITE) == (
        " AND r.scope IN (?,?) AND (r.role IS NULL OR r.role NOT IN (?))",
        ["a", "b", "assistant"],
    )
    assert filters_where(f, POSTGRES, alias="x") == (
        " AND x.scope = ANY(%s::text[]) AND (x.role IS NULL OR NOT x.role = ANY(%s::text[]))",
        [["a", "b"], ["assistant"]],
    )


def test_no_filters_or_nothing_to_filter_is_no_fragment():
    assert filters_where(None, SQLITE) == ("", [])
    assert filters_where(Filters(include_superseded=True), POSTGRES) == ("", [])
    where, params = filters_where(Filters(include_superseded=False), SQLITE, now=5.0)
    assert where == " AND (r.valid_to IS NULL OR r.valid_to > ?)" and params == [5.0]
