"""GetObject / HeadObject `?partNumber=N`: the byte range of one part of the object.

A multipart object remembers its part sizes (`meta["parts"]`, written at completion); any
other object is one part, so `partNumber=1` is the whole object. The answer is a 206 with
the part's Content-Range and, for a multipart object, `x-amz-mp-parts-count`.
"""

from __future__ import annotations

from reference_impl.numbers import is_decimal
from reference_impl.storage.engine import ObjectRecord
from reference_impl.wire.s3.errors import S3Error

MAX_PART_NUMBER = 10_000


def part_range(
    raw: str, record: ObjectRecord, has_range: bool
) -> tuple[tuple[int, int] | None, int | None]:
    """((start, end inclusive) or None for an empty part, parts count or None if single)."""
    if not is_decimal(raw) or not 1 <= int(raw) <= MAX_PART_NUMBER:
        raise S3Error("InvalidArgument", "Part number must be an integer between 1 and 10000")
    if has_range:
        raise S3Error("InvalidRequest", "Cannot specify both Range header and partNumber query")
    number = int(raw)
    sizes: list[int] = record.meta.get("parts") or [record.size]
    if number > len(sizes):
        raise S3Error("InvalidPartNumber", PartNumberRequested=raw, ActualPartCount=str(len(sizes)))
    count = len(sizes) if "parts" in record.meta else None
    if sizes[number - 1] == 0:  # an empty object (or part): nothing to range over
        return None, count
    start = sum(sizes[: number - 1])
    return (start, start + sizes[number - 1] - 1), count
