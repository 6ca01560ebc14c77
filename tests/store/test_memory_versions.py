"""Curated-memory versions over every backend: a failure in the middle of a supersession, an
edit or an undo (an error, Ctrl-C, or the process killed) leaves exactly one current version
of the subject, because ``remem.memories`` writes each of them in one store transaction."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.errors import StoreError, ValidationError
from remem.server.rest_context import Caller
from remem.server.ui import actions
from remem.store.base import Store
from remem.store.queries import RecordPage

T = 1_800_000_000.0
TESTS = Path(__file__).resolve().parents[1]
OPERATOR = Caller(agent=None, restricted=False)


def _turn(text: str, now: float) -> Turn:
    return Turn(
        agent="bot", session="s1", user_id="u1", inputs=[{"role": "user", "text": text}], now=now
    )


def _memory(store: Store) -> Memory:
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    return Memory(config=config, store=store, embedder=HashEmbedder())


def _current(store: Store) -> list[str]:
    """The texts of the current memories, whatever their scope."""
    records = store.list_records(RecordPage(None, limit=None, newest_first=False))
    return [r.text for r in records if r.kind == "memory" and r.valid_to is None]


def _fail_at_call(monkeypatch, store: Store, n: int, error: BaseException) -> None:
    """The store's ``n``-th ``set_validity`` call (1-based) raises ``error``; the others
    write."""
    real, calls = store.set_validity, []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) == n:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "set_validity", failing)


@pytest.fixture
def mem(store):
    with _memory(store) as m:
        yield m


@pytest.mark.parametrize(
    "error", [StoreError("the disk is full"), KeyboardInterrupt()], ids=["error", "ctrl-c"]
)
def test_a_failure_mid_supersession_leaves_one_current_version(mem, monkeypatch, error):
    mem.capture_after_turn(_turn("I live in Paris.", T))
    mem.capture_after_turn(_turn("I live in Lyon.", T + 1))  # Paris is replaced already
    assert _current(mem.store) == ["I live in Lyon."]
    _fail_at_call(monkeypatch, mem.store, 1, error)
    with pytest.raises(type(error)):
        mem.capture_after_turn(_turn("I moved to Berlin.", T + 60))
    assert _current(mem.store) == ["I live in Lyon."]
    assert all(r.text != "I moved to Berlin." for r in mem.list({"kind": "memory"}))
    monkeypatch.undo()
    out = mem.capture_after_turn(_turn("I moved to Berlin.", T + 60))
    assert [r.text for r in out.stored] == ["I moved to Berlin."]
    assert _current(mem.store) == ["I moved to Berlin."]


def test_a_failure_mid_edit_leaves_one_current_version(mem, monkeypatch):
    old = mem.capture_after_turn(_turn("I live in Paris.", T)).stored[0]
    _fail_at_call(monkeypatch, mem.store, 1, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        actions.edit(mem, OPERATOR, old.id, text="I live in Paris, France.", now=T + 60)
    assert _current(mem.store) == ["I live in Paris."]
    monkeypatch.undo()
    new = actions.edit(mem, OPERATOR, old.id, text="I live in Paris, France.", now=T + 60)
    assert _current(mem.store) == ["I live in Paris, France."]
    assert [r.id for r in mem.history(old.id)] == [old.id, new.id]


def test_a_failure_mid_undo_changes_nothing(mem, monkeypatch):
    paris = mem.capture_after_turn(_turn("I live in Paris.", T)).stored[0]
    mem.capture_after_turn(_turn("I moved to Berlin.", T + 60))
    # the undo closes Berlin, then fails to reopen Paris: no current version at all, unless
    # the closing is rolled back with it
    _fail_at_call(monkeypatch, mem.store, 2, StoreError("the connection dropped"))
    with pytest.raises(StoreError):
        mem.undo(paris.id)
    assert _current(mem.store) == ["I moved to Berlin."]
    monkeypatch.undo()
    assert [r.id for r in mem.undo(paris.id)] == [paris.id]
    assert _current(mem.store) == ["I live in Paris."]


def test_an_edit_of_a_version_replaced_meanwhile_is_refused(mem):
    """Two people edit the same version: the second edit finds it closed when its
    transaction starts, and makes no second current version."""
    old = mem.capture_after_turn(_turn("I live in Paris.", T)).stored[0]
    actions.edit(mem, OPERATOR, old.id, text="I live in Paris, France.", now=T + 60)
    changes = {**_changes(old), "text": "I live in Paris, Texas."}
    with pytest.raises(ValidationError, match="was replaced"):
        mem.memories.edit(old, changes, edited_by="ui:second", now=T + 60)
    assert _current(mem.store) == ["I live in Paris, France."]


def _changes(rec) -> dict:
    return {
        "text": rec.text,
        "scope": rec.scope,
        "importance": rec.importance,
        "category": rec.category,
    }


# ---------------------------------------------------------------------- a killed process
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from helpers import HashEmbedder
from remem import Config, Memory, Turn

backend, where, schema, point = sys.argv[2:6]
if backend == "sqlite":
    from remem.store.sqlite import SQLiteStore
    store = SQLiteStore(where)
else:
    from remem.store.postgres import PostgresStore
    store = PostgresStore(where, schema=schema, pool_size=2)
config = Config.load(env={}, overrides={"indexing.mode": "sync"})
mem = Memory(config=config, store=store, embedder=HashEmbedder())

def turn(text, now):
    return Turn(agent="bot", session="s1", user_id="u1",
                inputs=[{"role": "user", "text": text}], now=now)

mem.capture_after_turn(turn("I live in Paris.", 1_800_000_000.0))
close = store.set_validity

def killed_here(*args, **kwargs):
    if point == "after-closing":
        close(*args, **kwargs)
    print("ready", flush=True)
    sys.stdin.read()  # the parent kills this process here

store.set_validity = killed_here
mem.capture_after_turn(turn("I moved to Berlin.", 1_800_000_060.0))
"""


def _open(backend: str, where: str, schema: str) -> Store:
    if backend == "sqlite":
        from remem.store.sqlite import SQLiteStore

        return SQLiteStore(where)
    from remem.store.postgres import PostgresStore

    return PostgresStore(where, schema=schema, pool_size=2)


@pytest.mark.parametrize("point", ["before-closing", "after-closing"])
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_process_killed_mid_supersession_leaves_one_current_version(tmp_path, backend, point):
    """SIGKILL while the new version is written and the old one is about to be closed (or
    is closed): the store holds the old version alone, current, as if nothing had begun."""
    if backend == "sqlite":
        where, schema = str(tmp_path / "killed.db"), ""
    else:
        pytest.importorskip("psycopg")
        from pg_server import fresh_schema, pg_url

        where, schema = pg_url(), fresh_schema()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(TESTS), backend, where, schema, point],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        ready, _, _ = select.select([child.stdout], [], [], 120)
        line = child.stdout.readline() if ready else b""
        assert line.strip() == b"ready", child.stderr.read() if child.poll() is not None else line
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    store = _open(backend, where, schema)
    try:
        assert _current(store) == ["I live in Paris."]
        paris = [r for r in store.list_records(RecordPage(None, limit=None)) if r.kind == "memory"]
        assert len(paris) == 1 and "superseded_by" not in paris[0].metadata
    finally:
        store.close()
