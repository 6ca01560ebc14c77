"""``remem distill``: coding-agent session logs (Claude Code, OpenClaw) into the store,
incrementally, from cron or in ``--watch`` mode."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from remem.cli.common import (
    AgentOption,
    JsonOption,
    NoEmbedOption,
    UserOption,
    counting,
    emit_json,
    err,
    fail,
    open_memory,
    out,
)

if TYPE_CHECKING:
    from remem import Memory
    from remem.transfer.distill import DistillReport

app = typer.Typer()


@app.command()
def distill(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="session logs (*.jsonl) or folders of them, e.g. ~/.claude/projects",
            show_default=False,
        ),
    ],
    agent: AgentOption = None,
    user: UserOption = None,
    no_capture: Annotated[
        bool, typer.Option("--no-capture", help="only archive the messages, capture nothing")
    ] = False,
    no_embed: NoEmbedOption = False,
    summarize: Annotated[
        bool,
        typer.Option(
            "--summarize",
            help="then store a summary memory of each session that got new messages "
            "(what a session reset stores; for a hook at a session's end)",
        ),
    ] = False,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="keep polling for new lines until Ctrl-C (no --summarize)"),
    ] = False,
    interval: Annotated[
        float, typer.Option("--interval", help="--watch: seconds between polls", min=0.05)
    ] = 2.0,
    as_json: JsonOption = False,
) -> None:
    """Archive the new lines of session logs and capture memories from them (auto-capture's
    rules). Each file is read from where the last run stopped (a cursor in the store), so
    it is safe from cron and after a crash: no line is archived twice. A malformed line is
    reported with its file and line number, and skipped."""
    from remem.transfer.distill import log_files, summarize_sessions

    missing = [str(p) for p in paths if not p.expanduser().exists()]
    if missing:
        fail(f"{missing[0]!r} does not exist; give session log files (*.jsonl) or folders")
    if watch and summarize:
        fail("--summarize ends a session: run it once at the session's end, not with --watch")
    overrides = {"capture.session_summary": True} if summarize else {}
    with open_memory(long_lived=watch, **overrides) as mem:
        from remem.access import Caller

        agent = Caller.local(mem.config, agent).agent
        if not agent and (summarize or not no_capture):
            fail("no agent identity: pass --agent, set scopes.agent, or --no-capture")
        agent = agent or "distill"  # --no-capture: no memory is written in its name
        mem.scope_access(agent, user=user)  # a bad identity stops the run before any line
        if not watch:
            report = _run_once(
                mem, log_files(paths), agent, user, not no_capture, not no_embed, as_json
            )
            if summarize:
                summarize_sessions(mem, report, agent=agent, user=user)
            _print_report(report, as_json, quiet_when_empty=False)
            return
        stop = threading.Event()
        try:
            while True:  # folders are listed again on every poll: new sessions join
                files = log_files(paths)
                report = _run_once(mem, files, agent, user, not no_capture, not no_embed, as_json)
                if report.total("lines") or report.errors:
                    _print_report(report, as_json, quiet_when_empty=True)
                stop.wait(interval)
        except KeyboardInterrupt:  # every finished batch and its cursor are saved already
            err.print("stopped", markup=False)


def _run_once(
    mem: Memory,
    files: list[Path],
    agent: str,
    user: str | None,
    capture: bool,
    embed: bool,
    as_json: bool,
) -> DistillReport:
    from remem.transfer.distill import DistillReport, distill_file, pending_bytes

    report = DistillReport()
    total = pending_bytes(mem, files)
    with counting("distilling (bytes)", total, quiet=as_json or not total) as progress:
        for path in files:
            report.files.append(
                distill_file(
                    mem,
                    path,
                    agent=agent,
                    user=user,
                    embed=embed,
                    capture=capture,
                    progress=progress,
                )
            )
    return report


def _print_report(report: DistillReport, as_json: bool, *, quiet_when_empty: bool) -> None:
    for line in report.errors:
        err.print(f"warning: {line}", markup=False, highlight=False)
    if as_json:
        emit_json(report.to_dict())
        return
    for f in report.files:
        if quiet_when_empty and not f.lines:
            continue
        again = f" (started over: {f.restarted})" if f.restarted else ""
        out.print(
            f"{f.path}: {f.lines} new lines, archived {f.archived}, captured {f.captured}{again}",
            markup=False,
        )
    if not quiet_when_empty:
        out.print(
            f"{len(report.files)} files: archived {report.total('archived')} messages, "
            f"captured {report.total('captured')} memories, {len(report.summaries)} session "
            f"summaries, {len(report.errors)} bad lines",
            markup=False,
        )
