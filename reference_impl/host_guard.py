"""A Host that no URL can hold is 400 on every surface, before any handler reads the URL.

Starlette builds `request.url` from the Host header, and `urlsplit` (Python 3.11.4+) raises
ValueError for a bracketed host that is not an IP address (`[:::]`, `[]`) or a lone bracket
(`[::1`, `::1]`): each handler that read `request.url.path` (the S3 error answer, the management
API's router, the edge surface) turned such a Host into a 500. RFC 9112 section 3.2: a server
MUST answer 400 to a request whose Host field value is invalid; the parser answers other
malformed requests the same plain way.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

BODY = b"Bad Request: the Host header is not a valid host (RFC 9112 section 3.2)\n"


@lru_cache(maxsize=256)  # clients send the same few Host values
def url_safe(host: bytes) -> bool:
    """Whether `http://<host>/` splits as a URL, as Starlette will split it."""
    try:
        urlsplit(f"http://{host.decode('latin-1')}/")
    except ValueError:
        return False
    return True


class RefuseUnsplittableHost:
    """ASGI wrapper: 400 (connection closed) for a Host that `request.url` would fail on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not all(
            url_safe(value) for name, value in scope["headers"] if name == b"host"
        ):
            headers = [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(BODY)).encode()),
                (b"connection", b"close"),
            ]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": BODY})
            return
        await self.app(scope, receive, send)
