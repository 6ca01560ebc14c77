"""The load benchmark (benchmarks/scripts/load.py), small: real `remem serve` processes over one store,
concurrent clients, and the check that every acknowledged write is there exactly once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load_bench():
    spec = importlib.util.spec_from_file_location(
        "bench_load", REPO / "benchmarks" / "scripts" / "load.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_load"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_workers_four_clients_lose_nothing(tmp_path, monkeypatch, backend):
    load = _load_bench()
    if backend == "sqlite":
        db = str(tmp_path / "load.db")
    else:
        pytest.importorskip("psycopg")
        from pg_server import fresh_schema, pg_url

        db = pg_url()
        monkeypatch.setenv("REMEM_STORE__PG_SCHEMA", fresh_schema())  # workers and verify
    report = load.run(db, workers=2, clients=4, seconds=3, provider="none")
    assert report["errors"] == 0, report["error_samples"]
    assert set(report["operations"]) == {"ingest", "memory", "search"}
    writes = report["writes"]
    assert writes["acknowledged"] > 0
    assert writes["missing"] == 0 and writes["duplicated_acks"] == 0
    assert writes["unacknowledged_extra"] == 0
    size = report["store"]  # what docs/scaling.md's records-per-GB figures come from
    assert size["records"] >= writes["acknowledged"] and size["vectors"] == 0  # lexical run
    assert size["bytes"] == sum(size["bytes_by_part"].values()) > 0
    assert size["bytes_per_record"] == round(size["bytes"] / size["records"])


def test_verify_notices_a_missing_write(tmp_path):
    load = _load_bench()
    db = str(tmp_path / "v.db")
    from remem import Config, Memory

    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    with Memory(db, config) as mem:
        mem.ingest({"id": "loadx-m-1", "text": "kept", "session": "s"})
    tally = load.Tally()
    tally.ack("message", "loadx-m-1")
    tally.ack("message", "loadx-m-2")  # acknowledged but never stored
    writes = load.verify(db, tally, {})
    assert writes == {
        "acknowledged": 2,
        "missing": 1,
        "duplicated_acks": 0,
        "unacknowledged_extra": 0,
    }
