"""`remem memory ...`: curated memories as an agent sees them, through the same tools and
scope resolver an agent uses (recall, store, forget, list, stats, inject, capture, history,
undo)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from remem.cli.common import (
    FROM_OPTIONS,
    Identity,
    JsonOption,
    ScopeOption,
    add_time_column,
    emit_json,
    err,
    fail,
    fmt_time,
    new_table,
    open_memory,
    out,
    short,
    with_caller,
)
from remem.cli.exits import NOT_FOUND

if TYPE_CHECKING:
    from remem import Memory, Record

app = typer.Typer(
    help="Curated memories as an agent sees them (through the scope resolver).",
    no_args_is_help=True,
)


def _agent(mem: Memory, caller: Identity) -> str:
    from remem.access import Caller

    chosen = Caller.local(mem.config, caller.agent).agent
    if not chosen:
        fail("no agent identity: pass --agent or set scopes.agent (there is no shared default)")
    return chosen


def _tool(name: str, args: dict[str, Any], caller: Identity) -> dict[str, Any]:
    """Call one agent tool as that agent would (arguments left as None are not passed)."""
    with open_memory() as mem:
        return mem.tools(_agent(mem, caller), session=caller.session, user=caller.user).call(
            name, {k: v for k, v in args.items() if v is not None}
        )


def _print_memories(items: list[dict[str, Any]]) -> None:
    table = new_table()
    for col in ("id", "category", "scope", "text"):
        table.add_column(col)
    add_time_column(table, "created")
    for m in items:
        table.add_row(
            m["id"][:12],
            m["category"] or "-",
            m["scope"],
            short(m["text"], 70),
            fmt_time(m["created_at"]),
        )
    out.print(table)


@app.command("recall")
@with_caller
def memory_recall(
    query: str,
    caller: Identity = FROM_OPTIONS,
    scope: ScopeOption = None,
    limit: Annotated[int, typer.Option(help="at most this many")] = 5,
    as_json: JsonOption = False,
) -> None:
    """Search memories (an explicit recall: access counts grow)."""
    args = {"query": query, "limit": limit, "scope": scope}
    data = _tool("memory_recall", args, caller)
    if as_json:
        emit_json(data)
    elif not data["memories"]:
        out.print("nothing relevant")
    else:
        _print_memories(data["memories"])


@app.command("store")
@with_caller
def memory_store(
    text: str,
    caller: Identity = FROM_OPTIONS,
    scope: ScopeOption = None,
    category: Annotated[str, typer.Option(help="preference|fact|decision|entity|other")] = "fact",
    importance: Annotated[float, typer.Option(help="0-1")] = 0.7,
    as_json: JsonOption = False,
) -> None:
    """Store one memory (deduplicated; an update on the same subject replaces the older one)."""
    args = {"text": text, "category": category, "importance": importance, "scope": scope}
    data = _tool("memory_store", args, caller)
    if as_json:
        emit_json(data)
    if "rejected" in data:  # noise or meta-talk: nothing was done
        if not as_json:
            err.print(f"not stored: {data['rejected']}", markup=False)
        raise typer.Exit(NOT_FOUND)
    if as_json:
        return
    if data["stored"]:
        stored = data["memory"]
        replaced = f" (replaces {', '.join(data['replaced'])})" if data["replaced"] else ""
        out.print(f"stored {stored['id']} in {stored['scope']}{replaced}", markup=False)
    else:
        duplicate = data["duplicate_of"]["id"]
        out.print(f"already remembered as {duplicate} ({data['how']})", markup=False)


@app.command("forget")
@with_caller
def memory_forget(
    memory_id: Annotated[str | None, typer.Argument(help="the memory's id")] = None,
    query: Annotated[str | None, typer.Option("--query", help="or describe it")] = None,
    caller: Identity = FROM_OPTIONS,
    scope: ScopeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Forget one memory, by id or by a description that matches exactly one."""
    args = {"memory_id": memory_id, "query": query, "scope": scope}
    data = _tool("memory_forget", args, caller)
    if as_json:
        emit_json(data)
        return
    if data["forgotten"]:
        forgotten = data["forgotten"][0]
        out.print(f"forgot {forgotten['id']}: {forgotten['text']}", markup=False)
        return
    out.print(data["note"], markup=False)
    if data["candidates"]:
        _print_memories(data["candidates"])
    raise typer.Exit(NOT_FOUND)


@app.command("list")
@with_caller
def memory_list(
    caller: Identity = FROM_OPTIONS,
    scope: ScopeOption = None,
    category: Annotated[str | None, typer.Option()] = None,
    limit: Annotated[int, typer.Option()] = 20,
    offset: Annotated[int, typer.Option()] = 0,
    as_json: JsonOption = False,
) -> None:
    """Current memories, newest first."""
    args = {"scope": scope, "category": category, "limit": limit, "offset": offset}
    data = _tool("memory_list", args, caller)
    if as_json:
        emit_json(data)
        return
    _print_memories(data["memories"])
    out.print(f"{len(data['memories'])} of {data['total']}", markup=False)


@app.command("stats")
@with_caller
def memory_stats(
    caller: Identity = FROM_OPTIONS,
    scope: ScopeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Memories by category and scope."""
    data = _tool("memory_stats", {"scope": scope}, caller)
    if as_json:
        emit_json(data)
        return
    out.print(f"{data['total']} current, {data['superseded']} superseded", markup=False)
    described = data.get("definitions", {})
    for key in ("by_category", "by_scope"):
        for name, n in sorted(data[key].items()):
            about = f"  ({described[name]})" if key == "by_scope" and name in described else ""
            out.print(f"  {name}: {n}{about}", markup=False)


@app.command("inject")
@with_caller
def memory_inject(
    message: str,
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """What auto-recall would inject before an LLM call for this user message."""
    with open_memory() as mem:
        result = mem.recall_memories(
            message, agent=_agent(mem, caller), session=caller.session, user=caller.user
        )
    if as_json:
        emit_json(result.to_dict())
    elif result.block:
        out.print(result.block, markup=False, highlight=False)
    else:
        out.print(f"nothing injected: {result.skipped_reason}", markup=False)


@app.command("capture")
@with_caller
def memory_capture(
    texts: Annotated[list[str], typer.Argument(help="the turn's messages")],
    role: Annotated[str, typer.Option(help="user or assistant")] = "user",
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """Run auto-capture over a turn's messages and report what was kept and why not."""
    if role not in ("user", "assistant"):
        fail(f"invalid --role {role!r}; use user or assistant")
    messages: list[str | dict[Any, Any]] = [
        {"role": role, "text": t, "speaker_id": caller.user} for t in texts
    ]
    with open_memory() as mem:
        from remem import Turn

        turn = Turn(
            agent=_agent(mem, caller), session=caller.session, user_id=caller.user, inputs=messages
        )
        result = mem.capture_after_turn(turn)
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


def _readable(mem: Memory, caller: Identity, memory_id: str) -> Record:
    """The memory, if this agent may read it; otherwise not found (never "forbidden", which
    would confirm that it exists)."""
    from remem.access import ScopeGuard

    who = _agent(mem, caller)
    guard = ScopeGuard.for_agent(mem.config, who, session=caller.session, user=caller.user)
    rec = mem.get(memory_id)
    if rec is None or rec.kind != "memory":
        rec = None
    return guard.visible(rec, f"memory {memory_id!r} that agent {who!r} may see")


def _versions(
    caller: Identity, memory_id: str, as_json: bool, read: Callable[[Memory], list[Record]]
) -> list[Record]:
    """The versions ``read`` gives of a memory this agent may read, to print; with --json they
    are printed as JSON here and none are left to print."""
    with open_memory() as mem:
        _readable(mem, caller, memory_id)
        versions = read(mem)
    if as_json:
        emit_json([r.to_dict() for r in versions])
        return []
    return versions


@app.command("history")
@with_caller
def memory_history(
    memory_id: str,
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """Every version of a memory, oldest first (closed versions show when they ended)."""
    for r in _versions(caller, memory_id, as_json, lambda mem: mem.history(memory_id)):
        until = "current" if r.valid_to is None else f"until {fmt_time(r.valid_to)}"
        out.print(f"{r.id}  {fmt_time(r.created_at)}  {until}  {r.text}", markup=False)


@app.command("undo")
@with_caller
def memory_undo(
    memory_id: str,
    caller: Identity = FROM_OPTIONS,
    as_json: JsonOption = False,
) -> None:
    """Undo the update that replaced (or was made by) this memory."""
    for r in _versions(caller, memory_id, as_json, lambda mem: mem.undo(memory_id)):
        out.print(f"current again: {r.id} {r.text}", markup=False)


SUMMARY_PREFIX = "Summary of session "  # how remem.capture.summary starts every summary


@app.command("handoff")
@with_caller
def memory_handoff(
    caller: Identity = FROM_OPTIONS,
    limit: Annotated[int, typer.Option(help="at most this many other memories")] = 8,
    as_json: JsonOption = False,
) -> None:
    """What a new session should know from the earlier ones, as plain text: the newest
    session summary, then the newest other memories (a coding agent's session-start hook
    prints it into the agent's context). Prints nothing when there is nothing yet."""
    if not 0 <= limit <= 100:
        fail(f"invalid --limit {limit}; use 0 to 100")
    newest = _tool("memory_list", {"limit": 100}, caller)["memories"]
    summaries = [m for m in newest if m["text"].startswith(SUMMARY_PREFIX)]
    others = [m for m in newest if not m["text"].startswith(SUMMARY_PREFIX)][:limit]
    if as_json:
        emit_json({"summary": summaries[0] if summaries else None, "memories": others})
        return
    if not summaries and not others:
        return
    lines = ["<remem-handoff>"]
    if summaries:
        lines += [f"Last session: {summaries[0]['text'].removeprefix(SUMMARY_PREFIX)}"]
    if others:
        lines += ["What you remember (newest first):"]
        lines += [f"- [{m['category'] or 'other'}] {m['text']}" for m in others]
    lines += ["</remem-handoff>"]
    out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
