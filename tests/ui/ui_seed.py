"""A small, varied store for the web UI tests and screenshots: two agents with their own
scopes, shared group chats (English and Chinese), a notice, a pending record, memories with a
version history; and a hash-embedding server speaking the OpenAI embeddings protocol, so a
real `remem serve` process (which cannot be handed a Python test double) embeds fast and
deterministically."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from helpers import HashEmbedder, LocalJSONServer
from serving import free_port

TOKEN_A = "token-for-agent-a-0123456789"
TOKEN_B = "token-for-agent-b-0123456789"
B_SECRET = "B-SECRET-PLAN: the launch moves to Friday"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# How long a browser step waits for the page before it fails, on an idle machine. Playwright's
# own default for expect() is 5 s, which a search page under `make test` on a loaded machine
# once exceeded (issue 44 item 18): waits scale with the load instead (browser_timeout_ms).
IDLE_WAIT_MS = 30_000
MAX_WAIT_MS = 300_000


def browser_timeout_ms() -> float:
    """The wait for a browser step: IDLE_WAIT_MS times the load per core when that is over
    one (the 1-minute load average: a machine with twice the work per core is about twice as
    slow to answer), at most MAX_WAIT_MS. A wait ends as soon as its condition holds, so a
    long one costs nothing on a page that answers."""
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return min(IDLE_WAIT_MS * max(1.0, load), MAX_WAIT_MS)


def patient() -> float:
    """Make every browser wait (expect() and, given to a context's set_default_timeout, page
    actions) last ``browser_timeout_ms``, measured now: never Playwright's fixed 5 s."""
    from playwright.sync_api import expect

    timeout = browser_timeout_ms()
    expect.set_options(timeout=timeout)
    return timeout


# Debian's headless-only build first (`make browser` installs it: ~105 packages on a bare
# Debian 12, against ~167 with systemd for the full `chromium` even without recommends), then
# the full browser where a developer already has it.
CHROMIUM_CANDIDATES = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
DAY = 86_400.0
START = 1_790_000_000.0  # 2026-09-21, a fixed clock so the pages are reproducible


def chromium_path() -> str:
    """The browser the UI tests drive: $REMEM_TEST_CHROMIUM, else the first candidate installed
    (else the first candidate, so the skip message names what to install)."""
    if chosen := os.environ.get("REMEM_TEST_CHROMIUM"):
        return chosen
    return next((p for p in CHROMIUM_CANDIDATES if Path(p).exists()), CHROMIUM_CANDIDATES[0])


class HashEmbeddings(LocalJSONServer):
    """POST /v1/embeddings answered with the test HashEmbedder's vectors."""

    def __init__(self) -> None:
        self.embedder = HashEmbedder()
        super().__init__()

    def respond(self, path, body, headers):
        if path != "/v1/embeddings":
            return 404, b'{"error": {"message": "no such path"}}', {}
        vectors = self.embedder.embed_passages(list(body["input"]))
        data = [
            {"object": "embedding", "index": i, "embedding": v.tolist()}
            for i, v in enumerate(vectors)
        ]
        payload = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        return 200, json.dumps(payload).encode(), {}


def write_config(path: Path, embed_url: str, *, tokens: bool = True) -> Path:
    lines = [
        "[embed]",
        'provider = "openai"',
        f'base_url = "{embed_url}"',
        'model = "hash64"',
        'api_key = "test-key"',
        "",
        "[indexing]",
        'mode = "sync"',
        "",
    ]
    if tokens:
        lines += ["[server.tokens]", f'"{TOKEN_A}" = "agent-a"', f'"{TOKEN_B}" = "agent-b"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _chat(session, scope, platform, group, group_name, lines, start):
    out = []
    for i, (role, speaker, text) in enumerate(lines):
        out.append(
            {
                "text": text,
                "role": role,
                "speaker": speaker,
                "session": session,
                "scope": scope,
                "platform": platform,
                "group_id": group,
                "group_name": group_name,
                "created_at": start + i * 600,
            }
        )
    return out


def seed(mem) -> dict[str, str]:
    """Fill the store; returns the ids the tests refer to by name."""
    from remem.server.rest_context import Caller
    from remem.server.ui import actions

    book_club = _chat(
        "qq:group:1001",
        "global",
        "qq",
        "1001",
        "读书会",
        [
            ("user", "小王", "我上周搬到了杭州，新家离西湖很近"),
            ("user", "小李", "杭州好啊，推荐你去龙井村喝茶"),
            ("assistant", "bot", "记下了：小王现在住在杭州。"),
            ("notice", None, "小张 joined the group"),
            ("user", "小张", "大家这周读到第几章了？"),
        ],
        START,
    )
    a_chat = _chat(
        "telegram:dm:alice",
        "agent:agent-a",
        "telegram",
        None,
        None,
        [
            ("user", "Alice", "I moved to Berlin last week, the flat is near the Spree"),
            ("assistant", "bot", "Noted: you live in Berlin now."),
            ("user", "Alice", "My sister Clara visits in December"),
            ("user", "Alice", "I am allergic to peanuts, please remember that"),
        ],
        START + 3 * DAY,
    )
    b_chat = _chat(
        "slack:dm:bob",
        "agent:agent-b",
        "slack",
        None,
        None,
        [
            ("user", "Bob", B_SECRET),
            ("user", "Bob", "Only agent B may read this conversation"),
        ],
        START + 5 * DAY,
    )
    history = []
    for day in range(20):  # steady traffic for the chart
        history += _chat(
            f"qq:group:2002-{day // 7}",
            "global",
            "qq",
            "2002",
            "hiking club",
            [
                ("user", "Sam", f"Day {day}: the trail near the lake was muddy"),
                ("user", "Kim", f"Day {day}: we should bring poles next time"),
                *([("user", "Lee", "hello everyone")] if day % 5 == 0 else []),
            ],
            START - (20 - day) * DAY,
        )
    records = mem.ingest_many(book_club + a_chat + b_chat + history, wait=True)
    pending = mem.ingest(
        {
            "text": "This message has not been embedded yet",
            "session": "telegram:dm:alice",
            "scope": "agent:agent-a",
            "role": "user",
            "speaker": "Alice",
            "platform": "telegram",
            "created_at": START + 3 * DAY + 9000,
        },
        embed=False,
    )
    by_text = {r.text: r for r in records}
    lives = mem.add(
        "Alice lives in Paris",
        scope="agent:agent-a",
        category="fact",
        importance=0.6,
        created_at=START + 2 * DAY,
        wait=True,
    )
    moved = actions.edit(
        mem,
        Caller("agent-a", True),
        lives.id,
        text="Alice lives in Berlin",
        now=START + 3 * DAY + 700,
    )
    peanuts = mem.add(
        "Alice is allergic to peanuts",
        scope="agent:agent-a",
        category="fact",
        importance=0.95,
        created_at=START + 3 * DAY + 1900,
        wait=True,
        source_ids=[by_text["I am allergic to peanuts, please remember that"].id],
    )
    clara = mem.add(
        "Alice's sister Clara visits in December",
        scope="agent:agent-a",
        category="entity",
        importance=0.5,
        created_at=START + 3 * DAY + 1300,
        wait=True,
    )
    hz = mem.add(
        "小王住在杭州，离西湖很近",
        scope="global",
        category="fact",
        importance=0.7,
        created_at=START + 700,
        wait=True,
    )
    tea = mem.add(
        "小李推荐龙井村的茶",
        scope="global",
        category="preference",
        importance=0.4,
        created_at=START + 800,
        wait=True,
    )
    b_mem = mem.add(
        B_SECRET,
        scope="agent:agent-b",
        category="decision",
        importance=0.9,
        created_at=START + 5 * DAY,
        wait=True,
    )
    assert mem.wait_indexed(120)  # the messages' facts are read after their writes
    return {
        "a_message": by_text[a_chat[0]["text"]].id,
        "b_message": by_text[B_SECRET].id,
        "b_memory": b_mem.id,
        "a_old": lives.id,
        "a_current": moved.id,
        "a_peanuts": peanuts.id,
        "a_clara": clara.id,
        "g_memory": hz.id,
        "g_tea": tea.id,
        "pending": pending.id,
        "group_message": by_text[book_club[0]["text"]].id,
    }


def start_serve(db: Path | str, config: Path) -> tuple[subprocess.Popen, str]:
    """`remem serve` as its own process on a free loopback port; returns it and its URL once
    it answers. ``db`` is a file or a PostgreSQL URL. The child gets this process's import
    path, so it runs the same remem as the tests (a work tree's src, not some installed copy)."""
    port = free_port()
    env = {
        **os.environ,
        "REMEM_CONFIG": str(config),
        "REMEM_DB": str(db),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            httpx.get(f"{url}/healthz", timeout=1).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise RuntimeError("remem serve exited: " + proc.stderr.read().decode()) from None
            if time.time() > deadline:
                proc.kill()
                raise RuntimeError("remem serve did not answer within 60 s") from None
            time.sleep(0.1)
