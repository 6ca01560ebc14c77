"""Moving records in and out: migrate (from LanceDB), export and import (JSONL)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from remem.cli.common import (
    JsonOption,
    emit_json,
    err,
    fail,
    open_existing_memory,
    open_memory,
    out,
    read_lines,
)

if TYPE_CHECKING:  # imported when a command runs, not for `remem --help`
    from remem import lancedb_import as lancedb_migration

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
        raise typer.Exit(1)


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
    scope: Annotated[str | None, typer.Option(help="only this scope")] = None,
    kind: Annotated[str | None, typer.Option(help="message or memory")] = None,
    with_vectors: Annotated[
        bool, typer.Option("--with-vectors", help="include vectors (base64 float32)")
    ] = False,
) -> None:
    """Write every record as JSONL (no limit). Re-import with `remem import`."""
    from remem.transfer import export_file, export_records

    filters = {"scope": scope, "kind": kind}
    if output is not None and output.is_dir():
        fail(f"--output {str(output)!r} is a directory; give a file path")
    with open_existing_memory() as mem:
        if output is None:
            n = export_records(mem, sys.stdout, filters=filters, with_vectors=with_vectors)
        else:
            try:
                n = export_file(mem, output, filters=filters, with_vectors=with_vectors)
            except OSError as exc:
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
    lines = read_lines(file, "a JSONL file from `remem export`")
    with open_memory() as mem:
        report = import_records(
            mem, lines, scope=scope, dry_run=dry_run, unlabelled_vectors=unlabelled_vectors
        )
    if as_json:
        emit_json(report.to_dict())
    else:
        verb = "would add" if dry_run else "added"
        out.print(
            f"{verb} {report.added}, skipped {report.skipped} already stored, "
            f"{len(report.invalid)} invalid, {report.vectors} vectors reused",
            markup=False,
        )
        for number, error in report.invalid[:20]:
            err.print(f"{file}:{number}: {error}", markup=False)
    if report.invalid:
        raise typer.Exit(1)
