"""The transfer codings a request declares, read once for every listener that takes a body.

uvicorn's parser (httptools) and hypercorn take the `chunked` framing off a request body and
apply no other coding, yet pass `Transfer-Encoding: gzip, chunked` on untouched: a handler that
does not look reads still-gzipped bytes as the body the client meant (the S3 listener stored
them, the gateway ran them). RFC 9112 section 6.1: a server that receives a transfer coding it
does not understand SHOULD answer 501 (Not Implemented); codings are case-insensitive (7).
"""

from __future__ import annotations

from collections.abc import Iterable


def codings(lines: Iterable[str]) -> list[str]:
    """Every coding of the Transfer-Encoding lines, in order, lower case (several lines are
    one comma-separated list, RFC 9110 section 5.3)."""
    return [c.strip().lower() for line in lines for c in line.split(",") if c.strip()]


def unapplied(lines: Iterable[str]) -> bool:
    """Whether the body carries a coding the listener did not take off (anything but one
    `chunked`): its bytes are not the content the client meant."""
    found = codings(lines)
    return bool(found) and found != ["chunked"]
