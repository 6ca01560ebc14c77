"""The background backlog (issue 47, item 2): `stats` (and `remem stats --json`) and the web
UI's overview say what waits for vectors, latent terms and facts, and which background job
runs now."""

from __future__ import annotations

import json
import threading

from fastapi.testclient import TestClient

from cli_inproc import remem
from helpers import HashEmbedder
from remem import Config, Memory
from remem.server.rest import create_app


class HeldEmbedder(HashEmbedder):
    """Embeds passages only once ``release`` is set: a burst the background is working on."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed_passages(self, texts):
        self.entered.set()
        self.release.wait(60)
        return super().embed_passages(texts)


def async_config() -> Config:
    return Config.load(env={}, overrides={"indexing.mode": "async", "indexing.batch_size": 4})


def test_stats_and_the_overview_show_the_backlog_while_a_burst_is_indexed(tmp_path):
    embedder = HeldEmbedder()
    config = async_config()
    # the facts are read after the writes pause: here not before the test is done looking
    config.facts.quiet_ms, config.facts.max_wait_s = 3_600_000, 3_600
    with Memory(tmp_path / "b.db", config, embedder=embedder) as mem:
        mem.ingest_many([{"session": "s", "text": f"line {i} of a burst"} for i in range(12)])
        try:
            assert embedder.entered.wait(30)
            backlog = mem.stats()["backlog"]
            assert backlog["pending"] == 12 and backlog["facts_waiting"] == 12
            assert backlog["running"] == ["vectors"]
            client = TestClient(
                create_app(mem), client=("127.0.0.1", 5000), base_url="http://127.0.0.1:8765"
            )
            page = client.get("/ui")
            assert page.status_code == 200
            card = page.text.split('data-testid="backlog"', 1)[1].split("</section>", 1)[0]
            assert 'data-testid="backlog-vectors">12<' in card
            assert 'data-testid="backlog-facts">12<' in card
            assert "running now: vectors" in card
            zh = client.get("/ui?lang=zh").text.split('data-testid="backlog"', 1)[1]
            assert "正在运行: 向量" in zh.split("</section>", 1)[0]
        finally:
            embedder.release.set()
        assert mem.wait_indexed(60)
        backlog = mem.stats()["backlog"]
        assert backlog["pending"] == 0 and backlog["facts_waiting"] == 0
        assert backlog["running"] == []
        page = client.get("/ui?lang=en").text.split('data-testid="backlog"', 1)[1]
        assert "running now: nothing" in page.split("</section>", 1)[0]  # live, not cached


def test_remem_stats_reports_the_backlog(tmp_path):
    db = tmp_path / "s.db"
    config = async_config()
    config.facts.quiet_ms, config.facts.max_wait_s = 3_600_000, 3_600
    with Memory(db, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"kept for later {i}"} for i in range(3)], embed=False)
        assert mem.indexer.facts is not None  # owed: left unread, as by a killed process
        mem.indexer.facts.stop(finish=False)
    env = {"REMEM_EMBED__PROVIDER": "none"}

    def stats(*extra: str) -> str:
        proc = remem(["--db", str(db), "stats", *extra], env=env)  # in this process
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    backlog = json.loads(stats("--json"))["backlog"]
    assert backlog["pending"] == 3 and backlog["facts_waiting"] == 3
    assert backlog["running"] == [] and backlog["searches_first"] == 0
    text = stats()
    assert "facts waiting" in text and "nothing in the background" in text
