"""A cap on requests in flight on the TLS public listener (hypercorn has no connection cap).

uvicorn's listeners answer 503 past `max_connections` (its `limit_concurrency`); hypercorn has
no such bound, and each HTTP/2 stream of a client that does not read holds about two 256 KiB
chunks of its reply (`h2_buffer.py`), so sixty anonymous connections of 16 streams held 530 MiB
(fresh adversarial pass, issue 26). The same number bounds requests in flight here.
"""

from __future__ import annotations

from typing import Any

Scope = dict[str, Any]
BUSY = b"Service Unavailable: too many requests in flight\n"


class InFlightLimit:
    """ASGI wrapper: at most `limit` HTTP requests running; past it 503 at once."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = max(int(limit), 1)
        self.running = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.running >= self.limit:
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"text/plain"),
                                    (b"content-length", str(len(BUSY)).encode())]})  # fmt: skip
            await send({"type": "http.response.body", "body": BUSY})
            return
        self.running += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.running -= 1
