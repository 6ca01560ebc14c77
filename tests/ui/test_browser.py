"""The web UI in a real browser (Debian's chromium through Playwright) against a real
`remem serve` process: every page, search with explain, edit and undo, delete with
confirmation, and agent isolation (agent A never sees agent B's records, not even by URL)."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import quote

import httpx
from playwright.sync_api import expect
from ui_seed import (
    B_SECRET,
    DAY,
    START,
    TOKEN_A,
    TOKEN_B,
    browser_timeout_ms,
    patient,
    seed,
    start_serve,
    write_config,
)

from remem import Config, Memory


def api(server, token: str, method: str, path: str, **kw) -> httpx.Response:
    return httpx.request(
        method, server.url + path, headers={"Authorization": f"Bearer {token}"}, timeout=30, **kw
    )


def test_every_page_answers_after_sign_in(page_a, ui_server):
    page = page_a
    expect(page.get_by_test_id("agent")).to_have_text("agent-a")
    expect(page.get_by_test_id("chart")).to_be_visible()
    index = page.get_by_test_id("index-status")
    expect(index).to_contain_text("pending")
    pending = index.locator("tr", has_text="pending").locator("td")
    assert int(pending.inner_text()) >= 1  # the record seeded without embedding
    expect(page.get_by_test_id("by-platform")).to_contain_text("telegram")
    for link, heading in (
        ("Conversations", "Conversations"),
        ("Memories", "Memories"),
        ("Search", "Search with explain"),
        ("Settings", "Settings"),
        ("Overview", "Overview"),
    ):
        page.click(f"header nav >> text={link}")
        expect(page.locator("h1")).to_contain_text(heading)
    page.click("header nav >> text=Settings")
    settings = page.get_by_test_id("settings")
    expect(settings.locator("tr", has_text="embed.provider")).to_contain_text(str(ui_server.config))
    expect(settings.locator("tr", has_text="search.max_k")).to_contain_text("default")
    expect(settings.locator("tr", has_text="scopes.agents")).to_contain_text("operator only")


def test_backfill_embeds_the_pending_record(page_a):
    page = page_a
    page.click("text=Run backfill")
    expect(page.locator(".flash")).to_contain_text("Backfill started")
    deadline = time.monotonic() + browser_timeout_ms() / 1000
    while time.monotonic() < deadline:  # the run is in the background; the page shows it
        page.reload()
        if (
            "pending" in page.get_by_test_id("index-status").locator("tr").first.inner_text()
            and page.get_by_test_id("index-status").locator("tr").first.locator("td").inner_text()
            == "0"
        ):
            break
        page.wait_for_timeout(100)
    row = page.get_by_test_id("index-status").locator("tr", has_text="pending").locator("td")
    expect(row).to_have_text("0")


def test_conversations_timeline_and_jump_from_a_hit(page_a, ui_server):
    page = page_a
    page.click("header nav >> text=Conversations")
    expect(page.get_by_test_id("group").first).to_be_visible()
    expect(page.locator("main")).to_contain_text("读书会")
    page.click("text=qq:group:1001")
    messages = page.get_by_test_id("message")
    expect(messages).to_have_count(5)
    expect(messages.nth(3)).to_contain_text("notice")  # the join notice, marked as one
    expect(messages.nth(2)).to_contain_text("assistant")
    expect(messages.nth(0)).to_contain_text("小王")
    expect(messages.nth(0)).to_contain_text("indexed")
    page.click("header nav >> text=Search")
    page.fill("input[name=q]", "龙井村 喝茶")
    page.click("button:has-text('Search')")
    hit = page.get_by_test_id("hit").filter(has_text="推荐你去龙井村喝茶").first
    expect(hit).to_be_visible()
    hit.get_by_test_id("open-hit").click()
    target = page.locator("li.target")
    expect(target).to_contain_text("推荐你去龙井村喝茶")
    assert "qq%3Agroup%3A1001" in page.url or "qq:group:1001" in page.url


def test_a_search_answered_late_is_still_waited_for(page_a, ui_server):
    """Under load a search page once took over 5 s to answer, Playwright's default wait, and
    `make test` failed though nothing was wrong (issue 44 item 18). Here the server's answer
    is held back 6 s: the browser waits (they scale with the machine's load) still see it."""
    page = page_a
    page.click("header nav >> text=Search")

    def late(route):
        time.sleep(6)  # the slow server being simulated, not a wait for a condition
        route.continue_()

    page.route(re.compile(r".*/ui/search\?q=.*"), late)
    page.fill("input[name=q]", "龙井村 喝茶")
    page.click("button:has-text('Search')")
    hit = page.get_by_test_id("hit").filter(has_text="推荐你去龙井村喝茶").first
    expect(hit).to_be_visible()
    page.unroute(re.compile(r".*/ui/search\?q=.*"))


def test_the_charts_date_labels_stay_inside_it(browser, embeddings, tmp_path):
    """The last date label started at its bar's left edge and ran past the chart's right
    edge, cut off (issue 44 item 16): every label lies within the chart. Its own server: 59
    days of records make 59 narrow daily bars, the last label far wider than its bar."""
    config = write_config(tmp_path / "remem.toml", embeddings.url, tokens=False)
    db = tmp_path / "chart.db"
    with Memory(db, Config.load(config, env={})) as mem:
        seed(mem)  # from 20 days before START to 5 days after
        mem.ingest({"text": "a late line", "session": "late", "created_at": START + 38 * DAY})
    proc, url = start_serve(db, config)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.set_default_timeout(patient())
        page = context.new_page()
        page.goto(f"{url}/ui")
        _labels_inside(page.get_by_test_id("chart"))
    finally:
        context.close()
        proc.terminate()
        proc.wait(10)


def _labels_inside(chart) -> None:
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    labels = chart.locator("text.tick")
    assert labels.count() >= 2
    for i in range(labels.count()):
        label = labels.nth(i).bounding_box()
        text = labels.nth(i).inner_html()
        assert label["x"] >= box["x"] - 0.5, (text, label, box)
        assert label["x"] + label["width"] <= box["x"] + box["width"] + 0.5, (text, label, box)


def test_search_with_explain_draws_every_stage(page_a):
    page = page_a
    page.click("header nav >> text=Search")
    page.fill("input[name=q]", "where does Alice live? Berlin")
    page.click("button:has-text('Search')")
    hits = page.get_by_test_id("hit")
    expect(hits.first).to_be_visible()
    first = hits.first
    expect(first).to_contain_text(re.compile(r"vector #\d"))
    expect(first).to_contain_text(re.compile(r"lexical #\d"))
    bars = first.get_by_test_id("bars").locator("tr")
    assert bars.count() >= 2  # fusion plus at least one scoring stage
    expect(bars.first).to_contain_text("fusion")
    width = bars.first.locator("td.bar span").evaluate("e => e.style.width")
    assert width.endswith("%") and float(width[:-1]) > 0
    # Only the lexical channel: every hit then has a lexical rank and no vector rank.
    page.uncheck("input[name=channels][value=vector]")
    page.click("button:has-text('Search')")
    expect(page.get_by_test_id("hit").first).to_contain_text("vector —")


def test_search_shows_what_a_gate_dropped(page_a):
    page = page_a
    page.goto(page.url.split("/ui")[0] + "/ui/search?q=" + quote("hello everyone, who is coming?"))
    dropped = page.get_by_test_id("dropped")
    expect(dropped).to_be_visible()  # greetings match on words but the noise gate drops them
    row = dropped.locator("tr", has_text="hello everyone").first
    expect(row).to_contain_text("noise")
    expect(row).to_contain_text("greeting")


def test_injected_blocks_for_a_turn(page_a):
    page = page_a
    page.click("header nav >> text=Conversations")
    page.click("text=telegram:dm:alice")
    turn = page.get_by_test_id("message").filter(has_text="allergic to peanuts")
    turn.locator("text=what would be injected").click()
    chat = page.get_by_test_id("inject-chat")
    memory = page.get_by_test_id("inject-memory")
    expect(chat).to_be_visible()
    expect(memory.locator("pre.block")).to_contain_text("<relevant-memories")
    expect(memory.locator("pre.block")).to_contain_text("allergic to peanuts")
    expect(chat).to_contain_text(re.compile(r"Nothing would be injected|<"))


def test_edit_makes_a_new_version_and_undo_restores(page_a, ui_server):
    page = page_a
    page.goto(f"{ui_server.url}/ui/memory/{ui_server.ids['a_peanuts']}")
    form = page.get_by_test_id("edit-form")
    form.locator("textarea[name=text]").fill("Alice is allergic to peanuts and cashews")
    form.locator("button").click()
    expect(page.locator(".flash")).to_contain_text("new version")
    expect(page.get_by_test_id("memory-text")).to_have_text(
        "Alice is allergic to peanuts and cashews"
    )
    versions = page.get_by_test_id("version")
    expect(versions).to_have_count(2)
    new_url = page.url
    assert ui_server.ids["a_peanuts"] not in new_url  # a new record, not an overwrite
    old = api(ui_server, TOKEN_A, "GET", f"/v1/records/{ui_server.ids['a_peanuts']}").json()
    assert old["text"] == "Alice is allergic to peanuts" and old["valid_to"] is not None
    # An invalid importance is refused with the API's own sentence.
    form = page.get_by_test_id("edit-form")
    form.locator("input[name=importance]").fill("7")
    form.locator("button").click()
    shown = page.get_by_test_id("error").inner_text()
    from_api = api(
        ui_server, TOKEN_A, "POST", "/v1/memories", json={"text": "x", "importance": 7}
    ).json()["error"]
    assert shown == from_api
    page.goto(new_url.split("?")[0])
    page.get_by_test_id("version").last.get_by_test_id("undo").click()
    expect(page.locator(".flash")).to_contain_text("Undone")
    expect(page.get_by_test_id("memory-text")).to_have_text("Alice is allergic to peanuts")
    restored = api(ui_server, TOKEN_A, "GET", f"/v1/records/{ui_server.ids['a_peanuts']}").json()
    assert restored["valid_to"] is None
    actions = [json.loads(line)["action"] for line in ui_server.audit_lines()]
    assert "edit" in actions and "undo" in actions


def test_a_person_page_and_a_hand_correction(page_a, ui_server):
    """People -> Alice: her facts with their source messages, then a correction through the
    form: the new value holds (manual), the old one moves to the history, and it is audited."""
    page = page_a
    page.click("header nav >> text=People")
    expect(page.locator("h1")).to_contain_text("People")
    page.get_by_test_id("person-row").filter(has_text="name:alice").locator("a").click()
    expect(page.locator("h1")).to_contain_text("Alice")
    lives = page.get_by_test_id("fact").filter(has_text="lives_in")
    expect(lives).to_contain_text("Berlin")
    # the message and the seed's curated memory "Alice lives in Berlin" both state it
    expect(lives.get_by_test_id("source").first).to_contain_text("I moved to Berlin last week")
    form = page.get_by_test_id("correct-form")
    form.locator("input[name=attribute]").fill("lives_in")
    form.locator("input[name=value]").fill("Potsdam")
    form.locator("input[name=note]").fill("moved out of the city")
    form.locator("button").click()
    expect(page.locator(".flash")).to_contain_text("Corrected")
    lives = page.get_by_test_id("fact").filter(has_text="lives_in")
    expect(lives).to_contain_text("Potsdam")
    expect(lives).to_contain_text("manual")
    expect(page.get_by_test_id("closed-fact").filter(has_text="Berlin")).to_be_visible()
    entries = [json.loads(line) for line in ui_server.audit_lines()]
    assert any(
        e["action"] == "fact-correction"
        and e["agent"] == "agent-a"
        and e["attribute"] == "lives_in"
        for e in entries
    )


def test_delete_asks_first_and_is_logged(page_a, ui_server):
    page = page_a
    clara = ui_server.ids["a_clara"]
    page.goto(f"{ui_server.url}/ui/memory/{clara}")
    page.click("text=Delete…")
    expect(page.get_by_test_id("confirm-text")).to_have_text(
        "Alice's sister Clara visits in December"
    )
    assert api(ui_server, TOKEN_A, "GET", f"/v1/records/{clara}").status_code == 200
    page.get_by_test_id("confirm-yes").click()
    expect(page.locator(".flash")).to_contain_text("Deleted")
    assert api(ui_server, TOKEN_A, "GET", f"/v1/records/{clara}").status_code == 404
    entries = [json.loads(line) for line in ui_server.audit_lines()]
    assert any(
        e["action"] == "delete" and e["ids"] == [clara] and e["agent"] == "agent-a" for e in entries
    )


def test_bulk_delete_previews_then_deletes(page_a, ui_server):
    page = page_a
    made = [
        api(
            ui_server,
            TOKEN_A,
            "POST",
            "/v1/memories",
            json={"text": f"scratch note {i}", "category": "other"},
        ).json()["id"]
        for i in range(3)
    ]
    page.goto(f"{ui_server.url}/ui/memories?category=other&state=current")
    expect(page.get_by_test_id("memory-row")).to_have_count(3)
    page.click("text=Delete all matching…")
    expect(page.get_by_test_id("dry-run")).to_contain_text("Delete 3 memories")
    for record_id in made:  # the dry run deleted nothing
        assert api(ui_server, TOKEN_A, "GET", f"/v1/records/{record_id}").status_code == 200
    page.get_by_test_id("confirm-yes").click()
    expect(page.locator(".flash")).to_contain_text("Deleted 3 memories")
    page.goto(f"{ui_server.url}/ui/memories?category=other&state=current")
    expect(page.get_by_test_id("mem-count")).to_have_text("0 memories")
    for record_id in made:
        assert api(ui_server, TOKEN_A, "GET", f"/v1/records/{record_id}").status_code == 404


def test_agent_a_never_sees_agent_b(page_a, page_b, ui_server):
    ids = ui_server.ids
    page = page_a
    expect(page.get_by_test_id("by-scope")).not_to_contain_text("agent:agent-b")
    page.click("header nav >> text=Conversations")
    expect(page.locator("main")).not_to_contain_text("slack:dm:bob")
    page.goto(f"{ui_server.url}/ui/search?q={quote('B-SECRET-PLAN launch Friday')}")
    expect(page.locator("main")).not_to_contain_text(B_SECRET)
    page.goto(f"{ui_server.url}/ui/memories?state=all")
    expect(page.locator("main")).not_to_contain_text(B_SECRET)
    # B's ids typed into URLs answer exactly like ids that do not exist.
    for path, secret in (
        ("/ui/memory/{}", ids["b_memory"]),
        ("/ui/record/{}", ids["b_message"]),
        ("/ui/delete/{}", ids["b_message"]),
        ("/ui/session?s={}", "slack:dm:bob"),
        ("/ui/memory/{}", ids["b_message"]),
    ):
        response = page.goto(ui_server.url + path.format(secret))
        assert response.status == 404
        shown = page.get_by_test_id("error").inner_text()
        assert B_SECRET not in page.content()
        missing = page.goto(ui_server.url + path.format("no-such-id"))
        assert missing.status == 404
        assert shown.replace(secret, "no-such-id") == page.get_by_test_id("error").inner_text()
    search = page.goto(f"{ui_server.url}/ui/search?q=x&turn={ids['b_message']}&inject=1")
    assert search.status == 200
    expect(page.get_by_test_id("inject-chat")).to_contain_text("no record")
    # B's own pages do show B's records.
    page_b.goto(f"{ui_server.url}/ui/memories")
    expect(page_b.locator("main")).to_contain_text(B_SECRET)
    page_b.goto(f"{ui_server.url}/ui/memory/{ids['b_memory']}")
    expect(page_b.get_by_test_id("memory-text")).to_have_text(B_SECRET)
    # ... and B cannot change A's.
    assert page_b.goto(f"{ui_server.url}/ui/memory/{ids['a_current']}").status == 404


def test_posts_from_another_origin_are_refused(ui_server):
    r = httpx.post(
        f"{ui_server.url}/ui/delete/{ui_server.ids['g_tea']}",
        data={"confirm": "yes"},
        headers={"Origin": "http://evil.example", "Authorization": f"Bearer {TOKEN_A}"},
        timeout=10,
    )
    assert r.status_code == 403
    assert (
        api(ui_server, TOKEN_A, "GET", f"/v1/records/{ui_server.ids['g_tea']}").status_code == 200
    )


def test_bad_token_and_chinese_text(browser, ui_server):
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.goto(f"{ui_server.url}/ui/login")
    expect(page.locator("h1")).to_have_text("登录")  # from Accept-Language
    page.fill("input[name=token]", "not-a-real-token-at-all")
    page.click("button.primary")
    expect(page.get_by_test_id("error")).to_have_text("未知的令牌。")
    page.fill("input[name=token]", TOKEN_B)
    page.click("button.primary")
    expect(page.locator("header nav")).to_contain_text("总览")
    page.click("text=English")
    expect(page.locator("header nav")).to_contain_text("Overview")
    context.close()


def test_search_form_errors_match_the_api(page_a, ui_server):
    page = page_a
    page.goto(f"{ui_server.url}/ui/search?q=Berlin&k=abc")
    shown = page.get_by_test_id("error").inner_text()
    from_api = api(
        ui_server, TOKEN_A, "POST", "/v1/search", json={"query": "Berlin", "k": "abc"}
    ).json()["error"]
    assert shown == from_api
    page.goto(f"{ui_server.url}/ui/search?q=Berlin&since=yesterday-ish")
    shown = page.get_by_test_id("error").inner_text()
    from_api = api(
        ui_server,
        TOKEN_A,
        "POST",
        "/v1/search",
        json={"query": "Berlin", "filters": {"since": "yesterday-ish"}},
    ).json()["error"]
    assert shown == from_api
