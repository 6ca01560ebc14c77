"""REST routes over records: ingest, store, search, get, list, delete, stats, export."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from remem.capture.candidates import never_a_memory
from remem.errors import ValidationError
from remem.schemas import is_encodable, make_filters
from remem.server.rest_context import Caller, Requests, SearchBody
from remem.transfer import export_lines
from remem.types import Filters


def write_routes(r: Requests, api: APIRouter) -> None:
    """Ingest, store and delete, each checked against where the caller may write."""
    mem = r.mem

    @api.post("/v1/ingest", tags=["write"], status_code=201)
    def ingest(body: dict[str, Any] | list[dict[str, Any]], request: Request, c: Caller = r.who):
        """Archive chat messages (one object, or a list): committed before the answer."""
        items = body if isinstance(body, list) else body.get("messages", [body])
        if not isinstance(items, list) or not items:
            raise ValidationError("body", body, "send a message object or a list of them")
        checked = []
        for item in items:
            if isinstance(item, dict):  # each message under its own session's access
                session = item.get("session") if isinstance(item.get("session"), str) else None
                guard = r.writer(c, request, session)
                if guard.access is not None:  # an agent's go to its scope unless it names one
                    item = {"scope": guard.access.write_scope, **item}
                guard.check_new_record(item.get("id"), item.get("scope", "global"))
            checked.append(item)
        records = mem.ingest_many(checked)
        return {"ingested": [rec.to_dict() for rec in records]}

    @api.post("/v1/memories", tags=["write"], status_code=201)
    def add(body: dict[str, Any], request: Request, response: Response, c: Caller = r.who):
        """Store one curated memory, unless the same text (exact or normalised) is already a
        current memory of that scope: then 200 with that one and ``duplicate`` saying how."""
        text = body.get("text")
        if isinstance(text, str) and is_encodable(text) and (why := never_a_memory(text.strip())):
            # auto-capture's noise and meta-talk rules, as for the memory_store tool
            shown = ValidationError("text", text, f"not stored: {why}")
            return JSONResponse({"error": str(shown), "rejected": why}, status_code=400)
        fields = {k: v for k, v in body.items() if k != "text"}
        session = fields.get("session") if isinstance(fields.get("session"), str) else None
        guard = r.writer(c, request, session)
        if guard.access is not None:
            fields.setdefault("scope", guard.access.write_scope)
        guard.check_new_record(fields.get("id"), fields.get("scope", "global"))
        stored = mem.add(text, **fields)
        if stored.duplicate:
            response.status_code = 200
        return stored.to_dict()

    @api.delete("/v1/records/{record_id:path}", tags=["write"])
    def delete(record_id: str, c: Caller = r.who):
        """Delete one record (an id or a unique prefix of 8+ characters) the caller may
        write; one it may not read answers 404, like one that does not exist."""
        rec = r.visible(c, record_id)
        c.check_write(mem, rec.scope)
        return {"deleted": mem.delete(rec.id)}


def read_routes(r: Requests, api: APIRouter) -> None:
    """Search, get, list, stats and export, each limited to what the caller may read."""
    mem = r.mem

    @api.post("/v1/search", tags=["read"])
    def search(body: SearchBody, c: Caller = r.who):
        """Hybrid search through the whole pipeline; ``explain`` adds every stage's score and
        the candidates that were dropped."""
        r.check_k(body.k)
        filters = dict(body.filters)
        requested = filters.pop("scope", None) or filters.pop("scopes", None)
        result = mem.search(
            body.query,
            k=body.k,
            filters=r.scoped(c, filters, requested),
            now=body.now,
            timezone=body.timezone,
        )
        return result.to_dict(explain=body.explain)

    @api.get("/v1/records/{record_id:path}", tags=["read"])
    def get(record_id: str, c: Caller = r.who):
        """One record (an id or a unique prefix of 8+ characters) the caller may read."""
        return r.visible(c, record_id).to_dict()

    @api.get("/v1/records", tags=["read"])
    def list_records(
        kind: str | None = None,
        scope: str | None = None,
        session: str | None = None,
        limit: int = 50,
        offset: int = 0,
        c: Caller = r.who,
    ):
        """Records the caller may read, newest first, filtered by kind, scope and session;
        `limit` is capped by `server.max_k`."""
        r.check_k(limit)
        if offset < 0:
            raise ValidationError("offset", offset, "use 0 or more")
        filters = r.scoped(c, {"kind": kind, "session": session}, scope)
        return {"records": [rec.to_dict() for rec in mem.list(filters, limit=limit, offset=offset)]}

    @api.get("/v1/stats", tags=["read"])
    def stats(c: Caller = r.who):
        """Counts: the whole store's statistics for the local operator; for a token's agent,
        the records of the scopes it may read and its memory statistics."""
        if not c.restricted:
            return mem.stats()
        scopes = c.scopes(mem)
        return {
            "records": mem.store.count(Filters(scopes=scopes)),
            "scopes": scopes,
            "memories": mem.tools(c.agent).call("memory_stats", {}),
        }

    @api.get("/v1/export", tags=["read"])
    def export(
        kind: str | None = None,
        scope: str | None = None,
        with_vectors: bool = False,
        c: Caller = r.who,
    ) -> StreamingResponse:
        """Every visible record as JSONL (streamed; no limit)."""
        parsed = make_filters(r.scoped(c, {"kind": kind}, scope))

        def lines() -> Iterator[str]:
            for page in export_lines(mem, filters=parsed, with_vectors=with_vectors):
                yield "".join(page)

        return StreamingResponse(lines(), media_type="application/x-ndjson")
