"""Copy a whole store into another backend, through the Store protocol only.

Records (with their ids, times, index status and access counts), the sessions they name,
every model's vectors (legacy ones too), the latent terms of the bundled model (derived data,
but an hour of model time at 100k records), the facts and the facts backlog (a record whose facts
the source has not read yet waits for them in the copy) and the store's model markers go across,
a batch of records at a time in source rowid order: memory is flat in the store's size.

Resumable: after each batch the destination's meta table notes the source and the last
source rowid copied (``copy/after``). A second run continues after it; a batch cut short by a
kill is written again, harmlessly (records are skipped by id, vectors replaced, access counts
topped up to the source's). A rerun after a complete copy brings over records added to the
source since (deletions are not followed). A destination holding other records is refused.

Lexical tokens are made again by the destination's tokenizer (the protocol does not hand
tokens out, and this keeps them consistent with the destination's text settings); a
message's context tokens come from the turns before it in the source.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from remem.config import StoreConfig, is_postgres_url
from remem.embed import latent
from remem.errors import NotFoundError, ValidationError
from remem.index.legacy import KEY as LEGACY_KEY
from remem.index.legacy import NAMESPACE as LEGACY_NAMESPACE
from remem.ingest.indexing import ACTIVE_MODEL
from remem.ingest.write_path import lexical_text
from remem.store.base import RecordRow, Store
from remem.store.open import open_store
from remem.store.queries import FactBacklog, VectorWrite
from remem.text.tokenize import Tokenizer
from remem.types import KINDS, Filters, Record, SessionInfo

NAMESPACE = "copy"  # destination meta: "source" (what is copied) and "after" (last rowid done)
# Store-wide markers that travel with the data (the model a `reembed` switched to, the model
# legacy vectors were taken as).
MARKERS = (ACTIVE_MODEL, (LEGACY_NAMESPACE, LEGACY_KEY))
Progress = Callable[[int], None]


@dataclass
class CopyReport:
    source: str
    destination: str
    copied: int = 0  # records written by this run
    resumed_after: int = 0  # source rowid the run started after (0: from the beginning)
    vectors: int = 0  # vectors written by this run
    facts: int = 0  # facts written by this run (derived, copied as they are)
    counts: dict[str, list[int]] = field(default_factory=dict)  # name -> [source, destination]
    sampled: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.mismatches

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["verified"] = self.verified  # before the mismatches it sums up
        data["mismatches"] = data.pop("mismatches")
        return data


def open_location(location: str, *, must_exist: bool, config: StoreConfig) -> Store:
    """`remem copy`'s check of a location (a SQLite file path or a ``postgresql://`` URL)
    before ``remem.store.open.open_store`` opens it with the store settings of ``config``.
    Returns the store; the caller closes it."""
    if is_postgres_url(location):
        try:
            return open_store(config, location)
        except ImportError as exc:  # the [postgres] extra is not installed
            raise ValidationError("location", location, str(exc)) from None
    path = Path(location).expanduser()
    if path.is_dir():
        raise ValidationError("location", location, "give a database file, not a directory")
    if must_exist and not path.is_file():  # not found, as for every command that only reads
        raise NotFoundError(f"no remem database at {location!r}; check the path")
    return open_store(config, path)


def store_name(location: str) -> str:
    """How a location is named in the destination's resume marker: an absolute path, or a URL
    without its password."""
    if "://" in location:
        return re.sub(r"(://[^:/@]*):[^@]*@", r"\1@", location)
    return str(Path(location).expanduser().resolve())


def copy_store(
    src: Store,
    dst: Store,
    *,
    tokenizer: Tokenizer,
    context_turns: int,
    source_name: str,
    destination_name: str = "",
    batch_size: int = 500,
    sample: int = 200,
    seed: int | None = None,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy ``src`` into ``dst`` (resuming a cut-short copy), then verify. ``source_name``
    identifies the source in the destination's resume marker; ``context_turns`` is
    ``text.context_turns`` (how many earlier turns a message's context tokens hold)."""
    after = _resume_point(dst, source_name)
    report = CopyReport(source_name, destination_name or "destination", resumed_after=after)
    copier = _BatchCopier(src, dst, tokenizer, context_turns)
    records = src.iter_records(batch=batch_size, after=after)
    while batch := list(itertools.islice(records, batch_size)):
        report.vectors += copier.copy(batch)
        report.copied += len(batch)
        after = batch[-1].rowid or after
        dst.meta_set(NAMESPACE, "after", str(after))
        if progress:
            progress(len(batch))
    report.facts = _copy_facts(src, dst, batch_size)
    for namespace, key in MARKERS:
        value = src.meta_get(namespace, key)
        if value is not None:
            dst.meta_set(namespace, key, value)
    verify(src, dst, report, last_rowid=after, sample=sample, seed=seed)
    return report


def _copy_facts(src: Store, dst: Store, batch_size: int) -> int:
    """Every fact of the source, as it is: derived data like the latent terms, citing records
    by the ids the copy keeps (a hand correction is a curated memory and came with the
    records). Replaces facts of the same id, so a resumed copy writes them again harmlessly."""
    facts = src.facts()
    for start in range(0, len(facts), batch_size):
        dst.put_facts(facts[start : start + batch_size])
    return len(facts)


def _resume_point(dst: Store, source_name: str) -> int:
    """Where to start: after the marker's rowid when the destination is a copy of this
    source in progress (or done); 0 for an empty destination; anything else is refused."""
    marked = dst.meta_get(NAMESPACE, "source")
    if marked == source_name:
        return int(dst.meta_get(NAMESPACE, "after") or 0)
    if marked is not None or dst.count() > 0:
        what = f"a copy of {marked!r}" if marked else f"{dst.count()} records"
        raise ValidationError(
            "destination",
            what,
            "copy into an empty store (or rerun the same copy to resume it); to merge stores "
            "use `remem export` and `remem import`",
        )
    dst.meta_set(NAMESPACE, "source", source_name)
    dst.meta_set(NAMESPACE, "after", "0")
    return 0


class _BatchCopier:
    def __init__(self, src: Store, dst: Store, tokenizer: Tokenizer, context_turns: int) -> None:
        self.src, self.dst = src, dst
        self.tokenizer = tokenizer
        self.context_turns = context_turns

    def copy(self, batch: Sequence[Record]) -> int:
        """Write one batch (records in one transaction, then vectors per model, then access
        counts); returns how many vectors were written."""
        sessions = {
            s: self.src.session_info(s)
            for s in dict.fromkeys(r.session for r in batch if r.session)
        }
        rows = [self._row(rec, sessions.get(rec.session or "")) for rec in batch]
        rowids = self._insert(batch, rows)
        dst_rowid = self._map_rowids(batch, rowids)
        written = 0
        vectors = self.src.vectors_of([r.rowid for r in batch if r.rowid is not None])
        by_model: dict[tuple[str, str, str], list[tuple[int, np.ndarray]]] = {}
        for rowid, stored in vectors.items():
            for model_id, provider, model, blob in stored:
                target = dst_rowid.get(rowid)
                if target is not None:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    by_model.setdefault((model_id, provider, model), []).append((target, vec))
        for (model_id, provider, model), items in by_model.items():
            # the record's own index status came across with it: leave it as it is
            written += self.dst.put_vectors(
                VectorWrite(model_id, provider, model, items, mark_indexed=False)
            )
        self._copy_latent_terms(batch, dst_rowid)
        self._top_up_access(batch, dst_rowid)
        return written

    def _insert(self, batch: Sequence[Record], rows: list[RecordRow]) -> list[int | None]:
        """Insert the batch's rows in one transaction, in source order. A record the source
        still owes the facts of (its facts backlog) is marked so in the copy too: its facts
        were not among those copied, and the copy's first reader of facts reads them, as the
        source's would have (a copy stays a store-to-store move: no extractor runs here)."""
        first, last = batch[0].rowid or 0, batch[-1].rowid or 0
        owed = {
            r.rowid
            for r in self.src.records_awaiting_facts(FactBacklog(len(batch), first - 1, last))
        }
        runs = itertools.groupby(zip(batch, rows, strict=True), key=lambda p: p[0].rowid in owed)
        rowids: list[int | None] = []
        with self.dst.transaction():
            for awaiting, run in runs:
                part = [row for _, row in run]
                rowids += self.dst.insert_records(part, on_conflict="skip", awaiting_facts=awaiting)
        return rowids

    def _copy_latent_terms(self, batch: Sequence[Record], dst_rowid: dict[int, int]) -> None:
        """The batch's stored latent terms, under the same content hash (the text is the
        same), so the destination's fill does not compute them again."""
        hashes = {r.rowid: r.content_hash for r in batch if r.rowid is not None}
        for terms_id in latent.MODEL_IDS.values():
            stored = self.src.latent_terms_of(terms_id, list(hashes))
            items = [
                (dst_rowid[rowid], hashes[rowid], terms)
                for rowid, terms in stored.items()
                if rowid in dst_rowid
            ]
            self.dst.put_latent_terms(terms_id, items)

    def _row(self, rec: Record, session: SessionInfo | None) -> RecordRow:
        fields = rec.to_dict()
        for name in ("model_id", "access_count", "last_access"):
            fields.pop(name, None)
        if session:  # inserted with the record, in its transaction
            fields["origin_platform"] = session.get("origin_platform")
            fields["parent_session"] = session.get("parent")
        if rec.index_status == "skipped":
            return fields, "", ""  # stored for context only: no lexical tokens
        tokens = self.tokenizer.index_string(
            lexical_text(rec.kind, rec.speaker_label, rec.shown_text)
        )
        return fields, tokens, self._context(rec)

    def _context(self, rec: Record) -> str:
        """The lexical text of the turns before a message in its session (as the write path
        makes it), read from the source."""
        if rec.kind != "message" or not rec.session or self.context_turns <= 0:
            return ""
        earlier = self.src.previous_texts(rec.session, rec.created_at, self.context_turns)
        text = " ".join(lexical_text("message", r.speaker_label, r.shown_text) for r in earlier)
        return self.tokenizer.index_string(text)

    def _map_rowids(self, batch: Sequence[Record], rowids: list[int | None]) -> dict[int, int]:
        """Source rowid -> destination rowid; records a cut-short run wrote already (skipped
        by id now) are looked up."""
        out = {s.rowid: d for s, d in zip(batch, rowids, strict=True) if s.rowid and d}
        missing = [s.id for s, d in zip(batch, rowids, strict=True) if d is None]
        if missing:
            by_id = {
                r.id: r.rowid
                for r in self.dst.get_by_rowids(self.dst.rowids_for_ids(missing)).values()
            }
            for rec in batch:
                target = by_id.get(rec.id)
                if rec.rowid and target:
                    out[rec.rowid] = target
        return out

    def _top_up_access(self, batch: Sequence[Record], dst_rowid: dict[int, int]) -> None:
        """Make the destination's access counts equal the source's (a rerun of a batch adds
        nothing twice)."""
        used = [r for r in batch if r.access_count and r.rowid in dst_rowid]
        if not used:
            return
        current = self.dst.get_by_rowids([dst_rowid[r.rowid] for r in used if r.rowid])
        items = []
        for rec in used:
            target = dst_rowid[rec.rowid or 0]
            have = current.get(target)
            missing = rec.access_count - (have.access_count if have else 0)
            if missing > 0:
                items.append((target, missing, rec.last_access or 0.0))
        if items:
            self.dst.record_access(items)


def verify(
    src: Store, dst: Store, report: CopyReport, *, last_rowid: int, sample: int, seed: int | None
) -> None:
    """Counts per kind and per model (and dim) on both sides, then a random sample of source
    records compared field by field with their copies, vectors byte for byte."""
    for kind in KINDS:
        report.counts[f"kind:{kind}"] = [
            src.count(Filters(kinds=[kind])),
            dst.count(Filters(kinds=[kind])),
        ]
    models: dict[str, list[int]] = {}
    for side, store in enumerate((src, dst)):
        for model_id, dim, n in store.vector_stats():
            models.setdefault(f"vectors:{model_id or '(legacy)'}:{dim}", [0, 0])[side] = n
    report.counts.update(models)
    for name, (a, b) in report.counts.items():
        if a != b:
            report.mismatches.append(f"{name}: {a} in the source, {b} in the destination")
    rng = random.Random(seed)
    picked = rng.sample(range(1, last_rowid + 1), min(last_rowid, sample * 2))
    originals = list(src.get_by_rowids(picked).values())[:sample]
    report.sampled = len(originals)
    for rec in originals:
        report.mismatches.extend(_compare(src, dst, rec))


def _compare(src: Store, dst: Store, rec: Record) -> list[str]:
    copy = dst.get(rec.id)
    if copy is None or copy.rowid is None or rec.rowid is None:
        return [f"record {rec.id!r}: missing in the destination"]
    theirs = copy.to_dict()
    problems = [
        f"record {rec.id!r}: {name} is {theirs.get(name)!r}, not {value!r}"
        for name, value in rec.to_dict().items()
        if theirs.get(name) != value
    ]
    mine = sorted(src.vectors_of([rec.rowid]).get(rec.rowid, []))
    copied = sorted(dst.vectors_of([copy.rowid]).get(copy.rowid, []))
    if mine != copied:
        problems.append(
            f"record {rec.id!r}: vectors differ ({len(mine)} in the source, {len(copied)} "
            "in the destination, or different values)"
        )
    if rec.session and src.session_info(rec.session) != dst.session_info(rec.session):
        problems.append(f"session {rec.session!r}: origin platform or parent differ")
    return problems
