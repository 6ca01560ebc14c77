"""Filter columns beside a vector index: whole-column loading, sorting, masks."""

import math

import numpy as np

from remem.index.columns import FilterColumns
from remem.types import Filters


class _Store:
    """What a mask asks the store: record ids to rowids, sessions of a platform."""

    def rowids_for_ids(self, ids):
        return [int(i[1:]) for i in ids]

    def sessions_on_platform(self, platform):
        return ["s-tg"] if platform == "telegram" else []


# rowid, kind, scope, session, role, created_at, platform, category, valid_to
ROWS = [
    (7, "message", "a", "s1", "user", 100.0, "telegram", None, None),
    (3, "memory", "b", None, None, 200.0, None, "fact", 150.0),
    (5, "message", "a", "s-tg", "assistant", 300.0, None, None, None),
    (9, "memory", "a", None, None, 400.0, "discord", "preference", None),
]


def _columns() -> FilterColumns:
    columns = FilterColumns()
    columns.apply(ROWS, add_unknown=True)
    return columns


def _passing(columns: FilterColumns, filters: Filters, now: float | None = None) -> list[int]:
    mask = columns.mask(filters, now, _Store())
    return sorted(columns.rowids[: columns.size][mask].tolist())


def test_rows_load_whole_columns_and_sort_by_rowid():
    columns = _columns()
    assert columns.size == 4 and not columns.is_sorted()
    columns.sort_by_rowid()
    assert columns.rowids[: columns.size].tolist() == [3, 5, 7, 9] and columns.is_sorted()
    assert columns.pos == {3: 0, 5: 1, 7: 2, 9: 3}
    assert columns.created.tolist() == [200.0, 300.0, 100.0, 400.0]
    assert columns.valid_to.tolist() == [150.0, math.inf, math.inf, math.inf]
    kinds = columns.codes.maps["kind"]
    assert columns.cols["kind"].tolist() == [
        kinds["memory"],
        kinds["message"],
        kinds["message"],
        kinds["memory"],
    ]
    assert columns.cols["session"][0] == 0  # NULL is code 0


def test_unknown_rows_are_skipped_unless_added_and_later_rows_update():
    columns = FilterColumns()
    columns.add([5, 7])
    columns.apply(ROWS)  # rowids 3 and 9 are not positions: skipped
    assert columns.size == 2 and _passing(columns, Filters(scopes=["a"])) == [5, 7]
    columns.apply([(5, "message", "z", "s-tg", "assistant", 300.0, None, None, None)])
    assert _passing(columns, Filters(scopes=["a"])) == [7]
    assert _passing(columns, Filters(scopes=["z"])) == [5]


def test_masks():
    columns = _columns()
    assert columns.mask(None, None, _Store()) is None
    assert columns.mask(Filters(), None, _Store()) is None
    assert _passing(columns, Filters(kinds=["memory"])) == [3, 9]
    assert _passing(columns, Filters(scopes=["a"], kinds=["message"])) == [5, 7]
    assert _passing(columns, Filters(scopes=["never-seen"])) == []
    assert _passing(columns, Filters(category="fact")) == [3]
    assert _passing(columns, Filters(exclude_roles=["user"])) == [3, 5, 9]
    assert _passing(columns, Filters(since=200.0, until=300.0)) == [3, 5]
    current = Filters(scopes=["a", "b"], include_superseded=False)
    assert _passing(columns, current, now=160.0) == [5, 7, 9]  # 3 was superseded at 150
    assert _passing(columns, current, now=140.0) == [3, 5, 7, 9]
    assert _passing(columns, Filters(scopes=["a", "b"]), now=160.0) == [3, 5, 7, 9]
    assert _passing(columns, Filters(ids=["r7", "r9"])) == [7, 9]
    assert _passing(columns, Filters(scopes=["a"], exclude_ids=["r7"])) == [5, 9]
    by_session = Filters(platform="telegram", platform_by_session=True)
    assert _passing(columns, by_session) == [5, 7]  # own platform, or a session on it
    assert _passing(columns, Filters(platform="discord")) == [9]


def test_codes_of_a_column_are_stable_and_new_values_get_new_codes():
    columns = FilterColumns()
    first = columns.codes.codes("scope", ("a", "b", "a", None))
    again = columns.codes.codes("scope", ("b", "c"))
    assert first.tolist() == [1, 2, 1, 0] and again.tolist() == [2, 3]
    assert isinstance(first, np.ndarray) and first.dtype == np.int32
