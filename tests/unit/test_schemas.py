from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from remem.errors import ValidationError
from remem.schemas import make_filters, parse_time, validate_record, validate_scope

SHANGHAI = ZoneInfo("Asia/Shanghai")


def test_valid_record_and_aliases():
    r = validate_record(
        {"text": "hi", "timestamp": "2026-01-02T03:04:05Z", "speaker": "Al", "conversation": "c1"}
    )
    assert r.created_at == 1767323045.0
    assert r.speaker_label == "Al"
    assert r.metadata == {"conversation": "c1"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({}, "text"),
        ({"text": "x", "kind": "note"}, "kind"),
        ({"text": "x", "role": "boss"}, "role"),
        ({"text": "x", "scope": "team:a"}, "scope"),
        ({"text": "x", "scope": "user:"}, "scope"),
        ({"text": "x", "importance": 1.5}, "importance"),
        ({"text": "x", "importance": float("nan")}, "importance"),
        ({"text": "x", "timestamp": "yesterday"}, "created_at"),
        ({"text": "x", "timestamp": float("inf")}, "created_at"),
        ({"text": "x", "id": "bad\nid"}, "id"),
        ({"text": "x", "colour": "red"}, "colour"),
    ],
)
def test_bad_fields_are_named_with_a_fix(data, field):
    with pytest.raises(ValidationError) as info:
        validate_record(data)
    assert info.value.field == field
    assert "invalid " + field in str(info.value)
    assert ";" in str(info.value)  # the fix follows


def test_not_a_dict():
    with pytest.raises(ValidationError, match="JSON object"):
        validate_record(["text"])


def test_parse_time_forms():
    assert parse_time(10) == 10.0
    assert parse_time("10.5") == 10.5
    assert parse_time("1970-01-01T00:00:10+00:00") == 10.0
    assert parse_time(None) is None
    with pytest.raises(ValueError):
        parse_time(True)
    with pytest.raises(ValueError):
        parse_time(-1)


def test_times_without_an_offset_are_read_on_the_zone_given():
    """calendar.timezone's clock for a naive time; an offset or a number stays as it is."""
    midnight = datetime(2026, 12, 2, 16, 0, tzinfo=UTC).timestamp()  # 00:00 in Shanghai
    assert parse_time("2026-12-03", SHANGHAI) == midnight
    assert parse_time("2026-12-03T08:30", SHANGHAI) == midnight + 8.5 * 3600
    assert parse_time(datetime(2026, 12, 3), SHANGHAI) == midnight
    assert parse_time("2026-12-03") == midnight + 8 * 3600  # UTC by default
    assert parse_time("2026-12-03T00:00Z", SHANGHAI) == midnight + 8 * 3600
    assert parse_time("2026-12-03T00:00+01:00", SHANGHAI) == midnight + 7 * 3600
    assert parse_time(midnight, SHANGHAI) == parse_time(str(midnight), SHANGHAI) == midnight
    record = validate_record({"text": "hi", "timestamp": "2026-12-03T09:00"}, zone=SHANGHAI)
    assert record.created_at == midnight + 9 * 3600
    assert validate_record({"text": "hi", "valid_to": "2026-12-03"}, zone=SHANGHAI).valid_to == (
        midnight
    )
    filters = make_filters({"since": "2026-12-03", "until": "2026-12-03T23:59"}, SHANGHAI)
    assert filters.since == midnight and filters.until == midnight + 86_340


def test_scopes():
    for ok in ("global", "user:42", "agent:bot-1", "project:x", "session:abc", "custom:my team"):
        if " " in ok:
            with pytest.raises(ValidationError):
                validate_scope(ok)
        else:
            assert validate_scope(ok) == ok
