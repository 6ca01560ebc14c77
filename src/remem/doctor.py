"""`remem doctor`: check a store and, with ``fix``, repair what is safe to repair.

Checks: the file's integrity (``PRAGMA integrity_check``), the schema version, lexical index
rows against records (missing or orphaned), vectors whose blob does not match their
dimension, vectors older than their record's last text change (stale), records without a
vector for the configured model, and vectors of other models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from remem.engine import lexical_text
from remem.store.migrations import LATEST_VERSION


@dataclass
class Finding:
    check: str
    status: str  # ok | warn | error
    detail: str
    fixed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "detail": self.detail,
                "fixed": self.fixed}  # fmt: skip


def run_doctor(mem, *, fix: bool = False) -> list[Finding]:
    store = mem.store
    c = store._conn
    out: list[Finding] = []

    with store._lock:
        result = [r[0] for r in c.execute("PRAGMA integrity_check").fetchall()]
    ok = result == ["ok"]
    out.append(Finding("integrity", "ok" if ok else "error",
                       "PRAGMA integrity_check: ok" if ok else "; ".join(result[:5])
                       + " (restore from a backup or `remem export` what is readable)"))  # fmt: skip

    version = store.schema_version()
    out.append(Finding("schema", "ok" if version == LATEST_VERSION else "error",
                       f"schema version {version} (this remem: {LATEST_VERSION})"))  # fmt: skip

    with store._lock:
        missing = [
            r[0]
            for r in c.execute(
                "SELECT rowid FROM records WHERE rowid NOT IN (SELECT rowid FROM records_fts)"
            )
        ]
        orphans = [r[0] for r in c.execute(
            "SELECT rowid FROM records_fts WHERE rowid NOT IN (SELECT rowid FROM records)")]  # fmt: skip
    finding = Finding("lexical index", "ok" if not (missing or orphans) else "warn",
                      f"{len(missing)} records without lexical rows, {len(orphans)} orphan rows")  # fmt: skip
    if fix and (missing or orphans):
        records = store.get_by_rowids(missing)
        with store.write() as w:
            for rowid in orphans:
                w.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
            for rowid, rec in records.items():
                # the same text ingest indexes; skipped records get their empty row back
                text = "" if rec.index_status == "skipped" else mem.tokenizer.index_string(
                    lexical_text(rec.kind, rec.speaker_label, rec.shown_text))  # fmt: skip
                w.execute("INSERT INTO records_fts (rowid, tokens, context) VALUES (?, ?, '')",
                          (rowid, text))  # fmt: skip
        finding.fixed = True
    out.append(finding)

    with store._lock:
        bad_dim = [r[0] for r in c.execute(
            "SELECT seq FROM vectors WHERE length(vec) != dim * 4")]  # fmt: skip
    finding = Finding(
        "vector blobs",
        "ok" if not bad_dim else "error",
        f"{len(bad_dim)} vectors whose size does not match their dimension",
    )
    if fix and bad_dim:
        with store.write() as w:
            for seq in bad_dim:
                w.execute("DELETE FROM vectors WHERE seq = ?", (seq,))
            w.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        finding.fixed = True
    out.append(finding)

    embedder = mem.get_embedder()
    if embedder is not None:
        with store._lock:
            stale = [r[0] for r in c.execute(
                "SELECT r.rowid FROM records r JOIN vectors v ON v.record_rowid = r.rowid "
                "WHERE v.model_id = ? AND v.created_at < r.updated_at - 1",
                (embedder.model_id,))]  # fmt: skip
        finding = Finding("stale vectors", "ok" if not stale else "warn",
                          f"{len(stale)} records whose text changed after their vector was made")  # fmt: skip
        if fix and stale:
            ok_n, bad_n = mem.embed_records(list(store.get_by_rowids(stale).values()))
            finding.fixed = bad_n == 0
            finding.detail += f"; re-embedded {ok_n}, failed {bad_n}"
        out.append(finding)

        absent = store.count_missing_vectors(embedder.model_id)
        finding = Finding("missing vectors", "ok" if not absent else "warn",
                          f"{absent} records have no {embedder.model_id} vector"
                          + ("" if not absent else "; run `remem embed`"))  # fmt: skip
        if fix and absent:
            report = mem.embed_pending()
            finding.fixed = report["remaining"] == 0
            finding.detail += f"; embedded {report['embedded']}"
        out.append(finding)

        others = [(m, n) for m, _d, n in store.vector_stats() if m != embedder.model_id]
        out.append(Finding(
            "other models", "ok" if not others else "warn",
            "none" if not others else ", ".join(f"{m}: {n} vectors" for m, n in others)
            + f" (search uses {embedder.model_id} only; `remem reembed` switches models)",
        ))  # fmt: skip

    # A sanity probe of the in-memory index: it must load and agree with the table.
    if embedder is not None:
        index = mem.searcher.index_for(embedder)
        index.sync()
        expected = store.vector_count(embedder.model_id)
        agree = index.size == expected and bool(
            index.size == 0 or np.all(np.isfinite(index._matrix[: index.size])))  # fmt: skip
        out.append(Finding("vector index", "ok" if agree else "error",
                           f"{index.size} vectors loaded, {expected} stored"))  # fmt: skip
    return out
