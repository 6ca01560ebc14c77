"""The ``remem`` command.

Every error is one line on stderr that names the problem and the fix, with exit code 2 for
bad input and 1 for "not found"; every command that prints a table also takes ``--json``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from remem.config import Config
from remem.errors import NotFoundError, RememError, ValidationError

app = typer.Typer(
    name="remem",
    help="Long-term memory for LLM agents and chat bots (local-first, SQLite).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class _State:
    db: Path | None = None
    config_file: Path | None = None


state = _State()

DbOption = Annotated[
    Path | None, typer.Option("--db", help="database file (default: $REMEM_DB or the data dir)")
]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]


@app.callback()
def _main(
    db: DbOption = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML config file (default: $REMEM_CONFIG)")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="log details")] = False,
) -> None:
    state.db = db
    state.config_file = config
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="remem: %(levelname)s: %(message)s",
    )


def load_config(**overrides: Any) -> Config:
    if state.db is not None:
        overrides["store.path"] = str(state.db)
    return Config.load(state.config_file, overrides=overrides)


def open_memory(**overrides: Any):
    from remem.engine import Memory

    return Memory(config=load_config(**overrides))


def emit_json(data: Any) -> None:
    out.print_json(json.dumps(data, ensure_ascii=False, default=str), ensure_ascii=False)


def fail(message: str, code: int = 2) -> None:
    err.print(f"error: {message}", markup=False, highlight=False)
    raise typer.Exit(code)


def fmt_time(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _filters(kind, scope, session, role, since, until) -> dict[str, Any]:
    return {
        "kind": kind, "scope": scope, "session": session, "role": role,
        "since": since, "until": until,
    }  # fmt: skip


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
    else:
        out.print(f"added {record.id} ({record.index_status})", markup=False)


def _read_lines(path: str, what: str = "a JSONL file (one JSON object per line)") -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    file = Path(path)
    if not file.exists():
        fail(f"{path!r} does not exist; give {what}")
    if not file.is_file():
        fail(f"{path!r} is a directory; give {what}")
    try:
        return file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        fail(f"{path!r} is not UTF-8 text; give {what}")
    return []  # unreachable: fail() exits


def _read_jsonl(path: str) -> list[dict[str, Any]]:
    from remem.transfer import parse_lines

    items = []
    for number, item, error in parse_lines(_read_lines(path)):
        if item is None:
            fail(f"{path}:{number}: {error}; nothing was ingested")
        item["_line"] = number
        items.append(item)
    return items


@app.command()
def ingest(
    file: Annotated[str, typer.Argument(help="JSONL file of messages ('-' = stdin)")],
    kind: Annotated[str, typer.Option(help="message or memory")] = "message",
    skip_existing: Annotated[
        bool, typer.Option("--skip-existing", help="skip lines whose id is already stored")
    ] = False,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="store now, embed later with `remem embed`")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Ingest messages from a JSONL file (the ../shared/bench corpus format works as is).

    Each line: {"text": ..., "id"?, "session"?, "timestamp"?, "speaker"?, "role"?, ...}.
    All lines are validated first: one bad line stops the run and nothing is written.
    """
    from remem.schemas import validate_record

    items = _read_jsonl(file)
    if not items:
        fail(f"{file!r} has no records; give one JSON object per line")
    validated = []
    for item in items:
        line = item.pop("_line")
        item.setdefault("kind", kind)
        try:
            validated.append(validate_record(item))
        except ValidationError as exc:
            fail(f"{file}:{line}: {exc}; nothing was ingested")
    with open_memory() as mem:
        started = time.perf_counter()
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )  # fmt: skip

        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeRemainingColumn(), console=err, disable=as_json or not err.is_terminal,
        ) as bar:  # fmt: skip
            task = bar.add_task("embedding" if not no_embed else "storing", total=len(validated))
            records = mem.ingest_many(
                validated,
                embed=not no_embed,
                wait=True,  # a batch import shows its embedding progress and finishes it
                on_conflict="skip" if skip_existing else "error",
                progress=lambda n: bar.advance(task, n),
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
    else:
        out.print(
            f"ingested {summary['ingested']} records ({summary['skipped']} skipped, "
            f"{pending} waiting for embedding) in {elapsed:.1f}s",
            markup=False,
        )
        if pending and not no_embed:
            err.print(
                "warning: some records were not embedded; run `remem embed` later", markup=False
            )


# ---------------------------------------------------------------------- search
@app.command()
def search(
    query: Annotated[str, typer.Argument(help="what to look for")],
    k: Annotated[int, typer.Option("-k", "--k", help="number of hits")] = 10,
    kind: Annotated[str | None, typer.Option(help="message or memory")] = None,
    scope: Annotated[str | None, typer.Option(help="only this scope")] = None,
    session: Annotated[str | None, typer.Option(help="only this session")] = None,
    role: Annotated[str | None, typer.Option(help="only this role")] = None,
    since: Annotated[str | None, typer.Option(help="created at or after (ISO date)")] = None,
    until: Annotated[str | None, typer.Option(help="created at or before (ISO date)")] = None,
    now: Annotated[str | None, typer.Option(help="evaluate as of this time")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="show why each hit ranks")] = False,
    as_json: JsonOption = False,
) -> None:
    """Hybrid (vector + BM25) search."""
    with open_memory() as mem:
        result = mem.search(
            query, k=k, filters=_filters(kind, scope, session, role, since, until), now=now
        )
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
        if explain and result.dropped:
            _print_dropped(result.dropped)
        return
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("when")
    table.add_column("who")
    table.add_column("text", overflow="fold")
    if explain:
        table.add_column("explain")
    for i, hit in enumerate(result.hits, start=1):
        r = hit.record
        row = [str(i), f"{hit.score:.4f}", fmt_time(r.created_at), r.speaker_label or r.kind,
               _short(r.text, 200)]  # fmt: skip
        if explain:
            row.append(hit.explain.one_line())
        table.add_row(*row)
    out.print(table)
    if explain and result.dropped:
        _print_dropped(result.dropped)


def _print_dropped(dropped: list[dict[str, Any]]) -> None:
    table = Table(title="candidates removed by a gate")
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
    kind: Annotated[str | None, typer.Option(help="message or memory")] = None,
    scope: Annotated[str | None, typer.Option(help="only this scope")] = None,
    session: Annotated[str | None, typer.Option(help="only this session")] = None,
    role: Annotated[str | None, typer.Option(help="only this role")] = None,
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
    with open_memory() as mem:
        records = mem.list(
            {**_filters(kind, scope, session, role, None, None), "category": category},
            limit=limit or None, offset=offset,
        )  # fmt: skip
    if as_json:
        emit_json([r.to_dict() for r in records])
        return
    table = Table()
    for col in ("id", "kind", "when", "who", "scope", "status", "text"):
        table.add_column(col, overflow="fold" if col in ("id", "text") else "ellipsis")
    for r in records:
        table.add_row(r.id, r.kind, fmt_time(r.created_at), r.speaker_label or "-", r.scope,
                      r.index_status, _short(r.text, 80))  # fmt: skip
    out.print(table)
    out.print(f"{len(records)} shown", markup=False)


def _resolve_id(mem, record_id: str) -> str:
    """Exact id, or a unique prefix of at least 8 characters."""
    if mem.get(record_id) is not None:
        return record_id
    if len(record_id) >= 8:
        matches = mem.store.ids_with_prefix(record_id, limit=11)
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            shown = ", ".join(matches[:10]) + (" ..." if len(matches) > 10 else "")
            fail(f"id prefix {record_id!r} is ambiguous ({shown}); give more characters")
    raise NotFoundError(f"no record with id {record_id!r}; `remem list` shows the ids")


@app.command()
def get(
    record_id: Annotated[str, typer.Argument(help="record id (or a unique prefix, 8+ chars)")],
    as_json: JsonOption = False,
) -> None:
    """Show one record."""
    with open_memory() as mem:
        record = mem.get(_resolve_id(mem, record_id))
    assert record is not None
    if as_json:
        emit_json(record.to_dict())
        return
    table = Table(show_header=False)
    table.add_column("field")
    table.add_column("value", overflow="fold")
    for key, value in record.to_dict().items():
        if key in ("created_at", "event_time", "valid_from", "valid_to", "last_access"):
            value = f"{fmt_time(value)} ({value})" if value else "-"
        table.add_row(key, str(value))
    out.print(table)


@app.command()
def delete(
    record_id: Annotated[str, typer.Argument(help="record id (or a unique prefix, 8+ chars)")],
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
    kind: Annotated[str | None, typer.Option(help="message or memory")] = None,
    session: Annotated[str | None, typer.Option(help="of this session")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="only count")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete every record matching the filters (at least one is required)."""
    from remem.engine import make_filters

    if not any((scope, before, category, kind, session)):
        fail("delete-bulk needs at least one filter (--scope, --before, --category, --kind, "
             "--session); it never deletes everything")  # fmt: skip
    filters = {"scope": scope, "until": before, "category": category, "kind": kind,
               "session": session}  # fmt: skip
    with open_memory() as mem:
        made = make_filters(filters)
        n = mem.store.count(made) if dry_run else mem.delete_where(made)
    if as_json:
        emit_json({"deleted" if not dry_run else "would_delete": n})
    else:
        out.print(f"{'would delete' if dry_run else 'deleted'} {n} records", markup=False)


@app.command()
def clear(
    target: Annotated[str, typer.Option("-t", "--target", help="vector, context or all")],
    scope: Annotated[str | None, typer.Option(help="only this scope")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask")] = False,
    as_json: JsonOption = False,
) -> None:
    """Clear vectors (records stay, pending), context (chat messages) or all records."""
    if target not in ("vector", "context", "all"):
        fail(f"invalid -t {target!r}; use vector, context or all")
    where = f" in scope {scope}" if scope else ""
    what = {"vector": "all vectors", "context": "all chat messages", "all": "all records"}[target]
    if not yes:
        if not sys.stdin.isatty():
            fail(f"refusing to clear {what}{where} without confirmation; add --yes")
        if not typer.confirm(f"Clear {what}{where}?", default=False):
            fail("cancelled; nothing was cleared", code=1)
    with open_memory() as mem:
        base = {"scope": scope} if scope else {}
        if target == "vector":
            n = mem.clear_vectors(base or None)
        elif target == "context":
            n = mem.delete_where({**base, "kind": "message"})
        else:
            n = mem.delete_where(base) if base else mem.delete(mem.store.ids_where(None))
    if as_json:
        emit_json({"target": target, "cleared": n})
    else:
        out.print(f"cleared {n} {'vectors' if target == 'vector' else 'records'}", markup=False)


# ---------------------------------------------------------------------- stats / embed
@app.command()
def stats(as_json: JsonOption = False) -> None:
    """Counts by kind, scope, role, index status and embedding model; file size."""
    with open_memory() as mem:
        data = mem.stats()
        data["missing_vectors"] = None
        emb_cfg = mem.config.embed
        if emb_cfg.provider == "local":
            model_id = f"local:{emb_cfg.model}"
            data["missing_vectors"] = mem.store.count_missing_vectors(model_id)
    if as_json:
        emit_json(data)
        return
    table = Table(show_header=False)
    table.add_column("what")
    table.add_column("value", overflow="fold")
    table.add_row("file", f"{data['path']} ({data['file_bytes'] / 1e6:.1f} MB)")
    table.add_row("records", str(data["records"]))
    for key in ("by_kind", "by_scope", "by_role", "by_category", "index_status"):
        table.add_row(key.replace("_", " "), ", ".join(f"{k}: {v}" for k, v in data[key].items()))
    vectors = ", ".join(f"{v['model_id']} ({v['dim']}d): {v['count']}" for v in data["vectors"])
    table.add_row("vectors", vectors or "none")
    if data["missing_vectors"] is not None:
        table.add_row("missing vectors", str(data["missing_vectors"]))
    table.add_row("index errors", str(data["index_errors"]))
    table.add_row("dropped from the indexing queue", str(data["queue_dropped_total"]))
    table.add_row("sessions", str(data["sessions"]))
    table.add_row("schema version", str(data["schema_version"]))
    out.print(table)


@app.command()
def embed(
    batch_size: Annotated[int | None, typer.Option(help="texts per embedding call")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="only count")] = False,
    force: Annotated[bool, typer.Option("--force", help="re-embed every record")] = False,
    as_json: JsonOption = False,
) -> None:
    """Embed every record that has no vector for the configured model (backfill).

    Safe to interrupt: finished batches are committed and a rerun continues from there.
    """
    if batch_size is not None and batch_size <= 0:
        fail(f"invalid --batch-size {batch_size}; use a positive number")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with open_memory() as mem:
        embedder = mem.get_embedder()
        if embedder is None:
            fail("embed.provider is 'none': nothing to embed; configure a provider first")
        total = mem.store.count() if force else mem.store.count_missing_vectors(embedder.model_id)
        if dry_run:
            report = {"model_id": embedder.model_id, "would_embed": total}
            if as_json:
                emit_json(report)
            else:
                out.print(f"would embed {total} records with {embedder.model_id}", markup=False)
            return
        with Progress(
            TextColumn("embedding"), BarColumn(), MofNCompleteColumn(), console=err,
            disable=as_json or not err.is_terminal,
        ) as bar:  # fmt: skip
            task = bar.add_task("embed", total=total)
            result = mem.embed_pending(
                batch_size=batch_size, force=force, progress=lambda n: bar.advance(task, n)
            )
    if as_json:
        emit_json(result)
    else:
        out.print(
            f"embedded {result['embedded']}, failed {result['failed']}, "
            f"still missing {result['remaining']}",
            markup=False,
        )
    if result["failed"]:
        raise typer.Exit(1)


# ---------------------------------------------------------------------- bench
@app.command()
def bench(
    dataset_dir: Annotated[Path, typer.Argument(help="folder with corpus.jsonl, queries.jsonl")],
    k: Annotated[int, typer.Option("--k", "-k", help="hits per query (>= 10 is scored)")] = 10,
    channels: Annotated[str, typer.Option(help="hybrid, vector or lexical")] = "hybrid",
    limit_conversations: Annotated[
        int | None, typer.Option(help="only the first N conversations")
    ] = None,
    limit_queries: Annotated[int | None, typer.Option(help="only the first N queries")] = None,
    as_json: JsonOption = False,
) -> None:
    """Score retrieval on a benchmark dataset (../shared/bench format)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from remem.benchmark import Variant, run_benchmark

    chosen = {"hybrid": ("vector", "lexical"), "vector": ("vector",), "lexical": ("lexical",)}
    if channels not in chosen:
        fail(f"invalid --channels {channels!r}; use hybrid, vector or lexical")
    if k < 1:
        fail(f"invalid --k {k}; use a positive number")
    if not dataset_dir.is_dir():
        fail(
            f"{str(dataset_dir)!r} is not a folder; give a folder with corpus.jsonl and "
            "queries.jsonl"
        )
    config = load_config()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err,
        disable=as_json or not err.is_terminal,
    ) as bar:  # fmt: skip
        task = bar.add_task("queries", total=None)

        def progress(_stage: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = run_benchmark(
            dataset_dir, config=config, k=k, variants=[Variant(channels, chosen[channels])],
            limit_conversations=limit_conversations, limit_queries=limit_queries,
            progress=progress,
        )  # fmt: skip
    res = result["variants"][channels]
    if as_json:
        emit_json({key: res[key] for key in (
            "dataset", "n_queries", "overall", "by_category", "latency_ms", "ingest_per_s",
            "channels", "embed_model", "k")})  # fmt: skip
        return
    table = Table(title=f"{res['dataset']} ({res['n_queries']} queries, {channels})")
    table.add_column("category")
    table.add_column("n", justify="right")
    for m in ("recall@5", "recall@10", "hit@10", "session_recall@10", "mrr"):
        table.add_column(m, justify="right")
    rows = [("overall", res["overall"], res["n_queries"])]
    rows += [(c, v, v["n"]) for c, v in res["by_category"].items()]
    for name, v, n in rows:
        table.add_row(name, str(n), *(f"{v[m]:.3f}" for m in (
            "recall@5", "recall@10", "hit@10", "session_recall@10", "mrr")))  # fmt: skip
    out.print(table)
    lat = res["latency_ms"]
    out.print(
        f"search p50 {lat['search_p50']} ms, p95 {lat['search_p95']} ms; with query embedding "
        f"p50 {lat['search_embed_p50']} ms, p95 {lat['search_embed_p95']} ms; "
        f"ingest {res['ingest_per_s']} messages/s",
        markup=False,
    )


@app.command()
def doctor(
    fix: Annotated[bool, typer.Option("--fix", help="repair what is safe to repair")] = False,
    as_json: JsonOption = False,
) -> None:
    """Check the store: integrity, schema, lexical index, vectors, models."""
    from remem.doctor import run_doctor

    with open_memory() as mem:
        findings = run_doctor(mem, fix=fix)
    if as_json:
        emit_json([f.to_dict() for f in findings])
    else:
        table = Table()
        for col in ("check", "status", "detail", "fixed"):
            table.add_column(col, overflow="fold" if col == "detail" else "ellipsis")
        for f in findings:
            table.add_row(f.check, f.status, f.detail, "yes" if f.fixed else "")
        out.print(table)
    if any(f.status == "error" and not f.fixed for f in findings):
        raise typer.Exit(1)


@app.command()
def reembed(
    model: Annotated[str, typer.Option("--model", help="the model to switch to")],
    provider: Annotated[
        str | None, typer.Option(help="its provider (default: the current)")
    ] = None,
    drop_old: Annotated[
        bool, typer.Option("--drop-old", help="when complete, delete other models' vectors")
    ] = False,
    batch_size: Annotated[int | None, typer.Option(help="texts per embedding call")] = None,
    as_json: JsonOption = False,
) -> None:
    """Switch embedding model online: new vectors are written beside the old ones while
    search keeps using the configured model; when every record has one, set embed.model to
    the new model (and optionally drop the old vectors). Resumable."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from remem.engine import Memory

    base = load_config()
    overrides = {"embed.model": model}
    if provider:
        overrides["embed.provider"] = provider
    target = Config.load(state.config_file, overrides={
        **overrides, "store.path": str(base.store.resolved_path())})  # fmt: skip
    with Memory(config=target) as mem:
        embedder = mem.get_embedder()
        if embedder is None:
            fail("reembed needs a real model; embed.provider 'none' has none")
        total = mem.store.count_missing_vectors(embedder.model_id)
        with Progress(TextColumn(f"embedding with {embedder.model_id}"), BarColumn(),
                      MofNCompleteColumn(), console=err,
                      disable=as_json or not err.is_terminal) as bar:  # fmt: skip
            task = bar.add_task("reembed", total=total)
            report = mem.embed_pending(batch_size=batch_size,
                                       progress=lambda n: bar.advance(task, n))  # fmt: skip
        complete = report["remaining"] == 0
        dropped = 0
        if complete:
            mem.store.meta_set("embed", "active-model", embedder.model_id)
            if drop_old:
                for other, _dim, _n in mem.store.vector_stats():
                    if other != embedder.model_id:
                        dropped += mem.store.clear_vectors(model_id=other)
                mem.store.clear_vectors_status_fix(embedder.model_id)
    result = {"model_id": embedder.model_id, **report, "complete": complete,
              "dropped_old_vectors": dropped}  # fmt: skip
    if as_json:
        emit_json(result)
    else:
        out.print(f"{embedder.model_id}: embedded {report['embedded']}, still missing "
                  f"{report['remaining']}", markup=False)  # fmt: skip
        if complete:
            out.print(f"coverage complete: set embed.model = {model!r} in your config (or "
                      f"REMEM_EMBED__MODEL={model}) to search with it", markup=False)  # fmt: skip
        else:
            out.print("not complete yet: rerun `remem reembed` to continue", markup=False)
    if not complete:
        raise typer.Exit(1)


@app.command()
def migrate(
    action: Annotated[str, typer.Argument(help="check, run or verify")],
    source: Annotated[Path, typer.Option("--source", help="the LanceDB directory")],
    table: Annotated[str | None, typer.Option(help="table name (default: memories)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="run: only report")] = False,
    skip_existing: Annotated[
        bool, typer.Option("--skip-existing", help="run: skip ids already in remem")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Import a memory-lancedb / memory-lancedb-pro table (needs the lancedb extra)."""
    from remem import migrate as m

    if action not in ("check", "run", "verify"):
        fail(f"invalid action {action!r}; use check, run or verify")
    if action == "check":
        report = m.check(source, table)
    else:
        with open_memory() as mem:
            if action == "run":
                report = m.run(mem, source, table=table, dry_run=dry_run,
                               skip_existing=skip_existing)  # fmt: skip
            else:
                report = m.verify(mem, source, table=table)
    if as_json:
        emit_json(report.to_dict())
    else:
        out.print(f"table {report.table}: {report.rows} rows", markup=False)
        if report.missing_columns:
            out.print(f"missing optional columns: {', '.join(report.missing_columns)}",
                      markup=False)  # fmt: skip
        if action == "run":
            verb = "would import" if dry_run else "imported"
            out.print(f"{verb} {report.added}, skipped {report.skipped}, "
                      f"invalid {len(report.invalid)}", markup=False)  # fmt: skip
        if action == "verify":
            out.print(f"in remem: {report.added} of {report.rows}; sample of "
                      f"{report.sample_checked}: {len(report.sample_mismatches)} mismatches",
                      markup=False)  # fmt: skip
    if action == "verify" and (report.sample_mismatches or report.skipped):
        raise typer.Exit(1)


# ---------------------------------------------------------------------- export / import
@app.command("export")
def export_(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="file to write (default: stdout)")
    ] = None,
    scope: Annotated[str | None, typer.Option(help="only this scope")] = None,
    kind: Annotated[str | None, typer.Option(help="message or memory")] = None,
    with_vectors: Annotated[
        bool, typer.Option("--with-vectors", help="include vectors (base64 float32)")
    ] = False,
) -> None:
    """Write every record as JSONL (no limit). Re-import with `remem import`."""
    from remem.engine import make_filters
    from remem.transfer import export_records

    with open_memory() as mem:
        filters = make_filters({"scope": scope, "kind": kind})
        if output is None:
            n = export_records(mem, sys.stdout, filters=filters, with_vectors=with_vectors)
        else:
            if output.is_dir():
                fail(f"--output {str(output)!r} is a directory; give a file path")
            tmp = output.with_name(output.name + ".partial")
            try:
                with tmp.open("w", encoding="utf-8") as fh:
                    n = export_records(mem, fh, filters=filters, with_vectors=with_vectors)
                tmp.replace(output)  # a crash mid-export never leaves a truncated file
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                fail(f"cannot write {str(output)!r}: {exc.strerror}")
    err.print(f"exported {n} records", markup=False)


@app.command("import")
def import_(
    file: Annotated[str, typer.Argument(help="JSONL from `remem export` ('-' = stdin)")],
    scope: Annotated[str | None, typer.Option(help="put every record in this scope")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="only report")] = False,
    unlabelled_vectors: Annotated[
        bool,
        typer.Option(
            "--unlabelled-vectors",
            help="keep vectors that name no model (the first search takes them as its model) "
            "instead of re-embedding those records",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Import records; records whose text is already stored are skipped, invalid lines are
    reported with their numbers and change nothing."""
    from remem.schemas import validate_scope
    from remem.transfer import import_records

    if scope is not None:
        validate_scope(scope, "--scope")
    lines = _read_lines(file, "a JSONL file from `remem export`")
    with open_memory() as mem:
        report = import_records(mem, lines, scope=scope, dry_run=dry_run,
                                unlabelled_vectors=unlabelled_vectors)  # fmt: skip
    if as_json:
        emit_json(report.to_dict())
    else:
        verb = "would add" if dry_run else "added"
        out.print(f"{verb} {report.added}, skipped {report.skipped} already stored, "
                  f"{len(report.invalid)} invalid, {report.vectors} vectors reused",
                  markup=False)  # fmt: skip
        for number, error in report.invalid[:20]:
            err.print(f"{file}:{number}: {error}", markup=False)
    if report.invalid:
        raise typer.Exit(1)


# ---------------------------------------------------------------------- memory tools
memory_app = typer.Typer(
    help="Curated memories as an agent sees them (through the scope resolver).",
    no_args_is_help=True,
)
app.add_typer(memory_app, name="memory")

AgentOption = Annotated[str | None, typer.Option(
    "--agent", help="the agent identity (default: scopes.agent in the configuration)")]  # fmt: skip
SessionOption = Annotated[str | None, typer.Option("--session", help="the current session")]
UserOption = Annotated[str | None, typer.Option("--user", help="the current user")]
ScopeOption = Annotated[str | None, typer.Option("--scope", help="narrow to one scope")]


def _agent(mem, agent: str | None) -> str:
    chosen = agent or mem.config.scopes.agent
    if not chosen:
        fail("no agent identity: pass --agent or set scopes.agent (there is no shared default)")
    return chosen  # type: ignore[return-value]


def _tool(name: str, args: dict[str, Any], agent: str | None, session: str | None,
          user: str | None) -> dict[str, Any]:  # fmt: skip
    with open_memory() as mem:
        return mem.tools(_agent(mem, agent), session=session, user=user).call(
            name, {k: v for k, v in args.items() if v is not None}
        )


def _print_memories(items: list[dict[str, Any]]) -> None:
    table = Table()
    for col in ("id", "category", "scope", "text", "created"):
        table.add_column(col)
    for m in items:
        table.add_row(m["id"][:12], m["category"] or "-", m["scope"], _short(m["text"], 70),
                      fmt_time(m["created_at"]))  # fmt: skip
    out.print(table)


@memory_app.command("recall")
def memory_recall(
    query: str, agent: AgentOption = None, session: SessionOption = None,
    user: UserOption = None, scope: ScopeOption = None,
    limit: Annotated[int, typer.Option(help="at most this many")] = 5, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Search memories (an explicit recall: access counts grow)."""
    data = _tool("memory_recall", {"query": query, "limit": limit, "scope": scope}, agent,
                 session, user)  # fmt: skip
    if as_json:
        emit_json(data)
    elif not data["memories"]:
        out.print("nothing relevant")
    else:
        _print_memories(data["memories"])


@memory_app.command("store")
def memory_store(
    text: str, agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
    scope: ScopeOption = None,
    category: Annotated[str, typer.Option(help="preference|fact|decision|entity|other")] = "fact",
    importance: Annotated[float, typer.Option(help="0-1")] = 0.7, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Store one memory (deduplicated; an update on the same subject replaces the older one)."""
    data = _tool("memory_store", {"text": text, "category": category, "importance": importance,
                                  "scope": scope}, agent, session, user)  # fmt: skip
    if as_json:
        emit_json(data)
    elif data["stored"]:
        replaced = f" (replaces {', '.join(data['replaced'])})" if data["replaced"] else ""
        out.print(f"stored {data['memory']['id']} in {data['memory']['scope']}{replaced}",
                  markup=False)  # fmt: skip
    else:
        out.print(f"already remembered as {data['duplicate_of']['id']} ({data['how']})",
                  markup=False)  # fmt: skip


@memory_app.command("forget")
def memory_forget(
    memory_id: Annotated[str | None, typer.Argument(help="the memory's id")] = None,
    query: Annotated[str | None, typer.Option("--query", help="or describe it")] = None,
    agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
    scope: ScopeOption = None, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Forget one memory, by id or by a description that matches exactly one."""
    data = _tool("memory_forget", {"memory_id": memory_id, "query": query, "scope": scope},
                 agent, session, user)  # fmt: skip
    if as_json:
        emit_json(data)
        return
    if data["forgotten"]:
        out.print(f"forgot {data['forgotten'][0]['id']}: {data['forgotten'][0]['text']}",
                  markup=False)  # fmt: skip
        return
    out.print(data["note"], markup=False)
    if data["candidates"]:
        _print_memories(data["candidates"])
    raise typer.Exit(1)


@memory_app.command("list")
def memory_list(
    agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
    scope: ScopeOption = None, category: Annotated[str | None, typer.Option()] = None,
    limit: Annotated[int, typer.Option()] = 20, offset: Annotated[int, typer.Option()] = 0,
    as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Current memories, newest first."""
    data = _tool("memory_list", {"scope": scope, "category": category, "limit": limit,
                                 "offset": offset}, agent, session, user)  # fmt: skip
    if as_json:
        emit_json(data)
        return
    _print_memories(data["memories"])
    out.print(f"{len(data['memories'])} of {data['total']}", markup=False)


@memory_app.command("stats")
def memory_stats(
    agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
    scope: ScopeOption = None, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Memories by category and scope."""
    data = _tool("memory_stats", {"scope": scope}, agent, session, user)
    if as_json:
        emit_json(data)
        return
    out.print(f"{data['total']} current, {data['superseded']} superseded", markup=False)
    for key in ("by_category", "by_scope"):
        for name, n in sorted(data[key].items()):
            out.print(f"  {name}: {n}", markup=False)


@memory_app.command("inject")
def memory_inject(
    message: str, agent: AgentOption = None, session: SessionOption = None,
    user: UserOption = None, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """What auto-recall would inject before an LLM call for this user message."""
    with open_memory() as mem:
        result = mem.recall_memories(message, agent=_agent(mem, agent), session=session,
                                     user=user)  # fmt: skip
    if as_json:
        emit_json(result.to_dict())
    elif result.block:
        out.print(result.block, markup=False, highlight=False)
    else:
        out.print(f"nothing injected: {result.skipped_reason}", markup=False)


@memory_app.command("capture")
def memory_capture(
    texts: Annotated[list[str], typer.Argument(help="the turn's messages")],
    role: Annotated[str, typer.Option(help="user or assistant")] = "user",
    agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
    as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Run auto-capture over a turn's messages and report what was kept and why not."""
    from remem.capture.capture import CaptureTurn

    if role not in ("user", "assistant"):
        fail(f"invalid --role {role!r}; use user or assistant")
    with open_memory() as mem:
        result = mem.capture_after_turn(CaptureTurn(
            agent=_agent(mem, agent), session=session, user=user,
            messages=[{"role": role, "text": t, "speaker_id": user} for t in texts]))  # fmt: skip
    if as_json:
        emit_json(result.to_dict())
        return
    for rec in result.stored:
        out.print(f"stored {rec.id} [{rec.category}] {rec.text}", markup=False)
    for d in result.duplicates:
        out.print(f"duplicate of {d['existing_id']} ({d['how']}): {d['text']}", markup=False)
    for r in result.rejected:
        out.print(f"not kept ({r.reason}): {r.text}", markup=False)
    for w in result.warnings:
        err.print(f"warning: {w}", markup=False)


def _readable(mem, agent: str | None, session: str | None, user: str | None, memory_id: str):
    access = mem.scope_access(_agent(mem, agent), session=session, user=user)
    rec = mem.get(memory_id)
    if rec is None or rec.kind != "memory" or not access.can_read(rec.scope):
        raise NotFoundError(f"no memory {memory_id!r} that agent {access.agent!r} may see")
    return rec


@memory_app.command("history")
def memory_history(
    memory_id: str, agent: AgentOption = None, session: SessionOption = None,
    user: UserOption = None, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Every version of a memory, oldest first (closed versions show when they ended)."""
    with open_memory() as mem:
        _readable(mem, agent, session, user, memory_id)
        chain = mem.history(memory_id)
    if as_json:
        emit_json([r.to_dict() for r in chain])
        return
    for r in chain:
        state = "current" if r.valid_to is None else f"until {fmt_time(r.valid_to)}"
        out.print(f"{r.id}  {fmt_time(r.created_at)}  {state}  {r.text}", markup=False)


@memory_app.command("undo")
def memory_undo(
    memory_id: str, agent: AgentOption = None, session: SessionOption = None,
    user: UserOption = None, as_json: JsonOption = False,
) -> None:  # fmt: skip
    """Undo the update that replaced (or was made by) this memory."""
    with open_memory() as mem:
        _readable(mem, agent, session, user, memory_id)
        restored = mem.undo(memory_id)
    if as_json:
        emit_json([r.to_dict() for r in restored])
        return
    for r in restored:
        out.print(f"current again: {r.id} {r.text}", markup=False)


# ---------------------------------------------------------------------- servers
def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        fail(f"invalid address {value!r}; use HOST:PORT, e.g. 127.0.0.1:8765")
    return host.strip("[]"), int(port)


@app.command("mcp")
def mcp_command(
    http: Annotated[str | None, typer.Option(
        "--http", help="serve streamable HTTP on HOST:PORT instead of stdio")] = None,
    agent: AgentOption = None, session: SessionOption = None, user: UserOption = None,
) -> None:  # fmt: skip
    """Serve the memory tools over MCP (stdio by default)."""
    import anyio

    from remem.server.identity import check_bind
    from remem.server.mcp_server import build_server, serve_http, serve_stdio

    config = load_config()
    if http is not None:
        host, port = _host_port(http)
        check_bind(config, host)
    elif not (agent or config.scopes.agent):
        fail("no agent identity: pass --agent or set scopes.agent")
    with open_memory() as mem:
        server = build_server(mem, agent=agent, session=session, user=user)
        if http is None:
            anyio.run(serve_stdio, server)
        else:
            err.print(f"remem MCP on http://{host}:{port}/mcp", markup=False)
            anyio.run(serve_http, server, host, port)


@app.command("serve")
def serve_command(
    host: Annotated[str | None, typer.Option(help="default: server.host (127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="default: server.port (8765)")] = None,
) -> None:
    """Serve the REST API (OpenAPI docs at /docs) and the web UI (/ui)."""
    from remem.server.identity import check_bind

    try:
        import uvicorn

        from remem.server.rest import create_app
    except ImportError:
        fail("the REST API needs its extra: pip install 'remem[server]'")
    config = load_config()
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_bind(config, host)
    with open_memory() as mem:
        err.print(f"remem REST API on http://{host}:{port} (docs: /docs, web UI: /ui)",
                  markup=False)  # fmt: skip
        uvicorn.run(create_app(mem), host=host, port=port, log_level="warning")


@app.command("proxy")
def proxy_command(
    upstream: Annotated[str | None, typer.Option(
        help="the OpenAI-compatible API to forward to (default: server.upstream)")] = None,
    host: Annotated[str | None, typer.Option(help="default: server.host (127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="default: server.port (8765)")] = None,
    agent: AgentOption = None,
) -> None:  # fmt: skip
    """Serve /v1/chat/completions and /v1/models with memory, forwarding to an upstream API."""
    from remem.server.identity import check_bind

    try:
        import uvicorn

        from remem.server.proxy import create_proxy
    except ImportError:
        fail("the proxy needs its extra: pip install 'remem[server]'")
    overrides = {"scopes.agent": agent} if agent else {}
    config = load_config(**overrides)
    target = upstream or config.server.upstream
    if not target or not target.startswith(("http://", "https://")):
        fail(f"invalid --upstream {target!r}; give the API root, e.g. https://api.openai.com/v1")
    if not config.server.tokens and not config.scopes.agent:
        fail("no agent identity: pass --agent, set scopes.agent, or configure server.tokens")
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_bind(config, host)
    with open_memory(**overrides) as mem:
        err.print(f"remem proxy on http://{host}:{port}/v1 -> {target}", markup=False)
        uvicorn.run(create_proxy(mem, target), host=host, port=port, log_level="warning")


# ---------------------------------------------------------------------- config
config_app = typer.Typer(help="Show or check configuration.", no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def config_show(as_json: JsonOption = False) -> None:
    """The effective settings and where each came from (default, file, env, flag)."""
    config = load_config()
    rows = config.effective()
    if as_json:
        emit_json({k: {"value": v, "source": src} for k, v, src in rows})
        return
    table = Table()
    for col in ("setting", "value", "source"):
        table.add_column(col)
    for key, value, source in rows:
        table.add_row(key, json.dumps(value, ensure_ascii=False, default=str), source)
    out.print(table)


@config_app.command("validate")
def config_validate(
    file: Annotated[Path, typer.Argument(help="a TOML config file")],
    as_json: JsonOption = False,
) -> None:
    """Check a config file on its own (environment ignored); one line per verdict."""
    Config.load(file, env={})  # raises ConfigError with the key, value and fix
    if as_json:
        emit_json({"file": str(file), "valid": True})
    else:
        out.print(f"{file}: valid", markup=False)


DEMO_QUERIES = [
    "Who has a food allergy?",
    "Where does Alice work now?",
    "小明什么时候有空？",
    "哪个山间小屋已经订好了？",
    "小屋一晚多少钱？",  # asked in Chinese, answered in English
]
DEMO_BLOCK_QUERY = "Where does Alice work now?"


@app.command()
def demo(
    db: Annotated[
        Path | None, typer.Option("--db", help="store to use (default: a fresh temporary one)")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest the bundled sample conversation, recall in English and Chinese, show the block
    that would be injected into the prompt."""
    import tempfile
    from importlib.resources import files

    from remem.conversation import render_block
    from remem.engine import Memory

    sample = files("remem") / "data" / "sample_conversation.jsonl"
    turns = [json.loads(line) for line in sample.read_text("utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="remem-demo-") as tmp:
        path = db or state.db or Path(tmp) / "demo.db"
        config = load_config(**{"store.path": str(path)})
        with Memory(config=config) as mem:
            started = time.perf_counter()
            stored = mem.ingest_many(turns, on_conflict="skip", wait=True)
            took = time.perf_counter() - started
            report: dict[str, Any] = {"db": str(path), "ingested": len(stored), "recalls": []}
            if not as_json:
                sessions = len({t["session"] for t in turns})
                out.print(
                    f"Ingested {len(stored)} messages ({len(turns)} in the sample, {sessions} "
                    f"sessions, 3 speakers, English and Chinese) into {path} in {took:.1f}s\n",
                    markup=False,
                )
            last_hits = None
            for query in DEMO_QUERIES:
                result = mem.search(query, k=3)
                last_hits = result.hits if result.hits else last_hits
                report["recalls"].append(result.to_dict(explain=True))
                if as_json:
                    continue
                out.print(f"[bold]recall:[/bold] {query}  ({result.timings_ms['total']:.0f} ms)")
                for hit in result.hits:
                    r = hit.record
                    out.print(
                        f"  {hit.score:.4f}  [{r.speaker_label}] {_short(r.text, 100)}",
                        markup=False,
                    )
                    out.print(f"          {hit.explain.one_line()}", markup=False, style="dim")
                out.print()
            block = render_block(mem.search(DEMO_BLOCK_QUERY, k=3).hits)
            report["injected_block"] = block
    if as_json:
        emit_json(report)
        return
    out.print(f"[bold]Injected into the prompt for:[/bold] {DEMO_BLOCK_QUERY}")
    out.print(block, markup=False, highlight=False)


def main() -> None:
    try:
        app()
    except RememError as exc:
        code = 1 if isinstance(exc, NotFoundError) else 2
        err.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(code)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)
    except BrokenPipeError:
        os._exit(0)


if __name__ == "__main__":
    main()
