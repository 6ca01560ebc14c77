"""`make screenshots`: PNGs of every web UI page (English, and the overview in Chinese) for the
README, taken by Debian's chromium from a real `remem serve` over the seeded test store.

    python tests/ui/screenshots.py docs/screenshots
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import sync_playwright
from ui_seed import (
    CHROMIUM_ARGS,
    TOKEN_A,
    HashEmbeddings,
    chromium_path,
    seed,
    start_serve,
    write_config,
)

from remem import Config, Memory


def shoot(out: Path, chromium: str | None = None) -> list[Path]:
    chromium = chromium or chromium_path()
    out.mkdir(parents=True, exist_ok=True)
    embeddings = HashEmbeddings()
    base = Path(tempfile.mkdtemp(prefix="remem-shots-"))
    config = write_config(base / "remem.toml", embeddings.url)
    db = base / "remem.db"
    with Memory(db, Config.load(config, env={})) as mem:
        ids = seed(mem)
    proc, url = start_serve(db, config)
    saved: list[Path] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            for lang, pages in (
                (
                    "en",
                    [
                        ("overview", "/ui"),
                        ("conversations", "/ui/conversations"),
                        ("session", "/ui/session?s=" + quote("qq:group:1001")),
                        ("memories", "/ui/memories?state=all"),
                        ("memory-history", f"/ui/memory/{ids['a_current']}"),
                        (
                            "search-explain",
                            "/ui/search?q=" + quote("where does Alice live? Berlin"),
                        ),
                        (
                            "search-inject",
                            "/ui/search?inject=1&turn="
                            + ids["a_message"]
                            + "&q="
                            + quote("I moved to Berlin last week, the flat is near the Spree"),
                        ),
                        ("settings", "/ui/settings"),
                        ("person", "/ui/people/" + quote("name:alice", safe="")),
                    ],
                ),
                ("zh", [("overview-zh", "/ui?lang=zh"), ("memories-zh", "/ui/memories")]),
            ):
                context = browser.new_context(
                    viewport={"width": 1280, "height": 860},
                    locale="zh-CN" if lang == "zh" else "en-US",
                )
                page = context.new_page()
                page.goto(f"{url}/ui/login")
                page.fill("input[name=token]", TOKEN_A)
                page.click("button.primary")
                page.wait_for_url(f"{url}/ui")
                for name, path in pages:
                    page.goto(url + path)
                    if "inject=1" in path:  # the blocks arrive after the page
                        page.get_by_test_id("injections").wait_for()
                    target = out / f"{name}.png"
                    # the settings page is one long table: its first screen says enough
                    page.screenshot(path=str(target), full_page=name != "settings")
                    saved.append(target)
                context.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
        embeddings.close()
    return saved


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")):
        print(path)
