"""Object bodies small enough to send whole: one ASGI message, no streaming task.

Why: a Starlette StreamingResponse starts an anyio task group per response (to watch for a
disconnect); for a 4 KiB GET that cost more CPU than the rest of the request (profile in
docs/benchmarks.md). A body of at most one read chunk is read at once and sent in one message.
It stays a StreamingResponse (its `body_iterator` yields the bytes once) so that code which
re-streams a response body, such as the public surface's gzip decoding, works unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send


class WholeBody(StreamingResponse):
    def __init__(self, body: bytes, status_code: int, headers: Mapping[str, str]) -> None:
        async def once() -> AsyncIterator[bytes]:
            yield body

        super().__init__(once(), status_code=status_code, headers=headers)
        self.whole = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.whole, "more_body": False})
        # no background task: the constructor takes none, so there is none to run


class ClosingStream(StreamingResponse):
    """A streamed body whose source is closed when the reply ends, however it ends.

    A dropped download cancels the send: without this the open blob (maybe already deleted,
    its space not yet freed) waited for the garbage collector to finalise the generator.
    """

    def __init__(
        self,
        content: AsyncIterator[bytes],
        close: Callable[[], None],
        status_code: int,
        headers: Mapping[str, str],
    ) -> None:
        super().__init__(content, status_code=status_code, headers=headers)
        self._close = close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._close()
