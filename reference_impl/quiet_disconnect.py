"""A client that goes away mid-request costs one short log line at most, never a traceback.

Starlette raises `ClientDisconnect` from `request.stream()` when the connection drops (or the
listener times the body out) while a handler reads; uvicorn and hypercorn log any exception of
an ASGI app with its full traceback, so every dropped client wrote ~40 lines to the log: log
amplification at a client's will (issue 26, LOW). The request is over either way; nothing can
be answered on a closed connection.
"""

from __future__ import annotations

import logging

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

LOG = logging.getLogger("reference_impl.disconnect")


class QuietDisconnects:
    """ASGI wrapper: a `ClientDisconnect` out of the app ends the request with one INFO line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            if scope["type"] == "http":
                LOG.info(
                    "client gone during %s %s", scope.get("method"), scope.get("path", "")[:80]
                )
