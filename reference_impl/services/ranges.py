"""HTTP byte ranges of GetObject / HeadObject: `bytes=a-b` (inclusive), `bytes=a-`, `bytes=-n`."""

from __future__ import annotations

import re

from reference_impl.wire.s3.errors import S3Error

_RANGE = re.compile(r"\A\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*\Z", re.IGNORECASE | re.ASCII)
_BEYOND = 10**20  # a position past any object; longer digit runs are not converted (4,300 limit)


def _position(digits: str) -> int:
    digits = digits.lstrip("0") or "0"  # leading zeros are allowed (RFC 9110 14.1.2)
    return int(digits) if len(digits) <= 20 else _BEYOND


def parse_range(
    header: str | None, size: int, exclusive_end: bool = False
) -> tuple[int, int] | None:
    """(start, end inclusive) or None for a whole-object read.

    Syntactically invalid or multi-range headers are ignored (whole object), as S3 does;
    a well-formed range that selects nothing is 416 InvalidRange.
    """
    if header is None:
        return None
    match = _RANGE.match(header)
    if not match:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # suffix: the last n bytes
        count = _position(last)
        if count == 0 or size == 0:
            raise _unsatisfiable(size)
        return max(0, size - count), size - 1
    start = _position(first)
    end = _position(last) if last else size - 1
    if last and exclusive_end:
        end -= 1
    if last and end < start:
        return None
    if start >= size:
        raise _unsatisfiable(size)
    return start, min(end, size - 1)


def _unsatisfiable(size: int) -> S3Error:
    return S3Error("InvalidRange", headers={"Content-Range": f"bytes */{size}"})
