"""Records, for whoever feeds and queries the store: add, ingest, search, list, get, delete,
delete-bulk."""

from __future__ import annotations

import sys
import time
from datetime import tzinfo
from typing import TYPE_CHECKING, Annotated, Any

import typer

from remem.cli.common import (
    DryRunOption,
    JsonOption,
    KindFilter,
    NoEmbedOption,
    RecordIdArgument,
    RoleFilter,
    ScopeFilter,
    SessionFilter,
    add_time_column,
    counting,
    emit_json,
    err,
    fail,
    fmt_time,
    load_config,
    new_table,
    open_existing_memory,
    open_memory,
    out,
    read_lines,
    short,
)
from remem.errors import NotFoundError, ValidationError

if TYPE_CHECKING:
    from remem import Memory, SearchResult
    from remem.schemas import RecordIn

app = typer.Typer()


def _filters(
    kind: str | None,
    scope: str | None,
    session: str | None,
    role: str | None,
    since: str | None,
    until: str | None,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "scope": scope,
        "session": session,
        "role": role,
        "since": since,
        "until": until,
    }


# ---------------------------------------------------------------------- add / ingest
@app.command()
def add(
    text: Annotated[str, typer.Argument(help="the memory, e.g. 'Alice prefers tea'")],
    scope: Annotated[str, typer.Option(help="global, user:<id>, agent:<id> ...")] = "global",
    category: Annotated[str | None, typer.Option(help="preference, fact, decision ...")] = None,
    importance: Annotated[float, typer.Option(help="0 to 1")] = 0.5,
    record_id: Annotated[str | None, typer.Option("--id", help="your own id")] = None,
    as_json: JsonOption = False,
) -> None:
    """Store one curated memory."""
    with open_memory() as mem:
        fields: dict[str, Any] = {"scope": scope, "category": category, "importance": importance}
        if record_id:
            fields["id"] = record_id
        record = mem.add(text, wait=True, **fields)
    if as_json:
        emit_json(record.to_dict())
    elif record.duplicate:  # an equal memory is already current in that scope
        out.print(f"already stored as {record.id} ({record.duplicate} match)", markup=False)
    else:
        out.print(f"added {record.id} ({record.index_status})", markup=False)


def _validated(file: str, kind: str, zone: tzinfo) -> list[RecordIn]:
    """Every line of the file as a record of ``kind`` (unless it says otherwise), times
    without an offset on ``zone``'s clock; the first bad line stops the run before anything
    is written."""
    from remem.schemas import validate_record
    from remem.transfer import parse_lines

    items = []
    for number, item, error in parse_lines(read_lines(file)):
        if item is None:
            fail(f"{file}:{number}: {error}; nothing was ingested")
        items.append((number, item))
    if not items:
        fail(f"{file!r} has no records; give one JSON object per line")
    validated = []
    for number, item in items:
        item.setdefault("kind", kind)
        try:
            validated.append(validate_record(item, zone=zone))
        except ValidationError as exc:
            fail(f"{file}:{number}: {exc}; nothing was ingested")
    return validated


@app.command()
def ingest(
    file: Annotated[str, typer.Argument(help="JSONL file of messages ('-' = stdin)")],
    kind: Annotated[str, typer.Option(help="message or memory")] = "message",
    skip_existing: Annotated[
        bool, typer.Option("--skip-existing", help="skip lines whose id is already stored")
    ] = False,
    no_embed: NoEmbedOption = False,
    as_json: JsonOption = False,
) -> None:
    """Ingest chat messages from a JSONL file (one object per line).

    Each line: {"text": ..., "id"?, "session"?, "timestamp"?, "speaker"?, "role"?, ...}.
    All lines are validated first: one bad line stops the run and nothing is written.
    """
    from remem import Memory

    config = load_config()
    validated = _validated(file, kind, config.calendar.zone())
    with Memory(config=config) as mem:
        started = time.perf_counter()
        label = "embedding" if not no_embed else "storing"
        with counting(label, len(validated), quiet=as_json, eta=True) as progress:
            records = mem.ingest_many(
                validated,
                embed=not no_embed,
                wait=True,  # a batch import shows its embedding progress and finishes it
                on_conflict="skip" if skip_existing else "error",
                progress=progress,
            )
        elapsed = time.perf_counter() - started
        pending = sum(1 for r in records if r.index_status != "indexed")
    summary = {
        "ingested": len(records),
        "skipped": len(validated) - len(records),
        "pending_embedding": pending,
        "seconds": round(elapsed, 2),
        "per_second": round(len(records) / elapsed, 1) if elapsed else None,
    }
    if as_json:
        emit_json(summary)
        return
    out.print(
        f"ingested {summary['ingested']} records ({summary['skipped']} skipped, "
        f"{pending} waiting for embedding) in {elapsed:.1f}s",
        markup=False,
    )
    if pending and not no_embed:
        err.print("warning: some records were not embedded; run `remem embed` later", markup=False)


# ---------------------------------------------------------------------- search
@app.command()
def search(
    query: Annotated[str, typer.Argument(help="what to look for; - reads it from stdin")],
    k: Annotated[
        int,
        typer.Option("-k", "--k", "--limit", help="number of hits (--limit as in `remem list`)"),
    ] = 10,
    kind: KindFilter = None,
    scope: ScopeFilter = None,
    session: SessionFilter = None,
    role: RoleFilter = None,
    since: Annotated[str | None, typer.Option(help="created at or after (ISO date)")] = None,
    until: Annotated[str | None, typer.Option(help="created at or before (ISO date)")] = None,
    now: Annotated[str | None, typer.Option(help="evaluate as of this time")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="show why each hit ranks")] = False,
    include_superseded: Annotated[
        bool,
        typer.Option(
            "--include-superseded", help="also memories a later one replaced (left out by default)"
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Hybrid (vector + BM25) search."""
    if query == "-":
        query = sys.stdin.read().strip()
    with open_existing_memory() as mem:
        filters = _filters(kind, scope, session, role, since, until)
        filters["include_superseded"] = include_superseded or None
        result = mem.search(query, k=k, filters=filters, now=now)
    if as_json:
        emit_json(result.to_dict(explain=explain))
        return
    for warning in result.warnings:
        err.print(f"warning: {warning}", markup=False)
    if explain:
        for note in result.notes:
            out.print(f"note: {note}", markup=False)
    if not result.hits:
        out.print("no hits", markup=False)
    else:
        _print_hits(result, explain)
    if explain and result.dropped:
        _print_dropped(result.dropped)


def _print_hits(result: SearchResult, explain: bool) -> None:
    table = new_table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    add_time_column(table, "when")
    table.add_column("who")
    table.add_column("text", overflow="fold")
    if explain:
        table.add_column("explain")
    for i, hit in enumerate(result.hits, start=1):
        r = hit.record
        row = [
            str(i),
            f"{hit.score:.4f}",
            fmt_time(r.created_at),
            r.speaker_label or r.kind,
            short(r.text, 200),
        ]
        if explain:
            row.append(hit.explain.one_line())
        table.add_row(*row)
    out.print(table)


def _print_dropped(dropped: list[dict[str, Any]]) -> None:
    table = new_table(title="candidates removed by a gate")
    for col in ("id", "stage", "reason", "score"):
        table.add_column(col)
    for d in dropped[:30]:
        table.add_row(str(d["id"]), d["stage"], d["reason"], f"{d['score']:.4f}")
    out.print(table)
    if len(dropped) > 30:
        out.print(f"... and {len(dropped) - 30} more (--json shows all)", markup=False)


# ---------------------------------------------------------------------- list / get / delete
@app.command("list")
def list_(
    kind: KindFilter = None,
    scope: ScopeFilter = None,
    session: SessionFilter = None,
    role: RoleFilter = None,
    category: Annotated[str | None, typer.Option(help="only this category")] = None,
    limit: Annotated[int, typer.Option(help="at most this many (0 = all)")] = 20,
    offset: Annotated[int, typer.Option(help="skip this many")] = 0,
    as_json: JsonOption = False,
) -> None:
    """List records, newest first."""
    if limit < 0:
        fail(f"invalid --limit {limit}; use 0 (all) or a positive number")
    if offset < 0:
        fail(f"invalid --offset {offset}; use 0 or a positive number")
    with open_existing_memory() as mem:
        records = mem.list(
            {**_filters(kind, scope, session, role, None, None), "category": category},
            limit=limit or None,
            offset=offset,
        )
    if as_json:
        emit_json([r.to_dict() for r in records])
        return
    table = new_table()
    for col in ("id", "kind", "when", "who", "scope", "status", "text"):
        if col == "when":
            add_time_column(table, col)
        else:
            table.add_column(col, overflow="fold" if col in ("id", "text") else "ellipsis")
    for r in records:
        table.add_row(
            r.id,
            r.kind,
            fmt_time(r.created_at),
            r.speaker_label or "-",
            r.scope,
            r.index_status,
            short(r.text, 80),
        )
    out.print(table)
    out.print(f"{len(records)} shown", markup=False)


def _resolve_id(mem: Memory, record_id: str) -> str:
    """Exact id, or a unique prefix of at least 8 characters."""
    if mem.get(record_id) is not None:
        return record_id
    if len(record_id) >= 8:
        matches = mem.ids_with_prefix(record_id, limit=11)
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            shown = ", ".join(matches[:10]) + (" ..." if len(matches) > 10 else "")
            fail(f"id prefix {record_id!r} is ambiguous ({shown}); give more characters")
    raise NotFoundError(f"no record with id {record_id!r}; `remem list` shows the ids")


@app.command()
def get(
    record_id: RecordIdArgument,
    as_json: JsonOption = False,
) -> None:
    """Show one record."""
    with open_existing_memory() as mem:
        record = mem.get(_resolve_id(mem, record_id))
    assert record is not None
    if as_json:
        emit_json(record.to_dict())
        return
    table = new_table(show_header=False)
    table.add_column("field")
    table.add_column("value", overflow="fold")
    for key, value in record.to_dict().items():
        if key in ("created_at", "event_time", "valid_from", "valid_to", "last_access"):
            value = f"{fmt_time(value)} ({value})" if value else "-"
        table.add_row(key, str(value))
    out.print(table)


@app.command()
def delete(
    record_id: RecordIdArgument,
    as_json: JsonOption = False,
) -> None:
    """Delete one record (its vectors and index entries go with it)."""
    with open_memory() as mem:
        full = _resolve_id(mem, record_id)
        n = mem.delete(full)
    if as_json:
        emit_json({"deleted": n, "id": full})
    else:
        out.print(f"deleted {full}", markup=False)


@app.command("delete-bulk")
def delete_bulk(
    scope: Annotated[str | None, typer.Option(help="records of this scope")] = None,
    before: Annotated[str | None, typer.Option(help="created before this date")] = None,
    category: Annotated[str | None, typer.Option(help="of this category")] = None,
    kind: KindFilter = None,
    session: Annotated[str | None, typer.Option(help="of this session")] = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
) -> None:
    """Delete every record matching the filters (at least one is required)."""
    if not any((scope, before, category, kind, session)):
        fail(
            "delete-bulk needs at least one filter (--scope, --before, --category, --kind, "
            "--session); it never deletes everything"
        )
    filters = {
        "scope": scope,
        "until": before,
        "category": category,
        "kind": kind,
        "session": session,
    }
    with open_memory() as mem:
        n = mem.count(filters) if dry_run else mem.delete_where(filters)
    if as_json:
        emit_json({"deleted" if not dry_run else "would_delete": n})
    else:
        out.print(f"{'would delete' if dry_run else 'deleted'} {n} records", markup=False)
