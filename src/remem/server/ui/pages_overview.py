"""The overview (counts, index status, backfill, chart) and the conversations pages."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from remem.errors import NotFoundError
from remem.server.rest_context import Caller
from remem.server.ui import actions, queries
from remem.server.ui.charts import timeline_chart
from remem.server.ui.context import (
    PAGE,
    PREFIX,
    UI,
)


def routes(ui: UI, router: APIRouter) -> None:
    mem = ui.mem

    # ------------------------------------------------------------------ overview
    @router.get("", response_class=HTMLResponse)
    def overview(request: Request, c: Caller = ui.who):
        scopes = c.scopes(mem)
        data = queries.overview(mem, scopes)
        live = mem.indexer.queue_stats()  # the store-wide stats() would scan the whole store
        dropped = int(mem.store.meta_get("indexing", "dropped") or 0)
        return ui.page(
            request,
            "overview.html",
            c,
            data=data,
            chart=timeline_chart(data.per_day),
            size=queries.store_size(mem),
            dropped=dropped,
            queue=live,
            backfill=ui.backfill,
            backlog=queries.background_backlog(mem, data.index_status.get("pending", 0)),
        )

    @router.post("/backfill")
    def run_backfill(request: Request, c: Caller = ui.who):
        ui.check_origin(request)
        if ui.backfill.start(mem):
            ui.audit.record(c.agent, "backfill")
        return ui.back(PREFIX, done="overview.backfill_started")

    # ------------------------------------------------------------------ conversations
    @router.get("/conversations", response_class=HTMLResponse)
    def conversations(request: Request, c: Caller = ui.who):
        groups = queries.session_groups(mem, c.scopes(mem))
        return ui.page(request, "conversations.html", c, groups=groups)

    @router.get("/session", response_class=HTMLResponse)
    def session(
        request: Request,
        s: str = Query(min_length=1),
        offset: int = Query(0, ge=0),
        at: str | None = None,
        c: Caller = ui.who,
    ):
        scopes = c.scopes(mem)
        records, total = queries.session_page(mem, scopes, s, offset=offset, limit=PAGE)
        if total == 0:
            raise NotFoundError(f"no session {s!r}")  # the same for one the caller cannot read
        return ui.page(
            request,
            "session.html",
            c,
            session=s,
            records=records,
            total=total,
            offset=offset,
            page_size=PAGE,
            at=at,
        )

    @router.get("/record/{record_id:path}")
    def jump(record_id: str, c: Caller = ui.who):
        """Any hit's place: a message in its conversation, a memory on its own page."""
        rec = actions.visible(mem, c, record_id)
        if rec.kind == "memory" or not rec.session:
            return ui.back(f"{PREFIX}/memory/{quote(rec.id, safe='')}")
        offset = queries.offset_of(mem, c.scopes(mem), rec, PAGE)
        url = f"{PREFIX}/session?" + urlencode({"s": rec.session, "offset": offset, "at": rec.id})
        return RedirectResponse(f"{url}#r-{quote(rec.id, safe='')}", status_code=303)
