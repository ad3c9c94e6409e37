"""Close the connection when an answer goes out before a `100-continue` body was asked for.

A client that sent `Expect: 100-continue` and gets a final answer instead of `100 Continue`
does not send its body. uvicorn (httptools) writes `100 Continue` on the app's first
`receive()`; an app that answers without calling it (404 NoSuchBucket, 412, NoSuchUpload,
401) would leave the parser waiting for a body that never comes, and the next request's
bytes read as that body turn into `400 Invalid HTTP request`. Saying `Connection: close`
keeps both ends in step: uvicorn then closes after the answer and the client reconnects.
Requests without the expectation send their body anyway, and the parser skips it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLOSE = (b"connection", b"close")


def _expects_continue(scope: Scope) -> bool:
    if scope.get("http_version") not in ("1.1", "1.0"):  # HTTP/2 has no such desync
        return False
    for name, value in scope["headers"]:
        if name == b"expect" and value.lower() == b"100-continue":
            return True
    return False


class CloseUnreadBodies:
    """ASGI wrapper: `Connection: close` on an answer started before any `receive()`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _expects_continue(scope):
            await self.app(scope, receive, send)  # the common case costs one header scan
            return
        asked = False

        async def tracked_receive() -> Message:
            nonlocal asked
            asked = True
            return await receive()

        async def guarded_send(message: Message) -> None:
            if message["type"] == "http.response.start" and not asked:
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
                message = {**message, "headers": [*headers, CLOSE]}
            await send(message)

        await self.app(scope, tracked_receive, guarded_send)
