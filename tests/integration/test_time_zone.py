"""``calendar.timezone``: a question's days are those of the user's calendar, and recalled
lines are dated on their clock (a real SQLite store, the keyword channel)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from remem import Config, Memory, Turn
from remem.errors import ValidationError
from remem.server.rest import create_app


def utc(day: int, hour: int) -> float:
    return datetime(2026, 12, day, hour, tzinfo=UTC).timestamp()


LINES = [
    # 01:00 on 4 December in Shanghai, still the 3rd in UTC
    {
        "id": "lake",
        "session": "s",
        "speaker": "Ann",
        "text": "我们去了西湖划船",
        "timestamp": utc(3, 17),
    },
    {
        "id": "temple",
        "session": "s",
        "speaker": "Ann",
        "text": "我们去了灵隐寺",
        "timestamp": utc(2, 10),
    },
]
ASKED = utc(5, 1)  # 09:00 on 5 December in Shanghai


def _memory(tmp_path, zone: str | None) -> Memory:
    overrides = {"indexing.mode": "sync", "embed.provider": "none", "time_intent.mode": "filter"}
    if zone:
        overrides["calendar.timezone"] = zone
    mem = Memory(
        tmp_path / f"{zone or 'utc'}.db".replace("/", "-"), Config.load(env={}, overrides=overrides)
    )
    mem.ingest_many(LINES, wait=True)
    return mem


def test_yesterday_is_the_day_before_on_the_users_calendar(tmp_path):
    with _memory(tmp_path, "Asia/Shanghai") as mem:
        hits = mem.search("昨天我们去了哪里？", k=5, now=ASKED).hits
        assert [h.record.id for h in hits] == ["lake"]
    with _memory(tmp_path, None) as mem:  # UTC: yesterday was the 4th, nobody went anywhere
        assert mem.search("昨天我们去了哪里？", k=5, now=ASKED).hits == []


def test_the_recalled_block_dates_lines_on_the_users_clock(tmp_path):
    with _memory(tmp_path, "Asia/Shanghai") as mem:
        mem.ingest(
            {
                "id": "ask",
                "session": "s",
                "speaker": "Bo",
                "text": "西湖划船好玩吗",
                "timestamp": ASKED,
            }
        )
        block = mem.recall_for_turn(Turn(session="s", inputs=["ask"], now=ASKED + 1)).block
    assert "@ 2026-12-04 01:00 +0800] 我们去了西湖划船" in block


def test_times_without_an_offset_are_the_users(tmp_path):
    """A chat export's naive "2026-12-04 01:00", since="2026-12-04" and now="2026-12-05T09:00"
    are Shanghai's: the line is the lake's moment, and the day filter holds it."""
    with _memory(tmp_path, "Asia/Shanghai") as mem:
        naive = mem.ingest(
            {"id": "naive", "session": "s", "text": "湖边很冷", "timestamp": "2026-12-04 01:00"}
        )
        assert naive.created_at == utc(3, 17)
        day = {"since": "2026-12-04", "until": "2026-12-04T23:59:59"}
        found = mem.search("我们去了", k=5, filters=day, now="2026-12-05T09:00").hits
        assert found[0].record.id == "lake" and "temple" not in {h.record.id for h in found}
        assert mem.search("我们去了", k=5, now="2026-12-05T09:00").hits  # the temple too
        assert {r.id for r in mem.list(day)} == {"lake", "naive"}
    with _memory(tmp_path, None) as mem:  # UTC: the 4th began 8 hours later
        later = mem.ingest({"id": "x", "text": "x", "timestamp": "2026-12-04 01:00"})
        assert later.created_at == utc(4, 1)
        assert {r.id for r in mem.list({"since": "2026-12-04"})} == {"x"}  # not the lake


def test_a_turn_or_a_search_may_name_its_own_time_zone(tmp_path):
    """A bot whose chats live in several zones: the turn's (or the search's) zone wins over
    calendar.timezone, for its days and its clock; a bad name is refused, naming the field."""
    with _memory(tmp_path, None) as mem:  # configured: UTC
        hits = mem.search("昨天我们去了哪里？", k=5, now=ASKED, timezone="Asia/Shanghai").hits
        assert [h.record.id for h in hits] == ["lake"]
        mem.ingest({"id": "ask", "session": "s", "text": "西湖划船好玩吗", "timestamp": ASKED})
        turn = Turn(session="s", inputs=["ask"], now=ASKED + 1, timezone="Asia/Shanghai")
        assert "@ 2026-12-04 01:00 +0800] 我们去了西湖划船" in mem.recall_for_turn(turn).block
        utc = mem.recall_for_turn(Turn(session="s", inputs=["ask"], now=ASKED + 1)).block
        assert "@ 2026-12-03 17:00 UTC] 我们去了西湖划船" in utc  # and says it is UTC
        for bad in ("Beijing", "America", 8):
            with pytest.raises(ValidationError, match=r"invalid timezone.*Asia/Shanghai"):
                mem.recall_for_turn(Turn(session="s", inputs=["ask"], timezone=bad))
            with pytest.raises(ValidationError, match="invalid timezone"):
                mem.search("西湖", timezone=bad)


def test_the_rest_api_takes_a_turns_time_zone(tmp_path):
    with _memory(tmp_path, None) as mem:
        mem.ingest({"id": "ask", "session": "s", "text": "西湖划船好玩吗", "timestamp": ASKED})
        client = TestClient(
            create_app(mem), client=("127.0.0.1", 5000), base_url="http://127.0.0.1"
        )
        body = {"session": "s", "inputs": ["ask"], "now": ASKED + 1}
        shanghai = client.post("/v1/recall-for-turn", json={**body, "timezone": "Asia/Shanghai"})
        assert "2026-12-04 01:00 +0800" in shanghai.json()["block"]
        found = client.post(
            "/v1/search",
            json={"query": "昨天我们去了哪里？", "now": ASKED, "timezone": "Asia/Shanghai"},
        )
        assert [h["record"]["id"] for h in found.json()["hits"]] == ["lake"]
        bad = client.post("/v1/recall-for-turn", json={**body, "timezone": "Mars/Olympus"})
        assert bad.status_code == 400 and "timezone" in bad.text


def test_import_and_export_read_offset_less_times_on_the_users_clock(tmp_path):
    import io
    import json

    from remem.transfer import export_records, import_records

    with _memory(tmp_path, "Asia/Shanghai") as mem:
        line = json.dumps({"id": "imported", "text": "湖边", "created_at": "2026-12-04 01:00"})
        report = import_records(mem, [line])
        assert report.records == 1 and mem.get("imported").created_at == utc(3, 17)
        out = io.StringIO()
        assert export_records(mem, out, filters={"since": "2026-12-04"}) == 2  # lake, imported


def test_the_rest_api_names_the_fix_for_a_time_zone_that_is_not_a_name(tmp_path):
    with _memory(tmp_path, None) as mem:
        client = TestClient(
            create_app(mem), client=("127.0.0.1", 5000), base_url="http://127.0.0.1"
        )
        for bad in (8, ["Asia/Shanghai"], "localtime"):
            answer = client.post("/v1/search", json={"query": "西湖", "timezone": bad})
            assert answer.status_code == 400 and "IANA time zone name" in answer.text, bad


def test_auto_recall_of_memories_may_name_the_askers_time_zone(tmp_path):
    """A memory stored at 17:00 UTC on 3 December is of the 4th in Shanghai; the REST body
    takes the zone too, and a bad one is refused naming the field."""
    with _memory(tmp_path, None) as mem:
        mem.add("Ann is allergic to peanuts", scope="agent:bot", created_at=utc(3, 17))
        asked = {"agent": "bot", "now": ASKED}
        utc_block = mem.recall_memories("Is Ann allergic to anything?", **asked).block
        assert "(2026-12-03)" in utc_block
        shanghai = mem.recall_memories(
            "Is Ann allergic to anything?", **asked, timezone="Asia/Shanghai"
        )
        assert "(2026-12-04)" in shanghai.block
        with pytest.raises(ValidationError, match="invalid timezone"):
            mem.recall_memories("Is Ann allergic?", agent="bot", timezone="Beijing")
