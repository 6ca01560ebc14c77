"""SQLite writers take turns through a lock of their own (store/sqlite/writer_queue.py): a
waiter wakes when the writer before it is done, not on SQLite's busy handler's sleeps, and a
stopped or killed holder never leaves the others waiting for good."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conformance import fields

from remem.errors import StoreBusyError
from remem.store.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock: POSIX only")


def _row(i: int) -> tuple[dict, str]:
    return (fields(i), "")


def test_a_writer_waits_for_the_transaction_before_it_however_long(tmp_path):
    # a busy timeout far shorter than the other writer's transaction: SQLite's busy handler
    # gave up (StoreBusyError); the queue lets the write in when the transaction ends
    path = tmp_path / "q.db"
    first, second = SQLiteStore(path), SQLiteStore(path, busy_timeout_ms=50)
    try:
        done: list[BaseException | None] = []
        entered = threading.Event()

        def write_second() -> None:
            entered.set()
            try:
                second.insert_records([_row(1)])
                done.append(None)
            except BaseException as exc:
                done.append(exc)

        with first.transaction():
            first.insert_records([_row(0)])
            waiter = threading.Thread(target=write_second)
            waiter.start()
            entered.wait()
            time.sleep(0.4)  # eight busy timeouts of the second store
            assert not done, "the second writer did not wait for the first's transaction"
        waiter.join(30)
        assert done == [None]
        assert {r.id for r in (first.get("r0"), second.get("r1")) if r} == {"r0", "r1"}
        assert Path(f"{path}-writer").exists()
    finally:
        first.close()
        second.close()


_HOLDER = textwrap.dedent(
    """
    import os, signal, sys
    from conformance import fields
    from remem.store.sqlite import SQLiteStore
    store = SQLiteStore(sys.argv[1])
    with store.transaction():
        store.insert_records([(fields(9), "")])
        print("holding", flush=True)
        os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    """
)


def _holder(path: Path, how: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), how],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    return proc


def _write_within(store: SQLiteStore, seconds: float) -> BaseException | None:
    """Write one record on a thread; its error, or None; fails the test on a hang."""
    result: list[BaseException | None] = []

    def write() -> None:
        try:
            store.insert_records([_row(2)])
            result.append(None)
        except BaseException as exc:
            result.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"the write hung for {seconds} s"
    return result[0]


def test_a_stopped_holder_ends_in_the_busy_error_not_a_hang(tmp_path):
    path = tmp_path / "stopped.db"
    store = SQLiteStore(path, busy_timeout_ms=300)  # open before the holder stops
    proc = _holder(path, "SIGSTOP")
    try:
        deadline = time.monotonic() + 10
        while _state(proc.pid) not in {"T", "t"}:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert isinstance(_write_within(store, 20), StoreBusyError)
    finally:
        store.close()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    store = SQLiteStore(path)  # the killed holder's lock went with it
    try:
        assert _write_within(store, 20) is None
        assert store.get("r9") is None  # its transaction never committed
    finally:
        store.close()


def test_a_killed_holder_leaves_the_queue_free(tmp_path):
    path = tmp_path / "killed.db"
    store = SQLiteStore(path, busy_timeout_ms=300)
    proc = _holder(path, "SIGKILL")
    proc.wait()
    try:
        assert _write_within(store, 20) is None
        assert store.get("r2") is not None and store.get("r9") is None
    finally:
        store.close()


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return stat.read().rsplit(b")", 1)[1].split()[0].decode()
