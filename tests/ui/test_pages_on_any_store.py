"""Every page and action of the web UI over HTTP (the REST app in process), on the SQLite store
and on PostgreSQL: the same pages, the same counts, the same scoping. An agent's token sees
only its scopes on every page, in every aggregate and through every URL."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from ui_seed import B_SECRET, TOKEN_A, TOKEN_B, seed

from helpers import HashEmbedder
from remem import Config, Memory
from remem.server.rest import create_app
from remem.server.rest_context import Caller
from remem.server.ui import queries
from remem.server.ui.audit import audit_path
from remem.types import Filters

A = Caller("agent-a", restricted=True)
# what agent B alone may read: none of it may reach agent A
B_ONLY = (B_SECRET, "Only agent B may read", "slack:dm:bob", "agent:agent-b")
SIZE_LABEL = {"sqlite": "the database file", "postgres": "tables and indexes of its PostgreSQL"}


@dataclass
class Seeded:
    backend: str
    mem: Memory
    ids: dict[str, str]
    client: TestClient

    def get(self, url: str, status: int = 200) -> str:
        response = self.client.get(url, follow_redirects=False)
        assert response.status_code == status, (url, response.status_code, response.text[:300])
        return unescape(response.text)

    def post(self, url: str, status: int = 303, **form: object):
        response = self.client.post(url, data=form, follow_redirects=False)
        assert response.status_code == status, (url, response.status_code, response.text[:300])
        return response


def _store(backend: str, tmp_path: Path):
    if backend == "sqlite":
        return None  # Memory opens the file itself
    pytest.importorskip("psycopg")
    from pg_server import fresh_schema, pg_url
    from remem.store.postgres import PostgresStore

    return PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)


def _open(backend: str, tmp_path: Path, *, tokens: bool) -> Iterator[Seeded]:
    overrides: dict[str, object] = {"indexing.mode": "sync"}
    if tokens:
        overrides["server.tokens"] = {TOKEN_A: "agent-a", TOKEN_B: "agent-b"}
    config = Config.load(env={}, overrides=overrides)
    store = _store(backend, tmp_path)
    path = tmp_path / "remem.db" if store is None else None
    with Memory(path, config, store=store, embedder=HashEmbedder()) as mem:
        ids = seed(mem)
        client = TestClient(  # a form posted from one of the UI's pages names it (Referer)
            create_app(mem),
            client=("127.0.0.1", 5000),
            base_url="http://127.0.0.1:8765",
            headers={"Referer": "http://127.0.0.1:8765/ui"},
        )
        yield Seeded(backend, mem, ids, client)


@pytest.fixture(params=["sqlite", "postgres"])
def operator(request, tmp_path) -> Iterator[Seeded]:
    """A seeded store and the UI as the local operator (no tokens, loopback)."""
    yield from _open(request.param, tmp_path, tokens=False)


@pytest.fixture(params=["sqlite", "postgres"])
def agent_a(request, tmp_path) -> Iterator[Seeded]:
    """A seeded store with tokens, and a client signed in as agent A."""
    for seeded in _open(request.param, tmp_path, tokens=True):
        seeded.post("/ui/login", token=TOKEN_A, next="/ui")
        yield seeded


def _number(page: str, testid: str) -> int:
    match = re.search(rf'data-testid="{testid}">([\d,]+)<', page)
    assert match, f"no {testid} on the page"
    return int(match.group(1).replace(",", ""))


def test_every_page_for_the_operator(operator):
    ui, ids, store = operator, operator.ids, operator.mem.store
    overview = ui.get("/ui")
    assert _number(overview, "total") == store.count()
    assert SIZE_LABEL[ui.backend] in overview
    assert "telegram" in overview and "slack" in overview and "hash64" in overview
    conversations = ui.get("/ui/conversations")
    for shown in ("读书会", "hiking club", "slack:dm:bob", "telegram:dm:alice"):
        assert shown in conversations
    assert "我上周搬到了杭州" in ui.get("/ui/session?s=" + quote("qq:group:1001"))
    ui.get("/ui/session?s=nobody", status=404)
    jump = ui.get(f"/ui/record/{quote(ids['group_message'], safe='')}", status=303)
    assert (
        jump == ""
        and "/ui/session?s=qq%3Agroup%3A1001&offset=0"
        in (
            ui.client.get(f"/ui/record/{ids['group_message']}", follow_redirects=False).headers[
                "location"
            ]
        )
    )
    current = ui.get("/ui/memories")
    assert "Alice lives in Berlin" in current and "Alice lives in Paris" not in current
    old = ui.get("/ui/memories?state=superseded")
    assert "Alice lives in Paris" in old and "Alice lives in Berlin" not in old
    decisions = ui.get("/ui/memories?category=decision&state=all")
    assert B_SECRET in decisions and "Alice" not in decisions
    history = ui.get(f"/ui/memory/{quote(ids['a_current'], safe='')}")
    assert "Alice lives in Paris" in history and "Alice lives in Berlin" in history
    assert "Alice" in ui.get("/ui/search?q=Berlin")
    assert "peanuts" in ui.get("/ui/inject?q=" + quote("is Alice allergic to peanuts?"))
    assert "Alice" in ui.get(f"/ui/delete/{quote(ids['a_clara'], safe='')}")
    settings = ui.get("/ui/settings")
    assert str(audit_path(ui.mem)) in settings and "embed.provider" in settings
    people = ui.get("/ui/people")
    assert "/ui/people/name%3Aalice" in people and "小王" in people
    alice = ui.get("/ui/people/" + quote("name:alice", safe=""))
    assert "Berlin" in alice and "peanuts" in alice and "Clara" in alice
    clara = mem_record(ui.mem, "My sister Clara visits in December")
    assert f"/ui/record/{quote(clara, safe='')}" in alice  # the source message, linked
    assert "杭州" in ui.get("/ui/people/" + quote("小王"))


def mem_record(mem, text: str) -> str:
    """The id of the one record saying ``text``."""
    found = [r.id for r in mem.list(Filters(), limit=None) if r.text == text]
    assert len(found) == 1, (text, found)
    return found[0]


def _aggregates(mem, scopes: list[str] | None) -> dict[str, object]:
    """What the pages show, without the per-store ids."""
    groups = queries.session_groups(mem, scopes)
    memories = queries.memory_page(mem, scopes, category=None, state="all", offset=0, limit=50)
    old = queries.memory_page(mem, scopes, category=None, state="superseded", offset=0, limit=50)
    return {
        "overview": queries._overview(mem, scopes),
        "sessions": [(g.platform, g.group, g.sessions) for g in groups],
        "categories": queries.categories(mem, scopes),
        "memories": ([r.text for r in memories.records], memories.total),
        "superseded": ([r.text for r in old.records], old.total),
        "people": queries.people(mem, scopes),
    }


def test_aggregates_agree_with_the_reference_store(operator):
    """The same seed in the in-memory reference store: every number and listing the pages
    show is the same, for the operator and for an agent."""
    from remem.store import InMemoryStore

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(config=config, store=InMemoryStore(), embedder=HashEmbedder()) as reference:
        seed(reference)
        for scopes in (None, A.scopes(operator.mem)):
            assert _aggregates(operator.mem, scopes) == _aggregates(reference, scopes)
        assert queries.scopes_in_use(operator.mem) == queries.scopes_in_use(reference)
    data = queries.overview(operator.mem, None)
    assert data.total == operator.mem.store.count() and data.index_status["pending"] == 1


def test_every_action_and_its_audit_trail(operator):
    ui, ids, mem = operator, operator.ids, operator.mem
    edited = ui.post(f"/ui/edit/{quote(ids['a_peanuts'], safe='')}", text="Alice: no peanuts")
    new_id = edited.headers["location"].split("/ui/memory/")[1].split("?")[0]
    assert mem.get(ids["a_peanuts"]).valid_to is not None
    assert "Alice: no peanuts" in ui.get(f"/ui/memory/{new_id}")
    ui.post(f"/ui/undo/{new_id}")
    assert mem.get(ids["a_peanuts"]).valid_to is None
    ui.post(f"/ui/delete/{quote(ids['a_clara'], safe='')}", confirm="yes")
    assert mem.get(ids["a_clara"]) is None
    dry = ui.post("/ui/bulk-delete", status=200, category="preference", state="current")
    assert "小李推荐龙井村的茶" in unescape(dry.text)
    ui.post("/ui/bulk-delete", category="preference", state="current", confirm="yes", expected=1)
    assert mem.get(ids["g_tea"]) is None
    total = mem.store.count()
    ui.post("/ui/backfill")
    deadline = time.time() + 30
    while mem.get(ids["pending"]).index_status == "pending" and time.time() < deadline:
        time.sleep(0.05)
    assert mem.get(ids["pending"]).index_status == "indexed"
    # the overview served first is the count from before the changes; a recount follows
    deadline = time.time() + 10
    while (shown := _number(ui.get("/ui"), "total")) != total and time.time() < deadline:
        time.sleep(0.05)
    assert shown == total
    alice = "/ui/people/" + quote("name:alice", safe="")
    ui.post(alice, attribute="lives_in", value="Hamburg", note="moved again")
    assert [f.value for f in mem.facts("Alice", attribute="lives_in")] == ["Hamburg"]
    assert "Hamburg" in ui.get(alice)
    path = audit_path(mem)
    assert path is not None and path.exists()
    if ui.backend == "sqlite":
        assert path == Path(f"{mem.path}.audit.jsonl")
    else:  # beside the configured data, named after the store's schema
        assert path.parent == mem.config.store.resolved_path().parent / "ui-audit"
        assert mem.store.storage_size().location.split("schema ")[1].rstrip(")") in path.name
    logged = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [e["action"] for e in logged] == [
        "edit",
        "undo",
        "delete",
        "bulk-delete",
        "backfill",
        "fact-correction",
    ]
    settings = ui.get("/ui/settings")
    assert "bulk-delete" in settings and "backfill" in settings


def test_an_agent_sees_only_its_scopes_everywhere(agent_a):
    ui, ids, mem = agent_a, agent_a.ids, agent_a.mem
    pages = [
        "/ui",
        "/ui/conversations",
        "/ui/session?s=" + quote("telegram:dm:alice"),
        "/ui/memories",
        "/ui/memories?state=all",
        "/ui/memories?state=superseded",
        "/ui/memories?category=decision&state=all",
        f"/ui/memory/{quote(ids['a_current'], safe='')}",
        "/ui/search?q=" + quote("launch moves to Friday B-SECRET-PLAN"),
        "/ui/inject?q=" + quote("when is the launch? B-SECRET-PLAN"),
        "/ui/settings",
        "/ui/people",
        "/ui/people/" + quote("name:alice", safe=""),
    ]
    # a fact only agent B may read: its person is neither listed nor shown to A
    mem.ingest(
        {"text": "I live in Oslo now", "speaker": "Bob", "session": "slack:dm:bob"}
        | {"scope": "agent:agent-b"}
    )
    assert [f.value for f in mem.facts("Bob")] == ["Oslo"]
    for url in pages:
        page = ui.get(url)
        leaked = [s for s in (*B_ONLY, ids["b_message"], ids["b_memory"]) if s in page]
        assert not leaked, (url, leaked)
    overview = ui.get("/ui")
    visible = mem.store.count(Filters(scopes=A.scopes(mem)))
    assert _number(overview, "total") == visible < mem.store.count()
    assert "slack" not in overview  # B's platform is not even counted
    # every aggregate, asked directly, stays inside A's scopes
    scopes = A.scopes(mem)
    data = queries.overview(mem, scopes)
    assert set(data.by_scope) == {"agent:agent-a", "global"} and "slack" not in data.by_platform
    sessions = {s.session for g in queries.session_groups(mem, scopes) for s in g.sessions}
    assert "slack:dm:bob" not in sessions and "telegram:dm:alice" in sessions
    assert "decision" not in queries.categories(mem, scopes)
    # B's records by URL answer exactly like missing ones; changes to them are refused
    for url in (
        f"/ui/memory/{quote(ids['b_memory'], safe='')}",
        f"/ui/record/{quote(ids['b_message'], safe='')}",
        f"/ui/delete/{quote(ids['b_message'], safe='')}",
        "/ui/session?s=" + quote("slack:dm:bob"),
        "/ui/people/" + quote("name:bob", safe=""),
        "/ui/people/Bob",
    ):
        ui.get(url, status=404)
    assert "Oslo" not in ui.get("/ui/people") and "Bob" not in ui.get("/ui/people")
    ui.post("/ui/people/Bob", status=404, attribute="lives_in", value="Rome")
    ui.get("/ui/memories?scope=agent:agent-b", status=403)
    ui.post(f"/ui/edit/{quote(ids['b_memory'], safe='')}", status=404, text="mine now")
    ui.post(f"/ui/undo/{quote(ids['b_memory'], safe='')}", status=404)
    ui.post(f"/ui/delete/{quote(ids['b_memory'], safe='')}", status=404, confirm="yes")
    dry = unescape(ui.post("/ui/bulk-delete", status=200, state="all").text)
    assert B_SECRET not in dry
    assert mem.get(ids["b_memory"]).text == B_SECRET  # untouched


def test_the_ui_on_the_in_memory_store(tmp_path):
    """Mounted on every store: in memory, the size is not measured and the audit log is kept
    in memory (nothing of that store outlives the process)."""
    from remem.store import InMemoryStore

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(config=config, store=InMemoryStore(), embedder=HashEmbedder()) as mem:
        ids = seed(mem)
        ui = Seeded(
            "memory",
            mem,
            ids,
            TestClient(
                create_app(mem),
                client=("127.0.0.1", 5000),
                base_url="http://127.0.0.1",
                headers={"Origin": "http://127.0.0.1"},
            ),
        )
        assert audit_path(mem) is None
        assert "in memory: not measured" in ui.get("/ui")
        ui.post(f"/ui/delete/{quote(ids['a_clara'], safe='')}", confirm="yes")
        settings = ui.get("/ui/settings")
        assert "keeps its audit log in memory" in settings
        assert re.search(r"<td>operator</td><td>delete</td>", settings)
        alice = "/ui/people/" + quote("name:alice", safe="")
        assert "Berlin" in ui.get(alice)
        ui.post(alice, attribute="lives_in", value="Berlin", close="yes")
        assert mem.facts("Alice", attribute="lives_in") == []
        assert "fact-correction" in ui.get("/ui/settings")


def test_remem_serve_on_postgresql_serves_the_ui(tmp_path, embeddings):
    """The real command: `remem serve` with a PostgreSQL URL mounts /ui; agent A's pages hold
    its records and none of B's; its delete lands in the audit file the settings page names."""
    pytest.importorskip("psycopg")
    import httpx
    from ui_seed import start_serve, write_config

    from pg_server import fresh_schema, pg_url

    config = write_config(tmp_path / "remem.toml", embeddings.url)
    with config.open("a", encoding="utf-8") as fh:
        fh.write(f'\n[store]\npg_schema = "{fresh_schema()}"\n')
    with Memory(pg_url(), Config.load(config, env={})) as mem:
        ids = seed(mem)
    proc, url = start_serve(pg_url(), config)

    def mem_gone(record_id: str) -> bool:
        with Memory(pg_url(), Config.load(config, env={})) as again:
            return again.get(record_id) is None

    try:
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {TOKEN_A}"}, timeout=30
        ) as http:
            for path in ("/ui", "/ui/conversations", "/ui/memories?state=all", "/ui/settings"):
                page = http.get(path)
                assert page.status_code == 200, path
                assert not [s for s in B_ONLY if s in unescape(page.text)], path
            assert SIZE_LABEL["postgres"] in http.get("/ui").text
            assert "Alice lives in Berlin" in unescape(http.get("/ui/memories").text)
            gone = http.post(
                f"/ui/delete/{quote(ids['a_clara'], safe='')}", data={"confirm": "yes"}
            )
            assert gone.status_code == 303 and mem_gone(ids["a_clara"])
            settings = http.get("/ui/settings").text
            audit_file = re.search(r'data-testid="audit-file">([^<]+)<', settings)
        assert audit_file and "ui-audit" in audit_file.group(1)
        lines = Path(unescape(audit_file.group(1))).read_text("utf-8").splitlines()
        (entry,) = [json.loads(line) for line in lines]
        assert (entry["agent"], entry["action"], entry["ids"]) == (
            "agent-a",
            "delete",
            [ids["a_clara"]],
        )
    finally:
        proc.terminate()
        proc.wait(10)
