"""Export and import: a store as JSONL, one record a line, and back.

Export writes every row that passes the filters (no silent limit), optionally with its
vectors (base64 float32, with the model that made them). Import is idempotent by content
hash: a line whose text is already stored is skipped; invalid lines are reported with their
line numbers and change nothing; vectors in the file are kept when they fit the model.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from remem.engine import make_filters
from remem.errors import ValidationError
from remem.ports import MemoryPort
from remem.schemas import RecordIn, content_hash, validate_record
from remem.types import Filters

# Fields the store manages itself; they are exported for the record but not imported.
_STORE_ONLY = (
    "index_status",
    "index_error",
    "model_id",
    "content_hash",
    "access_count",
    "last_access",
)


def export_lines(
    mem: MemoryPort, *, filters: Filters | None = None, with_vectors: bool = False, page: int = 500
) -> Iterator[list[str]]:
    """The export, one page of JSONL lines at a time (for files and HTTP streams alike)."""
    sessions: dict[str, dict | None] = {}
    batch: list = []

    def render() -> list[str]:
        vectors = mem.store.vectors_of([r.rowid for r in batch]) if with_vectors else {}
        lines = []
        for rec in batch:
            data = rec.to_dict()
            if rec.session:
                # what is known about the session travels with its records
                if rec.session not in sessions:
                    sessions[rec.session] = mem.store.session_info(rec.session)
                info = sessions[rec.session]
                if info and info["origin_platform"]:
                    data["origin_platform"] = info["origin_platform"]
                if info and info["parent"]:
                    data["parent_session"] = info["parent"]
            if with_vectors:
                data["vectors"] = [
                    {
                        "model_id": m,
                        "provider": p,
                        "model": name,
                        "vector": base64.b64encode(blob).decode("ascii"),
                    }
                    for m, p, name, blob in vectors.get(rec.rowid, [])
                ]
            lines.append(json.dumps(data, ensure_ascii=False) + "\n")
        batch.clear()
        return lines

    for rec in mem.store.iter_records(filters):
        batch.append(rec)
        if len(batch) >= page:
            yield render()
    if batch:
        yield render()


def export_records(
    mem: MemoryPort,
    out: IO[str],
    *,
    filters: Filters | dict[str, Any] | None = None,
    with_vectors: bool = False,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the export to ``out``; returns how many records. Filters are checked before the
    first line is written."""
    made = make_filters(filters)
    count = 0
    for lines in export_lines(mem, filters=made, with_vectors=with_vectors):
        out.writelines(lines)
        count += len(lines)
        if progress:
            progress(len(lines))
    return count


def export_file(
    mem,
    path: Path,
    *,
    filters: Filters | dict[str, Any] | None = None,
    with_vectors: bool = False,
) -> int:
    """Write the export to a file, atomically: it is written beside the file as
    ``<name>.partial`` and renamed when complete, so a failed or interrupted export never
    leaves a truncated file. Filters are checked before anything is created."""
    made = make_filters(filters)
    tmp = path.with_name(path.name + ".partial")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            count = export_records(mem, fh, filters=made, with_vectors=with_vectors)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


@dataclass
class ImportReport:
    added: int = 0
    skipped: int = 0  # already stored (same content hash)
    invalid: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    vectors: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "skipped": self.skipped,
            "vectors": self.vectors,
            "invalid": [{"line": n, "error": e} for n, e in self.invalid],
        }


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text. Only "\\n" ends a line (a trailing "\\r" is dropped):
    ``str.splitlines`` would also split on U+2028, U+2029 and other separators, which JSON
    strings may hold as they are."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def parse_lines(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, None, f"not valid JSON ({exc.msg})"
            continue
        except RecursionError:
            yield number, None, "not valid JSON (nested too deeply)"
            continue
        if not isinstance(item, dict):
            yield number, None, "expected a JSON object per line"
            continue
        yield number, item, ""


def import_records(
    mem: MemoryPort,
    lines: Iterable[str],
    *,
    scope: str | None = None,
    dry_run: bool = False,
    unlabelled_vectors: bool = False,
) -> ImportReport:
    """``unlabelled_vectors``: keep vectors that name no model as legacy vectors (the first
    search takes them as its model; see ``remem.index.legacy``) instead of re-embedding."""

    report = ImportReport()
    valid: list[tuple[int, RecordIn, list[dict]]] = []
    for number, item, error in parse_lines(lines):
        if item is None:
            report.invalid.append((number, error))
            continue
        vectors = item.pop("vectors", None) or []
        for key in _STORE_ONLY:
            item.pop(key, None)
        if scope is not None:
            item["scope"] = scope
        try:
            valid.append((number, validate_record(item), vectors))
        except ValidationError as exc:
            report.invalid.append((number, str(exc)))
    hashes = [content_hash(r.text) for _, r, _ in valid]
    known = mem.store.existing_hashes(hashes)
    seen: set[str] = set()
    fresh: list[tuple[RecordIn, list[dict]]] = []
    for (_n, rec, vecs), h in zip(valid, hashes, strict=True):
        if h in known or h in seen:
            report.skipped += 1
            continue
        seen.add(h)
        fresh.append((rec, vecs))
    if dry_run or not fresh:
        report.added = len(fresh)
        return report
    ids: list[str] = []
    for rec, _ in fresh:  # ids decided here so vectors in the file can follow their record
        rec.id = rec.id or uuid.uuid4().hex
        ids.append(rec.id)
    stored = {
        r.id: r for r in mem.ingest_many([r for r, _ in fresh], embed=False, on_conflict="skip")
    }
    report.added = len(stored)
    embedder = mem.get_embedder()
    to_embed = []
    for record_id, (_rec_in, vecs) in zip(ids, fresh, strict=True):
        record = stored.get(record_id)
        if record is None or record.rowid is None:
            continue  # the id exists already with other text: skipped by the store
        vec = _usable_vector(vecs, embedder)
        legacy = _unlabelled_vector(vecs) if unlabelled_vectors and vec is None else None
        if vec is not None and embedder is not None:
            mem.store.put_vectors(
                embedder.model_id, embedder.provider, embedder.model, [(record.rowid, vec)]
            )
            report.vectors += 1
        elif legacy is not None:
            mem.store.put_vectors("", "", "", [(record.rowid, legacy)])
            report.vectors += 1
        else:
            to_embed.append(record)
    report.skipped += len(fresh) - len(stored)
    if to_embed:
        mem.embed_records(to_embed)
    return report


def _unlabelled_vector(vecs: list[dict]) -> np.ndarray | None:
    for v in vecs:
        if v.get("model_id"):
            continue
        try:
            vec = np.frombuffer(base64.b64decode(v["vector"]), dtype=np.float32)
        except (KeyError, ValueError, TypeError):
            return None
        if vec.shape[0] > 0 and np.all(np.isfinite(vec)):
            return vec
    return None


def _usable_vector(vecs: list[dict], embedder) -> np.ndarray | None:
    if embedder is None:
        return None
    for v in vecs:
        if v.get("model_id") != embedder.model_id:
            continue
        try:
            vec = np.frombuffer(base64.b64decode(v["vector"]), dtype=np.float32)
        except (KeyError, ValueError, TypeError):
            return None
        if vec.shape[0] == embedder.dim and np.all(np.isfinite(vec)):
            return vec
    return None
