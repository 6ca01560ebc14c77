"""Memories: listing, one memory with its history, edit as a new version, undo, delete with confirmation, bulk delete with a dry run."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse

from remem.access import ScopeError
from remem.errors import ValidationError
from remem.server.rest_context import Caller
from remem.server.ui import actions, queries
from remem.server.ui.context import (
    PAGE,
    PREFIX,
    UI,
    _as_json_number,
)


def routes(ui: UI, router: APIRouter) -> None:
    _reading(ui, router)
    _changing(ui, router)
    _bulk(ui, router)


def _reading(ui: UI, router: APIRouter) -> None:
    """The memory listing and one memory with its history."""
    mem = ui.mem

    @router.get("/memories", response_class=HTMLResponse)
    def memories(
        request: Request,
        scope: str = "",
        category: str = "",
        state: str = "current",
        offset: int = Query(0, ge=0),
        c: Caller = ui.who,
    ):
        if state not in queries.MEMORY_STATES:
            raise ValidationError("state", state, "use current, superseded or all")
        scopes = c.scopes(mem, scope or None)
        found = queries.memory_page(
            mem, scopes, category=category or None, state=state, offset=offset, limit=PAGE
        )
        return ui.page(
            request,
            "memories.html",
            c,
            rows=found.records,
            more=found.more,
            total=found.total,
            offset=offset,
            page_size=PAGE,
            scope=scope,
            category=category,
            state=state,
            scope_choices=_scope_choices(ui, c),
            categories=queries.categories(mem, c.scopes(mem)),
        )

    @router.get("/memory/{memory_id:path}", response_class=HTMLResponse)
    def memory(request: Request, memory_id: str, c: Caller = ui.who):
        rec = actions.visible_memory(mem, c, memory_id)
        chain = actions.history(mem, c, memory_id)
        sources = c.guard(mem).filter(mem.get(i) for i in rec.source_ids)
        return ui.page(
            request,
            "memory.html",
            c,
            rec=rec,
            chain=chain,
            sources=sources,
            scope_choices=_scope_choices(ui, c),
        )


def _changing(ui: UI, router: APIRouter) -> None:
    """Edit as a new version, undo, delete with confirmation, bulk delete with a dry run."""
    mem = ui.mem

    @router.post("/edit/{memory_id:path}")
    def edit(
        request: Request,
        memory_id: str,
        text: str = Form(""),
        scope: str = Form(""),
        importance: str = Form(""),
        category: str = Form(""),
        c: Caller = ui.who,
    ):
        ui.check_origin(request)
        try:
            new = actions.edit(
                mem,
                c,
                memory_id,
                text=text,
                scope=scope or None,
                importance=_as_json_number(importance),
                category=category or None,
            )
        except (ValidationError, ScopeError) as exc:
            rec = actions.visible_memory(mem, c, memory_id)
            return ui.page(
                request,
                "memory.html",
                c,
                status=400 if isinstance(exc, ValidationError) else 403,
                rec=rec,
                chain=actions.history(mem, c, memory_id),
                sources=[],
                scope_choices=_scope_choices(ui, c),
                error=str(exc),
                form={"text": text, "scope": scope, "importance": importance, "category": category},
            )
        ui.changed(c, "edit", [memory_id, new.id])
        return ui.back(f"{PREFIX}/memory/{quote(new.id, safe='')}", done="mem.edited")

    @router.post("/undo/{memory_id:path}")
    def undo(request: Request, memory_id: str, c: Caller = ui.who):
        ui.check_origin(request)
        restored = actions.undo(mem, c, memory_id)
        ui.changed(c, "undo", [memory_id, *[r.id for r in restored]])
        target = restored[0].id if restored else memory_id
        return ui.back(f"{PREFIX}/memory/{quote(target, safe='')}", done="mem.undo_done")

    @router.get("/delete/{record_id:path}", response_class=HTMLResponse)
    def confirm_delete(request: Request, record_id: str, c: Caller = ui.who):
        rec = actions.visible(mem, c, record_id)
        return ui.page(request, "confirm_delete.html", c, rec=rec)

    @router.post("/delete/{record_id:path}")
    def delete(request: Request, record_id: str, confirm: str = Form(""), c: Caller = ui.who):
        ui.check_origin(request)
        if confirm != "yes":
            return ui.back(f"{PREFIX}/delete/{quote(record_id, safe='')}")
        rec = actions.delete(mem, c, record_id)
        ui.changed(c, "delete", [rec.id], kind=rec.kind, scope=rec.scope)
        if rec.kind == "message" and rec.session:
            return ui.back(f"{PREFIX}/session", s=rec.session, done="mem.deleted")
        return ui.back(f"{PREFIX}/memories", done="mem.deleted")


def _bulk(ui: UI, router: APIRouter) -> None:
    """Bulk delete: a dry run lists what would go, then a confirmed run deletes it."""
    mem = ui.mem

    @router.post("/bulk-delete", response_class=HTMLResponse)
    def bulk_delete(
        request: Request,
        scope: str = Form(""),
        category: str = Form(""),
        state: str = Form("current"),
        confirm: str = Form(""),
        expected: int = Form(-1),
        c: Caller = ui.who,
    ):
        """First a dry run (what would go), then the delete; refused if the set changed."""
        ui.check_origin(request)
        if state not in queries.MEMORY_STATES:
            raise ValidationError("state", state, "use current, superseded or all")
        scopes = c.scopes(mem, scope or None)
        filters = queries.memory_filters(scopes, category or None, state)
        ids = queries.memory_ids(mem, filters, state)
        if confirm == "yes" and expected == len(ids):
            n = actions.delete_many(mem, c, ids)
            ui.changed(
                c, "bulk-delete", ids, scope=scope or None, category=category or None, state=state
            )
            return ui.back(f"{PREFIX}/memories", done="confirm.deleted_many", n=n)
        sample = [r for r in (mem.get(i) for i in ids[:10]) if r is not None]
        return ui.page(
            request,
            "confirm_bulk.html",
            c,
            count=len(ids),
            sample=sample,
            scope=scope,
            category=category,
            state=state,
            changed=(expected, len(ids)) if confirm == "yes" else None,
        )


def _scope_choices(ui: UI, c: Caller) -> list[str]:
    """The scopes a form may offer: the caller's, or every scope in use for the operator."""
    scopes = c.scopes(ui.mem)
    return scopes if scopes is not None else queries.scopes_in_use(ui.mem)
