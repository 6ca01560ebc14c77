"""Servers over one store: the MCP tools (mcp), the REST API (serve) and the
OpenAI-compatible proxy (proxy). Their modules are imported only when started: the REST API
and the proxy need the ``server`` extra."""

from __future__ import annotations

from typing import Annotated

import typer

from remem.cli.common import (
    AgentOption,
    SessionOption,
    UserOption,
    err,
    fail,
    load_config,
    open_memory,
)

app = typer.Typer()

HostOption = Annotated[str | None, typer.Option(help="default: server.host (127.0.0.1)")]
PortOption = Annotated[
    int | None, typer.Option(min=1, max=65535, help="default: server.port (8765)")
]


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        fail(f"invalid address {value!r}; use HOST:PORT, e.g. 127.0.0.1:8765")
    return host.strip("[]"), int(port)


def _check_port(host: str, port: int, instead: str) -> None:
    """Fail before the banner when another server holds the port (uvicorn would print the
    banner first, then "address already in use")."""
    import errno
    import socket

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        fail(f"cannot listen on {host!r}: {exc.strerror or exc}; give an address of this machine")
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
            fail(
                f"port {port} on {host} is already in use (another remem serve, proxy or "
                f"mcp?): {instead}"
            )


@app.command("mcp")
def mcp_command(
    http: Annotated[
        str | None,
        typer.Option("--http", help="serve streamable HTTP on HOST:PORT instead of stdio"),
    ] = None,
    agent: AgentOption = None,
    session: SessionOption = None,
    user: UserOption = None,
) -> None:
    """Serve the memory tools over MCP (stdio by default)."""
    import anyio

    from remem.access import Caller
    from remem.search.warm import warm_in_background
    from remem.server.identity import check_bind
    from remem.server.mcp_server import build_server, serve_http, serve_stdio

    config = load_config(long_lived=True)
    if http is not None:
        host, port = _host_port(http)
        check_bind(config, host)
        _check_port(host, port, "give another port, e.g. --http 127.0.0.1:8766")
    elif not Caller.local(config, agent).agent:
        fail("no agent identity: pass --agent or set scopes.agent")
    with open_memory(long_lived=True) as mem:
        server = build_server(mem, agent=agent, session=session, user=user)
        warm_in_background()
        if http is None:
            anyio.run(serve_stdio, server)
        else:
            err.print(f"remem MCP on http://{host}:{port}/mcp", markup=False)
            anyio.run(serve_http, server, host, port, config)


@app.command("serve")
def serve_command(host: HostOption = None, port: PortOption = None) -> None:
    """Serve the REST API (OpenAPI docs at /docs) and the web UI (/ui)."""
    try:
        import fastapi_offline  # noqa: F401  # the /docs assets (rest_docs.py)
        import uvicorn

        from remem.search.warm import warm_in_background
        from remem.server.identity import check_bind
        from remem.server.rest import create_app
    except ImportError:
        fail("the REST API needs its extra: pip install 'remem[server]'")
    config = load_config(long_lived=True)
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_bind(config, host)
    _check_port(host, port, f"pass --port, e.g. --port {port + 1}")
    with open_memory(long_lived=True) as mem:
        warm_in_background()
        err.print(
            f"remem REST API on http://{host}:{port} (docs: /docs, web UI: /ui)", markup=False
        )
        uvicorn.run(create_app(mem, host), host=host, port=port, log_level="warning")


@app.command("proxy")
def proxy_command(
    upstream: Annotated[
        str | None,
        typer.Option(help="the OpenAI-compatible API to forward to (default: server.upstream)"),
    ] = None,
    host: HostOption = None,
    port: PortOption = None,
    agent: AgentOption = None,
) -> None:
    """Serve /v1/chat/completions and /v1/models with memory, forwarding to an upstream API."""
    try:
        import uvicorn

        from remem.access import Caller
        from remem.search.warm import warm_in_background
        from remem.server.identity import check_bind
        from remem.server.proxy import create_proxy
    except ImportError:
        fail("the proxy needs its extra: pip install 'remem[server]'")
    overrides = {"scopes.agent": agent} if agent else {}
    config = load_config(long_lived=True, **overrides)
    target = upstream or config.server.upstream
    if not target or not target.startswith(("http://", "https://")):
        fail(f"invalid --upstream {target!r}; give the API root, e.g. https://api.openai.com/v1")
    if not config.server.tokens and not Caller.local(config).agent:
        fail("no agent identity: pass --agent, set scopes.agent, or configure server.tokens")
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_bind(config, host)
    _check_port(host, port, f"pass --port, e.g. --port {port + 1}")
    with open_memory(long_lived=True, **overrides) as mem:
        warm_in_background()
        err.print(f"remem proxy on http://{host}:{port}/v1 -> {target}", markup=False)
        uvicorn.run(create_proxy(mem, target, host=host), host=host, port=port, log_level="warning")
