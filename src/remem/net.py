"""One JSON POST to a remote API, with remem's one-line errors (rerankers, chat endpoints).

The embedding provider keeps its own loop (key rotation, backoff on 429/5xx); callers here make
one attempt and fall back on failure, so any failure is an error of the caller's type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from remem.errors import RememError

if TYPE_CHECKING:  # httpx (~0.2 s to import) loads when a client is made, not on import
    import httpx


def post_json(
    client: httpx.Client,
    url: str,
    body: dict[str, Any],
    error: type[RememError],
    headers: dict[str, str] | None = None,
) -> Any:
    """The parsed JSON of a 200 answer; a transport failure, another status or a body that is
    not JSON raises ``error`` naming the URL and what went wrong."""
    import httpx

    try:
        response = client.post(url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        raise error(f"{url}: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise error(f"{url} answered HTTP {response.status_code}: {response.text[:200]}")
    try:
        return response.json()
    except ValueError:
        raise error(f"{url} answered 200 with a body that is not JSON") from None
