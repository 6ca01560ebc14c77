"""Bad input at the edges: a clear remem error naming the field, and nothing written."""

import sqlite3
import threading

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.access import resolve
from remem.errors import RememError, StoreBusyError, ValidationError
from remem.schemas import make_filters, validate_record
from remem.store import SQLiteStore

LONE = "\ud800"  # what JSON's "\ud800" escape decodes to: not encodable as UTF-8


@pytest.fixture
def mem(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=HashEmbedder()) as m:
        yield m


@pytest.mark.parametrize(
    "field, value",
    [
        ("id", "abc\n"),
        ("scope", "agent:A\n"),
        ("session", "s1\n"),
        ("session", "s\x00"),
        ("speaker_id", "u\x1b"),
        ("platform", "qq\n"),
        ("parent_session", "p\r"),
    ],
)
def test_control_characters_and_trailing_newlines_are_refused(field, value):
    with pytest.raises(ValidationError, match=f"invalid {field}"):
        validate_record({"text": "hello", field: value})


def test_agents_and_users_refuse_a_trailing_newline():
    config = Config.load(env={})
    with pytest.raises(ValidationError, match="agent"):
        resolve(config, "bot\n")
    with pytest.raises(ValidationError, match="user"):
        resolve(config, "bot", user="u1\n")


@pytest.mark.parametrize(
    "record",
    [
        {"text": LONE},
        {"text": "ok", "speaker": LONE},
        {"text": "ok", "metadata": {"k": [LONE]}},
        {"text": "ok", "mentions": [LONE]},
    ],
)
def test_unencodable_text_is_a_validation_error_and_writes_nothing(mem, record):
    with pytest.raises(ValidationError, match="not valid Unicode"):
        mem.ingest(record)
    with pytest.raises(ValidationError):
        mem.ingest_many([{"text": "fine"}, record])
    assert mem.stats()["records"] == 0


@pytest.mark.parametrize(
    "filters",
    [
        {"scope": 5},
        {"kind": True},
        {"ids": 5},
        {"ids": [LONE]},
        {"session": {"a": 1}},
        {"include_superseded": "no"},
        {"platform": LONE},
        {"since": [1]},
    ],
)
def test_filters_of_the_wrong_type_name_the_field(filters):
    with pytest.raises(ValidationError, match=f"invalid {next(iter(filters))}"):
        make_filters(filters)


def test_search_refuses_empty_now_long_and_unencodable_queries(mem):
    with pytest.raises(ValidationError, match="invalid now"):
        mem.search("x", now="")
    with pytest.raises(ValidationError, match=r"search\.max_query_chars"):
        mem.search("x" * 10_001)
    with pytest.raises(ValidationError, match="invalid query"):
        mem.search("x" + LONE)


def test_get_and_delete_refuse_unencodable_and_non_string_ids(mem):
    with pytest.raises(ValidationError, match="invalid id"):
        mem.get(LONE)
    with pytest.raises(ValidationError, match="invalid ids"):
        mem.delete([LONE])
    with pytest.raises(ValidationError, match="invalid ids"):
        mem.delete([5])


def test_tool_arguments_with_unencodable_text_are_tool_errors(mem):
    from remem.tools import ToolError

    tools = mem.tools("bot")
    for name, args in (
        ("memory_forget", {"memory_id": LONE}),
        ("memory_store", {"text": "I like " + LONE}),
        ("memory_recall", {"query": LONE}),
    ):
        with pytest.raises(ToolError, match="not valid Unicode"):
            tools.call(name, args)


def test_a_writer_held_past_the_busy_timeout_is_a_busy_error(tmp_path):
    path = tmp_path / "busy.db"
    store = SQLiteStore(path, busy_timeout_ms=200)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write lock
    try:
        with pytest.raises(StoreBusyError, match=r"busy.*store\.busy_timeout_ms"):
            store.meta_set("t", "k", "v")
        assert isinstance(StoreBusyError("x"), RememError)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.meta_get("t", "k") is None  # nothing was written
    store.meta_set("t", "k", "v")  # and the store works once the lock is gone
    assert store.meta_get("t", "k") == "v"
    store.close()


def test_a_lock_released_within_the_timeout_is_waited_for(tmp_path):
    path = tmp_path / "wait.db"
    store = SQLiteStore(path, busy_timeout_ms=5_000)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: holder.execute("ROLLBACK"))
    release.start()
    store.meta_set("t", "k", "v")  # waits for the other writer instead of failing
    release.join()
    holder.close()
    assert store.meta_get("t", "k") == "v"
    store.close()


def test_opening_a_locked_store_says_busy_not_foreign_file(tmp_path):
    path = tmp_path / "locked.db"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreBusyError, match="busy"):
            SQLiteStore(path, busy_timeout_ms=200)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
