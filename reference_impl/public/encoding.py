"""Content-Encoding of public reads: a gzip-stored object and the client's Accept-Encoding.

The object is stored as uploaded (gzip bytes, `Content-Encoding: gzip` in its HTTP metadata).
- `Accept-Encoding` accepting gzip: the stored bytes with `Content-Encoding: gzip` (the rule).
- no `Accept-Encoding` at all: the same, since RFC 9110 12.5.3 makes every coding acceptable.
- `Accept-Encoding` present but refusing gzip (`identity`, `gzip;q=0`, ...): the reference
  decompresses while streaming and drops Content-Encoding and Content-Length; a Range is then
  ignored (200, the whole decoded body), which RFC 9110 14.2 allows, because ranges of the
  stored bytes mean nothing to a client that cannot decode them.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

from starlette.responses import Response, StreamingResponse

GZIP_NAMES = frozenset({"gzip", "x-gzip"})


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


def is_gzip(response: Response) -> bool:
    codings = response.headers.get("content-encoding", "")
    return [c.strip().lower() for c in codings.split(",") if c.strip()] == ["gzip"]


def decoded(response: Response) -> Response:
    """The gzip response decompressed on the fly, for a client that refused gzip."""
    headers = {
        k: v
        for k, v in response.headers.items()
        if k.lower() not in ("content-encoding", "content-length", "content-md5", "content-range")
    }
    if not isinstance(response, StreamingResponse):  # HEAD: no body to decode
        return Response(status_code=response.status_code, headers=headers)
    source = response.body_iterator

    async def stream() -> AsyncIterator[bytes]:
        inflater = zlib.decompressobj(wbits=31)
        try:
            async for chunk in source:
                data = chunk if isinstance(chunk, bytes) else str(chunk).encode()
                out = inflater.decompress(data)
                if out:
                    yield out
            rest = inflater.flush()
        except zlib.error:  # labelled gzip but is not: end the body rather than crash mid-way
            return
        if rest:
            yield rest

    return StreamingResponse(stream(), status_code=200, headers=headers)
