"""`remem doctor`: check a store and, with ``fix``, repair what is safe to repair.

Checks: the file's integrity (``PRAGMA integrity_check``), the schema version, lexical index
rows against records (missing or orphaned), vectors whose blob does not match their
dimension, vectors of the configured model whose size is not the model's (a provider's stray
answer), vectors older than their record's last text change (stale), records without a vector
for the configured model, vectors of other models, and facts citing records that no longer
exist (a fact written while its record was being deleted).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from remem.embed.base import Embedder
from remem.embed.fast_model import FAST_MODEL_ID, lane_applies
from remem.errors import RememError
from remem.ingest.write_path import lexical_text
from remem.ports import MemoryPort
from remem.store.migrations import LATEST_VERSION
from remem.types import Filters


@dataclass
class Finding:
    check: str
    status: str  # ok | warn | error
    detail: str
    fixed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_doctor(mem: MemoryPort, *, fix: bool = False) -> list[Finding]:
    """Every check in order; with ``fix``, each repairs what it safely can."""
    out = [
        *_check_file(mem.store),
        _check_lexical(mem, fix),
        _check_blobs(mem.store, fix),
        _check_facts(mem.store, fix),
    ]
    embedder = mem.get_embedder()
    if embedder is not None:
        out += [
            _check_vector_sizes(mem, embedder, fix),
            _check_stale(mem, embedder, fix),
            _check_missing(mem, embedder, fix),
            _check_other_models(mem, embedder),
            _check_index(mem, embedder),
        ]
    return out


def _check_file(store: Any) -> list[Finding]:
    problems = store.integrity_problems()
    detail = (
        "; ".join(problems[:5]) + " (restore from a backup or `remem export` what is readable)"
        if problems
        else "PRAGMA integrity_check: ok"
    )
    version = store.schema_version()
    return [
        Finding("integrity", "error" if problems else "ok", detail),
        Finding(
            "schema",
            "ok" if version == LATEST_VERSION else "error",
            f"schema version {version} (this remem: {LATEST_VERSION})",
        ),
    ]


def _check_lexical(mem: MemoryPort, fix: bool) -> Finding:
    store = mem.store
    missing, orphans = store.lexical_row_problems()
    finding = Finding(
        "lexical index",
        "ok" if not (missing or orphans) else "warn",
        f"{len(missing)} records without lexical rows, {len(orphans)} orphan rows",
    )
    if fix and (missing or orphans):
        # the same text ingest indexes; skipped records get their empty row back
        tokens = {
            rowid: ""
            if rec.index_status == "skipped"
            else mem.tokenizer.index_string(
                lexical_text(rec.kind, rec.speaker_label, rec.shown_text)
            )
            for rowid, rec in store.get_by_rowids(missing).items()
        }
        store.repair_lexical_rows(orphans, tokens)
        finding.fixed = True
    return finding


def _check_blobs(store: Any, fix: bool) -> Finding:
    bad_dim = store.malformed_vectors()
    finding = Finding(
        "vector blobs",
        "ok" if not bad_dim else "error",
        f"{len(bad_dim)} vectors whose size does not match their dimension",
    )
    if fix and bad_dim:
        store.delete_vectors(bad_dim)
        finding.fixed = True
    return finding


def _check_facts(store: Any, fix: bool) -> Finding:
    """Facts citing a record that does not exist: ``--fix`` does what deleting that record
    would have done (``FactStore``): a fact it was a source of goes, one it closed reopens."""
    facts = store.facts()
    cited = sorted({i for f in facts for i in (*f.source_ids, f.closed_by) if i is not None})
    found = store.get_by_rowids(store.rowids_for_ids(cited)).values()
    missing = set(cited) - {r.id for r in found}
    orphans = [f for f in facts if missing.intersection(f.source_ids)]
    closed = [f for f in facts if f.closed_by in missing and f not in orphans]
    finding = Finding(
        "facts",
        "ok" if not (orphans or closed) else "warn",
        f"{len(facts)} facts; {len(orphans)} cite a record that no longer exists, "
        f"{len(closed)} were closed by one",
    )
    if fix and (orphans or closed):
        with store.transaction():
            store.delete_facts([f.id for f in orphans])
            store.put_facts([replace(f, valid_to=None, closed_by=None) for f in closed])
        finding.fixed = True
    return finding


def _check_stale(mem: MemoryPort, embedder: Embedder, fix: bool) -> Finding:
    stale = mem.store.stale_vectors(embedder.model_id)
    finding = Finding(
        "stale vectors",
        "ok" if not stale else "warn",
        f"{len(stale)} records whose text changed after their vector was made",
    )
    if fix and stale:
        ok_n, bad_n = mem.embed_records(list(mem.store.get_by_rowids(stale).values()))
        finding.fixed = bad_n == 0
        finding.detail += f"; re-embedded {ok_n}, failed {bad_n}"
    return finding


def _check_missing(mem: MemoryPort, embedder: Embedder, fix: bool) -> Finding:
    absent = mem.store.count_missing_vectors(embedder.model_id)
    finding = Finding(
        "missing vectors",
        "ok" if not absent else "warn",
        f"{absent} records have no {embedder.model_id} vector"
        + ("" if not absent else "; run `remem embed`"),
    )
    if fix and absent:
        report = mem.embed_pending()
        finding.fixed = report["remaining"] == 0
        finding.detail += f"; embedded {report['embedded']}"
    return finding


def _check_other_models(mem: MemoryPort, embedder: Embedder) -> Finding:
    lane = lane_applies(mem.config, embedder.model_id, mem.store.index_root is not None)
    others = [
        (m, n)
        for m, _d, n in mem.store.vector_stats()
        if m != embedder.model_id and not (lane and m == FAST_MODEL_ID)  # the fast lane's
    ]
    return Finding(
        "other models",
        "ok" if not others else "warn",
        "none"
        if not others
        else ", ".join(f"{m}: {n} vectors" for m, n in others)
        + f" (search uses {embedder.model_id} only; `remem reembed` switches models)",
    )


def _check_index(mem: MemoryPort, embedder: Embedder) -> Finding:
    """A sanity probe of the vector index: it must load and agree with the table."""
    index = mem.searcher.index_for(embedder)
    index.sync()
    expected = mem.store.vector_count(embedder.model_id)
    agree = index.size == expected and (index.size == 0 or index.all_finite())
    return Finding(
        "vector index",
        "ok" if agree else "error",
        f"{index.size} vectors loaded, {expected} stored",
    )


def missized_vectors(store: Any, model_id: str, dim: int) -> dict[int, str]:
    """Records (rowid -> id) whose ``model_id`` vector is not ``dim``-dimensional. The vector
    index loads only ``dim``-sized vectors, so these records look embedded to the backfill but
    are never found by vector search. Reads through the store's public methods only."""
    if all(d == dim for m, d, _n in store.vector_stats() if m == model_id):
        return {}  # the common case: one grouped count, no scan
    found: dict[int, str] = {}
    batch: dict[int, str] = {}

    def scan() -> None:
        for rowid, entries in store.vectors_of(list(batch)).items():
            if any(m == model_id and len(vec) != dim * 4 for m, _p, _mo, vec in entries):
                found[rowid] = batch[rowid]
        batch.clear()

    for record in store.iter_records(batch=500):
        if record.rowid is not None:
            batch[record.rowid] = record.id
        if len(batch) >= 500:
            scan()
    scan()
    return found


def _check_vector_sizes(mem: Any, embedder: Any, fix: bool) -> Finding:
    try:
        dim = embedder.dim
    except RememError as exc:  # a remote model of unknown size whose provider is down
        return Finding("vector sizes", "warn", f"cannot tell {embedder.model_id}'s size: {exc}")
    wrong = missized_vectors(mem.store, embedder.model_id, dim)
    finding = Finding(
        "vector sizes",
        "ok" if not wrong else "error",
        f"{len(wrong)} {embedder.model_id} vectors are not {dim}-dimensional"
        + ("; `remem doctor --fix` re-embeds them" if wrong and not fix else ""),
    )
    if fix and wrong:
        ids = list(wrong.values())
        for start in range(0, len(ids), 500):
            mem.store.clear_vectors(
                Filters(ids=ids[start : start + 500], include_superseded=True),
                model_id=embedder.model_id,
            )
        ok_n, bad_n = mem.embed_records(list(mem.store.get_by_rowids(list(wrong)).values()))
        finding.fixed = bad_n == 0
        finding.detail += f"; re-embedded {ok_n}, failed {bad_n}"
    return finding
