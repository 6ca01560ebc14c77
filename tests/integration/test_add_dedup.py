"""Issue 12: ``Memory.add`` does not store a curated memory twice (exact or normalised text in
the same scope, as ``memory_store``) and says so; messages keep id-based idempotency (the same
message again is a no-op, another one under a taken id a conflict). Real SQLite files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_inproc import remem
from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ConflictError
from remem.types import StoredMemory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mem(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "dedup.db", config, embedder=HashEmbedder()) as m:
        yield m


def memories(mem: Memory) -> list[str]:
    return sorted(r.text for r in mem.list({"kind": "memory"}, limit=100))


def test_the_same_text_in_the_same_scope_is_stored_once(mem):
    first = mem.add("Bob prefers green tea", scope="user:bob", category="preference")
    assert isinstance(first, StoredMemory) and first.duplicate is None
    again = mem.add("Bob prefers green tea", scope="user:bob", category="preference")
    assert again.duplicate == "exact" and again.id == first.id
    assert again.to_dict()["duplicate"] == "exact"
    for variant in (
        "bob prefers GREEN tea!",
        "Bob  prefers green tea.",
        "Ｂｏｂ prefers green tea",
    ):
        same = mem.add(variant, scope="user:bob")
        assert (same.duplicate, same.id) == ("normalised", first.id), variant
    assert memories(mem) == ["Bob prefers green tea"]


def test_traditional_and_simplified_chinese_meet(mem):
    first = mem.add("我喜欢绿茶", scope="user:xm")
    assert mem.add("我喜歡綠茶。", scope="user:xm").id == first.id
    assert mem.count({"kind": "memory"}) == 1


def test_other_scopes_other_texts_and_dedup_false_are_stored(mem):
    mem.add("Bob prefers green tea", scope="user:bob")
    assert mem.add("Bob prefers green tea", scope="user:ann").duplicate is None
    assert mem.add("Bob prefers black tea", scope="user:bob").duplicate is None
    forced = mem.add("Bob prefers green tea", scope="user:bob", dedup=False)
    assert forced.duplicate is None
    assert mem.count({"kind": "memory", "scope": "user:bob"}) == 3


def test_a_closed_memory_does_not_block_the_same_text(mem):
    old = mem.add("Ann lives in Paris", scope="user:ann")
    assert old.rowid is not None
    mem.store.set_validity(old.rowid, old.created_at, dict(old.metadata))  # closed
    again = mem.add("Ann lives in Paris", scope="user:ann")
    assert again.duplicate is None and again.id != old.id


def test_a_message_sent_again_is_not_stored_again(mem):
    message = {"id": "m1", "session": "s1", "role": "user", "text": "I keep bees"}
    first = mem.ingest(message)
    again = mem.ingest(dict(message))
    assert again.id == first.id and again.rowid == first.rowid
    assert mem.stats()["records"] == 1
    with pytest.raises(ConflictError, match="holds something else"):
        mem.ingest({**message, "text": "I keep wasps"})
    with pytest.raises(ConflictError):
        mem.ingest({**message, "session": "s2"})
    # a batch with a conflict writes nothing; a batch with a repeat writes only the new ones
    with pytest.raises(ConflictError):
        mem.ingest_many([{"id": "m2", "text": "new"}, {**message, "text": "changed"}])
    assert mem.get("m2") is None
    out = mem.ingest_many([message, {"id": "m2", "session": "s1", "text": "new"}])
    assert [r.id for r in out] == ["m1", "m2"] and mem.stats()["records"] == 2


def test_rest_memories_answer_200_with_the_duplicate(tmp_path):
    import httpx

    from remem.server.rest import create_app
    from serving import Served

    config = Config.load(env={}, overrides={"indexing.mode": "sync", "scopes.agent": "bot"})
    with Memory(tmp_path / "rest.db", config, embedder=HashEmbedder()) as mem:
        server = Served(create_app(mem))
        try:
            with httpx.Client(base_url=server.url, timeout=30) as http:
                first = http.post("/v1/memories", json={"text": "Ann keeps bees"})
                again = http.post("/v1/memories", json={"text": "ann keeps bees!"})
        finally:
            server.close()
    assert first.status_code == 201 and first.json()["duplicate"] is None
    assert again.status_code == 200 and again.json()["duplicate"] == "normalised"
    assert again.json()["id"] == first.json()["id"]


def test_the_cli_says_when_a_memory_was_already_stored(tmp_path):
    env = {"REMEM_DB": str(tmp_path / "cli.db"), "REMEM_EMBED__PROVIDER": "none"}

    def add(text: str) -> str:
        proc = remem(["add", text, "--scope", "user:ann"], env=env)  # in this process
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    first = add("Ann keeps bees")
    assert first.startswith("added ")
    memory_id = first.split()[1]
    assert add("ann keeps bees!") == f"already stored as {memory_id} (normalised match)"


def readme_python_example() -> str:
    """The Python API guide's first example (the README's quick start shows the same)."""
    guide = (ROOT / "docs" / "guides" / "python-api.md").read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", guide, re.S).group(1)


@pytest.mark.slow
def test_running_the_readme_example_twice_stores_nothing_twice(tmp_path):
    """The Python API guide's example, run as written (the real bundled model), twice."""
    script = tmp_path / "example.py"
    script.write_text(readme_python_example(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_WAIT_POLICY": "passive"}
    env.pop("REMEM_CONFIG", None)
    for _ in range(2):
        subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env, check=True, capture_output=True
        )
    config = Config.load(env={})
    with Memory(tmp_path / "chat.db", config) as mem:
        texts = [r.text for r in mem.list(limit=100)]
    assert len(texts) == len(set(texts)) == 3, texts
