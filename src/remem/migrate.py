"""Import a memory-lancedb / memory-lancedb-pro store (a LanceDB table) into remem.

Expected columns: id, text, vector, category, scope, importance, timestamp (ms), metadata (a
JSON string). Rows become ``memory`` records with the same id, scope, category and importance;
their text is re-embedded with remem's model (the source vectors came from another model and
could not be compared with remem's queries). LanceDB is an optional extra:
``pip install 'remem[lancedb]'``.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem.errors import RememError, ValidationError
from remem.ports import MemoryPort
from remem.schemas import SCOPE_RE, validate_record

REQUIRED = ("id", "text")
EXPECTED = ("id", "text", "vector", "category", "scope", "importance", "timestamp", "metadata")


def _open(source: str | Path, table: str | None):
    try:
        import lancedb
    except ImportError:
        raise RememError(
            "migrating from LanceDB needs the lancedb package: pip install 'remem[lancedb]'"
        ) from None
    path = Path(source).expanduser()
    if not path.is_dir():
        raise RememError(f"--source {str(path)!r} is not a LanceDB directory")
    db = lancedb.connect(str(path))
    names = list(db.list_tables().tables) if hasattr(db, "list_tables") else db.table_names()
    if not names:
        raise RememError(f"{str(path)!r} holds no LanceDB tables")
    name = table or ("memories" if "memories" in names else names[0])
    if name not in names:
        raise RememError(f"no table {name!r} in {str(path)!r}; tables: {', '.join(names)}")
    return db.open_table(name), name


@dataclass
class MigrationReport:
    table: str
    rows: int = 0
    columns: list[str] = field(default_factory=list)
    missing_columns: list[str] = field(default_factory=list)
    added: int = 0
    skipped: int = 0
    invalid: list[dict[str, Any]] = field(default_factory=list)
    sample_checked: int = 0
    sample_mismatches: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _to_record(row: dict[str, Any]) -> dict[str, Any]:
    meta = row.get("metadata")
    try:
        metadata = json.loads(meta) if isinstance(meta, str) and meta else {}
    except json.JSONDecodeError:
        metadata = {"raw_metadata": meta}
    if not isinstance(metadata, dict):
        metadata = {"raw_metadata": metadata}
    ts = row.get("timestamp")
    scope = row.get("scope") or "global"
    if not SCOPE_RE.match(scope):
        metadata["source_scope"] = scope
        scope = f"custom:{scope}" if SCOPE_RE.match(f"custom:{scope}") else "global"
    importance = row.get("importance")
    if importance is None or not isinstance(importance, int | float) or math.isnan(importance):
        importance = 0.5
    return {
        "id": str(row["id"]),
        "kind": "memory",
        "text": row.get("text") or "",
        "category": row.get("category"),
        "scope": scope,
        "importance": min(1.0, max(0.0, float(importance))),
        "created_at": ts / 1000 if isinstance(ts, int | float) and ts > 0 else None,
        "metadata": {**metadata, "migrated_from": "lancedb"},
        "source": "migration",
    }


def check(source: str | Path, table: str | None = None) -> MigrationReport:
    tbl, name = _open(source, table)
    columns = list(tbl.schema.names)
    report = MigrationReport(table=name, rows=tbl.count_rows(), columns=columns)
    report.missing_columns = [c for c in EXPECTED if c not in columns]
    missing_required = [c for c in REQUIRED if c not in columns]
    if missing_required:
        raise RememError(f"table {name!r} lacks required columns {missing_required}; "
                         f"expected {', '.join(EXPECTED)}")  # fmt: skip
    return report


def run(mem: MemoryPort, source: str | Path, *, table: str | None = None, dry_run: bool = False,
        skip_existing: bool = False) -> MigrationReport:  # fmt: skip
    report = check(source, table)
    tbl, _ = _open(source, report.table)
    rows = tbl.to_arrow().to_pylist()
    valid: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=1):
        try:
            rec = _to_record(row)
            validate_record(rec)
        except (ValidationError, KeyError, TypeError) as exc:
            report.invalid.append({"row": number, "id": row.get("id"), "error": str(exc)})
            continue
        if mem.store.get(rec["id"]) is not None:
            if not skip_existing:
                raise RememError(
                    f"record {rec['id']!r} already exists in the remem store; rerun with "
                    "--skip-existing to import only the others"
                )
            report.skipped += 1
            continue
        valid.append(rec)
    if dry_run:
        report.added = len(valid)
        return report
    stored = mem.ingest_many(valid, wait=True, on_conflict="skip") if valid else []
    report.added = len(stored)
    return report


def verify(mem: MemoryPort, source: str | Path, *, table: str | None = None, sample: int = 50
           ) -> MigrationReport:  # fmt: skip
    report = check(source, table)
    tbl, _ = _open(source, report.table)
    rows = tbl.to_arrow().to_pylist()
    present = [r for r in rows if mem.store.get(str(r["id"])) is not None]
    report.added = len(present)
    report.skipped = len(rows) - len(present)
    for row in random.Random(0).sample(rows, min(sample, len(rows))):
        rec = mem.store.get(str(row["id"]))
        report.sample_checked += 1
        if rec is None:
            report.sample_mismatches.append(f"{row['id']}: missing")
        elif rec.text != row.get("text"):
            report.sample_mismatches.append(f"{row['id']}: text differs")
    return report
