"""Looking after a store, for its operator: clear, stats, embed, index, doctor, reembed, and
the `remem config` group (`remem bench` is in ``cli/bench.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from remem.cli.common import (
    BatchSizeOption,
    DryRunOption,
    JsonOption,
    ScopeFilter,
    building_index,
    counting,
    emit_json,
    fail,
    load_config,
    new_table,
    new_text,
    open_existing_memory,
    open_memory,
    out,
)
from remem.cli.exits import NOT_FOUND

if TYPE_CHECKING:
    from rich.table import Table

    from remem import Config
    from remem.ops import IndexReport, ReembedReport

app = typer.Typer()
config_app = typer.Typer(help="Show or check configuration.", no_args_is_help=True)


@app.command()
def clear(
    target: Annotated[str, typer.Option("-t", "--target", help="vector, context or all")],
    scope: ScopeFilter = None,
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
            fail("cancelled; nothing was cleared", code=NOT_FOUND)
    with open_memory() as mem:
        base = {"scope": scope} if scope else {}
        if target == "vector":
            n = mem.clear_vectors(base or None)
        elif target == "context":
            n = mem.delete_where({**base, "kind": "message"})
        else:
            n = mem.delete_where(base) if base else mem.delete_all()
    if as_json:
        emit_json({"target": target, "cleared": n})
    else:
        out.print(f"cleared {n} {'vectors' if target == 'vector' else 'records'}", markup=False)


# ---------------------------------------------------------------------- stats / embed
@app.command()
def stats(
    scope: Annotated[str | None, typer.Option(help="only this scope (e.g. user:ann)")] = None,
    as_json: JsonOption = False,
) -> None:
    """Counts by kind, scope, role, index status and embedding model; file size; the declared
    scopes (scopes.definitions). With --scope: one scope's counts and description."""
    from remem import ops

    if scope is not None:
        return _scope_stats(scope, as_json)
    with open_existing_memory() as mem:
        # Memory.stats() and what this command adds (missing vectors, declared scopes)
        data: dict[str, Any] = {**mem.stats()}
        data["missing_vectors"] = ops.missing_local_vectors(mem)
        if "latent_terms" in data["backlog"]:  # a scan: for the operator's command only
            data["backlog"]["latent_terms"]["missing"] = ops.latent_terms_to_store(mem)
        data["declared_scopes"] = {
            name: {"description": text, "records": mem.count({"scope": name})}
            for name, text in mem.config.scopes.definitions.items()
        }
    if as_json:
        emit_json(data)
        return
    table = _what_value_table()
    table.add_row("file", f"{data['path']} ({data['file_bytes'] / 1e6:.1f} MB)")
    table.add_row("records", str(data["records"]))
    table.add_row("embedding model", _model_line(data["embedder"]))
    _add_counts(table, data, ("by_kind", "by_scope", "by_role", "by_category", "index_status"))
    vectors = ", ".join(f"{v['model_id']} ({v['dim']}d): {v['count']}" for v in data["vectors"])
    table.add_row("vectors", vectors or "none")
    if data["missing_vectors"] is not None:
        table.add_row("missing vectors", str(data["missing_vectors"]))
    table.add_row("index errors", str(data["index_errors"]))
    table.add_row("dropped from the indexing queue", str(data["queue_dropped_total"]))
    table.add_row("backlog", backlog_line(data["backlog"]))
    if "latent_terms" in data["backlog"]:
        table.add_row("latent terms", latent_line(data["backlog"]["latent_terms"]))
    table.add_row(
        "facts waiting", f"{data['backlog']['facts_waiting']:,} records (read after the write)"
    )
    table.add_row("running", ", ".join(data["backlog"]["running"]) or "nothing in the background")
    table.add_row("sessions", str(data["sessions"]))
    table.add_row("facts", str(data["facts"]))
    table.add_row("schema version", str(data["schema_version"]))
    for name, declared in data["declared_scopes"].items():  # operator text: no markup
        row = f"{declared['description']} ({declared['records']} records)"
        table.add_row(new_text(f"scope {name}"), new_text(row))
    out.print(table)


def _what_value_table() -> Table:
    """A two-column table without a header: a name, then its value (long values fold)."""
    table = new_table(show_header=False)
    table.add_column("what")
    table.add_column("value", overflow="fold")
    return table


def _add_counts(table: Table, data: dict[str, Any], keys: tuple[str, ...]) -> None:
    """A row for each count breakdown ("by kind: message: 3, memory: 1")."""
    for key in keys:
        table.add_row(key.replace("_", " "), ", ".join(f"{k}: {v}" for k, v in data[key].items()))


def _scope_stats(scope: str, as_json: bool) -> None:
    from remem import ops
    from remem.errors import ValidationError

    with open_existing_memory() as mem:
        try:
            data = ops.scope_stats(mem, scope)
        except ValidationError as exc:
            fail(f"invalid --scope: {exc}")
    if as_json:
        emit_json(data)
        return
    table = _what_value_table()
    table.add_row("scope", new_text(data["scope"]))
    table.add_row("description", new_text(data["description"] or "(not in scopes.definitions)"))
    table.add_row("records", str(data["records"]))
    _add_counts(table, data, ("by_kind", "by_role", "by_category", "index_status", "memories"))
    table.add_row("sessions", str(data["sessions"]))
    out.print(table)


def backlog_line(backlog: dict[str, Any]) -> str:
    """'1,234 pending (1,000 searchable through the fast model meanwhile), 45.2/s (about
    27 s left)'; the rate is what any process's indexing queue or `remem embed` on this
    store embedded over its last few seconds."""
    line = f"{backlog['pending']:,} pending"
    if backlog.get("fast_vectors"):
        line += f" ({backlog['fast_vectors']:,} searchable through the fast model meanwhile)"
    if backlog["per_second"]:
        line += f", {backlog['per_second']:,.1f}/s"
        if backlog["eta_s"] is not None:
            line += f" (about {_duration(backlog['eta_s'])} left)"
    elif backlog["pending"]:
        line += (
            ", not being embedded now (the backfill runs where async ingest runs; or `remem embed`)"
        )
    return line


def _duration(seconds: float) -> str:
    """'27 s', '14 min', '7.2 h': a time left as people read it."""
    if seconds < 120:
        return f"{seconds:,.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds / 3600:,.1f} h"


def latent_line(latent: dict[str, Any]) -> str:
    """'stored for every record' or '1,234 records without (filling in the background)'."""
    if not latent["missing"]:
        return "stored for every record"
    line = f"{latent['missing']:,} records without"
    if latent["filling"]:
        return line + " (filling in the background)"
    return line + " (searches compute them; `remem embed` stores them)"


def _model_line(embedder: dict[str, Any]) -> str:
    """The model searches use, and whether it is the one `remem reembed` switched to."""
    if embedder["provider"] == "none":
        return "none (lexical search only)"
    model_id = f"{embedder['provider']}:{embedder['model']}"
    active = embedder["store_active_model"]
    if active is None:
        return model_id
    if active == model_id:
        return f"{model_id} (the store's active model, set by `remem reembed`)"
    return f"{model_id} (the store was switched to {active} by `remem reembed`)"


@app.command()
def embed(
    batch_size: BatchSizeOption = None,
    dry_run: DryRunOption = False,
    force: Annotated[bool, typer.Option("--force", help="re-embed every record")] = False,
    as_json: JsonOption = False,
) -> None:
    """Embed every record that has no vector for the configured model (backfill), then store
    the latent terms the relevance stage reads for every record still without them.

    Safe to interrupt: finished batches are committed and a rerun continues from there.
    """
    from remem import ops

    if batch_size is not None and batch_size <= 0:
        fail(f"invalid --batch-size {batch_size}; use a positive number")
    with open_memory() as mem:
        embedder = mem.get_embedder()
        if embedder is None:
            fail("embed.provider is 'none': nothing to embed; configure a provider first")
        total = ops.records_to_embed(mem, embedder.model_id, force=force)
        if dry_run:
            latent = ops.latent_terms_to_store(mem)
            if as_json:
                emit_json(
                    {
                        "model_id": embedder.model_id,
                        "would_embed": total,
                        "would_store_latent_terms": latent,
                    }
                )
            else:
                also = f" and store the latent terms of {latent}" if latent else ""
                out.print(
                    f"would embed {total} records with {embedder.model_id}{also}", markup=False
                )
            return
        owed = ops.latent_terms_to_store(mem)  # embedding stores them as it goes
        with counting("embedding", total, quiet=as_json) as progress:
            result = mem.embed_pending(batch_size=batch_size, force=force, progress=progress)
        rest = ops.latent_terms_to_store(mem) if owed else 0
        if rest:
            with counting("latent terms", rest, quiet=as_json) as progress:
                ops.store_latent_terms(mem, progress=progress)
        result["latent_terms"] = owed - ops.latent_terms_to_store(mem) if owed else 0
    if as_json:
        emit_json(result)
    else:
        stored = f", latent terms stored for {result['latent_terms']}" if owed else ""
        out.print(
            f"embedded {result['embedded']}, failed {result['failed']}, "
            f"still missing {result['remaining']}{stored}",
            markup=False,
        )
    if result["failed"]:
        raise typer.Exit(NOT_FOUND)


@app.command()
def index(
    force: Annotated[bool, typer.Option("--force", help="rebuild even if it is current")] = False,
    as_json: JsonOption = False,
) -> None:
    """Build the vector index beside the database now (a snapshot of every vector, and from
    20k vectors an HNSW graph).

    Searches build it in the background by themselves; run this after a bulk write, or when
    the store is only searched from short-lived commands, which exit before a background
    build ends and then read every vector again. `remem import` runs it at its end.
    """
    from remem import ops

    with open_existing_memory() as mem, building_index(quiet=as_json):
        report = ops.build_vector_index(mem, force=force)
    if as_json:
        emit_json(report.to_dict())
    else:
        out.print(index_line(report), markup=False)


def index_line(report: IndexReport) -> str:
    if report.reason:
        return f"{report.model_id}: {report.vectors} vectors; no index built: {report.reason}"
    verb = "built" if report.built else "already current:"
    graph = " with an HNSW graph" if report.graph else ""
    took = f" in {report.seconds:.1f}s" if report.built else ""
    return (
        f"{verb} the vector index of {report.model_id}: {report.vectors} vectors{graph}, "
        f"{report.file_bytes / 1e6:.1f} MB{took}"
    )


# ---------------------------------------------------------------------- doctor / reembed
@app.command()
def doctor(
    fix: Annotated[bool, typer.Option("--fix", help="repair what is safe to repair")] = False,
    as_json: JsonOption = False,
) -> None:
    """Check the store: integrity, schema, lexical index, vectors, models."""
    from remem.doctor import run_doctor

    with open_existing_memory() as mem:
        findings = run_doctor(mem, fix=fix)
    if as_json:
        emit_json([f.to_dict() for f in findings])
    else:
        table = new_table()
        for col in ("check", "status", "detail", "fixed"):
            table.add_column(col, overflow="fold" if col == "detail" else "ellipsis")
        for f in findings:
            table.add_row(f.check, f.status, f.detail, "yes" if f.fixed else "")
        out.print(table)
    if any(f.status == "error" and not f.fixed for f in findings):
        raise typer.Exit(NOT_FOUND)


def _switched_config(model: str, provider: str | None) -> Config:
    """The configuration with the new model (and provider), over the same store."""
    overrides: dict[str, Any] = {"embed.model": model}
    if provider:
        overrides["embed.provider"] = provider
    return load_config(**overrides)


@app.command()
def reembed(
    model: Annotated[str, typer.Option("--model", help="the model to switch to")],
    provider: Annotated[
        str | None, typer.Option(help="its provider (default: the current)")
    ] = None,
    drop_old: Annotated[
        bool, typer.Option("--drop-old", help="when complete, delete other models' vectors")
    ] = False,
    batch_size: BatchSizeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Switch embedding model online: new vectors are written beside the old ones while
    search keeps using the current model; when every record has one, the store searches with
    the new model (unless embed.model is set) and --drop-old deletes the old vectors.
    Resumable."""
    from remem import ops

    user_config = load_config()
    with ops.open_for_switch(_switched_config(model, provider)) as mem:
        embedder = mem.get_embedder()
        if embedder is None:
            fail("reembed needs a real model; embed.provider 'none' has none")
        total = ops.records_to_embed(mem, embedder.model_id)
        with counting(f"embedding with {embedder.model_id}", total, quiet=as_json) as progress:
            report = ops.reembed(mem, drop_old=drop_old, batch_size=batch_size, progress=progress)
        in_use = ops.model_in_use(user_config, mem.store)
    if as_json:
        emit_json({**report.to_dict(), "searching_with": in_use})
    else:
        out.print(
            f"{report.model_id}: embedded {report.embedded}, still missing {report.remaining}"
            + (f", dropped {report.dropped_old_vectors} old vectors" if drop_old else ""),
            markup=False,
        )
        out.print(_switch_outcome(report, in_use, user_config), markup=False)
    if not report.complete:
        raise typer.Exit(NOT_FOUND)


def _switch_outcome(report: ReembedReport, in_use: str | None, user: Config) -> str:
    """What the switch means for the next search, true to the configuration in force."""
    if not report.complete:
        return "not complete yet: rerun `remem reembed` to continue"
    if in_use == report.model_id:
        return f"coverage complete: this store now searches with {report.model_id}"
    source = user.source_of("embed.model")
    return (
        f"coverage complete, but your configuration ({source}) sets embed.model = "
        f"{user.embed.model!r}, so searches still use {in_use}: change it to "
        f"{report.model_id.split(':', 1)[1]!r} there to search with the new vectors"
    )


# ---------------------------------------------------------------------- config
@config_app.command("show")
def config_show(as_json: JsonOption = False) -> None:
    """The effective settings and where each came from (default, file, env, flag, or the
    store, for a model `remem reembed` switched it to)."""
    from remem import ops

    rows = ops.effective_settings(load_config())
    if as_json:
        emit_json({k: {"value": v, "source": src} for k, v, src in rows})
        return
    table = new_table()
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
    from remem import Config

    Config.load(file, env={})  # raises ConfigError with the key, value and fix
    if as_json:
        emit_json({"file": str(file), "valid": True})
    else:
        out.print(f"{file}: valid", markup=False)
