"""Facts are read after the write is acknowledged (issue 47): a write only marks its records
as waiting for their facts, in its own transaction, and the indexing path reads them in
batches (``ingest/facts_fill.py``). Nothing is lost: a process killed between the
acknowledgement and the extraction leaves the mark, and the next process reads them. Readers
that need them at once (``Memory.facts``, a search, a curated memory's capture) get them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from remem import Config, Memory

NOV_2 = "2026-11-02T10:00:00+00:00"
DEC_2 = "2026-12-02T10:00:00+00:00"
# the fill waits for the writes to pause this long: in these tests, never on its own
NEVER = {"facts.quiet_ms": 3_600_000, "facts.max_wait_s": 3_600}


def config(**overrides: object) -> Config:
    base = {"embed.provider": "none", "indexing.mode": "sync"}
    return Config.load(env={}, overrides={**base, **overrides})


def lives(facts) -> list[tuple[str, bool]]:
    return [(f.value, f.valid_to is None) for f in facts if f.attribute == "lives_in"]


def say(mem: Memory, text: str, when: str = NOV_2) -> str:
    return mem.ingest({"text": text, "speaker": "Tom", "session": "chat", "timestamp": when}).id


def test_a_write_is_acknowledged_before_its_facts_are_read(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        # acknowledged: stored and searchable, its facts owed (durably marked)
        assert mem.store.facts() == []
        assert mem.store.count_awaiting_facts() == 1
        assert mem.stats()["backlog"]["facts_waiting"] == 1
        # a reader of facts gets them at once
        assert lives(mem.facts("Tom")) == [("Shenzhen", True)]
        assert mem.store.count_awaiting_facts() == 0


def test_the_facts_are_read_once_the_writes_pause(tmp_path):
    with Memory(tmp_path / "m.db", config(**{"facts.quiet_ms": 0})) as mem:
        say(mem, "I live in Shenzhen now")
        assert mem.indexer.facts is not None
        assert mem.indexer.facts.settle(60)
        assert lives(mem.store.facts()) == [("Shenzhen", True)]
        assert mem.store.count_awaiting_facts() == 0


def test_a_search_right_after_the_write_reads_what_it_said(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        moved = say(mem, "I moved to Shanghai last week", DEC_2)
        hits = mem.search("Where does Tom live now?", k=3).hits
        assert hits[0].record.id == moved
        assert mem.store.count_awaiting_facts() == 0  # the search waited for them


def test_a_curated_memory_states_its_facts_before_the_capture_returns(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        mem.memories.remember(
            None, "Ann lives in Paris.", scope="global", category="fact", importance=0.5
        )
        assert [f.value for f in mem.store.facts()] == ["Paris"]
        assert mem.store.count_awaiting_facts() == 0


def test_a_rebuild_reads_every_record_waiting(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        mem.ingest_many(
            [{"text": "I live in Shenzhen now", "speaker": "Tom", "timestamp": NOV_2}],
            embed=False,  # stored only: its facts wait for a rebuild (an import's)
        )
        assert mem.store.count_awaiting_facts() == 1
        assert mem.rebuild_facts().facts == 1
        assert mem.store.count_awaiting_facts() == 0
        assert lives(mem.store.facts()) == [("Shenzhen", True)]


CHILD = textwrap.dedent(
    """
    import sys, time
    from remem import Config, Memory
    config = Config.load(env={}, overrides={
        "embed.provider": "none", "indexing.mode": "sync",
        "facts.quiet_ms": 3_600_000, "facts.max_wait_s": 3_600,
    })
    mem = Memory(sys.argv[1], config)
    for n, text in enumerate(["I live in Shenzhen now", "I moved to Shanghai last week"]):
        when = ["2026-11-02T10:00:00+00:00", "2026-12-02T10:00:00+00:00"][n]
        mem.ingest({"text": text, "speaker": "Tom", "session": "chat", "timestamp": when})
    print("acked", flush=True)
    time.sleep(600)
    """
)


def test_a_process_killed_after_the_ack_loses_no_facts(tmp_path):
    db = tmp_path / "m.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "acked"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(60)
    with Memory(Path(db), config()) as mem:
        # the marks survived the kill; nothing was read before it
        assert mem.store.facts() == [] and mem.store.count_awaiting_facts() == 2
        assert lives(mem.facts("Tom", history=True)) == [("Shenzhen", False), ("Shanghai", True)]
        assert mem.store.count_awaiting_facts() == 0


def test_a_new_writer_reads_what_a_killed_one_left(tmp_path):
    db = tmp_path / "m.db"
    with Memory(db, config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        fill = mem.indexer.facts
        assert fill is not None
        fill.stop(finish=False)  # as if killed: nothing is read, and its thread ends
        mem.indexer.facts = None  # nor on close
    with Memory(db, config(**{"facts.quiet_ms": 0})) as mem:
        assert mem.store.count_awaiting_facts() == 1
        say(mem, "I moved to Shanghai last week", DEC_2)  # its first write walks the backlog
        assert mem.indexer.facts is not None and mem.indexer.facts.settle(60)
        assert lives(mem.store.facts()) == [("Shenzhen", False), ("Shanghai", True)]


def test_a_writer_reads_back_only_its_own_records_for_their_facts(tmp_path):
    """With several writers on one file their rowids interleave: a writer's batch is read
    by rowid, not as the range from its first to its last (which held every other writer's
    records too: 8 read for each one extracted with 8 writer processes)."""
    db = tmp_path / "m.db"
    with Memory(db, config(**NEVER)) as mine, Memory(db, config(**NEVER)) as other:
        say(mine, "I live in Shenzhen now")
        for n in range(40):
            other.ingest({"text": f"the ferry left at {n}", "session": "other"})
        say(mine, "I work at Acme now")
        # the other writer's first write found this one's first record waiting (as a killed
        # writer's would be): its walk of that backlog waits for its own writes to pause,
        # never here (it walked mid-burst in 3 runs in 200; 10 in 200 on a loaded machine)
        assert other.indexer.facts is not None and other.indexer.facts.extracted == 0
        fill = mine.indexer.facts
        assert fill is not None
        read: list[int] = []
        real = fill.store.records_awaiting_facts

        def counted(backlog):
            found = real(backlog)
            read.extend(r.rowid for r in found)
            return found

        fill.store.records_awaiting_facts = counted  # type: ignore[method-assign]
        assert fill.settle(60)
        assert len(read) == 2  # its own two, not the 40 between them
        assert fill.extracted == 2
        assert mine.store.count_awaiting_facts() == 40  # the other writer's still wait


def test_a_batch_reads_the_facts_citing_its_records_once(tmp_path):
    """The fill extracts a batch one record at a time, but asks the store for the facts
    citing them once for the batch (each ask is a wait for a PostgreSQL server), with the
    same facts as a first."""
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        asked: list[int] = []
        citing = mem.store.facts_citing

        def counted(ids):  # type: ignore[no-untyped-def]
            asked.append(len(ids))
            return citing(ids)

        mem.store.facts_citing = counted  # type: ignore[method-assign]
        say(mem, "I live in Shenzhen now")
        say(mem, "I moved to Shanghai last week", DEC_2)
        say(mem, "The ferry was late again", DEC_2)
        assert mem.wait_facts(60)
        assert asked == [3]
        assert lives(mem.store.facts()) == [("Shenzhen", False), ("Shanghai", True)]
