"""`remem doctor` finds facts citing records that no longer exist (a fact written while its
record was being deleted) and `--fix` does what that delete would have done."""

from __future__ import annotations

from remem import Config, Memory
from remem.doctor import run_doctor
from remem.types import Fact


def test_facts_citing_missing_records_are_found_and_mended(tmp_path):
    # the facts service re-folds the chains of facts citing a record once its facts are read
    # (after the write), which would mend the hand-made facts below before the doctor sees
    # them: read first
    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    with Memory(tmp_path / "x.db", config) as mem:
        mem.ingest_many([{"id": f"r{i}", "text": f"note {i}"} for i in range(2)])
        assert mem.wait_indexed(60)
        mem.store.put_facts(
            [
                Fact(
                    "kept",
                    "global",
                    "name:tom",
                    "Tom",
                    "lives_in",
                    "Shenzhen",
                    1,
                    1,
                    5,
                    ("r0",),
                    closed_by="gone-closer",
                ),
                Fact(
                    "orphan",
                    "global",
                    "name:tom",
                    "Tom",
                    "works_at",
                    "Globex",
                    2,
                    2,
                    None,
                    ("r1", "gone-source"),
                ),
                Fact("fine", "global", "name:ann", "Ann", "lives_in", "Paris", 3, 3, None, ("r1",)),
            ]
        )
        found = {f.check: f for f in run_doctor(mem)}["facts"]
        assert found.status == "warn"
        assert found.detail == (
            "3 facts; 1 cite a record that no longer exists, 1 were closed by one"
        )
        assert {f.check: f for f in run_doctor(mem, fix=True)}["facts"].fixed
        assert [(f.id, f.valid_to, f.closed_by) for f in mem.store.facts()] == [
            ("kept", None, None),
            ("fine", None, None),
        ]
        again = {f.check: f for f in run_doctor(mem)}["facts"]
        assert (again.status, again.detail) == (
            "ok",
            "2 facts; 0 cite a record that no longer exists, 0 were closed by one",
        )
