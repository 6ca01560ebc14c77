"""Fixtures of the web UI tests: a real `remem serve` process on 127.0.0.1 over a seeded SQLite
store, with tokens for agents A and B, and Debian's chromium driven by Playwright.

Without a browser (/usr/bin/chromium-headless-shell or /usr/bin/chromium) the browser tests skip
and say why (`make test` installs the headless one when it runs as root on Debian); under CI
(CI=true) a missing browser is a failure, not a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from ui_seed import (
    CHROMIUM_ARGS,
    HashEmbeddings,
    chromium_path,
    patient,
    seed,
    start_serve,
    write_config,
)

from remem import Config, Memory

CHROMIUM = chromium_path()


@dataclass
class UIServer:
    url: str
    db: Path
    config: Path
    ids: dict[str, str]
    process: subprocess.Popen

    def audit_lines(self) -> list[str]:
        path = Path(f"{self.db}.audit.jsonl")
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@pytest.fixture(scope="session")
def embeddings():
    server = HashEmbeddings()
    yield server
    server.close()


@pytest.fixture(scope="session")
def ui_server(tmp_path_factory, embeddings) -> UIServer:
    base = tmp_path_factory.mktemp("ui")
    config = write_config(base / "remem.toml", embeddings.url)
    db = base / "remem.db"
    with Memory(db, Config.load(config, env={})) as mem:
        ids = seed(mem)
    proc, url = start_serve(db, config)
    yield UIServer(url, db, config, ids, proc)
    proc.terminate()
    proc.wait(10)


# Module scope, not session: Playwright's sync API keeps an event loop running in the worker's
# main thread while it is open, and a later test there that calls asyncio.run() (the async
# API, MCP clients) fails with "cannot be called from a running event loop". Closed after each
# module, it never outlives the browser tests, whatever order a worker runs tests in.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        message = (
            f"no browser at {CHROMIUM}: install Debian's chromium-headless-shell (`make "
            "browser` does, as root) or set REMEM_TEST_CHROMIUM"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        patient()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def signed_in(browser, server: UIServer, token: str, lang: str = "en"):
    """A fresh browser page signed in with ``token`` through the sign-in form."""
    context = browser.new_context(
        locale="zh-CN" if lang == "zh" else "en-US", viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(patient())
    page = context.new_page()
    page.goto(f"{server.url}/ui")
    assert "/ui/login" in page.url  # every page needs the token first
    page.fill("input[name=token]", token)
    page.click("button.primary")
    page.wait_for_url(f"{server.url}/ui")
    return page


@pytest.fixture
def page_a(browser, ui_server):
    from ui_seed import TOKEN_A

    page = signed_in(browser, ui_server, TOKEN_A)
    yield page
    page.context.close()


@pytest.fixture
def page_b(browser, ui_server):
    from ui_seed import TOKEN_B

    page = signed_in(browser, ui_server, TOKEN_B)
    yield page
    page.context.close()
