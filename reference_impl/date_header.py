"""The Date header of an answer, read from the clock when its request starts running.

uvicorn refreshes the Date it sends from a loop tick once a second, so an answer's Date can lag
the wall clock by a second or more on a busy loop. An object written in that lag gets a
Last-Modified (the wall clock, storage/clock.py) later than the Date of the HEAD that reads it
back, which RFC 9110 section 8.8.2.1 forbids. The date text is formatted once per second.
"""

from __future__ import annotations

import time
from email.utils import formatdate

Headers = list[tuple[bytes, bytes]]

_cached: tuple[int, bytes] = (-1, b"")


def now_text() -> bytes:
    """The current second as an IMF-fixdate."""
    global _cached
    second = int(time.time())
    if _cached[0] != second:
        _cached = (second, formatdate(second, usegmt=True).encode("ascii"))
    return _cached[1]


def refreshed(headers: Headers) -> Headers:
    """uvicorn's default headers with their Date (when it sends one) set to the current second."""
    return [(name, now_text() if name == b"date" else value) for name, value in headers]
