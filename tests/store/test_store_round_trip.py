"""Store conformance through the engine: what every backend keeps and refuses alike.

- An export imported into a fresh store of the same backend exports again field for field
  (issue 44, item 13: ``access_count`` and ``last_access`` were dropped on import).
- Text holding a NUL character (U+0000) is refused on every backend with a ValidationError
  naming the field, and nothing is written (issue 44, item 8: PostgreSQL cannot store NUL;
  SQLite and the in-memory store stored it, PostgreSQL raised ``psycopg.DataError``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance import BACKENDS

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ValidationError
from remem.transfer import export_records, import_records

T = 1_700_000_000


def _memory(store_factory: Any, where: Path) -> Memory:
    where.mkdir(exist_ok=True)
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    return Memory(config=config, store=store_factory(where), embedder=HashEmbedder())


@pytest.fixture(params=list(BACKENDS))
def two_memories(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Memory, Memory]]:
    """Two engines over fresh stores of one backend: the source and the destination."""
    src = _memory(BACKENDS[request.param], tmp_path / "src")
    dst = _memory(BACKENDS[request.param], tmp_path / "dst")
    yield src, dst
    src.close()
    dst.close()


def _export(mem: Memory) -> list[dict[str, Any]]:
    lines: list[str] = []

    class Sink:
        def writelines(self, more: list[str]) -> None:
            lines.extend(more)

    export_records(mem, Sink(), with_vectors=True)  # type: ignore[arg-type]
    return [json.loads(line) for line in lines]


def _fill(mem: Memory) -> None:
    """Records using every field an export carries, some of them used by searches."""
    mem.ingest_many(
        [
            {
                "id": f"m{i}",
                "text": f"note number {i} about the alpine hut",
                "session": "s1",
                "speaker": "Ann",
                "speaker_id": "ann",
                "role": "user",
                "platform": "qq",
                "group_id": "g1",
                "group_name": "Hikers",
                "mentions": ["bob"],
                "timestamp": T + i,
                "event_time": T - 86_400,
                "metadata": {"mood": "calm", "n": i},
                "source": "chat",
                "session_type": "group",
                "message_kind": "chat",
                "origin_platform": "qq",
            }
            for i in range(3)
        ]
    )
    tea = mem.add("Ann likes green tea", scope="user:ann", category="preference", importance=0.9)
    mem.add(
        "Ann moved to Berlin",
        scope="user:ann",
        category="fact",
        valid_from=T,
        valid_to=T + 100,
        source_ids=["m0"],
    )
    used = [(mem.get("m1"), 3, T + 50.5), (mem.get(tea.id), 1, T + 70.25)]
    mem.store.record_access([(r.rowid, n, when) for r, n, when in used if r and r.rowid])


def test_an_export_imported_exports_again_field_for_field(two_memories):
    src, dst = two_memories
    _fill(src)
    before = _export(src)
    used = {r["id"]: (r["access_count"], r["last_access"]) for r in before if r["access_count"]}
    assert sorted(used.values()) == [(1, T + 70.25), (3, T + 50.5)]
    report = import_records(dst, [json.dumps(r) for r in before])
    assert (report.added, report.invalid) == (len(before), [])
    assert _export(dst) == before
    # a rerun adds nothing, and counts nothing twice
    assert import_records(dst, [json.dumps(r) for r in before]).added == 0
    assert _export(dst) == before


def test_an_imported_use_count_must_be_a_count(two_memories):
    _, dst = two_memories
    bad = [{"text": "a", "access_count": -1}, {"text": "b", "last_access": "yesterday"}]
    report = import_records(dst, [json.dumps(r) for r in bad])
    assert [reason.split(":")[0] for _, reason in report.invalid] == [
        "invalid access_count",
        "invalid last_access",
    ]
    assert dst.store.count() == 0


NUL = "nul\x00"


@pytest.mark.parametrize(
    "record",
    [
        {"text": NUL},
        {"text": "ok", "visible_text": NUL},
        {"text": "ok", "speaker": NUL},
        {"text": "ok", "metadata": {"note": NUL}},
        {"text": "ok", "metadata": {NUL: 1}},
        {"text": "ok", "metadata": {"k": [NUL]}},
    ],
)
def test_nul_is_refused_by_every_backend_naming_the_field(two_memories, record):
    mem, _ = two_memories
    field = next(k for k, v in record.items() if v != "ok")
    with pytest.raises(ValidationError, match=f"invalid {field}: .*NUL"):
        mem.ingest(record)
    with pytest.raises(ValidationError, match=f"invalid item 2: {field}: .*NUL"):
        mem.ingest_many([{"text": "fine"}, record])
    if field == "text":
        with pytest.raises(ValidationError, match="invalid text"):
            mem.add(NUL)
    assert mem.store.count() == 0  # nothing written, the good line of the batch neither
    report = import_records(mem, [json.dumps({"text": "fine"}), json.dumps(record)])
    assert report.invalid_count == 1 and "NUL" in report.invalid[0][1]
    assert mem.store.count() == 0


def test_a_nul_in_a_rewrite_or_a_query_is_refused_too(two_memories):
    mem, _ = two_memories
    mem.ingest({"text": "the alpine hut", "session": "s1", "timestamp": T})
    with pytest.raises(ValidationError, match="invalid new_text"):
        mem.rewrite("s1", T, NUL)
    with pytest.raises(ValidationError, match="invalid query"):
        mem.search(NUL)
    assert [h.record.text for h in mem.search("alpine hut")] == ["the alpine hut"]


def test_rest_answers_a_nul_with_a_400_naming_the_field(two_memories):
    import httpx

    from remem.server.rest import create_app
    from serving import Served

    mem, _ = two_memories
    served = Served(create_app(mem))
    try:
        with httpx.Client(base_url=served.url, timeout=30) as http:
            answer = http.post("/v1/ingest", json={"text": NUL})
            memory = http.post(
                "/v1/memories", json={"text": "Ann keeps bees", "metadata": {"k": NUL}}
            )
    finally:
        served.close()
    assert answer.status_code == 400 and "text: " in answer.json()["error"]
    assert memory.status_code == 400 and "invalid metadata:" in memory.json()["error"]
    assert "NUL" in answer.json()["error"] and mem.store.count() == 0
