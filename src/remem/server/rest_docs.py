"""The REST API's HTML docs (Swagger UI at /docs, ReDoc at /redoc) from files on this machine:
FastAPI's own pages load their scripts from a CDN, which an offline install cannot reach. The
assets ship in the ``fastapi-offline`` package (Swagger UI, ReDoc and the favicon); only its
static files are used. Each page carries a CSP that allows exactly its inline script (by hash)
and no framing."""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs/static"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def _policy(html: str) -> str:
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in _INLINE_SCRIPT.findall(html)
    )
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    )


def _with_policy(page: HTMLResponse) -> HTMLResponse:
    html = bytes(page.body).decode()
    page.headers["content-security-policy"] = _policy(html)
    return page


def mount_docs(app: FastAPI) -> None:
    """/docs and /redoc on an app made with ``docs_url=None, redoc_url=None``."""
    app.mount(ASSETS, StaticFiles(packages=[("fastapi_offline", "static")]), name="docs-static")
    title = app.title

    def under_root(request: Request) -> tuple[str, str]:
        """The schema's URL and the assets' folder, under the root path a proxy serves at."""
        root = request.scope.get("root_path", "")
        return f"{root}{app.openapi_url}", f"{root}{ASSETS}"

    @app.get("/docs", include_in_schema=False)
    def swagger(request: Request) -> HTMLResponse:
        schema, assets = under_root(request)
        return _with_policy(
            get_swagger_ui_html(
                openapi_url=schema,
                title=f"{title} - Swagger UI",
                swagger_js_url=f"{assets}/swagger-ui-bundle.js",
                swagger_css_url=f"{assets}/swagger-ui.css",
                swagger_favicon_url=f"{assets}/favicon.png",
            )
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        schema, assets = under_root(request)
        return _with_policy(
            get_redoc_html(
                openapi_url=schema,
                title=f"{title} - ReDoc",
                redoc_js_url=f"{assets}/redoc.standalone.js",
                redoc_favicon_url=f"{assets}/favicon.png",
                with_google_fonts=False,
            )
        )
