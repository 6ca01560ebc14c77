"""The one record <-> row mapping (``remem.store.rows``)."""

from __future__ import annotations

import pytest

from remem.store.rows import STORED_FIELDS, column_value, row_to_record
from remem.types import Record


def _row(rowid: int, **fields):
    prepared = {"id": "r1", "kind": "message", "text": "hi", "created_at": 5.0, "access_count": 0}
    prepared |= {"content_hash": "h", **fields}
    return (rowid, *(column_value(prepared, name) for name in STORED_FIELDS))


def test_a_row_maps_back_to_every_field():
    record = row_to_record(
        _row(
            7,
            scope="user:a",
            mentions=["bo"],
            source_ids=["s1"],
            metadata={"k": 1},
            importance=0.8,
            visible_text="hi!",
            message_kind="chat",
        )
    )
    assert record == Record(
        id="r1",
        kind="message",
        text="hi",
        created_at=5.0,
        content_hash="h",
        scope="user:a",
        mentions=["bo"],
        source_ids=["s1"],
        metadata={"k": 1},
        importance=0.8,
        visible_text="hi!",
        index_status="pending",
        message_kind="chat",
        rowid=7,
    )
    assert record.model_id is None  # a vector's, not a row's


def test_empty_json_columns_are_fresh_containers():
    a, b = row_to_record(_row(1)), row_to_record(_row(2))
    assert a.mentions == [] and a.metadata == {} and a.source_ids == []
    a.mentions.append("x")
    assert b.mentions == []


def test_a_row_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="columns"):
        row_to_record(_row(1)[:-1])
