"""`remem facts ...`: what is known about whom, and since when (issue 48).

``remem facts [SUBJECT]`` shows the facts (a table: subject, attribute, value, since, until,
sources; closed values marked), ``remem facts rebuild`` derives them again from the records,
``remem facts correct`` corrects one by hand (a curated memory: `remem memory undo` reverses
it). A first word that is not a subcommand is the subject: ``remem facts Tom``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from remem.cli.common import (
    FROM_OPTIONS,
    Identity,
    JsonOption,
    ScopeOption,
    counting,
    emit_json,
    new_table,
    new_text,
    open_existing_memory,
    open_memory,
    out,
    short,
    with_caller,
)

if TYPE_CHECKING:
    from remem import Memory


class ShowByDefault(TyperGroup):
    """A group whose first word, when it names no subcommand, is the ``show`` command's
    subject: ``remem facts Tom`` is ``remem facts show Tom``; ``remem facts`` alone shows
    every subject's facts."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click Context
        first = args[0] if args else None
        if first not in self.commands and first not in ("--help", "-h"):
            args = ["show", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=ShowByDefault,
    help="What is known about whom, and since when (derived from what was said).",
)


def _identity(caller: Identity) -> dict[str, Any]:
    """As an agent sees them (its scopes) when --agent is given; else the local operator."""
    if caller.agent is None:
        return {}
    return {"agent": caller.agent, "session": caller.session, "user": caller.user}


def _print_facts(facts: list[dict[str, Any]]) -> None:
    if not facts:
        out.print("nothing known")
        return
    table = new_table()
    for col in ("subject", "attribute", "value", "since", "until", "sources"):
        table.add_column(col)
    for f in facts:
        value = f["value"] if f["current"] else f"{f['value']} (closed)"
        style = None if f["current"] else "dim"
        table.add_row(
            new_text(f["subject_name"]),
            f["attribute"] + (" (by hand)" if f["origin"] == "manual" else ""),
            new_text(short(value, 50)),
            f["since"] or "-",
            f["until"] or "now",
            ", ".join(i[:8] for i in f["source_ids"]),
            style=style,
        )
    out.print(table)


def _views(mem: Memory, facts: list[Any]) -> list[dict[str, Any]]:
    from remem.facts.query import fact_view

    zone = mem.config.calendar.zone()
    return [fact_view(f, zone) for f in facts]


@app.command("show")
@with_caller
def facts_show(
    subject: Annotated[str | None, typer.Argument(help="a name (Tom, 汤姆) or subject key")] = None,
    at: Annotated[str | None, typer.Option("--at", help="as of this date (ISO)")] = None,
    history: Annotated[
        bool, typer.Option("--history", help="also the values that no longer hold")
    ] = False,
    attribute: Annotated[
        str | None, typer.Option("--attribute", help="only this one (lives_in ...)")
    ] = None,
    scope: ScopeOption = None,
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """What is known now (or --at a date); --history shows closed values too."""
    with open_existing_memory() as mem:
        found = mem.facts(
            subject,
            at=at,
            attribute=attribute,
            history=history,
            scope=scope,
            **_identity(caller),
        )
        views = _views(mem, found)
    if as_json:
        emit_json({"facts": views})
    else:
        _print_facts(views)


@app.command("rebuild")
def facts_rebuild(
    scope: Annotated[
        list[str] | None, typer.Option("--scope", help="only these scopes (repeatable)")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Derive every fact again from the records (after an extractor or model change)."""
    with open_existing_memory() as mem:
        total = None if scope else mem.count()  # a bar to the end only for the whole store
        with counting("records", total, quiet=as_json) as advance:
            summary = mem.rebuild_facts(scope or None, progress=advance)
    if as_json:
        emit_json(summary.to_dict())
    else:
        out.print(
            f"{summary.facts} facts from {summary.statements} statements in "
            f"{summary.records} records ({len(summary.scopes)} scopes; "
            f"{summary.removed} facts replaced)"
        )


@app.command("correct")
@with_caller
def facts_correct(
    subject: Annotated[str, typer.Argument(help="a name (Tom) or subject key")],
    attribute: Annotated[str, typer.Argument(help="lives_in, works_at, family.sister ...")],
    value: Annotated[str | None, typer.Argument(help="the value that holds from now on")] = None,
    close: Annotated[
        bool, typer.Option("--close", help="end the current value (VALUE: which one)")
    ] = False,
    note: Annotated[str | None, typer.Option("--note", help="why, for the audit")] = None,
    scope: ScopeOption = None,
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """Correct a fact by hand (a curated memory: `remem memory undo ID` reverses it)."""
    with open_memory() as mem:
        done = mem.correct_fact(
            subject,
            attribute,
            value,
            close=close,
            note=note,
            scope=scope,
            **_identity(caller),
        )
        view = done.view(mem.config.calendar.zone())
    if as_json:
        emit_json(view)
        return
    if done.memory is None:
        out.print("the same correction is already current; nothing stored")
    else:
        memory_id = done.memory.id
        out.print(f"stored correction {memory_id} (undo: remem memory undo {memory_id})")
    _print_facts(view["facts"])
