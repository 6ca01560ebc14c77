"""Distil coding-agent session logs into the store, incrementally (``remem distill``).

Each file is read from a byte-offset cursor kept in the store's meta table (so it lives and
moves with the store, SQLite or PostgreSQL, and two stores never share one), one batch of
complete lines at a time: archive the batch's messages, capture memories from them with the
auto-capture rules, then advance the cursor past the batch.

Never twice: a record's id is derived from the file's identity and the line's byte offset,
and the batch is written with ``on_conflict="skip"``. A run killed between archiving and
advancing the cursor reads the batch again, finds every id stored, archives nothing and
captures nothing new. A file smaller than its cursor (truncated) or with a new inode
(rotated) starts over from its first byte under a new generation, so its ids are new too.
A last line without its newline is being written: it waits for the next run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remem.errors import ValidationError
from remem.schemas import validate_record
from remem.transfer.session_logs import BadLine, LogMessage, message_of
from remem.types import Turn

if TYPE_CHECKING:
    from remem.engine import Memory

NAMESPACE = "distill"
BATCH_LINES = 500
MAX_TEXT = 100_000  # longer messages (pasted logs) are cut: a record is not a file store


@dataclass
class Cursor:
    """Where a file was read up to: ``offset`` bytes, ``line`` lines, of inode ``inode``."""

    inode: int = 0
    offset: int = 0
    line: int = 0
    generation: int = 0


@dataclass
class FileReport:
    path: str
    started_at: int = 0  # the byte offset this run started from
    read_to: int = 0
    lines: int = 0
    archived: int = 0
    captured: int = 0
    restarted: str | None = None  # "truncated" or "rotated" when the cursor was reset
    sessions: list[str] = field(default_factory=list)  # the sessions that got new messages
    errors: list[str] = field(default_factory=list)


@dataclass
class DistillReport:
    files: list[FileReport] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)  # ids of session summaries stored

    def total(self, name: str) -> int:
        return sum(getattr(f, name) for f in self.files)

    @property
    def errors(self) -> list[str]:
        return [e for f in self.files for e in f.errors]

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [asdict(f) for f in self.files],
            "lines": self.total("lines"),
            "archived": self.total("archived"),
            "captured": self.total("captured"),
            "summaries": self.summaries,
            "errors": self.errors,
        }


def summarize_sessions(
    mem: Memory, report: DistillReport, *, agent: str, user: str | None
) -> list[str]:
    """Store the summary memory of every session that got new messages (what a session
    reset stores: ``Memory.session_reset``), for a hook at a session's end."""
    sessions = sorted({s for f in report.files for s in f.sessions})
    for session in sessions:
        outcome = mem.session_reset(session, agent=agent, user=user)
        if outcome is not None and outcome.record is not None:
            report.summaries.append(outcome.record.id)
    return report.summaries


def log_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, and every ``*.jsonl`` under the directories named (sorted)."""
    found: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.jsonl") if p.is_file()))
        else:
            found.append(path)
    return found


def pending_bytes(mem: Memory, files: list[Path]) -> int:
    """Bytes not yet read in these files (for a progress bar)."""
    total = 0
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        cursor = load_cursor(mem, path)
        same = cursor.inode == stat.st_ino and cursor.offset <= stat.st_size
        total += stat.st_size - (cursor.offset if same else 0)
    return total


def load_cursor(mem: Memory, path: Path) -> Cursor:
    raw = mem.store.meta_get(NAMESPACE, str(path.resolve()))
    return Cursor(**json.loads(raw)) if raw else Cursor()


def save_cursor(mem: Memory, path: Path, cursor: Cursor) -> None:
    mem.store.meta_set(NAMESPACE, str(path.resolve()), json.dumps(asdict(cursor)))


def distill_file(
    mem: Memory,
    path: Path,
    *,
    agent: str,
    user: str | None = None,
    embed: bool = True,
    capture: bool = True,
    progress: Callable[[int], None] | None = None,
) -> FileReport:
    """Archive and capture what was appended to one log since its cursor."""
    report = FileReport(path=str(path))
    try:
        handle = path.open("rb")
    except OSError as exc:
        report.errors.append(f"{path}: cannot read ({exc.strerror})")
        return report
    with handle:
        stat = os.fstat(handle.fileno())
        cursor = load_cursor(mem, path)
        if cursor.inode and cursor.inode != stat.st_ino:
            report.restarted = "rotated"
        elif stat.st_size < cursor.offset:
            report.restarted = "truncated"
        if report.restarted:
            cursor = Cursor(generation=cursor.generation + 1)
        cursor.inode = stat.st_ino
        report.started_at = report.read_to = cursor.offset
        handle.seek(cursor.offset)
        key = file_key(path, cursor)
        for batch, end, lines in batches(handle, cursor.offset, stat.st_size):
            items = []
            for offset, raw in batch:
                cursor.line += 1
                message = parse(raw, path, cursor.line, report)
                if message is not None:
                    item = record_for(message, path, f"log-{key}-{offset}")
                    if checked(mem, item, f"{path}:{cursor.line}", report):
                        items.append(item)
            stored = mem.ingest_many(items, embed=embed, wait=True, on_conflict="skip")
            report.archived += len(stored)
            report.sessions += sorted({r.session for r in stored if r.session} - {*report.sessions})
            if capture and items:
                report.captured += capture_batch(mem, items, stored, agent=agent, user=user)
            save_cursor(mem, path, replace(cursor, offset=end))  # a crash before: re-read
            if progress:
                progress(end - cursor.offset)
            cursor.offset = report.read_to = end
            report.lines += lines
    return report


def capture_batch(
    mem: Memory, items: list[dict[str, Any]], stored: list[Any], *, agent: str, user: str | None
) -> int:
    """Capture from a batch's messages. Lines already archived were archived by a run that
    stopped before its cursor moved, maybe before it captured: they are captured again, and
    capture's deduplication keeps a memory it already holds from being stored twice."""
    new = {r.id for r in stored}
    records = list(stored)
    for item in items:
        if item["id"] not in new:
            found = mem.get(item["id"])
            if found is not None:
                records.append(found)
    records.sort(key=lambda r: r.rowid or 0)
    turns = turns_of(records, agent=agent, user=user)
    return sum(len(mem.capture_after_turn(t).stored) for t in turns)


def file_key(path: Path, cursor: Cursor) -> str:
    """A short stable name for this file's current contents: path, inode and generation."""
    seed = f"{path.resolve()}\0{cursor.inode}\0{cursor.generation}"
    return hashlib.sha256(seed.encode()).hexdigest()[:16]


def batches(
    handle: Any, start: int, size: int
) -> Iterator[tuple[list[tuple[int, bytes]], int, int]]:
    """Batches of complete lines up to ``size`` bytes: ([(offset, line)], end offset, count).
    A last line without its newline is left for the next run."""
    batch: list[tuple[int, bytes]] = []
    offset = start
    while offset < size:
        raw = handle.readline(size - offset)
        if not raw.endswith(b"\n"):
            break  # still being written
        batch.append((offset, raw))
        offset += len(raw)
        if len(batch) >= BATCH_LINES:
            yield batch, offset, len(batch)
            batch = []
    if batch:
        yield batch, offset, len(batch)


def parse(raw: bytes, path: Path, number: int, report: FileReport) -> LogMessage | None:
    """The message on one line; a malformed line is reported with its file and line, and
    skipped (the cursor passes it: it is never read again)."""
    if not raw.strip():
        return None
    try:
        return message_of(json.loads(raw.decode("utf-8")))
    except UnicodeDecodeError:
        why = "not UTF-8 text"
    except json.JSONDecodeError as exc:
        why = f"not JSON ({exc.msg} at column {exc.colno})"
    except BadLine as exc:
        why = str(exc)
    report.errors.append(f"{path}:{number}: {why}; line skipped")
    return None


def checked(mem: Memory, item: dict[str, Any], where: str, report: FileReport) -> bool:
    """Whether the store takes this record; one that it would refuse (a time it cannot read,
    a session name with control characters) is reported and skipped, so that it cannot stop
    every later line from being read."""
    try:
        validate_record(dict(item), zone=mem.config.calendar.zone())
    except ValidationError as exc:
        report.errors.append(f"{where}: {exc}; line skipped")
        return False
    return True


def record_for(message: LogMessage, path: Path, record_id: str) -> dict[str, Any]:
    """The record of one message: the log's session (or the file's name: OpenClaw names
    its files after the session), its time, and where it came from."""
    item: dict[str, Any] = {
        "id": record_id,
        "kind": "message",
        "text": message.text[:MAX_TEXT],
        "role": message.role,
        "session": message.session or path.stem,
        "metadata": {"log": str(path)} | ({"cwd": message.cwd} if message.cwd else {}),
    }
    if message.timestamp is not None:
        item["timestamp"] = message.timestamp
    return item


def turns_of(records: list[Any], *, agent: str, user: str | None) -> list[Turn]:
    """The archived messages as turns for capture: each user message with the assistant
    replies after it, per session (capture's per-turn limit applies per turn, as live)."""
    turns: list[Turn] = []
    for record in records:
        last = turns[-1] if turns else None
        if last is None or last.session != record.session or record.role == "user":
            last = Turn(session=record.session, agent=agent, user_id=user, now=record.created_at)
            turns.append(last)
        last.inputs.append(record.id)
    return turns
