"""Object bodies of the bindings bridge: base64 text decoded in pieces, off the event loop.

`binascii` holds the GIL for a whole call: one `b64decode` of a 120 MB value, even on a worker,
held every surface ~1 s. Here a large value is decoded on the `decode` worker 1 MiB of text at
a time, so the loop gets the GIL back between pieces, and the body stays a list of pieces
(never joined into one buffer) that is hashed on the `hash` pool and streamed to the store.
The answer for any text is the one `base64.b64decode(text, validate=True)` gives.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from reference_impl import offload
from reference_impl.bindings.bridge_json import RawText
from reference_impl.bindings.errors import BindingError

PIECE = 1 << 20  # characters decoded per call: a multiple of 4, about 1 ms each
INLINE = 64 * 1024  # smaller values decode on the loop: cheaper than a thread hop

Body = list[bytes]


def _invalid(operation: str) -> BindingError:
    return BindingError("TypeError", f"{operation}: value is not valid base64")


def _decode(text: str | RawText, operation: str) -> Body:
    """Pieces of the decoded body; blocking. Padding may only end the text (anywhere else
    `b64decode` of the whole refuses it: excess data after padding), so a piece before the
    last holding `=` is invalid, and each piece then decodes on its own."""
    data: str | memoryview = text.data if isinstance(text, RawText) else text
    pieces: Body = []
    for at in range(0, len(data), PIECE):
        cut = data[at : at + PIECE]
        piece = cut.tobytes() if isinstance(cut, memoryview) else cut.encode("ascii", "replace")
        last = at + PIECE >= len(data)
        try:
            if not last and b"=" in piece:
                raise ValueError("padding before the end")
            pieces.append(base64.b64decode(piece, validate=True))
        except ValueError:
            raise _invalid(operation) from None
    return pieces


async def decode_body(value: Any, operation: str) -> Body:
    """A bridge body: base64 text (null is an empty body), as pieces."""
    if value is None:
        return []
    if not isinstance(value, (str, RawText)):
        raise BindingError("TypeError", f"{operation}: value must be base64 text on the bridge")
    if len(value) <= INLINE:
        return _decode(value, operation)
    return await offload.run("decode", _decode, value, operation)


def _digest(algorithm: str, pieces: Body) -> bytes:
    hasher = hashlib.new(algorithm)
    for piece in pieces:
        hasher.update(piece)  # hashlib drops the GIL for large updates
    return hasher.digest()


async def digest(algorithm: str, pieces: Body) -> bytes:
    """The hash of a body on the `hash` pool."""
    return await offload.run("hash", _digest, algorithm, pieces)


def truncated(pieces: Body) -> Body:
    """The body without its last byte (the sensitivity deviation `truncate_body`)."""
    kept = [piece for piece in pieces if piece]
    if kept:
        kept[-1] = kept[-1][:-1]
    return kept


async def stream(pieces: Body) -> AsyncIterator[bytes]:
    """The pieces as the store's chunk stream."""
    for piece in pieces:
        yield piece
