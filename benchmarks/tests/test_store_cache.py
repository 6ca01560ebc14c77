"""The suite's store cache: shared by processes at once, and its facts derived again only
when the code they are derived by changes (``remem_bench.store_cache``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from remem_bench import store_cache

TESTS = Path(__file__).resolve().parent
SRC = Path(store_cache.__file__).resolve().parents[2] / "src"


def _src_copy(tmp_path: Path) -> Path:
    import remem

    src = tmp_path / "src"
    shutil.copytree(Path(next(iter(remem.__path__))), src / "remem")
    return src


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_the_facts_digest_covers_what_derives_facts_and_nothing_else(tmp_path):
    """It hashed every file of ``remem.facts`` and ``remem.text``: an edit to a search-side
    text module (``text/intent.py``) derived every cached store's facts again."""
    src = _src_copy(tmp_path)
    before = store_cache.derivation_digest(src)
    read_by_facts = store_cache.derivation_modules(src)
    assert "remem.facts.rules_en" in read_by_facts and "remem.text.assertion" in read_by_facts
    assert "remem.text.intent" not in read_by_facts
    _edit(src / "remem" / "text" / "intent.py")  # the search's reading of a question
    _edit(src / "remem" / "text" / "budget.py")
    assert store_cache.derivation_digest(src) == before
    _edit(src / "remem" / "facts" / "rules_en.py")
    after_rules = store_cache.derivation_digest(src)
    assert after_rules != before
    _edit(src / "remem" / "text" / "statements.py")  # read by the extractor, through assertion
    assert store_cache.derivation_digest(src) not in (before, after_rules)
    with (src / "remem" / "data" / "gazetteer.tsv").open("a", encoding="utf-8") as fh:
        fh.write("Nowhereville\tcity\n")  # read by facts/places.py
    assert store_cache.derivation_digest(src) != after_rules


def _corpus(folder: Path, turns: int) -> None:
    folder.mkdir()
    rows = [
        {
            "id": f"c1:{n}",
            "conversation": "c1",
            "session": f"c1:s{n // 20}",
            "timestamp": 1_700_000_000 + n * 3600,
            "speaker": "Tom",
            "role": "user",
            "text": f"I moved to Porto in week {n}" if n % 7 == 0 else f"tea and trains, note {n}",
        }
        for n in range(turns)
    ]
    question = {"qid": "1", "conversation": "c1", "query": "tea note 12", "gold": ["c1:12"]}
    for name, lines in (("corpus.jsonl", rows), ("queries.jsonl", [question])):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")


# One suite run over the dataset in a fresh process: prints the steps it noted and its scores.
# With a pause file named, it stops at its first note that names ``pause_at`` until the
# resume file appears (a build caught half-way). Before taking a store's lock it says so.
CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from bench_helpers import HashEmbedder
from remem import Config
from remem_bench import suite
from remem_bench.benchmark import Variant
folder, cache, flags = Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
pause_at, name = sys.argv[5], sys.argv[6]
notes = []
def note(text):
    notes.append(text)
    if pause_at and pause_at in text:
        (flags / f"{name}.paused").touch()
        while not (flags / f"{name}.resume").exists():
            time.sleep(0.02)
if hasattr(suite, "entry_lock"):  # (the code before the lock had none)
    taking = suite.entry_lock
    def entry_lock(db):
        (flags / f"{name}.waiting").touch()
        return taking(db)
    suite.entry_lock = entry_lock
config = Config.load(env={}, overrides={"indexing.mode": "sync"})
run = suite.SuiteRun([Variant("lexical", ("lexical",))], config, cache, embedder=HashEmbedder(),
                     note=note)
run.run(suite.SuiteDataset("zh_groupchat", folder), [])
scores = suite.summarise(run.scores["zh_groupchat"]["lexical"])
print(json.dumps({"notes": notes, "overall": scores["overall"]}))
"""


def _start(folder: Path, cache: Path, flags: Path, name: str, pause_at: str = ""):
    args = [str(TESTS), str(folder), str(cache), str(flags), pause_at, name]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(TESTS.parent)])}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for(condition, proc, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the child ended first: {proc.communicate()[1][-2000:]}")
        assert time.monotonic() < deadline, "timed out waiting on the child"
        time.sleep(0.02)


def _result(proc) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def test_a_second_process_never_reads_a_store_the_first_is_still_building(tmp_path):
    """Process A is stopped half-way through building a conversation's store (its turns
    written, its facts not yet derived); process B then wants the same store. B waits for
    A's build instead of reading the store half-built and working on it at the same time
    (before, B found the store there and derived its facts alongside A)."""
    folder, cache, flags = tmp_path / "zh_groupchat", tmp_path / "cache", tmp_path / "flags"
    _corpus(folder, 60)
    flags.mkdir()
    a = _start(folder, cache, flags, "a", pause_at="deriving its facts")
    _wait_for(lambda: (flags / "a.paused").exists(), a)
    b = _start(folder, cache, flags, "b")
    # B is either done (it read the half-built store) or waiting on the store's lock
    _wait_for(lambda: (flags / "b.waiting").exists() or b.poll() is not None, a)
    (flags / "a.resume").touch()
    first, second = _result(a), _result(b)
    assert first["notes"][0].endswith("building the store: writing and embedding 60 turns")
    assert second["notes"] == []  # it built nothing and derived nothing: it read A's store
    assert second["overall"] == first["overall"] and first["overall"]["recall@10"] == 1.0
    (entry,) = cache.iterdir()
    lock_files = ("-sync", "-writer")  # the store's own, made again by whoever opens it
    assert sorted(p.name for p in entry.iterdir() if not p.name.endswith(lock_files)) == [
        "conv-0.db",
        "conv-0.db.facts",
        "conv-0.db.lock",
    ]


def test_a_build_cut_off_leaves_no_store_behind(tmp_path):
    """A process killed half-way through a build leaves only its temporary files, which the
    next build clears; the store it would have written is built whole by the next run."""
    folder, cache, flags = tmp_path / "zh_groupchat", tmp_path / "cache", tmp_path / "flags"
    _corpus(folder, 30)
    flags.mkdir()
    a = _start(folder, cache, flags, "a", pause_at="deriving its facts")
    _wait_for(lambda: (flags / "a.paused").exists(), a)
    a.kill()
    a.wait()
    (entry,) = cache.iterdir()
    assert not (entry / "conv-0.db").exists()  # nothing another run could take as a store
    assert any(p.name.endswith(".building") for p in entry.iterdir())
    b = _result(_start(folder, cache, flags, "b"))
    assert b["notes"][0].endswith("building the store: writing and embedding 30 turns")
    assert b["overall"]["recall@10"] == 1.0
    assert not any(".building" in p.name for p in entry.iterdir())


@pytest.mark.parametrize("text", ["abc\n", "x" * 100_000])
def test_a_stamp_is_replaced_whole(tmp_path, text):
    stamp = tmp_path / "conv-0.db.facts"
    stamp.write_text("old\n")
    store_cache.write_atomic(stamp, text)
    assert stamp.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == ["conv-0.db.facts"]
