"""Export: every record passing the filters as JSONL, one page at a time (no silent limit),
optionally with its vectors (base64 float32, with the model that made them) and the bundled
model's latent terms (base64 of their packed bytes), so an import neither embeds nor reads
them again. Memory stays flat in the number of records: a page of records at a time."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from remem.embed import latent
from remem.engine import make_filters
from remem.ports import MemoryPort
from remem.types import Filters, SessionInfo


def stored_latent_terms(mem: MemoryPort, rowids: list[int]) -> dict[int, list[tuple[str, bytes]]]:
    """Each record's stored latent terms, by the model that read them."""
    found: dict[int, list[tuple[str, bytes]]] = {}
    for model_id in latent.MODEL_IDS.values():
        for rowid, code in mem.store.latent_terms_of(model_id, rowids).items():
            found.setdefault(rowid, []).append((model_id, code))
    return found


def export_lines(
    mem: MemoryPort, *, filters: Filters | None = None, with_vectors: bool = False, page: int = 500
) -> Iterator[list[str]]:
    """The export, one page of JSONL lines at a time (for files and HTTP streams alike)."""
    sessions: dict[str, SessionInfo | None] = {}
    batch: list = []

    def render() -> list[str]:
        rowids = [r.rowid for r in batch if r.rowid is not None]
        vectors = mem.store.vectors_of(rowids) if with_vectors else {}
        terms = stored_latent_terms(mem, rowids) if with_vectors else {}
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
                if rec.rowid in terms:
                    # derived like vectors: an import reads them instead of running the model
                    data["latent_terms"] = [
                        {"model_id": model_id, "terms": base64.b64encode(code).decode("ascii")}
                        for model_id, code in terms[rec.rowid]
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
    made = make_filters(filters, mem.config.calendar.zone())
    count = 0
    for lines in export_lines(mem, filters=made, with_vectors=with_vectors):
        out.writelines(lines)
        count += len(lines)
        if progress:
            progress(len(lines))
    return count


def export_file(
    mem: MemoryPort,
    path: Path,
    *,
    filters: Filters | dict[str, Any] | None = None,
    with_vectors: bool = False,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the export to a file, atomically: it is written beside the file as
    ``<name>.partial`` and renamed when complete, so a failed or interrupted export never
    leaves a truncated file. Filters are checked before anything is created."""
    made = make_filters(filters, mem.config.calendar.zone())
    tmp = path.with_name(path.name + ".partial")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            count = export_records(
                mem, fh, filters=made, with_vectors=with_vectors, progress=progress
            )
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count
