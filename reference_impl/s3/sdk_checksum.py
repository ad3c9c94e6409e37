"""`x-amz-sdk-checksum-algorithm` must name the checksum the request carries.

An SDK sends it beside the checksum it computed, as an `x-amz-checksum-<algorithm>` header or an
aws-chunked trailer named in `x-amz-trailer`. S3 refuses (400 InvalidRequest) a request whose
header names no checksum it carries: none at all, or one of another algorithm. The reference
ignored the header (defects13), so a body an SDK meant to have checked by CRC32 was stored with
only its SHA-256 header checked, or with no checksum at all.
"""

from __future__ import annotations

from starlette.datastructures import Headers

from reference_impl.wire.s3.errors import S3Error

HEADER = "x-amz-sdk-checksum-algorithm"
PREFIX = "x-amz-checksum-"
# request headers of that prefix that are no checksum value
NOT_VALUES = frozenset({"x-amz-checksum-algorithm", "x-amz-checksum-mode", "x-amz-checksum-type"})


def check(headers: Headers) -> None:
    """InvalidRequest unless the named algorithm's checksum is a header or the trailer."""
    named = headers.get(HEADER)
    if named is None:
        return
    carried = {name for name in headers if name.startswith(PREFIX) and name not in NOT_VALUES}
    for trailer in headers.getlist("x-amz-trailer"):
        carried.update(part.strip().lower() for part in trailer.split(",") if part.strip())
    if not carried:
        raise S3Error(
            "InvalidRequest",
            f"{HEADER} specified, but no corresponding x-amz-checksum-* or x-amz-trailer"
            " headers were found.",
        )
    if PREFIX + named.strip().lower() not in carried:
        raise S3Error("InvalidRequest", f"Value for {HEADER} header is invalid.")
