import pytest

from remem.errors import ValidationError
from remem.schemas import parse_time, validate_record, validate_scope


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


def test_scopes():
    for ok in ("global", "user:42", "agent:bot-1", "project:x", "session:abc", "custom:my team"):
        if " " in ok:
            with pytest.raises(ValidationError):
                validate_scope(ok)
        else:
            assert validate_scope(ok) == ok
