"""The people pages of the web UI over HTTP (the REST app in process, a real SQLite file):
the list of subjects, a person's current facts, history and sources on the Tom conversation
of issue 48, the "as of" date, a hand correction through the form (it changes the current
value, is a memory with a history, and is in the audit log), its refusals, and access: an
agent without the scope sees neither the person nor the facts."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from remem import Config
from remem.server.rest import create_app

HERE = "http://127.0.0.1:8765"
ORIGIN = {"Origin": HERE}
TOM = [
    ("I live in Shenzhen now", "2025-11-02T09:00:00+00:00"),
    ("I'm leaving Shenzhen… moving to Shanghai on December 1st", "2025-11-20T09:00:00+00:00"),
    ("First week in Shanghai done", "2025-12-08T09:00:00+00:00"),
]
TOM_PAGE = "/ui/people/" + quote("name:tom", safe="")


@pytest.fixture
def config() -> Config:
    """The fill never reads on its own here (its pause is an hour long): what the pages show
    was read because they wait for the facts owed (``Memory.wait_facts``)."""
    never = {"facts.quiet_ms": 3_600_000, "facts.max_wait_s": 3_600}
    return Config.load(env={}, overrides={"indexing.mode": "sync", **never})


def tom_conversation(mem, scope: str = "global") -> list[str]:
    ids = []
    for text, when in TOM:
        line = {"text": text, "speaker": "Tom", "session": "group", "timestamp": when}
        ids.append(mem.ingest({**line, "scope": scope}).id)
        if len(ids) == 1:  # someone else in the group
            mem.ingest({"text": "nice!", "speaker": "Mia", "session": "group", "timestamp": when})
    # no wait here: facts are read after the acknowledgement (ingest/facts_fill.py), and the
    # people pages wait for the facts owed (Memory.wait_facts) before they show any
    return ids


def client(mem) -> TestClient:
    return TestClient(create_app(mem), client=("127.0.0.1", 5000), base_url=HERE)


def section(page: str, testid: str) -> str:
    """The text of the table ``testid`` (tags dropped, spaces folded)."""
    found = re.search(rf'data-testid="{testid}">(.*?)</table>', page, re.S)
    assert found, f"no {testid} on the page"
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


def rows(page: str, testid: str) -> list[str]:
    return [
        " ".join(unescape(re.sub(r"<[^>]+>", " ", row)).split())
        for row in re.findall(rf'<tr data-testid="{testid}">(.*?)</tr>', page, re.S)
    ]


def audit(mem) -> list[dict]:
    path = Path(f"{mem.path}.audit.jsonl")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_the_people_page_lists_every_subject_with_its_count(hash_memory):
    tom_conversation(hash_memory)
    local = client(hash_memory)
    page = local.get("/ui/people")
    assert page.status_code == 200
    assert rows(page.text, "person-row") == ["Tom name:tom 3"]
    assert f'href="{TOM_PAGE}"' in page.text
    assert 'href="/ui/people"' in local.get("/ui").text  # in the navigation
    assert "人物" in local.get("/ui/people?lang=zh").text


def test_a_person_shows_current_facts_history_and_sources(hash_memory):
    said = tom_conversation(hash_memory)
    page = client(hash_memory).get(TOM_PAGE).text
    assert rows(page, "fact") == [
        "lives_in Shanghai 2025-12-01 0.75 rules "
        "I'm leaving Shenzhen… moving to Shanghai on December 1st 2025-11-20 09:00 UTC Close"
    ]
    closed = rows(page, "closed-fact")
    shenzhen = next(r for r in closed if r.startswith("lives_in Shenzhen"))
    # since when it was said, until the move's date, said in the first line, ended by the move
    assert shenzhen == (
        "lives_in Shenzhen 2025-11-02 09:00 UTC 2025-12-01 rules "
        "I live in Shenzhen now 2025-11-02 09:00 UTC "
        "I'm leaving Shenzhen… moving to Shanghai on December 1st 2025-11-20 09:00 UTC"
    )
    # every source links to its record's page, which exists
    for record_id in said[:2]:
        assert f'href="/ui/record/{quote(record_id, safe="")}"' in page
    assert "nice!" not in page  # Mia's line states nothing about Tom


def test_as_of_a_date_shows_what_held_then(hash_memory):
    tom_conversation(hash_memory)
    local = client(hash_memory)
    then = local.get(TOM_PAGE, params={"at": "2025-11-10"}).text
    assert [r.split(" ")[:2] for r in rows(then, "fact")] == [["lives_in", "Shenzhen"]]
    assert "What held on 2025-11-10" in then
    bad = local.get(TOM_PAGE, params={"at": "last tuesdayish"})
    assert bad.status_code == 400 and "invalid at" in unescape(bad.text)


def test_a_correction_through_the_form_wins_and_is_audited(hash_memory):
    tom_conversation(hash_memory)
    local = client(hash_memory)
    form = {"attribute": "lives_in", "value": "Beijing", "note": "he told me on the phone"}
    answer = local.post(TOM_PAGE, data=form, headers=ORIGIN, follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == TOM_PAGE + "?done=people.corrected"
    page = local.get(answer.headers["location"]).text
    current = rows(page, "fact")
    assert len(current) == 1 and current[0].startswith("lives_in Beijing")
    assert " manual " in current[0] and "Fact correction: Tom: lives_in is Beijing." in current[0]
    assert any(r.startswith("lives_in Shanghai") for r in rows(page, "closed-fact"))
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Beijing"]
    # the correction is a memory: on the memories page, with its own page and history
    entry = audit(hash_memory)[-1]
    assert entry["action"] == "fact-correction" and entry["attribute"] == "lives_in"
    assert entry["subject"] == "name:tom" and "Beijing" not in json.dumps(entry)  # no text
    correction = hash_memory.get(entry["ids"][0])
    assert correction is not None and correction.kind == "memory"
    assert "lives_in is Beijing" in local.get("/ui/memories").text
    assert "fact-correction" in local.get("/ui/settings").text
    # a second correction replaces the first: the memory history shows both, undo restores
    local.post(TOM_PAGE, data={"attribute": "lives_in", "value": "Hangzhou"}, headers=ORIGIN)
    second = audit(hash_memory)[-1]["ids"][0]
    history = unescape(local.get(f"/ui/memory/{quote(second, safe='')}").text)
    assert "lives_in is Beijing" in history and "lives_in is Hangzhou" in history
    local.post(f"/ui/undo/{quote(second, safe='')}", headers=ORIGIN)
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Beijing"]
    # closing by hand: nothing holds any more
    close = {"attribute": "lives_in", "value": "Beijing", "close": "yes"}
    assert local.post(TOM_PAGE, data=close, headers=ORIGIN).status_code == 200
    assert hash_memory.facts("Tom", attribute="lives_in") == []
    assert [e["action"] for e in audit(hash_memory)][-4:] == [
        "fact-correction",
        "fact-correction",
        "undo",
        "fact-correction",
    ]


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"attribute": "lives", "value": "Beijing"}, "invalid attribute: 'lives'"),
        ({"attribute": "", "value": "Beijing"}, "invalid attribute: ''"),
        ({"attribute": "lives_in", "value": "  "}, "invalid value: '  '"),
    ],
)
def test_a_bad_correction_names_the_field_and_changes_nothing(hash_memory, form, field):
    tom_conversation(hash_memory)
    local = client(hash_memory)
    answer = local.post(TOM_PAGE, data=form, headers=ORIGIN)
    assert answer.status_code == 400
    error = re.search(r'data-testid="error">([^<]*)<', answer.text)
    assert error and unescape(error.group(1)).startswith(field)
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Shanghai"]
    assert not Path(f"{hash_memory.path}.audit.jsonl").exists()


def test_a_post_without_origin_or_referer_is_refused(hash_memory):
    tom_conversation(hash_memory)
    local = client(hash_memory)
    form = {"attribute": "lives_in", "value": "Beijing"}
    for headers in ({}, {"Referer": "http://attacker.example/page"}, {"Origin": "null"}):
        answer = local.post(TOM_PAGE, data=form, headers=headers, follow_redirects=False)
        assert answer.status_code == 403, headers
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Shanghai"]
    referer = {"Referer": HERE + TOM_PAGE}
    assert local.post(TOM_PAGE, data=form, headers=referer, follow_redirects=False).is_redirect


def test_an_agent_without_the_scope_sees_neither_the_person_nor_the_facts(hash_memory):
    hash_memory.config.server.tokens = {"a" * 20: "agent-a", "b" * 20: "agent-b"}
    tom_conversation(hash_memory, scope="agent:agent-a")
    as_a, as_b = client(hash_memory), client(hash_memory)
    as_a.post("/ui/login", data={"token": "a" * 20})
    as_b.post("/ui/login", data={"token": "b" * 20})
    assert rows(as_a.get("/ui/people").text, "person-row") == ["Tom name:tom 3"]
    assert "Shanghai" in section(as_a.get(TOM_PAGE).text, "current")
    listing = as_b.get("/ui/people")
    assert listing.status_code == 200 and "Tom" not in listing.text
    for url in (TOM_PAGE, "/ui/people/Tom", "/ui/people/" + quote("汤姆")):
        hidden = as_b.get(url)
        assert hidden.status_code == 404 and "Shanghai" not in hidden.text, url
    refused = as_b.post(TOM_PAGE, data={"attribute": "lives_in", "value": "Mars"}, headers=ORIGIN)
    assert refused.status_code == 404
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Shanghai"]
    assert hash_memory.facts("Tom", agent="agent-b") == []


def test_long_lists_are_cut_and_say_so(hash_memory, monkeypatch):
    """A page lists at most PEOPLE_SHOWN subjects and the newest HISTORY_SHOWN ended values
    (a whole chat's crowd, or one talkative speaker, never makes one unbounded page)."""
    from remem.server.ui import pages_people

    tom_conversation(hash_memory)
    hash_memory.ingest({"text": "I live in Oslo now", "speaker": "Bob", "session": "dm"})
    hash_memory.wait_indexed()  # Bob's fact, read after the acknowledgement
    monkeypatch.setattr(pages_people, "PEOPLE_SHOWN", 1)
    monkeypatch.setattr(pages_people, "HISTORY_SHOWN", 1)
    local = client(hash_memory)
    people = local.get("/ui/people").text
    assert rows(people, "person-row") == ["Tom name:tom 3"]
    assert "The 1 with the most facts are listed, of 2." in people
    tom = local.get(TOM_PAGE).text
    assert [r.split(" ")[0] for r in rows(tom, "closed-fact")] == ["plan"]  # the newest
    assert "The newest 1 of 2 ended values." in tom


def test_the_chinese_conversation_on_a_chinese_page(hash_memory):
    """汤姆 by his Chinese name, with Chinese labels: 上海 holds, 深圳 ended on the move."""
    lines = [
        ("我现在住在深圳", "2025-11-02T09:00:00+00:00"),
        ("我要离开深圳了……12月1号搬去上海", "2025-11-20T09:00:00+00:00"),
    ]
    for text, when in lines:
        hash_memory.ingest({"text": text, "speaker": "汤姆", "session": "g", "timestamp": when})
    hash_memory.wait_indexed()  # the facts, read after the acknowledgement
    page = client(hash_memory).get("/ui/people/" + quote("汤姆"), params={"lang": "zh"}).text
    assert "现在成立的事实" in page and "历史：已不再成立的值" in page and "手动更正" in page
    assert [r.split(" ")[:2] for r in rows(page, "fact")] == [["lives_in", "上海"]]
    assert any(r.startswith("lives_in 深圳") and "规则" in r for r in rows(page, "closed-fact"))


def test_a_correction_where_the_agent_may_not_write_is_refused(hash_memory):
    """Reading a person is not writing one: with ``global`` read-only for agents, agent A
    sees Tom's facts but its correction is answered 403, naming the scope, and nothing is
    stored or audited."""
    hash_memory.config.server.tokens = {"a" * 20: "agent-a"}
    hash_memory.config.scopes.read_only = ["global"]
    tom_conversation(hash_memory)
    as_a = client(hash_memory)
    as_a.post("/ui/login", data={"token": "a" * 20})
    assert "Shanghai" in section(as_a.get(TOM_PAGE).text, "current")
    memories = hash_memory.store.count()
    refused = as_a.post(TOM_PAGE, data={"attribute": "lives_in", "value": "Rome"}, headers=ORIGIN)
    assert refused.status_code == 403
    error = re.search(r'data-testid="error">([^<]*)<', refused.text)
    assert error and "may not write to scope 'global'" in unescape(error.group(1))
    assert hash_memory.store.count() == memories
    assert [f.value for f in hash_memory.facts("Tom", attribute="lives_in")] == ["Shanghai"]
    assert not Path(f"{hash_memory.path}.audit.jsonl").exists()
