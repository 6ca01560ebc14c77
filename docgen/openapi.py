"""The OpenAPI schemas of remem's HTTP servers, built from the code without serving anything:
the REST API (`remem serve`) over a throwaway store, and the memory proxy (`remem proxy`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any


def schemas() -> dict[str, dict[str, Any]]:
    """{"rest": the REST API's schema, "proxy": the proxy's} (FastAPI's ``app.openapi()``)."""
    from remem import Config, Memory
    from remem.server.proxy import create_proxy
    from remem.server.rest import create_app

    config = Config.load(env={})
    config.embed.provider = "none"  # the schema needs no model
    with tempfile.TemporaryDirectory() as folder, Memory(Path(folder) / "x.db", config) as mem:
        rest = create_app(mem).openapi()
        proxy = create_proxy(mem, "http://127.0.0.1:9/v1").openapi()
    return {"rest": rest, "proxy": proxy}


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) of every route in the schema, in its order."""
    return [
        (method.upper(), path, op)
        for path, ops in schema.get("paths", {}).items()
        for method, op in ops.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
