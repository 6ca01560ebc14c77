"""Moving records in and out: migrate (from LanceDB), export and import (JSONL)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from remem.cli.common import (
    JsonOption,
    KindFilter,
    ScopeFilter,
    building_index,
    counting,
    emit_json,
    err,
    fail,
    load_config,
    open_existing_memory,
    open_memory,
    out,
)
from remem.cli.exits import BAD_INPUT, NOT_FOUND
from remem.cli.ops import index_line

if TYPE_CHECKING:  # imported when a command runs, not for `remem --help`
    from remem import Memory
    from remem import lancedb_import as lancedb_migration
    from remem.ops import IndexReport
    from remem.transfer import CopyReport, ImportReport, ImportSource

app = typer.Typer()


@app.command()
def migrate(
    action: Annotated[str, typer.Argument(help="check, run or verify")],
    source: Annotated[
        Path | None,
        typer.Option(
            "--source",
            help="a LanceDB directory or a memory-lancedb-pro export file (default: the "
            "plugins' default directories)",
        ),
    ] = None,
    table: Annotated[str | None, typer.Option(help="table name (default: memories)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="run: only report")] = False,
    skip_existing: Annotated[
        bool, typer.Option("--skip-existing", help="run: skip ids already in remem")
    ] = False,
    default_scope: Annotated[
        str | None,
        typer.Option("--default-scope", help="run: scope of rows that have none (default: global)"),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import memory-lancedb / memory-lancedb-pro memories (LanceDB needs the lancedb extra)."""
    from remem import lancedb_import as lancedb_migration

    if action not in ("check", "run", "verify"):
        fail(f"invalid action {action!r}; use check, run or verify")
    if action == "check":
        report = lancedb_migration.check(source, table)
    else:
        with open_memory() as mem:
            if action == "run":
                report = lancedb_migration.run(
                    mem,
                    source,
                    table=table,
                    dry_run=dry_run,
                    skip_existing=skip_existing,
                    default_scope=default_scope,
                )
            else:
                report = lancedb_migration.verify(mem, source, table=table)
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_migration(report, action, dry_run)
    if action == "verify" and (report.sample_mismatches or report.skipped):
        raise typer.Exit(NOT_FOUND)


def _print_migration(report: lancedb_migration.MigrationReport, action: str, dry_run: bool) -> None:
    out.print(
        f"{report.source} ({report.flavour}), table {report.table}: {report.rows} rows",
        markup=False,
    )
    if report.missing_columns:
        out.print(f"missing optional columns: {', '.join(report.missing_columns)}", markup=False)
    if action == "run":
        verb = "would import" if dry_run else "imported"
        out.print(
            f"{verb} {report.added}, skipped {report.skipped}, invalid {len(report.invalid)}",
            markup=False,
        )
    if action == "verify":
        out.print(
            f"in remem: {report.added} of {report.rows}; sample of "
            f"{report.sample_checked}: {len(report.sample_mismatches)} mismatches",
            markup=False,
        )


@app.command("export")
def export_(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="file to write (default: stdout)")
    ] = None,
    scope: ScopeFilter = None,
    kind: KindFilter = None,
    with_vectors: Annotated[
        bool,
        typer.Option(
            "--with-vectors",
            help="include vectors (base64 float32) and latent terms, so an import computes neither",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="print a JSON summary (on stderr when the records go to stdout)"
        ),
    ] = False,
) -> None:
    """Write every record as JSONL (no limit), a page at a time. Re-import with `remem import`."""
    from remem.transfer import export_file, export_records

    filters = {"scope": scope, "kind": kind}
    if output is not None and output.is_dir():
        fail(f"--output {str(output)!r} is a directory; give a file path")
    started = time.perf_counter()
    with open_existing_memory() as mem:
        total = mem.count(filters)
        with counting("exporting", total, quiet=as_json, eta=True, rate=True) as progress:
            if output is None:
                n = export_records(
                    mem, sys.stdout, filters=filters, with_vectors=with_vectors, progress=progress
                )
            else:
                try:
                    n = export_file(
                        mem, output, filters=filters, with_vectors=with_vectors, progress=progress
                    )
                except OSError as exc:
                    fail(f"cannot write {str(output)!r}: {exc.strerror}")
    seconds = time.perf_counter() - started
    summary = {
        "exported": n,
        "output": str(output) if output is not None else "-",
        "with_vectors": with_vectors,
        "seconds": round(seconds, 2),
        "per_second": round(n / seconds, 1) if seconds else None,
    }
    if as_json:
        (out if output is not None else err).print_json(json.dumps(summary))
    else:
        err.print(f"exported {n} records in {seconds:.1f}s", markup=False)


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
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="import the valid lines even if some are invalid"),
    ] = False,
    fast: Annotated[
        bool,
        typer.Option(
            "--fast",
            help="a long history: searchable by meaning at the end through the bundled fast "
            "model; the default model's vectors follow with `remem embed` (newest first)",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Import records, streaming: every line is checked first, and one invalid line stops the
    import with nothing written (unless --skip-invalid); records whose text is already stored
    are skipped, so a rerun after an interruption adds only what is missing."""
    from remem.schemas import validate_scope
    from remem.transfer import ImportOptions, check_import, write_import

    if scope is not None:
        validate_scope(scope, "--scope")
    started = time.perf_counter()
    with _import_source(file) as source, open_memory() as mem:
        with counting("checking lines", None, quiet=as_json, rate=True) as checked:
            report = check_import(
                source, scope=scope, zone=mem.config.calendar.zone(), progress=checked
            )
        if skip_invalid or not report.invalid_count:
            label = "counting" if dry_run else "importing"
            with counting(label, report.records, quiet=as_json, eta=True, rate=True) as progress:
                options = ImportOptions(
                    scope=scope,
                    dry_run=dry_run,
                    unlabelled_vectors=unlabelled_vectors,
                    fast_first=fast,
                )
                write_import(mem, source, report, options, progress=progress)
        indexed = _index_after_import(mem, report, quiet=as_json)
    if as_json:
        emit_json(
            {
                **report.to_dict(),
                "index": indexed.to_dict() if indexed else None,
                "seconds": round(time.perf_counter() - started, 2),
            }
        )
    else:
        _print_import(report, file, dry_run)
        if indexed and indexed.built:
            out.print(index_line(indexed), markup=False)
    if report.invalid_count:  # bad input, like ingest's (--skip-invalid wrote the valid lines)
        raise typer.Exit(BAD_INPUT)


def _index_after_import(mem: Memory, report: ImportReport, *, quiet: bool) -> IndexReport | None:
    """Build the vector index when the import made one due: this process is about to exit,
    and a background build would die with it (every later command would then read the
    vectors from the database again)."""
    from remem import ops

    if not report.written or not report.added or mem.get_embedder() is None:
        return None
    with building_index(quiet=quiet):
        return ops.build_vector_index(mem)


def _import_source(file: str) -> ImportSource:
    """The input to import: a file read a line at a time, or stdin spooled to a temporary
    file (both passes read it)."""
    from remem.transfer import ImportSource

    what = "a JSONL file from `remem export`"
    if file == "-":
        return ImportSource(sys.stdin.buffer)
    path = Path(file)
    if not path.exists():
        fail(f"{file!r} does not exist; give {what}")
    if not path.is_file():
        fail(f"{file!r} is a directory; give {what}")
    return ImportSource(path)


def _print_import(report: ImportReport, file: str, dry_run: bool) -> None:
    if report.invalid_count and not report.written:
        out.print(
            f"{report.invalid_count} invalid lines: nothing imported (fix them, or pass "
            "--skip-invalid to import the valid lines)",
            markup=False,
        )
    else:
        verb = "would add" if dry_run else "added"
        out.print(
            f"{verb} {report.added}, skipped {report.skipped} already stored, "
            f"{report.invalid_count} invalid, {report.vectors} vectors reused",
            markup=False,
        )
    if report.fast_vectors:
        out.print(
            f"{report.fast_vectors} searchable by meaning through the fast model now; the "
            "default model's vectors follow, newest first: run `remem embed` (it shows "
            "progress and the time left; `remem stats` does too)",
            markup=False,
        )
    for number, error in report.invalid[:20]:
        err.print(f"{file}:{number}: {error}", markup=False)


@app.command("copy")
def copy_(
    source: Annotated[str, typer.Argument(help="the store to copy: a database file")],
    destination: Annotated[
        str, typer.Argument(help="where to copy it: a new database file (or a cut-short copy)")
    ],
    sample: Annotated[
        int, typer.Option(min=0, help="records compared field by field at the end")
    ] = 200,
    batch: Annotated[int, typer.Option(min=1, help="records per transaction")] = 500,
    as_json: JsonOption = False,
) -> None:
    """Copy a whole store into another one: records, sessions, every model's vectors.
    Streams a batch at a time; rerun the same command to resume a copy that was cut short.
    Ends by comparing counts per kind and per model, and a random sample field by field
    (exit 1 when anything differs)."""
    from remem.errors import NotFoundError, ValidationError
    from remem.text.tokenize import Tokenizer
    from remem.transfer import copy_store, open_location, store_name

    config = load_config()
    if store_name(source) == store_name(destination):
        fail("the source and the destination are the same store; give a new destination")
    try:
        src = open_location(source, must_exist=True, config=config.store)
    except ValidationError as exc:
        fail(f"source {source!r}: {exc.fix}")
    except NotFoundError as exc:
        fail(f"source: {exc}", NOT_FOUND)
    try:
        dst = open_location(destination, must_exist=False, config=config.store)
    except ValidationError as exc:
        src.close()
        fail(f"destination {destination!r}: {exc.fix}")
    try:
        total, done = src.count(), dst.count()
        with counting("copying", total, quiet=as_json, eta=True, rate=True) as progress:
            progress(done)  # what a cut-short run copied already
            report = copy_store(
                src,
                dst,
                tokenizer=Tokenizer.from_config(config.text),
                context_turns=config.text.context_turns,
                source_name=store_name(source),
                destination_name=store_name(destination),
                batch_size=batch,
                sample=sample,
                progress=progress,
            )
    except ValidationError as exc:
        fail(str(exc))
    finally:
        src.close()
        dst.close()
    if as_json:
        emit_json(report.to_dict())
    else:
        _print_copy(report)
    if not report.verified:
        raise typer.Exit(NOT_FOUND)


def _print_copy(report: CopyReport) -> None:
    start = f" (resumed after rowid {report.resumed_after})" if report.resumed_after else ""
    out.print(
        f"copied {report.copied} records and {report.vectors} vectors{start}",
        markup=False,
    )
    for name, (a, b) in report.counts.items():
        out.print(f"  {name}: {a} -> {b}", markup=False)
    verdict = "verified" if report.verified else f"{len(report.mismatches)} differences"
    out.print(f"sample of {report.sampled} records compared: {verdict}", markup=False)
    for problem in report.mismatches[:20]:
        err.print(problem, markup=False)
