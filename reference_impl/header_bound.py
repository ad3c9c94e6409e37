"""Answer 431 to a request whose header block, once parsed, is past `max_header_bytes`.

The listeners count header bytes as they arrive (`guarded_http.py`; h11's incomplete-event
bound and h2's header-list bound on the TLS public listener), which stops a header that never
ends. A header block that arrives whole in one read was never counted: uvicorn's reads are up
to 256 KiB and hypercorn's 64 KiB, so `X-Big: <20 KB>` sent at once was served on every
listener while the same bytes sent in three writes were 431 (hostile round 12). The profile
says "past it the request is answered 431"; this wrapper makes that hold whatever the
segmentation, from what the parser handed over: the request-target plus every header line.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from reference_impl.plain_close import send_plain_close

LINE_OVERHEAD = 4  # ": " and CRLF of a header line; the request line's method and version left
# out, so the count errs low by those few bytes, as guarded_http's does


def header_block_bytes(scope: Scope) -> int:
    """Bytes of the request-target and header lines, as the client sent them (at least)."""
    size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    return size + sum(len(name) + len(value) + LINE_OVERHEAD for name, value in scope["headers"])


class BoundHeaderBlock:
    """ASGI wrapper: 431 (connection closed, body unread) past `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or header_block_bytes(scope) <= self.max_bytes:
            await self.app(scope, receive, send)
            return
        body = f"request header block over {self.max_bytes} bytes\n".encode()
        await send_plain_close(send, 431, body)
