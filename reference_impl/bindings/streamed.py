"""A `get` reply whose body is streamed: JSON around base64 made one stored chunk at a time.

`{"result": {..., "body": "<base64>"}}` used to be built whole: the body joined, encoded,
decoded to text and serialised, ~4 copies (a 200 MiB object raised memory by 777 MiB). The
object's fields are serialised first, then the body is read and encoded chunk by chunk (each
cut to a multiple of 3 bytes, so the pieces join into one valid base64 text), with the
client's backpressure awaited between chunks (docs/architecture.md, "Bounded work per request").
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from starlette.responses import StreamingResponse

from reference_impl.storage.direct import DirectReader
from reference_impl.wire.s3.bodies import ClosingStream


class StreamedBody:
    """The chunks of an object's body, standing in `doc["body"]` until the reply is made."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.chunks = chunks

    def close(self) -> None:
        close: Callable[[], None] | None = getattr(self.chunks, "close", None)
        if close is not None:
            close()


def streamed_reply(doc: dict[str, Any]) -> StreamingResponse | None:
    """The reply for a result holding a StreamedBody (None: an ordinary result)."""
    body = doc.get("body")
    if not isinstance(body, StreamedBody):
        return None
    fields = {k: v for k, v in doc.items() if k != "body"}
    head = json.dumps({"result": fields}, ensure_ascii=False, separators=(",", ":"))
    assert head.endswith("}}")
    prefix = (head[:-2] + (',"body":"' if fields else '"body":"')).encode()

    async def pieces() -> AsyncIterator[bytes]:
        yield prefix
        carry = b""
        async for chunk in _chunks(body.chunks):
            data = carry + chunk
            cut = len(data) - len(data) % 3
            carry = data[cut:]
            if cut:
                yield base64.b64encode(data[:cut])
            await asyncio.sleep(0)  # a reader keeping up never makes the send wait
        yield base64.b64encode(carry) + b'"}}'

    return ClosingStream(
        pieces(), body.close, status_code=200, headers={"Content-Type": "application/json"}
    )


async def _chunks(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    if isinstance(chunks, DirectReader):  # a large blob: each read awaited on the read pool
        async for piece in chunks:
            yield piece
        return
    for piece in chunks:
        yield piece
