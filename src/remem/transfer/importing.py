"""Import: JSONL from `remem export` (or any records), streamed in bounded batches.

Two passes over the input, each reading one line at a time: the first parses and validates
every line and writes nothing; the second writes a batch at a time (records, then their
vectors, then embeddings for the records that brought none). So a bad line fails the whole
import before anything is written, while memory stays flat in the number of records.

Why two passes rather than one transaction: the Store protocol makes every write its own
transaction, and one transaction around 200k records would hold SQLite's write lock (and a
PostgreSQL snapshot) for the whole import, stalling every chat that writes meanwhile. A
one-shot input (stdin, a generator) is spooled to a temporary file so it can be read twice.
If the second pass stops midway (a crash, a full disk), rerunning is safe: import is
idempotent by content hash, so a rerun adds only what is missing.

A long history (tens of thousands of long turns) takes hours to embed with the default model
on two cores. ``fast_first`` makes it searchable by meaning by the import's end instead: the
records that bring no vector get one of the bundled fast model (USE, ~40x less CPU per long
turn) and stay pending; the main model's vectors follow in the background, the last imported
first (`remem embed`, or the backfill of a process that indexes this store). See
docs/guides/operating.md, "A long history: `remem import --fast`".
"""

from __future__ import annotations

import base64
import math
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from datetime import UTC, tzinfo
from pathlib import Path
from typing import IO, Any

import numpy as np

from remem.embed import latent
from remem.embed.base import Embedder
from remem.embed.fast_model import lane_applies
from remem.errors import ValidationError
from remem.ports import MemoryPort
from remem.schemas import RecordIn, content_hash, validate_record
from remem.store.queries import VectorWrite
from remem.transfer.fast_pass import FastPass
from remem.transfer.jsonl import iter_file_lines, parse_lines, spool
from remem.types import Record

# Fields the store manages itself; they are exported for the record but not imported.
_STORE_ONLY = ("index_status", "index_error", "model_id", "content_hash")
MAX_REPORTED = 1000  # invalid lines listed one by one; the rest are only counted
BATCH = 1000  # records per write batch: bounds memory (with vectors ~3 MB of lines)

Progress = Callable[[int], None]


@dataclass
class ImportReport:
    added: int = 0
    skipped: int = 0  # already stored (same content hash, or same id)
    invalid: list[tuple[int, str]] = field(default_factory=list)  # (line number, reason)
    invalid_count: int = 0  # every invalid line; ``invalid`` lists the first MAX_REPORTED
    vectors: int = 0  # vectors taken from the file
    latent_terms: int = 0  # latent terms taken from the file
    fast_vectors: int = 0  # fast-model vectors written (fast_first): pending for the main model
    facts: int = 0  # facts of the scopes the import added to, derived again at its end
    records: int = 0  # valid records in the input
    written: bool = False  # False: a dry run, or invalid lines stopped the import

    def note_invalid(self, number: int, reason: str) -> None:
        self.invalid_count += 1
        if len(self.invalid) < MAX_REPORTED:
            self.invalid.append((number, reason))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["invalid"], data["invalid_count"]  # the invalid lines go last, as objects
        data["invalid_count"] = self.invalid_count
        data["invalid"] = [{"line": n, "error": e} for n, e in self.invalid]
        return data


class ImportSource:
    """Input that can be read twice, a line at a time: a file, a list of lines, or a one-shot
    stream (stdin's bytes, a generator) spooled to a temporary file. Use as a context manager
    (the spool file is deleted on exit)."""

    def __init__(self, source: Path | Sequence[str] | Iterable[str] | IO[bytes]) -> None:
        self._spooled = False
        self._lines: Sequence[str] | None = None
        self._path: Path | None = None
        if isinstance(source, Path):
            self._path = source
        elif isinstance(source, list | tuple):
            self._lines = source
        else:
            self._path = spool(source)
            self._spooled = True

    def lines(self) -> Iterator[str]:
        """A fresh pass over the lines."""
        if self._lines is not None:
            return iter(self._lines)
        assert self._path is not None
        return iter_file_lines(self._path)

    def close(self) -> None:
        if self._spooled and self._path is not None:
            self._path.unlink(missing_ok=True)
            self._spooled = False

    def __enter__(self) -> ImportSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def import_records(
    mem: MemoryPort,
    lines: Path | Sequence[str] | Iterable[str] | IO[bytes],
    *,
    scope: str | None = None,
    dry_run: bool = False,
    unlabelled_vectors: bool = False,
    skip_invalid: bool = False,
    batch_size: int = BATCH,
    checked: Progress | None = None,
    progress: Progress | None = None,
    fast_first: bool = False,
) -> ImportReport:
    """Import records (see the module docstring). Invalid lines are reported with their line
    numbers and nothing is written, unless ``skip_invalid``: then the valid lines are imported.
    ``unlabelled_vectors``: keep vectors that name no model as legacy vectors (the first
    search takes them as its model; see ``remem.index.legacy``) instead of re-embedding.
    ``checked(n)`` follows the validation pass (lines), ``progress(n)`` the write pass
    (records, out of ``report.records``). ``fast_first``: vectors of the fast model now, the
    main model's later (see the module docstring)."""
    with ImportSource(lines) as source:
        zone = mem.config.calendar.zone()
        report = check_import(source, scope=scope, zone=zone, progress=checked)
        if report.invalid_count and not skip_invalid:
            return report
        options = ImportOptions(
            scope=scope,
            dry_run=dry_run,
            unlabelled_vectors=unlabelled_vectors,
            batch_size=batch_size,
            fast_first=fast_first,
        )
        return write_import(mem, source, report, options, progress=progress)


@dataclass(frozen=True, kw_only=True)
class ImportOptions:
    """How the write pass imports (see ``import_records``): into ``scope`` (None: each
    line's own), only counting (``dry_run``), keeping vectors that name no model
    (``unlabelled_vectors``), ``batch_size`` lines per transaction, the fast model's vectors
    first (``fast_first``)."""

    scope: str | None = None
    dry_run: bool = False
    unlabelled_vectors: bool = False
    batch_size: int = BATCH
    fast_first: bool = False


@dataclass
class Line:
    """One valid line: the record, the vectors it brought, and how often it was used (an
    export's ``access_count`` and ``last_access``, which ranking reads: kept across the
    round trip)."""

    record: RecordIn
    vectors: list[dict[str, Any]]
    access_count: int = 0
    last_access: float | None = None
    latent_terms: list[dict[str, Any]] = field(default_factory=list)


def _access(item: dict[str, Any]) -> tuple[int, float | None]:
    count = item.pop("access_count", None) or 0
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValidationError("access_count", count, "use a whole number from 0")
    last = item.pop("last_access", None)
    if last is not None and (
        isinstance(last, bool) or not isinstance(last, int | float) or not math.isfinite(last)
    ):
        raise ValidationError("last_access", last, "use Unix seconds, or null")
    return count, None if last is None else float(last)


def _validated(item: dict[str, Any], scope: str | None, zone: tzinfo) -> Line:
    vectors = item.pop("vectors", None) or []
    terms = item.pop("latent_terms", None) or []
    for key in _STORE_ONLY:
        item.pop(key, None)
    count, last = _access(item)
    if scope is not None:
        item["scope"] = scope
    record = validate_record(item, zone=zone)
    return Line(
        record,
        vectors if isinstance(vectors, list) else [],
        count,
        last,
        terms if isinstance(terms, list) else [],
    )


def check_import(
    source: ImportSource,
    *,
    scope: str | None = None,
    zone: tzinfo = UTC,
    progress: Progress | None = None,
) -> ImportReport:
    """The first pass: parse and validate every line (times without an offset on ``zone``'s
    clock), write nothing. The report counts the valid records and lists the invalid lines."""
    report = ImportReport()
    for number, item, error in parse_lines(_counted(source.lines(), progress)):
        if item is None:
            report.note_invalid(number, error)
            continue
        try:
            _validated(item, scope, zone)
        except ValidationError as exc:
            report.note_invalid(number, str(exc))
            continue
        report.records += 1
    return report


def _counted(lines: Iterator[str], progress: Progress | None, every: int = 1000) -> Iterator[str]:
    if progress is None:
        yield from lines
        return
    n = 0
    for line in lines:
        yield line
        n += 1
        if n == every:
            progress(n)
            n = 0
    if n:
        progress(n)


def _batches(
    source: ImportSource, scope: str | None, size: int, zone: tzinfo
) -> Iterator[list[Line]]:
    """The valid records of the input, ``size`` at a time (invalid lines are passed over:
    the first pass has reported them)."""
    batch: list[Line] = []
    for _number, item, _error in parse_lines(source.lines()):
        if item is None:
            continue
        try:
            batch.append(_validated(item, scope, zone))
        except ValidationError:
            continue
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_import(
    mem: MemoryPort,
    source: ImportSource,
    report: ImportReport,
    options: ImportOptions,
    *,
    progress: Progress | None = None,
) -> ImportReport:
    """The second pass: write batch by batch (with ``options.dry_run``, only count what
    would be added). Fills in and returns ``report`` from ``check_import``."""
    dry_run = options.dry_run
    embedder = None if dry_run else mem.get_embedder()
    with _fast_pass(mem, embedder) if options.fast_first and not dry_run else nullcontext() as fast:
        scopes = _write_batches(mem, source, report, (embedder, fast), options, progress)
        if fast is not None:
            report.fast_vectors += fast.finish()
            fast.build_index()
    if scopes and mem.config.facts.enabled:
        # records that brought their vectors never pass the indexer, which derives facts:
        # the scopes they joined are derived again from all their records
        report.facts = mem.rebuild_facts(sorted(scopes)).facts
    report.written = not dry_run
    return report


def _write_batches(
    mem: MemoryPort,
    source: ImportSource,
    report: ImportReport,
    models: tuple[Embedder | None, FastPass | None],
    options: ImportOptions,
    progress: Progress | None,
) -> set[str]:
    """``write_import``'s loop; the scopes the import added records to."""
    seen: set[bytes] = set()  # dry run only: nothing is written, so the store cannot tell
    scopes: set[str] = set()  # of the records added: their facts are derived at the end
    size = max(1, options.batch_size)
    for batch in _batches(source, options.scope, size, mem.config.calendar.zone()):
        if options.dry_run:
            digests = [bytes.fromhex(content_hash(line.record.text)) for line in batch]
            known = mem.store.existing_hashes([d.hex() for d in digests])
            for digest in digests:
                if digest.hex() in known or digest in seen:
                    report.skipped += 1
                else:
                    seen.add(digest)
                    report.added += 1
        else:
            added = report.added
            _write_batch(mem, batch, report, models, options.unlabelled_vectors)
            if report.added > added:
                scopes.update(line.record.scope for line in batch)
        if progress:
            progress(len(batch))
    return scopes


def _fast_pass(mem: MemoryPort, embedder: Embedder | None) -> FastPass:
    """The fast model's pass of an import with ``fast_first``, checked before anything is
    written: the fast lane must apply to this store (``lane_applies``). It runs on
    ``embed.threads`` cores (``transfer.fast_pass``)."""
    local_index = mem.store.index_root is not None
    if embedder is None or not lane_applies(mem.config, embedder.model_id, local_index):
        raise ValidationError(
            "fast_first",
            True,
            "a fast-first import needs the fast lane: a SQLite store, indexing.fast_lane on "
            "and the bundled default model (embed.model multilingual-e5-small); import "
            "without it (vectors of the configured model now)",
        )
    return FastPass(mem.store, mem.config, mem.config.embed.threads)


def _write_batch(
    mem: MemoryPort,
    batch: list[Line],
    report: ImportReport,
    models: tuple[Embedder | None, FastPass | None],
    unlabelled_vectors: bool,
) -> None:
    """Store one batch: records (one transaction), their use counts, the file's vectors (one
    transaction per model), then embed the records that brought no usable vector (with the
    fast model's pass, when ``models`` has one: (main, fast))."""
    embedder, fast = models
    # Duplicates in earlier batches are in the store by now; within the batch, `seen`.
    known = mem.store.existing_hashes([content_hash(line.record.text) for line in batch])
    seen: set[str] = set()
    fresh: list[Line] = []
    for line in batch:
        digest = content_hash(line.record.text)
        if digest in known or digest in seen:
            report.skipped += 1
            continue
        seen.add(digest)
        # decided here so the file's vectors follow it
        line.record.id = line.record.id or uuid.uuid4().hex
        fresh.append(line)
    if not fresh:
        return
    stored = {
        r.id: r
        for r in mem.ingest_many([line.record for line in fresh], embed=False, on_conflict="skip")
    }
    report.added += len(stored)
    report.skipped += len(fresh) - len(stored)  # the id exists already with other text
    _restore_access(mem, fresh, stored)
    by_model: dict[tuple[str, str, str], list[tuple[int, np.ndarray]]] = {}
    to_embed = []
    for line in fresh:
        vecs = line.vectors
        record = stored.get(line.record.id or "")
        if record is None or record.rowid is None or record.index_status == "skipped":
            continue  # skipped by the store, or stored only (never a hit, never embedded)
        vec = _usable_vector(vecs, embedder)
        legacy = _unlabelled_vector(vecs) if unlabelled_vectors and vec is None else None
        if vec is not None and embedder is not None:
            key = (embedder.model_id, embedder.provider, embedder.model)
            by_model.setdefault(key, []).append((record.rowid, vec))
        elif legacy is not None:
            by_model.setdefault(("", "", ""), []).append((record.rowid, legacy))
        else:
            to_embed.append(record)
    for (model_id, provider, model), items in by_model.items():
        report.vectors += mem.store.put_vectors(VectorWrite(model_id, provider, model, items))
    report.latent_terms += _put_latent_terms(mem, fresh, stored)
    if to_embed and fast is not None:
        fast.add(to_embed)  # embedded while the next batch is written
    elif to_embed:
        mem.embed_records(to_embed)


def _restore_access(mem: MemoryPort, fresh: list[Line], stored: dict[str, Record]) -> None:
    """The use counts the file brought, onto the records this batch added (a record skipped
    as already stored keeps its own)."""
    items = []
    for line in fresh:
        record = stored.get(line.record.id or "")
        used = line.access_count or line.last_access is not None
        if record is not None and record.rowid is not None and used:
            items.append((record.rowid, line.access_count, line.last_access or 0.0))
    if items:
        mem.store.record_access(items)


def _put_latent_terms(mem: MemoryPort, fresh: list[Line], stored: dict[str, Record]) -> int:
    """The latent terms the file brought (an export's), under the stored text's hash: derived
    from the text alone, so they hold for the imported record as they did for the exported
    one, and no search or background fill reads them again. Unknown models and malformed
    terms are left out (the fill computes those)."""
    by_model: dict[str, list[tuple[int, str, bytes]]] = {}
    for line in fresh:
        record = stored.get(line.record.id or "")
        if record is None or record.rowid is None or record.index_status == "skipped":
            continue
        for entry in line.latent_terms:
            model_id = entry.get("model_id") if isinstance(entry, dict) else None
            code = _decode_terms(entry.get("terms")) if isinstance(entry, dict) else None
            if isinstance(model_id, str) and model_id in latent.MODEL_IDS.values() and code:
                by_model.setdefault(model_id, []).append((record.rowid, record.content_hash, code))
    return sum(mem.store.put_latent_terms(m, items) for m, items in by_model.items())


def _decode_terms(text: Any) -> bytes | None:
    try:
        code = base64.b64decode(text, validate=True)
        terms, weights = latent.unpack(code)
    except (ValueError, TypeError):
        return None
    if not 0 < len(terms) <= latent.TOP or int(terms.max()) >= latent.DIM:
        return None
    return code if bool(np.all(np.isfinite(weights))) else None


def _decode(v: dict[str, Any]) -> np.ndarray | None:
    try:
        vec = np.frombuffer(base64.b64decode(v["vector"]), dtype=np.float32)
    except (KeyError, ValueError, TypeError):
        return None
    return vec if vec.shape[0] > 0 and np.all(np.isfinite(vec)) else None


def _unlabelled_vector(vecs: list[dict[str, Any]]) -> np.ndarray | None:
    for v in vecs:
        if isinstance(v, dict) and not v.get("model_id"):
            return _decode(v)
    return None


def _usable_vector(vecs: list[dict[str, Any]], embedder: Embedder | None) -> np.ndarray | None:
    if embedder is None:
        return None
    for v in vecs:
        if isinstance(v, dict) and v.get("model_id") == embedder.model_id:
            vec = _decode(v)
            return vec if vec is not None and vec.shape[0] == embedder.dim else None
    return None
