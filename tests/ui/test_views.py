"""The web UI's view logic without a browser: chart buckets, language choice and catalogues,
the scoped aggregate queries and their cache, edits as new versions with undo, access checks,
the audit log, the injected-block preview and form errors; and the pages over HTTP (an
in-process client) for the operator and for token-holding agents."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from helpers import HashEmbedder
from remem import Config, Memory
from remem.access import ScopeError
from remem.errors import NotFoundError, ValidationError
from remem.ingest.backlog import JOBS
from remem.server.rest import create_app
from remem.server.rest_context import Caller
from remem.server.ui import actions, queries
from remem.server.ui.audit import AuditLog
from remem.server.ui.charts import (
    DAY,
    MAX_BARS,
    local_days,
    rebucket,
    timeline_chart,
)
from remem.server.ui.explain import CHANNELS, FormError, SearchForm, memory_block
from remem.server.ui.i18n import EN, ROLES, ZH, choose_language, translator
from remem.server.ui.queries import MEMORY_STATES
from remem.types import INDEX_STATUSES, KINDS

TEMPLATES = Path(__file__).parents[2] / "src" / "remem" / "server" / "ui" / "templates"
OPERATOR = Caller(None, restricted=False)
A = Caller("agent-a", restricted=True)
B = Caller("agent-b", restricted=True)


# ---------------------------------------------------------------------- chart
def test_daily_buckets_keep_empty_days():
    width, _fmt, buckets = rebucket({100: (3, 1), 103: (0, 2)})
    assert width == DAY
    assert [(b // DAY, m, n) for b, m, n in buckets] == [
        (100, 3, 1),
        (101, 0, 0),
        (102, 0, 0),
        (103, 0, 2),
    ]


def test_long_spans_get_wider_buckets_and_keep_every_count():
    per_day = {d: (1, d % 2) for d in range(0, 700, 3)}
    width, _fmt, buckets = rebucket(per_day)
    assert width == 30 * DAY and len(buckets) <= MAX_BARS
    assert sum(m for _, m, _ in buckets) == sum(m for m, _ in per_day.values())
    assert sum(n for _, _, n in buckets) == sum(n for _, n in per_day.values())


def _day(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()) // DAY


def _quarter(moment: datetime) -> int:
    return int(moment.timestamp()) // 900


def test_days_are_the_zones_days():
    """23:30 UTC is the next morning in Shanghai; 03:30 UTC is the evening before in New
    York (UTC-5 in December, UTC-4 in July: the same hour is a day apart there)."""
    late = _quarter(datetime(2026, 12, 3, 23, 30, tzinfo=UTC))
    early = _quarter(datetime(2026, 12, 3, 3, 30, tzinfo=UTC))
    per_quarter = {(late, "message"): 2, (early, "message"): 1, (early, "memory"): 4}
    assert local_days(per_quarter, UTC) == {_day("2026-12-03"): (3, 4)}
    shanghai = ZoneInfo("Asia/Shanghai")
    assert local_days(per_quarter, shanghai) == {
        _day("2026-12-04"): (2, 0),
        _day("2026-12-03"): (1, 4),
    }
    new_york = ZoneInfo("America/New_York")
    assert local_days(per_quarter, new_york) == {
        _day("2026-12-03"): (2, 0),
        _day("2026-12-02"): (1, 4),
    }
    july = _quarter(datetime(2026, 7, 3, 3, 59, tzinfo=UTC))
    assert local_days({(july, "message"): 1}, new_york) == {_day("2026-07-02"): (1, 0)}


@pytest.mark.parametrize(
    ("zone", "midnight"),
    [
        ("Asia/Kolkata", datetime(2026, 12, 3, 18, 30, tzinfo=UTC)),  # +05:30
        ("Asia/Kathmandu", datetime(2026, 12, 3, 18, 15, tzinfo=UTC)),  # +05:45
        ("Asia/Kathmandu", datetime(1985, 6, 3, 18, 30, tzinfo=UTC)),  # +05:30 until 1986
        ("Australia/Lord_Howe", datetime(2026, 7, 16, 13, 30, tzinfo=UTC)),  # +10:30 (winter)
        ("Australia/Lord_Howe", datetime(2026, 12, 16, 13, 0, tzinfo=UTC)),  # +11:00 (summer)
    ],
)
def test_every_offset_meets_its_midnight_whatever_it_was_then(zone, midnight):
    """The line a minute before local midnight and the one at it fall on two days."""
    before = midnight.timestamp() - 60
    per_quarter = {(int(t) // 900, "message"): 1 for t in (before, midnight.timestamp())}
    day = datetime.fromtimestamp(midnight.timestamp(), ZoneInfo(zone)).date()
    assert local_days(per_quarter, ZoneInfo(zone)) == {
        _day(day.isoformat()): (1, 0),
        _day(day.isoformat()) - 1: (1, 0),
    }


def test_bars_scale_to_the_tallest_bucket():
    chart = timeline_chart({10: (8, 2), 11: (4, 0)}, width=200, height=100)
    assert chart.peak == 8
    assert chart.bars[0].message_height == 100 - 34
    assert chart.bars[1].message_height == pytest.approx((100 - 34) / 2)
    assert timeline_chart({}).empty


# ---------------------------------------------------------------------- language
def test_language_choice_order():
    assert choose_language("zh", "en", "en-US") == "zh"  # the link wins
    assert choose_language(None, "zh", "en-US") == "zh"  # then the remembered choice
    assert choose_language(None, None, "zh-CN,zh;q=0.9,en;q=0.8") == "zh"
    assert choose_language(None, None, "fr-FR, en;q=0.5") == "en"
    assert choose_language("xx", None, None) == "en"


def test_every_key_the_templates_use_is_translated():
    used = set()
    for path in TEMPLATES.glob("*.html"):
        used |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", path.read_text("utf-8")))
    assert used, "the templates use t('...')"
    # keys built in the templates from a prefix and a value
    dynamic = {p for p in used if p.endswith(".")}
    used -= dynamic
    assert dynamic == {"status.", "mem.state.", "one.", "search.", "role.", "job."}
    used |= {f"job.{j}" for j in JOBS}  # the background jobs of the overview's backlog
    used |= {f"status.{s}" for s in INDEX_STATUSES} | {f"mem.state.{s}" for s in MEMORY_STATES}
    used |= {f"one.{k}" for k in KINDS} | {f"kind.{k}" for k in KINDS}
    used |= {f"role.{r}" for r in ROLES}
    used |= {f"search.{c}" for c in CHANNELS} | {"search.chat_path", "search.memory_path"}
    assert not used - set(EN), f"missing English text: {sorted(used - set(EN))}"
    missing_zh = used - set(ZH) - {"app"}
    assert not missing_zh, f"missing Chinese text: {sorted(missing_zh)}"
    assert not set(ZH) - set(EN), "a Chinese key without an English one"


def test_translator_formats_and_falls_back():
    t = translator("zh")
    assert t("mem.found", n=3) == "3 条记忆"
    assert t("no.such.key") == "no.such.key"


# ---------------------------------------------------------------------- queries
def _seed(mem):
    mem.ingest_many(
        [
            {
                "text": "hello from A",
                "session": "sa",
                "scope": "agent:agent-a",
                "platform": "tg",
                "group_id": "g1",
                "group_name": "Group One",
                "created_at": 1000.0,
            },
            {
                "text": "more from A",
                "session": "sa",
                "scope": "agent:agent-a",
                "platform": "tg",
                "group_id": "g1",
                "created_at": 1000.0 + DAY,
            },
            {
                "text": "secret of B",
                "session": "sb",
                "scope": "agent:agent-b",
                "platform": "qq",
                "created_at": 1000.0,
            },
            {
                "text": "shared words",
                "session": "sg",
                "scope": "global",
                "platform": "qq",
                "created_at": 1000.0 + 2 * DAY,
            },
        ]
    )
    a = hash_add(mem, "A likes tea", "agent:agent-a")
    b = hash_add(mem, "B likes coffee", "agent:agent-b")
    return a, b


def hash_add(mem, text, scope, **kw):
    return mem.add(text, scope=scope, category="preference", **kw)


def test_overview_counts_only_the_callers_scopes(hash_memory):
    _seed(hash_memory)
    everything = queries.overview(hash_memory, None)
    assert everything.total == 6 and everything.by_platform["qq"] == 2
    mine = queries.overview(hash_memory, A.scopes(hash_memory))
    assert mine.total == 4  # A's three and the global message
    assert "agent:agent-b" not in mine.by_scope and mine.by_platform == {
        "tg": 2,
        "qq": 1,
        "(none)": 1,
    }
    assert mine.by_model == {"test:hash64": 4}
    assert sum(m for m, _ in mine.per_day.values()) == 3
    assert sum(n for _, n in mine.per_day.values()) == 1


def test_aggregates_are_served_at_once_and_recounted_in_the_background(hash_memory):
    _seed(hash_memory)
    first = queries.overview(hash_memory, None)
    assert queries.overview(hash_memory, None) is first  # nothing changed: no recount
    hash_memory.ingest({"text": "one more", "session": "sa"})
    assert queries.overview(hash_memory, None) is first  # stale, served while recounting
    deadline = time.time() + 10
    while (again := queries.overview(hash_memory, None)) is first and time.time() < deadline:
        time.sleep(0.01)
    assert again.total == first.total + 1


def test_two_stores_never_share_aggregates(tmp_path, config):
    from helpers import HashEmbedder
    from remem import Memory

    with (
        Memory(tmp_path / "one.db", config, embedder=HashEmbedder()) as one,
        Memory(tmp_path / "two.db", config, embedder=HashEmbedder()) as two,
    ):
        one.ingest_many([{"text": "only in the first store", "session": "s"}])
        two.ingest_many(
            [
                {"text": "in the second", "session": "s"},
                {"text": "twice in the second", "session": "s"},
            ]
        )
        # the same history of commits (their facts read too), so the same change token: only
        # the store tells them apart
        assert one.wait_indexed(60) and two.wait_indexed(60)
        assert one.store.change_token() == two.store.change_token()
        assert queries.overview(one, None).total == 1
        assert queries.overview(two, None).total == 2


def test_sessions_grouped_by_platform_and_group(hash_memory):
    _seed(hash_memory)
    groups = queries.session_groups(hash_memory, A.scopes(hash_memory))
    names = {(g.platform, g.group): [s.session for s in g.sessions] for g in groups}
    assert names == {("tg", "Group One"): ["sa"], ("qq", "(none)"): ["sg"]}
    assert groups[0].platform == "qq"  # the most recently active first


def test_a_record_is_found_on_its_page(hash_memory):
    items = [{"text": f"line {i}", "session": "long", "created_at": 1000.0 + i} for i in range(120)]
    records = hash_memory.ingest_many(items, embed=False)
    by_text = {r.text: r for r in records}
    for i in (0, 69, 70, 119):
        offset = queries.offset_of(hash_memory, None, by_text[f"line {i}"], 50)
        page, total = queries.session_page(hash_memory, None, "long", offset=offset, limit=50)
        assert total == 120
        assert f"line {i}" in [r.text for r in page]
        assert [r.created_at for r in page] == sorted(r.created_at for r in page)


def test_memory_states(hash_memory):
    a, _b = _seed(hash_memory)
    new = actions.edit(hash_memory, A, a.id, text="A likes green tea")
    scopes = A.scopes(hash_memory)
    current = queries.memory_page(
        hash_memory, scopes, category=None, state="current", offset=0, limit=50
    )
    assert [r.id for r in current.records] == [new.id] and current.total == 1
    old = queries.memory_page(
        hash_memory, scopes, category=None, state="superseded", offset=0, limit=50
    )
    assert [r.id for r in old.records] == [a.id] and old.total == 1
    every = queries.memory_page(hash_memory, scopes, category=None, state="all", offset=0, limit=1)
    assert every.total == 2 and every.more and [r.id for r in every.records] == [new.id]
    rest = queries.memory_page(hash_memory, scopes, category=None, state="all", offset=1, limit=1)
    assert not rest.more and [r.id for r in rest.records] == [a.id]
    assert queries.categories(hash_memory, scopes) == ["preference"]


# ---------------------------------------------------------------------- actions
def test_edit_is_a_new_version_and_undo_restores(hash_memory):
    a, _ = _seed(hash_memory)
    new = actions.edit(hash_memory, A, a.id, text="A likes green tea", importance=0.9)
    old = hash_memory.get(a.id)
    assert old.text == "A likes tea" and old.valid_to is not None  # never overwritten
    assert old.metadata["superseded_by"] == new.id and new.metadata["supersedes"] == [a.id]
    assert new.importance == 0.9 and new.metadata["edited_by"] == "ui:agent-a"
    assert [r.id for r in actions.history(hash_memory, A, new.id)] == [a.id, new.id]
    restored = actions.undo(hash_memory, A, new.id)
    assert [r.id for r in restored] == [a.id]
    assert hash_memory.get(a.id).valid_to is None
    assert hash_memory.get(new.id).metadata.get("undone") is True


def test_restoring_a_replaced_version(hash_memory):
    a, _ = _seed(hash_memory)
    new = actions.edit(hash_memory, A, a.id, text="A likes green tea")
    restored = actions.undo(hash_memory, A, a.id)  # asked about the old version this time
    assert [r.id for r in restored] == [a.id]
    assert hash_memory.get(a.id).valid_to is None and hash_memory.get(new.id).valid_to
    with pytest.raises(ValidationError, match="no update to undo"):
        actions.undo(hash_memory, A, a.id)


def test_edit_refusals(hash_memory):
    a, b = _seed(hash_memory)
    with pytest.raises(ValidationError, match="change the text"):
        actions.edit(hash_memory, A, a.id, text="A likes tea")
    with pytest.raises(ValidationError, match="importance"):
        actions.edit(hash_memory, A, a.id, importance=7)
    with pytest.raises(NotFoundError):  # B's memory: like a missing id
        actions.edit(hash_memory, A, b.id, text="mine now")
    with pytest.raises(ScopeError):  # and A cannot move its memory into B's scope
        actions.edit(hash_memory, A, a.id, scope="agent:agent-b")
    new = actions.edit(hash_memory, A, a.id, text="A likes oolong")
    with pytest.raises(ValidationError, match="edit the current one"):
        actions.edit(hash_memory, A, a.id, text="again")
    assert hash_memory.get(b.id).text == "B likes coffee"
    assert actions.edit(hash_memory, OPERATOR, new.id, scope="global").scope == "global"


def test_delete_and_bulk_delete_check_every_record(hash_memory):
    a, b = _seed(hash_memory)
    with pytest.raises(NotFoundError):
        actions.delete(hash_memory, A, b.id)
    with pytest.raises(NotFoundError):
        actions.delete_many(hash_memory, A, [a.id, b.id])
    assert hash_memory.get(a.id) is not None  # all or nothing
    assert actions.delete_many(hash_memory, A, [a.id]) == 1
    assert actions.delete(hash_memory, B, b.id).id == b.id


def test_audit_log_persists_and_filters(tmp_path):
    log = AuditLog(tmp_path / "x.db.audit.jsonl")
    log.record("agent-a", "delete", ["1"])
    log.record(None, "backfill")
    with log.path.open("a") as fh:
        fh.write('{"torn": ')  # a crash mid-line
    again = AuditLog(log.path)
    assert [e["action"] for e in again.recent()] == ["backfill", "delete"]
    assert [e["agent"] for e in again.recent("agent-a")] == ["agent-a"]
    assert json.loads(log.path.read_text().splitlines()[1])["agent"] == "operator"


# ---------------------------------------------------------------------- explain
def test_memory_preview_is_auto_recall_without_dedup(hash_memory):
    hash_memory.add("Alice is allergic to peanuts", scope="agent:agent-a", category="fact")
    query = "does Alice have a peanut allergy? allergic to peanuts"
    preview = memory_block(hash_memory, A, query)
    real = hash_memory.recall_memories(query, agent="agent-a", session="s1")
    assert preview.block and preview.block == real.block
    again = memory_block(hash_memory, A, query)  # a preview leaves no dedup trace
    assert again.block == preview.block
    assert memory_block(hash_memory, A, "ok").skipped_reason


def test_search_form_errors_are_the_apis(hash_memory):
    with pytest.raises(FormError) as err:
        SearchForm(q="x", k="abc").body()
    assert (
        str(err.value) == "invalid k: Input should be a valid integer, unable to parse "
        "string as an integer"
    )
    with pytest.raises(FormError, match="invalid query"):
        SearchForm(q="").body()


# ---------------------------------------------------------------------- over HTTP
def test_operator_on_loopback_and_nobody_else(hash_memory):
    _seed(hash_memory)
    app = create_app(hash_memory)
    local = TestClient(app, client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765")
    page = local.get("/ui/memories?state=all")
    assert page.status_code == 200 and "A likes tea" in page.text and "B likes coffee" in page.text
    remote = TestClient(app, client=("192.0.2.7", 5000), base_url="http://127.0.0.1:8765")
    assert remote.get("/ui").status_code == 403
    rebound = local.get("/ui", headers={"Host": "attacker.example:8765"})
    assert rebound.status_code == 421 and "attacker.example" in rebound.json()["error"]
    assert local.get("/ui", headers={"Host": "localhost:8765"}).status_code == 200
    cross = local.post("/ui/backfill", headers={"Origin": "http://attacker.example"})
    assert cross.status_code == 403
    flash = local.get("/ui?done=Your+account+is+locked")
    assert "Your account is locked" not in flash.text
    assert local.get("/v1/stats").status_code == 200  # the API keeps its own error answers
    assert local.get("/ui/static/htmx.min.js").status_code == 200


def test_a_change_needs_this_servers_origin_or_referer(hash_memory):
    """A form POST without Origin used to be accepted whatever its Referer (issue 44, item 3):
    the Referer must name this server when Origin is absent, and without tokens one of them
    must be there."""
    _seed(hash_memory)
    app = create_app(hash_memory)
    local = TestClient(app, client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765")
    here = "http://127.0.0.1:8765/ui"
    refused = {
        "foreign Referer": {"Referer": "http://attacker.example/page"},
        "foreign Referer, loopback port of another server": {"Referer": "http://127.0.0.1:9/x"},
        "neither": {},
        "Origin null": {"Origin": "null", "Referer": here},
    }
    for why, headers in refused.items():
        answer = local.post("/ui/backfill", headers=headers, follow_redirects=False)
        assert answer.status_code == 403, why
        assert "page of this server" in answer.text or "Origin 'null'" in answer.text, why
    for headers in ({"Referer": here}, {"Origin": "http://127.0.0.1:8765"}):
        answer = local.post("/ui/backfill", headers=headers, follow_redirects=False)
        assert answer.status_code == 303, headers
    # with tokens a client's bearer header proves it: no browser header is needed
    hash_memory.config.server.tokens = {"a" * 20: "agent-a"}
    tokened = TestClient(
        create_app(hash_memory), client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765"
    )
    bearer = {"Authorization": "Bearer " + "a" * 20}
    assert tokened.post("/ui/logout", headers=bearer, follow_redirects=False).status_code == 303
    foreign = {**bearer, "Referer": "http://attacker.example/"}
    assert tokened.post("/ui/logout", headers=foreign, follow_redirects=False).status_code == 403


def test_pages_show_times_on_the_configured_clock(tmp_path):
    """With calendar.timezone a session's lines and the overview's days are Shanghai's: a
    line sent at 23:30 UTC is dated the next morning, with the offset, and counted on that
    day."""
    config = Config.load(
        env={}, overrides={"indexing.mode": "sync", "calendar.timezone": "Asia/Shanghai"}
    )
    at = datetime(2026, 12, 3, 23, 30, tzinfo=UTC).timestamp()
    with Memory(tmp_path / "zone.db", config, embedder=HashEmbedder()) as mem:
        mem.ingest({"text": "late line", "session": "s1", "created_at": at})
        app = create_app(mem)
        local = TestClient(app, client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765")
        page = local.get("/ui/session?s=s1").text
        assert "2026-12-04 07:30 +0800" in page and "2026-12-03 23:30" not in page
        assert queries.overview(mem, None).per_day == {_day("2026-12-04"): (1, 0)}
        assert "Asia/Shanghai" in local.get("/ui").text  # the chart's days are Shanghai's


def test_pages_say_their_times_are_utc_on_the_default_clock(hash_memory):
    """With calendar.timezone at its default, times are UTC and say so (issue 44 item 11):
    a bare "2026-12-03 23:30" reads as the reader's own clock."""
    at = datetime(2026, 12, 3, 23, 30, tzinfo=UTC).timestamp()
    hash_memory.ingest({"text": "late line", "session": "s1", "created_at": at})
    hash_memory.add("a memory made then", scope="global", created_at=at)
    local = _local(hash_memory)
    for url in ("/ui/session?s=s1", "/ui/memories", "/ui/conversations"):
        page = local.get(url).text
        assert "2026-12-03 23:30 UTC" in page, url
    assert "(UTC)" in local.get("/ui").text  # the chart's days


def test_tokens_sign_in_and_scope_every_page(hash_memory):
    hash_memory.config.server.tokens = {"a" * 20: "agent-a", "b" * 20: "agent-b"}
    a, b = _seed(hash_memory)
    client = TestClient(
        create_app(hash_memory), client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765"
    )
    first = client.get("/ui/memories", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"].startswith("/ui/login")
    bad = client.post("/ui/login", data={"token": "nope"})
    assert bad.status_code == 401
    client.post("/ui/login", data={"token": "a" * 20, "next": "/ui/memories"})
    page = client.get("/ui/memories?state=all")
    assert "A likes tea" in page.text and "B likes coffee" not in page.text
    assert client.get(f"/ui/memory/{b.id}").status_code == 404
    assert (
        client.get(f"/ui/memory/{b.id}").text.replace(b.id, "X") == client.get("/ui/memory/X").text
    )
    assert client.get("/ui/memories?scope=agent:agent-b").status_code == 403
    assert client.post(f"/ui/delete/{b.id}", data={"confirm": "yes"}).status_code == 404
    assert hash_memory.get(b.id) is not None
    gone = client.post(f"/ui/delete/{a.id}", data={"confirm": "yes"}, follow_redirects=False)
    assert gone.status_code == 303 and hash_memory.get(a.id) is None
    settings = client.get("/ui/settings").text
    assert "agent-b" not in settings and "operator only" in settings


def test_form_numbers_are_read_as_json_reads_them():
    from remem.server.ui.context import _as_json_number

    assert _as_json_number("0.5") == 0.5 and _as_json_number("7") == 7
    assert _as_json_number("abc") == "abc" and _as_json_number("true") == "true"
    assert _as_json_number("") == ""


# ---------------------------------------------------------------------- issue 44, item 16
def _local(mem) -> TestClient:
    return TestClient(create_app(mem), client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765")


def _count_and_rows(page: str) -> tuple[str, int]:
    count = re.search(r'data-testid="mem-count">([^<]*)<', page)
    assert count, page[:500]
    return count.group(1), page.count('data-testid="memory-row"')


def test_the_memory_count_matches_the_rows_after_a_change_elsewhere(hash_memory):
    """A memory written through the API (or by another process) shows in the table at once;
    the count above it said "4 memories" over five rows until a background recount."""
    for i in range(4):
        hash_memory.add(f"note {i} about tea", scope="global", category="fact")
    local = _local(hash_memory)
    assert _count_and_rows(local.get("/ui/memories?state=all").text) == ("4 memories", 4)
    added = local.post("/v1/memories", json={"text": "a fifth note, on coffee"})
    assert added.status_code == 201, added.text
    assert _count_and_rows(local.get("/ui/memories?state=all").text) == ("5 memories", 5)
    # an edit in the UI: a new version (current count unchanged, one more in "all"), and the
    # overview's count of memories follows at once
    edited = local.post(
        f"/ui/edit/{added.json()['id']}",
        data={"text": "a fifth note, on green coffee"},
        headers={"Origin": "http://127.0.0.1:8765"},
    )
    assert edited.status_code == 200
    assert _count_and_rows(local.get("/ui/memories?state=all").text) == ("6 memories", 6)
    assert _count_and_rows(local.get("/ui/memories").text) == ("5 memories", 5)
    assert queries.overview(hash_memory, None).by_kind["memory"] == 6


def test_the_count_of_a_long_listing_is_never_below_its_rows(hash_memory):
    for i in range(5):
        hash_memory.add(f"note {i} about tea", scope="global", category="fact")
    assert queries.memory_page(hash_memory, None, category=None, state="all", offset=0, limit=2)
    for i in range(5, 9):
        hash_memory.add(f"note {i} about tea", scope="global", category="fact")
    page = queries.memory_page(hash_memory, None, category=None, state="all", offset=4, limit=2)
    assert page.more and page.total >= 7  # a stale 5 would say fewer than the rows so far


def test_an_unknown_ui_address_answers_the_uis_404_page(hash_memory):
    local = _local(hash_memory)
    for lang, said in (("en", "There is no page at /ui/no-such-page."), ("zh", "没有这个页面")):
        missing = local.get(f"/ui/no-such-page?lang={lang}")
        assert missing.status_code == 404
        assert missing.headers["content-type"].startswith("text/html")
        assert 'data-testid="error"' in missing.text and said in missing.text
        assert '"detail"' not in missing.text
    wrong = local.post("/ui/settings?lang=en", headers={"Origin": "http://127.0.0.1:8765"})
    assert wrong.status_code == 405 and "does not take POST requests" in wrong.text
    api = local.get("/v1/no-such-route")  # the API keeps its JSON errors
    assert api.status_code == 404 and api.json() == {"error": "Not Found"}


def test_the_chinese_search_page_names_stages_gates_and_notes_in_chinese(hash_memory):
    hash_memory.ingest_many(
        [
            {"text": "hello everyone", "session": "g", "speaker": "Sam"},
            {"text": "who is coming to the lake on Sunday?", "session": "g", "speaker": "Kim"},
            {"text": "I am coming, and bringing the poles", "session": "g", "speaker": "Sam"},
        ]
    )
    local = _local(hash_memory)
    page = local.get("/ui/search", params={"q": "hello everyone, who is coming?", "lang": "zh"})
    assert page.status_code == 200
    shown = re.sub(r'title="[^"]*"', "", page.text)  # the English names stay as tooltips
    assert "融合（加权）" in shown and ">fusion" not in shown  # a stage's bar
    # a gate and its reason
    assert "噪声过滤" in shown and "问候、拒绝、心跳或谈论记忆本身" in shown
    assert "greeting, refusal" not in shown and "<code>noise</code>" not in shown
    assert "合计" in shown and " total " not in shown  # timings
    english = local.get("/ui/search", params={"q": "hello everyone, who is coming?", "lang": "en"})
    assert "fusion (weighted)" in english.text and "greeting, refusal" in english.text
    noise_only = local.get("/ui/search", params={"q": "谢谢", "lang": "zh"}).text
    assert "噪声过滤：查询只是问候" in noise_only and "noise gate:" not in noise_only


def test_every_pipeline_sentence_the_chinese_page_knows_is_translated():
    from remem.server.ui.pipeline_text import sentence, stage_name

    for english in (
        "time intent: 'last week'",
        "cosine 0.120 < 0.3",
        "lexical channel weighted x0.50 (its best hits hold 0.25 of the query)",
        "relevance gate: nothing relevant: best relevance 0.120 < min_relevance 0.3",
        "answerability gate: nothing relevant: best relevance 0.512 < search.latent_relevance_floor"
        " 0.6, and best answerability 0.081 < search.answerability_threshold 0.3; against: x",
        "no hit reached recall.answerability_threshold 0.3: best answerability 0.081; "
        "against: answer-type evidence (-1.20)",
        "translate: the vector and keyword query also says hiking",
        "shorter than 6 characters without a memory cue",
    ):
        zh = sentence(english, "zh")
        assert zh != english and re.search(r"[\u4e00-\u9fff]", zh), english
    assert stage_name("adaptive fusion (lexical x0.50)", "zh") == "自适应融合（关键词 x0.50）"
    assert stage_name("named_speaker", "zh") == "点名的发言者"
    assert sentence("a note nobody translated yet", "zh") == "a note nobody translated yet"
