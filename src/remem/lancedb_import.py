"""Import the memories of OpenClaw's memory plugins into remem.

Three sources, recognised by their shape:

- memory-lancedb (OpenClaw's built-in plugin): a LanceDB directory whose ``memories`` table has
  id, text, vector, importance, category, createdAt (ms) and, in current versions, agentId and
  scope ("" = unscoped). Default place: ``~/.openclaw/memory/lancedb``
  (openclaw/openclaw ``extensions/memory-lancedb/config.ts``, ``resolveDefaultDbPath``).
- memory-lancedb-pro: a LanceDB directory whose ``memories`` table has id, text, vector,
  category, scope, importance, timestamp (ms) and metadata (a JSON string). Default place:
  ``$OPENCLAW_STATE_DIR/memory/lancedb-pro`` when that is set, else
  ``~/.openclaw/memory/lancedb-pro`` (memory-lancedb-pro ``index.ts``, ``getDefaultDbPath``).
- memory-lancedb-pro's JSON export (``openclaw memory-pro export --output FILE``, ``cli.ts``):
  ``{"version", "exportedAt", "count", "filters", "memories": [{id, text, category, scope,
  importance, timestamp, metadata}]}``, vectors left out.

Rows become ``memory`` records with the same id, text, category, importance and creation date;
a scope remem does not know becomes ``custom:<scope>`` (the original kept in the metadata), and
a row without one gets ``default_scope`` (``global`` unless given). The text is re-embedded
with remem's model (the plugins' vectors came from another model and could not be compared
with remem's queries). LanceDB is an optional extra: ``pip install 'remem[lancedb-import]'``.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem.errors import RememError, ValidationError
from remem.ports import MemoryPort
from remem.schemas import SCOPE_RE, validate_record, validate_scope

REQUIRED = ("id", "text")
BUILTIN = "memory-lancedb"
PRO = "memory-lancedb-pro"
PRO_EXPORT = "memory-lancedb-pro export"
# the columns each source is expected to have; the ones it lacks are reported, not fatal
EXPECTED = {
    BUILTIN: ("id", "text", "vector", "importance", "category", "createdAt"),
    PRO: ("id", "text", "vector", "category", "scope", "importance", "timestamp", "metadata"),
    PRO_EXPORT: ("id", "text", "category", "scope", "importance", "timestamp"),
}
# rows a plugin writes to fix a new table's schema and deletes again
_SENTINEL_IDS = {"__schema__"}


def default_sources(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    """Where each plugin keeps its table when its ``dbPath`` is not configured, in the order
    they are tried: memory-lancedb-pro (it usually replaced the built-in), then memory-lancedb."""
    home = Path.home() if home is None else home
    env = os.environ if env is None else env
    state = env.get("OPENCLAW_STATE_DIR", "").strip()
    pro = Path(state) / "memory" / "lancedb-pro" if state else None
    found = [pro] if pro else []
    found += [
        home / ".openclaw" / "memory" / "lancedb-pro",
        home / ".openclaw" / "memory" / "lancedb",
    ]
    return found


def find_source(home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The first default place that holds a LanceDB ``memories`` table."""
    looked = default_sources(home, env)
    for path in looked:
        if (path / "memories.lance").is_dir():
            return path
    raise RememError(
        "no memory-lancedb(-pro) table found at the default places ("
        + ", ".join(str(p) for p in looked)
        + "); give its directory, or a memory-lancedb-pro export file, with --source"
    )


@dataclass
class Source:
    """One opened source: what it is, its columns and a way to read all its rows."""

    path: Path
    name: str  # the table name, or the export file's name
    flavour: str  # BUILTIN, PRO or PRO_EXPORT
    columns: list[str]
    count: int
    rows: Callable[[], list[dict[str, Any]]]


def _open_lancedb(path: Path, table: str | None) -> Source:
    try:
        import lancedb
    except ImportError:
        raise RememError(
            "migrating from LanceDB needs the lancedb package: pip install 'remem[lancedb-import]'"
        ) from None
    db = lancedb.connect(str(path))
    names = list(db.list_tables().tables) if hasattr(db, "list_tables") else list(db.table_names())
    if not names:
        raise RememError(f"{str(path)!r} holds no LanceDB tables")
    name = table or ("memories" if "memories" in names else names[0])
    if name not in names:
        raise RememError(f"no table {name!r} in {str(path)!r}; tables: {', '.join(names)}")
    tbl = db.open_table(name)
    columns = list(tbl.schema.names)
    # the built-in plugin dates rows with createdAt, memory-lancedb-pro with timestamp
    flavour = BUILTIN if "createdAt" in columns and "timestamp" not in columns else PRO
    return Source(
        path, name, flavour, columns, tbl.count_rows(), lambda: tbl.to_arrow().to_pylist()
    )


def _open_export(path: Path) -> Source:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RememError(f"--source {str(path)!r} is not a readable JSON file ({exc})") from None
    memories = data.get("memories") if isinstance(data, dict) else None
    if not isinstance(memories, list):
        raise RememError(
            f"--source {str(path)!r} is not a memory-lancedb-pro export: expected "
            'a JSON object with a "memories" list (from `openclaw memory-pro '
            "export`), or give a LanceDB directory"
        )
    rows = [r for r in memories if isinstance(r, dict)]
    columns = sorted({key for r in rows for key in r})
    return Source(
        path,
        path.name,
        PRO_EXPORT,
        columns,
        len(memories),
        lambda: [r if isinstance(r, dict) else {"id": None, "bad": r} for r in memories],
    )


def open_source(source: str | Path | None, table: str | None = None) -> Source:
    path = find_source() if source is None else Path(source).expanduser()
    if path.is_file():
        return _open_export(path)
    if not path.is_dir():
        raise RememError(f"--source {str(path)!r} is not a LanceDB directory or an export file")
    return _open_lancedb(path, table)


@dataclass
class MigrationReport:
    source: str
    flavour: str
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


def _metadata(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return dict(raw)
    try:
        metadata = json.loads(raw) if isinstance(raw, str) and raw else {}
    except json.JSONDecodeError:
        return {"raw_metadata": raw}
    return metadata if isinstance(metadata, dict) else {"raw_metadata": metadata}


def _created_at(row: dict[str, Any]) -> float | None:
    """Both plugins store milliseconds (``Date.now()``); seconds are accepted too."""
    ts = row.get("timestamp", row.get("createdAt"))
    if not isinstance(ts, int | float) or isinstance(ts, bool) or not ts > 0:
        return None
    return ts / 1000 if ts > 1e11 else float(ts)  # 1e11 ms is 1973, 1e11 s is year 5138


def _to_record(row: dict[str, Any], flavour: str, default_scope: str) -> dict[str, Any]:
    metadata = _metadata(row.get("metadata"))
    scope = row.get("scope") or default_scope
    if not SCOPE_RE.match(scope):
        metadata["source_scope"] = scope
        scope = f"custom:{scope}" if SCOPE_RE.match(f"custom:{scope}") else default_scope
    if row.get("agentId"):
        metadata["source_agent"] = row["agentId"]  # the built-in plugin's owner of the row
    importance = row.get("importance")
    if not isinstance(importance, int | float) or math.isnan(importance):
        importance = 0.5
    return {
        "id": str(row["id"]),
        "kind": "memory",
        "text": row.get("text") or "",
        "category": row.get("category"),
        "scope": scope,
        "importance": min(1.0, max(0.0, float(importance))),
        "created_at": _created_at(row),
        "metadata": {**metadata, "migrated_from": PRO if flavour == PRO_EXPORT else flavour},
        "source": "migration",
    }


def check(source: str | Path | None = None, table: str | None = None) -> MigrationReport:
    src = open_source(source, table)
    report = MigrationReport(
        source=str(src.path),
        flavour=src.flavour,
        table=src.name,
        rows=src.count,
        columns=src.columns,
    )
    if src.flavour != PRO_EXPORT:  # an export lists only the keys its rows have
        report.missing_columns = [c for c in EXPECTED[src.flavour] if c not in src.columns]
        missing_required = [c for c in REQUIRED if c not in src.columns]
        if missing_required:
            raise RememError(
                f"table {src.name!r} lacks required columns {missing_required}; "
                f"expected {', '.join(EXPECTED[src.flavour])}"
            )
    return report


def _rows(source: str | Path | None, table: str | None) -> tuple[MigrationReport, Source, list]:
    report = check(source, table)
    src = open_source(report.source, table)
    rows = [r for r in src.rows() if str(r.get("id")) not in _SENTINEL_IDS]
    return report, src, rows


def run(
    mem: MemoryPort,
    source: str | Path | None = None,
    *,
    table: str | None = None,
    dry_run: bool = False,
    skip_existing: bool = False,
    default_scope: str | None = None,
) -> MigrationReport:
    """``default_scope``: the scope of rows that have none (default ``global``)."""
    scope = validate_scope(default_scope, "--default-scope") if default_scope else "global"
    report, src, rows = _rows(source, table)
    valid: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=1):
        try:
            rec = _to_record(row, src.flavour, scope)
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


def verify(
    mem: MemoryPort, source: str | Path | None = None, *, table: str | None = None, sample: int = 50
) -> MigrationReport:
    report, _src, rows = _rows(source, table)
    present = [r for r in rows if mem.store.get(str(r.get("id"))) is not None]
    report.added = len(present)
    report.skipped = len(rows) - len(present)
    for row in random.Random(0).sample(rows, min(sample, len(rows))):
        rec = mem.store.get(str(row.get("id")))
        report.sample_checked += 1
        if rec is None:
            report.sample_mismatches.append(f"{row.get('id')}: missing")
        elif rec.text != row.get("text"):
            report.sample_mismatches.append(f"{row.get('id')}: text differs")
    return report
