"""Writers killed with SIGKILL at a random moment lose no acknowledged write (issue 44, item 5).

The harness is benchmarks/scripts/crash_trials.py (its ``--trials 100 --cpu-load`` run is the measured
one; here a few trials). The child journals each operation before its call, so an operation
in flight at the kill is told apart from a lost one: a delete that had committed when the
kill landed made its acknowledged record look lost.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location(
        "crash_trials", REPO / "benchmarks" / "scripts" / "crash_trials.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["crash_trials"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _journal(path: Path, *entries: dict) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + '{"op": 9, "do')
    return path


def test_a_delete_in_flight_is_interrupted_not_lost(tmp_path):
    crash = _bench()
    tally = crash.Tally()
    journal = _journal(
        tmp_path / "j1",
        {"ready": True},
        {"op": 1, "kind": "ingest-id", "ids": ["a"], "texts": ["text a"]},
        {"op": 1, "done": ["a"]},
        {"op": 2, "kind": "batch", "ids": [None, "b"], "texts": ["b0", "b1"]},
        {"op": 2, "done": ["x", "b"]},
        {"op": 3, "kind": "delete", "ids": ["a"], "texts": ["text a"]},  # killed in it
    )
    done, flight = crash.read_journal(journal)
    assert [op["op"] for op in done] == [1, 2] and flight["kind"] == "delete"
    crash.settle(tally, done, flight, held={"b0", "b1"})  # the delete had committed
    assert (tally.lost, tally.extra, tally.torn, tally.acked_records) == (0, 0, 0, 3)
    assert tally.interrupted == {"delete: committed": 1}
    # later trials check what is settled: the deleted record stays deleted
    crash.settle(tally, [], None, held={"b0", "b1", "text a"})
    assert tally.lost == 1 and "'text a' should be False" in tally.failures[0]


def test_a_lost_write_a_torn_batch_and_a_stray_record_are_counted(tmp_path):
    crash = _bench()
    tally = crash.Tally()
    journal = _journal(
        tmp_path / "j2",
        {"op": 1, "kind": "add", "ids": [None], "texts": ["fact"]},
        {"op": 1, "done": ["f"]},
        {"op": 2, "kind": "batch", "ids": [None, None], "texts": ["c0", "c1"]},
    )
    done, flight = crash.read_journal(journal)
    crash.settle(tally, done, flight, held={"c0", "stray"})
    assert (tally.lost, tally.torn, tally.extra) == (1, 1, 1)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_killed_writers_lose_no_acknowledged_write(tmp_path, backend):
    crash = _bench()
    if backend == "sqlite":
        args = ["--db", str(tmp_path / "crash.db")]
    else:
        pytest.importorskip("psycopg")
        from pg_server import fresh_schema, pg_url

        args = ["--db", pg_url(), "--schema", fresh_schema()]
    parsed = crash.parser().parse_args(
        [*args, "--trials", "3", "--provider", "none", "--max-delay", "1", "--min-done", "2"]
    )
    report = crash.run(parsed, tmp_path)
    assert report["trials"] == 3 and report["acked_records"] > 0
    assert (report["lost"], report["extra"], report["torn"]) == (0, 0, 0), report["failures"]
    assert report["interrupted"] <= 3
