"""Content-Encoding of public reads: a gzip-stored object and the client's Accept-Encoding.

The object is stored as uploaded (gzip bytes, `Content-Encoding: gzip` in its HTTP metadata).
- `Accept-Encoding` accepting gzip: the stored bytes with `Content-Encoding: gzip` (the rule).
- no `Accept-Encoding` at all: the same, since RFC 9110 12.5.3 makes every coding acceptable.
- `Accept-Encoding` present but refusing gzip (`identity`, `gzip;q=0`, ...): the reference
  decompresses while streaming and drops Content-Encoding and Content-Length; a Range is then
  ignored (200, the whole decoded body), which RFC 9110 14.2 allows, because ranges of the
  stored bytes mean nothing to a client that cannot decode them. Every gzip member is decoded
  (RFC 1952 2.2: a file is a series of members).

Decoding is bounded work (docs/architecture.md, "Bounded work per request"): a 1 MB gzip can
hold gigabytes of zeros, so no call inflates more than `OUT_CHUNK` bytes, each piece is sent
(and the client's backpressure awaited) before the next is made, and a client that goes away
stops the decoding and closes the stored blob.

Bytes labelled gzip that do not decode: when the head already fails, `406 Not Acceptable`
(RFC 9110 15.5.7: no representation the client accepts; the stored bytes stay available with
`Accept-Encoding: gzip`); when a later part fails, the body has started, so the connection is
closed without the chunked terminator: the client sees an incomplete body, never a short 200.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator

from starlette.responses import Response, StreamingResponse
from starlette.types import Send

GZIP_NAMES = frozenset({"gzip", "x-gzip"})
OUT_CHUNK = 64 * 1024  # most bytes one inflate call may produce
NOT_DECODABLE = (
    "The object is stored with Content-Encoding: gzip but its bytes are not valid gzip; "
    "request it with Accept-Encoding: gzip to get the stored bytes.\n"
)


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding value (None: absent) admits gzip."""
    if header is None:
        return True
    best: float | None = None
    star: float | None = None
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        name = name.strip().lower()
        if name in GZIP_NAMES:
            best = quality if best is None else max(best, quality)
        elif name == "*":
            star = quality
    chosen = best if best is not None else star
    return chosen is not None and chosen > 0


def is_gzip_coding(codings: str | None) -> bool:
    """Whether a Content-Encoding value is gzip alone, in any case or as x-gzip (RFC 9110
    8.4.1: coding names are case-insensitive; 8.4.1.3: x-gzip is gzip)."""
    names = [c.strip().lower() for c in (codings or "").split(",") if c.strip()]
    return len(names) == 1 and names[0] in GZIP_NAMES


def is_gzip(response: Response) -> bool:
    return is_gzip_coding(response.headers.get("content-encoding"))


class GzipMembers:
    """Inflates a series of gzip members in pieces of at most `OUT_CHUNK` bytes."""

    def __init__(self) -> None:
        self._inflater = zlib.decompressobj(wbits=31)
        self._fed = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of `data`; zlib.error when the bytes are not gzip."""
        while data:
            self._fed = True
            if self._inflater.eof:  # the member ended and more bytes follow: the next member
                self._inflater = zlib.decompressobj(wbits=31)
            out = self._inflater.decompress(data, OUT_CHUNK)
            if out:
                yield out
            data = (
                self._inflater.unused_data if self._inflater.eof else self._inflater.unconsumed_tail
            )
        yield from self._drain()

    def finish(self) -> Iterator[bytes]:
        """What is left once the input ended; zlib.error when the last member is cut short."""
        yield from self._drain()
        if self._fed and not self._inflater.eof:
            raise zlib.error("the gzip data ends inside a member")

    def _drain(self) -> Iterator[bytes]:
        # output zlib holds back for want of room (input all consumed): never more than one
        # deflate match, but taken in bounded pieces all the same
        while not self._inflater.eof and (out := self._inflater.decompress(b"", OUT_CHUNK)):
            yield out


class DecodedBody(StreamingResponse):
    """A decoded stream that ends the connection (no terminator) when later bytes fail to
    decode, and closes the stored blob however the reply ends."""

    def __init__(self, content: AsyncIterator[bytes], close: Callable[[], None],
                 headers: dict[str, str]) -> None:  # fmt: skip
        super().__init__(content, status_code=200, headers=headers)
        self._close = close

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        try:
            async for chunk in self.body_iterator:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                # a reader keeping up never makes `send` wait: yield the loop between pieces
                await asyncio.sleep(0)
        except zlib.error:
            return  # the server closes a reply left incomplete: the client sees it cut short
        finally:
            self._close()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def decoded(response: Response) -> Response:
    """The gzip response decompressed on the fly, for a client that refused gzip."""
    headers = {
        k: v
        for k, v in response.headers.items()
        if k.lower() not in ("content-encoding", "content-length", "content-md5", "content-range")
    }
    if not isinstance(response, StreamingResponse):  # HEAD: no body to decode
        return Response(status_code=response.status_code, headers=headers)
    source = response.body_iterator
    close_source: Callable[[], None] = getattr(response, "_close", None) or (lambda: None)

    async def inflate() -> AsyncGenerator[bytes, None]:
        members = GzipMembers()
        async for chunk in source:
            data = chunk.encode() if isinstance(chunk, str) else bytes(chunk)
            for piece in members.feed(data):
                yield piece
        for piece in members.finish():
            yield piece

    pieces = inflate()
    try:  # decode up to the first piece before answering: a head that is not gzip is a 406
        first = [await anext(pieces)]
    except StopAsyncIteration:  # an empty object
        first = []
    except zlib.error:
        await pieces.aclose()
        close_source()
        return Response(NOT_DECODABLE, status_code=406, media_type="text/plain")

    async def stream() -> AsyncIterator[bytes]:
        try:
            for piece in first:
                yield piece
            async for piece in pieces:
                yield piece
        finally:
            await pieces.aclose()
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()

    return DecodedBody(stream(), close_source, headers)
